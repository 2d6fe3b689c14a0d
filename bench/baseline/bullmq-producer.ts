// Raw BullMQ baseline, producer side: what an expert would run by hand next to the worker. The
// producer has its own connection and adds jobs with `addBulk` in chunks of toolrun's batch size;
// completions are observed through QueueEvents (its own connection), the analogue of a subscriber
// receiving ToolCallCompleted. Times are taken here, so no IPC is inside a measurement.
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { serve } from './serve.js';

const { REDIS_URL, BENCH_QUEUE, BENCH_PREFIX, BENCH_EVENTS_MAXLEN } = process.env;
if (!REDIS_URL || !BENCH_QUEUE || !BENCH_PREFIX) throw new Error('REDIS_URL, BENCH_QUEUE and BENCH_PREFIX are required');

const producerConnection = new Redis(REDIS_URL);
const eventsConnection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
const queue = new Queue(BENCH_QUEUE, {
  connection: producerConnection,
  prefix: BENCH_PREFIX,
  // Jobs are removed once done, as toolrun's are; the event stream is long enough that QueueEvents
  // never misses a completion when it lags behind a burst (BullMQ's default keeps 10,000 events).
  defaultJobOptions: { removeOnComplete: true, removeOnFail: true },
  streams: { events: { maxLen: Number(BENCH_EVENTS_MAXLEN ?? 200_000) } },
});
const events = new QueueEvents(BENCH_QUEUE, { connection: eventsConnection, prefix: BENCH_PREFIX });
await queue.waitUntilReady();
await events.waitUntilReady();

// Completions can arrive before `add` returns the job id: keep the ids seen and those awaited.
let seen = new Map<string, number>();
let awaited = new Map<string, (at: number) => void>();
events.on('completed', ({ jobId }) => {
  const at = performance.now();
  const waiter = awaited.get(jobId);
  if (waiter) {
    awaited.delete(jobId);
    waiter(at);
  } else seen.set(jobId, at);
});
events.on('failed', ({ jobId, failedReason }) => console.error(`job ${jobId} failed: ${failedReason}`));

function completion(jobId: string): Promise<number> {
  const at = seen.get(jobId);
  if (at !== undefined) {
    seen.delete(jobId);
    return Promise.resolve(at);
  }
  return new Promise((resolve) => awaited.set(jobId, resolve));
}

function reset(): void {
  seen = new Map();
  awaited = new Map();
}

/** `jobs` no-op jobs from `streams` concurrent producers, each adding its chunks concurrently; time from the first add to the last completion. */
async function throughput({ jobs, streams, chunk }: { jobs: number; streams: number; chunk: number }) {
  reset();
  const perStream = Math.ceil(jobs / streams);
  const done: Array<Promise<number>> = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: streams }, async (_, stream) => {
      const count = Math.min(perStream, jobs - stream * perStream);
      const chunks = [];
      for (let offset = 0; offset < count; offset += chunk) {
        const size = Math.min(chunk, count - offset);
        chunks.push(Array.from({ length: size }, (_, i) => ({ name: 'noop', data: { a: stream * perStream + offset + i, b: 1 } })));
      }
      await Promise.all(chunks.map(async (bulk) => {
        for (const job of await queue.addBulk(bulk)) done.push(completion(job.id!));
      }));
    }),
  );
  const finished = Math.max(...(await Promise.all(done)));
  return { jobs: done.length, ms: finished - started };
}

/** One job at a time: add → its QueueEvents `completed`. */
async function latency({ samples }: { samples: number }) {
  reset();
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    const job = await queue.add('noop', { a: i, b: 1 });
    latencies.push((await completion(job.id!)) - started);
  }
  return { latencies };
}

serve({ pid: process.pid }, { throughput, latency }, async () => {
  await events.close();
  await queue.close();
  producerConnection.disconnect();
  eventsConnection.disconnect();
});
