// Plain fan-out baseline: a `ws` server that sends the same frames (count and size, each at the
// same offset from the first) that toolrun's subscribers received, to the same number of sockets,
// as an expert's broadcast would: each frame encoded once, the same bytes written to every socket.
// A frame carries its sequence number and the moment its event happened (the start plus its
// offset), the analogue of an event's `at`: its latency counts any wait for the broadcaster, as
// toolrun's does.
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocketServer } from 'ws';
import { serve } from './serve.js';

const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
await new Promise<void>((resolve) => server.once('listening', resolve));
const address = server.address();
const port = typeof address === 'object' && address ? address.port : 0;

function frame(seq: number, happenedAt: number, size: number): Buffer {
  const head = `{"seq":${seq},"t":${happenedAt},"pad":"`;
  return Buffer.from(`${head}${'x'.repeat(Math.max(0, size - head.length - 2))}"}`);
}

async function broadcast({ sockets, offsetsMs, sizes }: { sockets: number; offsetsMs: number[]; sizes: number[] }) {
  const deadline = Date.now() + 60_000;
  while (server.clients.size < sockets) {
    if (Date.now() > deadline) throw new Error(`only ${server.clients.size} of ${sockets} sockets connected within 60 s`);
    await sleep(20);
  }
  const clients = [...server.clients];
  const start = Date.now();
  for (let seq = 0; seq < sizes.length; seq++) {
    const wait = start + offsetsMs[seq]! - Date.now();
    if (wait > 0) await sleep(wait);
    const bytes = frame(seq, start + offsetsMs[seq]!, sizes[seq]!);
    for (const socket of clients) socket.send(bytes, { binary: false });
  }
  return { frames: sizes.length };
}

serve({ port, pid: process.pid }, { broadcast }, async () => {
  for (const socket of server.clients) socket.terminate();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
