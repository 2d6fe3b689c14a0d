// Raw BullMQ baseline, worker side: a no-op processor at concurrency 50 on its own connection
// (`maxRetriesPerRequest: null`, as BullMQ requires for workers), ready before the bench starts
// any clock.
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { serve } from './serve.js';

const { REDIS_URL, BENCH_QUEUE, BENCH_PREFIX } = process.env;
if (!REDIS_URL || !BENCH_QUEUE || !BENCH_PREFIX) throw new Error('REDIS_URL, BENCH_QUEUE and BENCH_PREFIX are required');

const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
const worker = new Worker(BENCH_QUEUE, async () => undefined, { connection, prefix: BENCH_PREFIX, concurrency: 50 });
worker.on('error', (error) => console.error('worker error', error));
await worker.waitUntilReady();

serve({ pid: process.pid }, {}, async () => {
  await worker.close();
  connection.disconnect();
});
