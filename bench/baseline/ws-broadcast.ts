// Plain fan-out baseline: a `ws` server that sends the messages toolrun's subscribers received (the
// same payloads, each when the last event it carries happened) to the same number of sockets, as an
// expert's broadcast would: each frame encoded once, the same bytes written to every socket, so its
// clients parse what toolrun's parse. A frame carries its sequence number and the moments its
// events happened (the start plus their offsets), the analogue of events' `at`: their latency counts
// any wait for the broadcaster, as toolrun's does.
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocketServer } from 'ws';
import { serve } from './serve.js';

const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
await new Promise<void>((resolve) => server.once('listening', resolve));
const address = server.address();
const port = typeof address === 'object' && address ? address.port : 0;

/** A frame carrying its sequence number, when each of its events happened and the payload toolrun sent. */
function frame(seq: number, happenedAt: number[], payload: string): Buffer {
  return Buffer.from(`{"seq":${seq},"ts":${JSON.stringify(happenedAt)},"payload":${payload}}`);
}

async function broadcast({ sockets, messages }: { sockets: number; messages: Array<{ payload: string; offsetsMs: number[] }> }) {
  const deadline = Date.now() + 60_000;
  while (server.clients.size < sockets) {
    if (Date.now() > deadline) throw new Error(`only ${server.clients.size} of ${sockets} sockets connected within 60 s`);
    await sleep(20);
  }
  const clients = [...server.clients];
  const start = Date.now();
  for (let seq = 0; seq < messages.length; seq++) {
    const { payload, offsetsMs } = messages[seq]!;
    // Sent when the last of its events happened, as toolrun could send it no earlier.
    const wait = start + Math.max(...offsetsMs) - Date.now();
    if (wait > 0) await sleep(wait);
    const bytes = frame(seq, offsetsMs.map((offset) => start + offset), payload);
    for (const socket of clients) socket.send(bytes, { binary: false });
  }
  return { frames: messages.length };
}

serve({ port, pid: process.pid }, { broadcast }, async () => {
  for (const socket of server.clients) socket.terminate();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
