// npm run bench: throughput and memory of toolrun, each printed as a ratio against a baseline
// measured in the same run on the same machine (so the numbers travel between machines).
//
//   1. end-to-end calls/s (submit over GraphQL → executed by the worker → every event written)
//      vs. raw BullMQ no-op jobs/s at the same concurrency: the price of durability and events.
//   2. event log writes/s with group commit (64 concurrent writers) vs. one transaction per
//      event: what the group commit buys on one busy session.
//   3. heap growth per completed call after a long run vs. the heap after warm-up.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import type { EventDraft } from '../src/model/events.js';
import { startWorkerRuntime } from '../src/jobs/worker-runtime.js';
import { createLogger } from '../src/logger.js';
import { closeServices, createServices } from '../src/services.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/toolrun_bench';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const BATCH = 100;
const CONCURRENCY = 64;

async function recreateDatabase(): Promise<void> {
  const admin = new URL(DATABASE_URL);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await client.end();
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/migrate.ts', 'deploy'], { env: { ...process.env, DATABASE_URL }, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
}

function makeServices() {
  const config = loadConfig(process.env, {
    DATABASE_URL,
    REDIS_URL,
    REDIS_PREFIX: `toolrun-bench-${randomUUID()}`,
    LOG_LEVEL: 'silent',
    WORKER_CONCURRENCY: CONCURRENCY,
    DATABASE_POOL_SIZE: 20,
  });
  return createServices(config, createLogger(config));
}

async function baselineBullmq(jobs: number): Promise<number> {
  const services = makeServices();
  const prefix = `${services.config.REDIS_PREFIX}:raw`;
  const queue = new Queue('raw', { connection: services.redis.bullmq, prefix });
  let done = 0;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const worker = new Worker('raw', async () => undefined, { connection: services.redis.bullmq, prefix, concurrency: CONCURRENCY });
  worker.on('completed', () => {
    if (++done === jobs) finish();
  });
  const started = performance.now();
  for (let i = 0; i < jobs; i += BATCH) {
    await queue.addBulk(Array.from({ length: Math.min(BATCH, jobs - i) }, (_, j) => ({ name: 'noop', data: { i: i + j }, opts: { removeOnComplete: true } })));
  }
  await finished;
  const rate = jobs / ((performance.now() - started) / 1000);
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  await closeServices(services);
  return rate;
}

async function endToEnd(calls: number): Promise<{ rate: number; heapPerCallBytes: number; heapBaseline: number }> {
  const services = makeServices();
  const runtime = await startWorkerRuntime(services);
  const { tenant } = await services.apiKeys.createKey(`bench-${randomUUID().slice(0, 8)}`);
  const session = await services.sessions.create(tenant.id, { title: 'bench' });
  const runBatches = async (count: number) => {
    const batches = [];
    for (let i = 0; i < count; i += BATCH) {
      batches.push(
        (await services.batches.submit({
          tenantId: tenant.id,
          apiKeyId: null,
          sessionId: session.id,
          calls: Array.from({ length: Math.min(BATCH, count - i) }, (_, j) => ({ tool: 'echo', args: { text: `call ${i + j}` } })),
        })).batch,
      );
    }
    for (const batch of batches) await services.batches.waitForBatch(tenant.id, batch, 120_000);
  };
  await runBatches(500); // warm-up
  global.gc?.();
  const heapBaseline = process.memoryUsage().heapUsed;
  const started = performance.now();
  await runBatches(calls);
  const rate = calls / ((performance.now() - started) / 1000);
  global.gc?.();
  const heapPerCallBytes = Math.max(0, process.memoryUsage().heapUsed - heapBaseline) / calls;
  await runtime.stop(1000);
  await services.queues.calls.obliterate({ force: true });
  await closeServices(services);
  return { rate, heapPerCallBytes, heapBaseline };
}

async function eventLogRates(events: number): Promise<{ grouped: number; single: number }> {
  const services = makeServices();
  const { tenant } = await services.apiKeys.createKey(`bench-${randomUUID().slice(0, 8)}`);
  const session = await services.sessions.create(tenant.id, {});
  // Not a catalogue event: nothing reads it back.
  const draft = { type: 'BenchEvent', payload: { ok: true } } as unknown as EventDraft;
  let started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < events) await services.eventLog.write(session.id, async ({ emit }) => emit({ ...draft, sessionId: session.id }));
    }),
  );
  const grouped = events / ((performance.now() - started) / 1000);
  // Baseline: the obvious design, one transaction per event taking the session lock.
  started = performance.now();
  next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < events) {
        await services.db.$transaction(async (tx) => {
          const [row] = await tx.$queryRawUnsafe<Array<{ seq: bigint }>>(`UPDATE session SET event_seq = event_seq + 1 WHERE id = $1::uuid RETURNING event_seq AS seq`, session.id);
          await tx.$executeRawUnsafe(`INSERT INTO event (session_id, seq, type, payload) VALUES ($1::uuid, $2, 'BenchEvent', '{"ok":true}'::jsonb)`, session.id, row!.seq);
        });
      }
    }),
  );
  const single = events / ((performance.now() - started) / 1000);
  await closeServices(services);
  return { grouped, single };
}

const fmt = (n: number) => n.toFixed(n >= 100 ? 0 : 2);

await recreateDatabase();
console.log(`toolrun bench: ${CALLS} calls in batches of ${BATCH}, worker concurrency ${CONCURRENCY}`);
const raw = await baselineBullmq(CALLS);
const e2e = await endToEnd(CALLS);
const log = await eventLogRates(3000);
console.log(`
| measure | toolrun | baseline | ratio |
| --- | --- | --- | --- |
| calls/s end to end vs raw BullMQ no-op jobs/s | ${fmt(e2e.rate)} | ${fmt(raw)} | ${(e2e.rate / raw).toFixed(2)} |
| event writes/s, group commit vs one tx per event | ${fmt(log.grouped)} | ${fmt(log.single)} | ${(log.grouped / log.single).toFixed(2)} |
| heap growth per call (bytes) vs heap after warm-up | ${fmt(e2e.heapPerCallBytes)} | ${fmt(e2e.heapBaseline)} | ${((e2e.heapPerCallBytes * CALLS) / e2e.heapBaseline).toFixed(3)} |
`);
const targets = [
  { name: 'end-to-end rate is at least 15% of raw BullMQ', ok: e2e.rate / raw >= 0.15 },
  { name: 'group commit at least doubles event throughput', ok: log.grouped / log.single >= 2 },
  { name: `heap grows by less than 2 KiB per completed call`, ok: e2e.heapPerCallBytes < 2048 },
];
for (const target of targets) console.log(`${target.ok ? 'PASS' : 'FAIL'}  ${target.name}`);
process.exit(targets.every((target) => target.ok) ? 0 : 1);
