// npm run bench [-- --quick] [--only P1,P3] [--reps N]: what toolrun's users get, measured from the
// outside (GraphQL over HTTP and graphql-ws against an API process and a worker process), each
// figure interleaved with a raw baseline run in the same way (BullMQ producer and worker child
// processes, or a plain `ws` server), medians of the repetitions, one table at the end and every
// raw number in bench/results.json. Exits 0 when the figures were measured, whether or not they
// meet their targets; non-zero when a run broke (lost or duplicated work, a crashed process, a
// timeout). See "Benchmarks" in the README.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { cancel } from './figures/cancel.js';
import { fairness } from './figures/fairness.js';
import { fanout, fanoutOfEvents } from './figures/fanout.js';
import { latency } from './figures/latency.js';
import { throughput } from './figures/throughput.js';
import { type Bench, type FigureResult, FULL, QUICK, type Row } from './support/bench.js';
import { Child, interrupted, killChildrenOnExit, killLeftovers, ROOT, stopAll } from './support/children.js';
import { CpuMeter } from './support/cpu.js';
import { createKey, databaseName, recreateDatabase, startToolrun, TOOLRUN_COMMAND } from './support/deployment.js';
import { gitInfo, machineInfo, table } from './support/report.js';
import { within } from './support/wait.js';

const FIGURES: Array<[string, (bench: Bench) => Promise<FigureResult>]> = [
  ['P1', throughput],
  ['P2', latency],
  ['P3', fanout],
  ['P3e', fanoutOfEvents],
  ['P4', cancel],
  ['Fairness', fairness],
];

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, only: { type: 'string' }, reps: { type: 'string' } } });
const only = values.only?.split(',').map((name) => name.trim().toLowerCase());
const sizes = { ...(values.quick ? QUICK : FULL), ...(values.reps ? { reps: Math.max(1, Number(values.reps) || 1) } : {}) };
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/toolrun_bench';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `toolrun-bench-${randomUUID().slice(0, 8)}`;
const RESULTS = join(ROOT, 'bench', 'results.json');

const clock = performance.now();
const log = (text: string) => console.log(`[${((performance.now() - clock) / 1000).toFixed(1).padStart(6)} s] ${text}`);

const db = new pg.Client({ connectionString: DATABASE_URL, application_name: 'toolrun-bench-harness' });
const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 3 });
let dbConnected = false;

/** Stops every process and deletes this run's Redis keys (toolrun's prefix and the baseline's `<prefix>-raw`). */
async function cleanup(): Promise<void> {
  await stopAll(15_000);
  if (redis.status === 'ready') {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  }
  redis.disconnect();
  if (dbConnected) await db.end().catch(() => undefined);
}

killChildrenOnExit(cleanup);
const leftovers = killLeftovers();
if (leftovers > 0) log(`killed ${leftovers} processes a previous bench run left behind`);

const startedAt = new Date().toISOString();
const machineAtStart = machineInfo();
const rows: Row[] = [];
const raw: Record<string, unknown> = {};
const errors: Array<{ figure: string; message: string }> = [];

try {
  log(`toolrun bench${values.quick ? ' --quick' : ''}: toolrun runs as \`${TOOLRUN_COMMAND.kind}\`; database ${databaseName(DATABASE_URL)} (recreated), Redis ${REDIS_URL} prefix ${prefix}`);
  const baselineEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    REDIS_URL,
    BENCH_QUEUE: `raw-${randomUUID().slice(0, 8)}`,
    BENCH_PREFIX: `${prefix}-raw`,
    BENCH_EVENTS_MAXLEN: String(sizes.p1Calls * 8),
  };
  const baselineChild = (name: string, script: string) => new Child(name, ['--import', 'tsx', `bench/baseline/${script}`], baselineEnv, { ipc: true, essential: true });
  // The baseline processes start while the database is recreated; they need only Redis.
  const producer = baselineChild('baseline producer', 'bullmq-producer.ts');
  const worker = baselineChild('baseline worker', 'bullmq-worker.ts');
  const broadcaster = baselineChild('baseline ws server', 'ws-broadcast.ts');
  await recreateDatabase(DATABASE_URL);
  log('database recreated and migrated; starting toolrun and creating two tenants');
  const settings = { databaseUrl: DATABASE_URL, redisUrl: REDIS_URL, prefix };
  const [toolrun, keyA, keyB] = await Promise.all([
    startToolrun(settings).then((started) => (log('toolrun API ready'), started)),
    createKey(settings, `${prefix}-a`),
    createKey(settings, `${prefix}-b`),
  ]);
  log('API keys of tenants A and B created');
  const [, , broadcasterReady] = await within('baseline processes starting', 60_000, Promise.all([producer.ready.promise, worker.ready.promise, broadcaster.ready.promise]));
  await db.connect();
  dbConnected = true;
  await redis.connect();
  const bench: Bench = {
    sizes,
    toolrun,
    client: toolrun.client(keyA),
    clientB: toolrun.client(keyB),
    baseline: { producer, worker, broadcaster, broadcasterUrl: `ws://127.0.0.1:${(broadcasterReady as { port: number }).port}` },
    db,
    databaseName: databaseName(DATABASE_URL),
    redis,
    cpu: new CpuMeter(db, redis, databaseName(DATABASE_URL)),
    log,
  };
  await within('a first call through toolrun (API and worker up)', 60_000, bench.client.primedSession('setup'));
  log(`toolrun API pid ${toolrun.api.pid}, worker pid ${toolrun.worker.pid}; baseline producer ${producer.pid}, worker ${worker.pid}, ws server ${broadcaster.pid}`);

  for (const [name, figure] of FIGURES) {
    if (only && !only.includes(name.toLowerCase())) continue;
    try {
      const result = await figure(bench);
      rows.push(...result.rows);
      raw[name] = result.raw;
    } catch (error) {
      if (interrupted()) break;
      const message = error instanceof Error ? error.message : String(error);
      log(`${name} BROKEN: ${message}`);
      // What the toolrun processes said last, for the diagnosis.
      for (const child of [toolrun.api, toolrun.worker]) log(child.output(15));
      errors.push({ figure: name, message });
      rows.push({ figure: name, unit: '', baseline: null, toolrun: null, ratio: null, target: '', pass: null, broken: message });
    }
  }
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  if (!interrupted()) log(`setup BROKEN: ${message}`);
  errors.push({ figure: 'setup', message });
} finally {
  // After an interruption the signal handler stops everything and exits.
  if (interrupted()) await new Promise(() => undefined);
  await cleanup();
}

const results = {
  startedAt,
  finishedAt: new Date().toISOString(),
  durationSeconds: (performance.now() - clock) / 1000,
  mode: values.quick ? 'quick' : 'full',
  ok: errors.length === 0,
  errors,
  git: gitInfo(),
  machine: { ...machineAtStart, loadAverageAtEnd: machineInfo().loadAverage },
  toolrunCommand: TOOLRUN_COMMAND.kind,
  sizes,
  table: rows,
  figures: raw,
};
writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
console.log(`\n${table(rows)}\n`);
log(`${results.machine.cores} cores, 1-minute load average ${results.machine.loadAverage[0]!.toFixed(1)} at the start and ${results.machine.loadAverageAtEnd[0]!.toFixed(1)} at the end (other work on the machine slows both sides)`);
log(`${errors.length === 0 ? 'done' : `${errors.length} figure(s) BROKEN`}; raw numbers in ${RESULTS}`);
process.exit(errors.length === 0 ? 0 : 1);
