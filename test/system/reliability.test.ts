// Issue 15's findings 1–9, one test each, on real processes: a private redis-server, one API and
// worker processes the tests start, stop, freeze and kill. Each test would have failed before the
// fix it names. The job lock is long (30 s) and lost workers are declared dead after 2 s, so a test
// that passes cannot be leaning on BullMQ's stalled-job check: recovery and cancellation come from
// the worker registry.
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CancelTaskDocument,
  CancelToolBatchDocument,
  ExecuteToolBatchDocument,
  GetTaskDocument,
  SpawnBackgroundDocument,
} from '../gql/graphql.js';
import { EXPRESS_QUEUE } from '../../src/jobs/catalogue.js';
import { type ApiProcess, Cluster, RedisServer, type WorkerProcess } from '../support/cluster.js';
import { newSession, submitBatch, waitForBatch } from '../support/fixtures.js';
import { eventually, sleep } from '../support/wait.js';

const DEAD_AFTER_MS = 2000;
const DB_TIMEOUT_MS = 1000;
const CANCEL_GRACE_MS = 500;
const ENV = {
  ENABLE_TEST_TOOLS: 'true',
  WORKER_CONCURRENCY: '4',
  CALLS_PER_JOB: '1',
  CANCEL_GRACE_MS: String(CANCEL_GRACE_MS),
  WORKER_DRAIN_MS: '1000',
  WORKER_DEAD_AFTER_MS: String(DEAD_AFTER_MS),
  JOB_LOCK_MS: '30000',
  DB_STATEMENT_TIMEOUT_MS: String(DB_TIMEOUT_MS),
  DB_LOCK_TIMEOUT_MS: String(DB_TIMEOUT_MS),
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: String(DB_TIMEOUT_MS),
  // Background runs whose job Redis lost are queued again by the task reaper's next pass: within
  // half a second rather than the default five.
  TASK_REAPER_INTERVAL_MS: '500',
};

let redis: RedisServer;
let cluster: Cluster;
let api: ApiProcess;
const workers: WorkerProcess[] = [];
/** Workers started with the file's settings alone (ENV), which a later test may use again. */
const plain = new Set<WorkerProcess>();

const explained = (body: () => Promise<void>) => () => cluster.explained(body, () => redis.output())();

beforeAll(async () => {
  redis = await RedisServer.start();
  cluster = await Cluster.start({ redisUrl: redis.url, env: ENV });
  api = await cluster.startApi('api');
}, 150_000);

afterAll(async () => {
  await cluster?.close();
  await redis?.kill();
}, 60_000);

async function startWorker(name: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const worker = await cluster.startWorker(name, env);
  workers.push(worker);
  if (Object.keys(env).length === 0) plain.add(worker);
  return worker;
}

/** Stops every worker still running, so that the next test decides where its calls run. */
async function stopWorkers(): Promise<void> {
  await Promise.all(workers.splice(0).map((worker) => worker.child.stop(5000)));
}

/**
 * The only worker running, with the file's settings: one left running by an earlier test (a
 * process start takes seconds on a loaded machine), else a new one. Every other worker is stopped.
 */
async function onlyPlainWorker(name: string): Promise<WorkerProcess> {
  const kept = workers.find((worker) => plain.has(worker) && worker.child.running);
  await Promise.all(workers.splice(0).filter((worker) => worker !== kept).map((worker) => worker.child.stop(5000)));
  if (!kept) return startWorker(name);
  workers.push(kept);
  return kept;
}

async function ticks(sessionRowId: string, path: string): Promise<string[]> {
  const file = await cluster.db.sessionFile.findFirst({ where: { sessionId: sessionRowId, path } });
  return (file?.content ?? '').split('\n').filter(Boolean);
}

const running = (sessionRowId: string) => cluster.db.toolCall.findMany({ where: { sessionId: sessionRowId, status: 'RUNNING' } });
const ticker = (id: string, path: string, intervalMs = 100) => ({ id, tool: 'test_ticker', args: { ticks: 100_000, intervalMs, path } });

describe('finding 1: a worker told to stop while non-idempotent calls run past its drain', () => {
  it(
    'fails them worker_shutdown (retry NEVER), and neither another worker nor anything later runs them again',
    explained(async () => {
      const leaving = await startWorker('drain-1');
      const session = await newSession(api);
      const batch = await submitBatch(api, {
        sessionId: session.id,
        calls: [ticker('t1', '/t1.log'), ticker('t2', '/t2.log')],
      });
      await eventually(async () => (await running(session.rowId)).length === 2, 20_000);
      await startWorker('drain-2');
      leaving.child.signal('SIGTERM');
      expect(await leaving.child.exited).toEqual({ code: 0, signal: null });

      const done = await waitForBatch(api, session.id, batch.batchId, 30_000);
      const byId = new Map(done.calls.nodes.map((call) => [call.callId, call]));
      for (const id of ['t1', 't2']) {
        expect(byId.get(id), id).toMatchObject({
          status: 'FAILED',
          attempt: 1,
          output: { __typename: 'ToolFailure', code: 'worker_shutdown', retry: { kind: 'NEVER' } },
        });
      }
      // Nothing ran the tickers again, now or later.
      const before = [...(await ticks(session.rowId, '/t1.log')), ...(await ticks(session.rowId, '/t2.log'))];
      expect(before.length).toBeGreaterThan(0);
      expect(before.every((line) => line.endsWith('(attempt 1)'))).toBe(true);
      await sleep(500);
      expect([...(await ticks(session.rowId, '/t1.log')), ...(await ticks(session.rowId, '/t2.log'))]).toHaveLength(before.length);
    }),
    180_000,
  );
});

describe('findings 2 and 3: a worker frozen (SIGSTOP) in the middle of its writes', () => {
  it(
    'holds no lock for longer than the database timeouts, delays no other session, and on SIGCONT stops the calls it lost at once',
    explained(async () => {
      await stopWorkers();
      // Its own application_name, so that the test sees this worker's backends and only them.
      const frozenApp = `${cluster.appName}-frozen`;
      const url = new URL(cluster.databaseUrl);
      url.searchParams.set('application_name', frozenApp);
      // Its statements may run long on a loaded machine: a ticker whose write timed out would end
      // before it could be frozen. What ends its frozen transaction is the idle-in-transaction timeout.
      const frozen = await startWorker('frozen', { DATABASE_URL: url.toString(), DB_STATEMENT_TIMEOUT_MS: '15000', DB_LOCK_TIMEOUT_MS: '15000' });
      const session = await newSession(api);
      const other = await newSession(api);
      // A ticker without pause writes to the session without pause: freezing it mid-transaction is likely.
      const batch = await submitBatch(api, { sessionId: session.id, calls: [ticker('busy', '/busy.log', 0), ticker('slow', '/slow.log', 50)] });
      await eventually(async () => (await running(session.rowId)).length === 2, 20_000);
      // Another worker, whose reaper declares the frozen one dead.
      await startWorker('thaw');

      const inTransaction = async () =>
        (await cluster.db.$queryRawUnsafe<Array<{ n: number }>>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND state IN ('idle in transaction', 'active')`,
          frozenApp,
        ))[0]!.n;
      let caught = false;
      for (let tries = 0; tries < 50 && !caught; tries++) {
        frozen.child.signal('SIGSTOP');
        await sleep(20);
        if ((await inTransaction()) > 0) caught = true;
        else {
          frozen.child.signal('SIGCONT');
          await sleep(30 + Math.random() * 30);
        }
      }
      expect(caught, 'froze the worker inside a transaction').toBe(true);
      const frozenAt = Date.now();
      try {
        // Another session is not delayed at all; the frozen one's session at most by the lock timeout.
        let started = Date.now();
        await submitBatch(api, { sessionId: other.id, calls: [{ id: 'e', tool: 'echo', args: { message: '' } }] });
        expect(Date.now() - started, 'a batch into another session').toBeLessThan(1500);
        started = Date.now();
        await submitBatch(api, { sessionId: session.id, calls: [{ id: 'same', tool: 'echo', args: { message: '' } }] });
        expect(Date.now() - started, 'a batch into the frozen worker’s session').toBeLessThan(DB_TIMEOUT_MS + 1500);
        // The server ends the frozen process's open transaction by itself.
        await eventually(async () => (await inTransaction()) === 0, DB_TIMEOUT_MS + 3000, 100, 'the frozen transaction ended');

        // Frozen longer than it may stay silent: its calls are recovered (non-idempotent: worker_lost).
        const done = await waitForBatch(api, session.id, batch.batchId, 20_000);
        expect(done.calls.nodes.map((call) => [call.callId, call.status, call.output?.__typename === 'ToolFailure' && call.output.code])).toEqual([
          ['busy', 'FAILED', 'worker_lost'],
          ['slow', 'FAILED', 'worker_lost'],
        ]);
        // Silence counts from the frozen worker's last heartbeat, a moment before it was frozen.
        expect(Date.now() - frozenAt).toBeGreaterThan(DEAD_AFTER_MS - 500);
      } finally {
        frozen.child.signal('SIGCONT');
      }
      // Resumed, the worker learns its attempts were superseded (at its next heartbeat, which says
      // so in its log) and stops them at once: nothing is written from 300 ms after that on.
      await frozen.child.waitForLine(/this worker was declared dead/, 5000);
      await sleep(300);
      const settled = [(await ticks(session.rowId, '/busy.log')).length, (await ticks(session.rowId, '/slow.log')).length];
      await sleep(1000);
      expect([(await ticks(session.rowId, '/busy.log')).length, (await ticks(session.rowId, '/slow.log')).length]).toEqual(settled);
      expect(frozen.child.running).toBe(true);
    }),
    180_000,
  );
});

describe('finding 4: heartbeats and progress of many calls at once', () => {
  it(
    'cause no deadlock',
    explained(async () => {
      await stopWorkers();
      // Slots for every call at once (32 on 2 × 16): all their heartbeats and progress writes
      // overlap, rather than four rounds of eight. What is under test is locking, so neither worker
      // declares the other dead over a heartbeat a loaded machine delays past the cluster's 2 s
      // (that recovery is finding 2's, the worker-faults' and the soak's).
      const everyCallAtOnce = { WORKER_CONCURRENCY: '16', WORKER_NEWCOMER_SLOTS: '0', WORKER_DEAD_AFTER_MS: '30000' };
      await Promise.all([startWorker('busy-1', everyCallAtOnce), startWorker('busy-2', everyCallAtOnce)]);
      const before = await deadlocks();
      const session = await newSession(api);
      const batches = await Promise.all(
        Array.from({ length: 4 }, (_, b) =>
          submitBatch(api, {
            sessionId: session.id,
            calls: Array.from({ length: 8 }, (_, n) => ({ id: `p${b}-${n}`, tool: 'sleep', args: { ms: 1500, progressIntervalMs: 20 } })),
          }),
        ),
      );
      for (const batch of batches) {
        // A loaded machine slows 1,600 progress writes a second; a deadlock would fail the batch, not slow it.
        const done = await waitForBatch(api, session.id, batch.batchId, 90_000);
        expect(done.calls.nodes.every((call) => call.status === 'SUCCEEDED')).toBe(true);
      }
      expect(await deadlocks()).toBe(before);
    }),
    180_000,
  );
});

async function deadlocks(): Promise<number> {
  const rows = await cluster.db.$queryRawUnsafe<Array<{ n: number }>>(`SELECT deadlocks::int AS n FROM pg_stat_database WHERE datname = current_database()`);
  return rows[0]!.n;
}

describe('finding 5: cancelling work whose worker was just killed', () => {
  it(
    'ends its calls and its background run within the cancel grace, not after the job lock or the dead-worker delay',
    explained(async () => {
      await stopWorkers();
      const victim = await startWorker('victim');
      const session = await newSession(api);
      const batch = await submitBatch(api, {
        sessionId: session.id,
        calls: [
          { id: 'c1', tool: 'sleep', args: { ms: 60_000 } },
          ticker('c2', '/c2.log'),
        ],
      });
      const spawned = (await api.query(SpawnBackgroundDocument, { sessionId: session.id, tool: 'report_progress', args: { steps: 600, intervalMs: 100 } })).spawnBackground;
      if (spawned.__typename !== 'BackgroundRun') throw new Error(JSON.stringify(spawned));
      await eventually(async () => (await running(session.rowId)).length === 2, 20_000);
      await eventually(async () => (await api.query(GetTaskDocument, { id: spawned.taskId })).task?.state === 'RUNNING', 20_000);

      victim.child.signal('SIGKILL');
      await victim.child.exited;
      const started = Date.now();
      const cancelled = (await api.query(CancelToolBatchDocument, { sessionId: session.id, batchId: batch.batchId })).cancelToolBatch;
      expect(cancelled.__typename).toBe('ToolBatch');
      const cancelTask = (await api.query(CancelTaskDocument, { id: spawned.taskId })).cancelTask;
      expect(cancelTask.__typename).toBe('Task');
      const done = await waitForBatch(api, session.id, batch.batchId, 10_000);
      const task = await eventually(async () => {
        const { task } = await api.query(GetTaskDocument, { id: spawned.taskId });
        return task?.state === 'CANCELED' ? task : null;
      }, 10_000);
      const took = Date.now() - started;
      expect(done.calls.nodes.map((call) => call.status)).toEqual(['CANCELLED', 'CANCELLED']);
      expect(task.state).toBe('CANCELED');
      // Each ToolCallCompleted says what the record keeps.
      const completions = await cluster.db.event.findMany({ where: { sessionId: session.rowId, type: 'ToolCallCompleted' }, orderBy: { seq: 'asc' } });
      expect(Object.fromEntries(completions.map((event) => [event.callId, (event.payload as { durationMs: number }).durationMs]))).toEqual(
        Object.fromEntries(done.calls.nodes.map((call) => [call.callId, call.durationMs])),
      );
      // No worker is alive, so no reaper could have ended them, and the job lock is 30 s: only the
      // cancel path did. The margin over the grace is for a loaded machine (2 cores, several test files).
      expect(took).toBeLessThan(CANCEL_GRACE_MS + 4000);
    }),
    180_000,
  );
});

describe('findings 6 and 7: Redis away', () => {
  // Redis comes back even when an assertion fails while it is away: the file's later tests need it.
  let redisDown = false;
  afterEach(async () => {
    if (redisDown) await redis.restart();
    redisDown = false;
  });

  it(
    'mutations that record work answer within a second with the work QUEUED, which runs when Redis returns; a worker stopped right after the outage exits cleanly',
    explained(async () => {
      await stopWorkers();
      const worker = await startWorker('redis-1');
      const session = await newSession(api);
      await redis.kill();
      redisDown = true;
      const timings: number[] = [];
      // Each mutation is timed; one that took a second or more is made once more and the second
      // answer is the one that counts: a loaded machine may stall one request, while a mutation that
      // waited on Redis would wait every time.
      const timed = async <T>(submit: () => Promise<T>): Promise<T[]> => {
        const answers: T[] = [];
        for (let attempt = 1; ; attempt++) {
          const started = Date.now();
          answers.push(await submit());
          const ms = Date.now() - started;
          if (ms < 1000 || attempt === 2) {
            timings.push(ms);
            return answers;
          }
        }
      };
      const batches: string[] = [];
      let submitted = 0;
      for (let n = 0; n < 5; n++) {
        for (const batch of await timed(() => submitBatch(api, { sessionId: session.id, calls: [{ id: `r${submitted++}`, tool: 'echo', args: { message: String(n) } }] }))) {
          expect(batch.calls.nodes.map((call) => call.status)).toEqual(['QUEUED']);
          batches.push(batch.batchId);
        }
      }
      const runs = await timed(async () => (await api.query(SpawnBackgroundDocument, { sessionId: session.id, tool: 'report_progress', args: { steps: 2, intervalMs: 10 } })).spawnBackground);
      for (const spawned of runs) {
        if (spawned.__typename !== 'BackgroundRun') throw new Error(JSON.stringify(spawned));
        expect(spawned.status).toBe('QUEUED');
      }
      expect(Math.max(...timings), `answers while Redis is away: ${timings.join(', ')} ms`).toBeLessThan(1000);

      await sleep(1000);
      await redis.restart();
      redisDown = false;
      for (const batchId of batches) expect((await waitForBatch(api, session.id, batchId, 30_000)).status).toBe('COMPLETED');
      for (const spawned of runs) {
        const taskId = spawned.__typename === 'BackgroundRun' ? spawned.taskId : '';
        await eventually(async () => (await api.query(GetTaskDocument, { id: taskId })).task?.state === 'SUCCEEDED', 30_000);
      }

      // Finding 7: stopped right after the outage, the worker closes cleanly and promptly.
      const started = Date.now();
      worker.child.signal('SIGTERM');
      expect(await worker.child.exited).toEqual({ code: 0, signal: null });
      expect(Date.now() - started).toBeLessThan(10_000);
    }),
    180_000,
  );
});

describe('finding 8: PostgreSQL connections cut while mutations arrive', () => {
  it(
    'answers every mutation with its result or a typed retryable SERVICE_UNAVAILABLE, never INTERNAL; a retry with the same key records it once',
    explained(async () => {
      await onlyPlainWorker('cut-1');
      const session = await newSession(api);
      const answers: Array<{ key: string; typename?: string; codes: string[] }> = [];
      const stop = Date.now() + 3000;
      const submitter = async (lane: number) => {
        for (let n = 0; Date.now() < stop; n++) {
          const key = `k${lane}-${n}`;
          const response = await api.request(ExecuteToolBatchDocument, { sessionId: session.id, idempotencyKey: key, calls: [{ id: key, tool: 'echo', args: { message: key } }] });
          answers.push({
            key,
            typename: response.data?.executeToolBatch.__typename,
            codes: (response.errors ?? []).map((error) => String((error.extensions as { code?: string } | undefined)?.code)),
          });
        }
      };
      const cutter = async () => {
        let cut = 0;
        while (Date.now() < stop) {
          cut += await cluster.cutDatabaseConnections();
          await sleep(50);
        }
        return cut;
      };
      const [cut] = await Promise.all([cutter(), submitter(1), submitter(2), submitter(3)]);
      expect(cut).toBeGreaterThan(0);
      const unexpected = answers.filter((answer) => answer.typename !== 'ToolBatch' && !(answer.codes.length > 0 && answer.codes.every((code) => code === 'SERVICE_UNAVAILABLE')));
      expect(unexpected).toEqual([]);
      // Every refused submission goes through on retry, and recorded ones are not recorded twice.
      for (const answer of answers.filter((a) => a.typename !== 'ToolBatch')) {
        const batch = await submitBatch(api, { sessionId: session.id, idempotencyKey: answer.key, calls: [{ id: answer.key, tool: 'echo', args: { message: answer.key } }] });
        expect(batch.calls.nodes).toHaveLength(1);
      }
      expect(await cluster.db.toolCall.count({ where: { sessionId: session.rowId } })).toBe(answers.length);
    }),
    180_000,
  );
});

describe('finding 9: the final write of a successful non-idempotent call fails', () => {
  it(
    'is retried (fenced by the attempt) until it lands: the call ends SUCCEEDED with its result, not worker_lost',
    explained(async () => {
      await onlyPlainWorker('final-1');
      const session = await newSession(api);
      const batch = await submitBatch(api, { sessionId: session.id, calls: [{ id: 'once', tool: 'test_ticker', args: { ticks: 8, intervalMs: 100, path: '/once.log' } }] });
      const call = await eventually(async () => (await running(session.rowId))[0], 20_000);
      // Hold the call's row, as a stuck transaction would, across the end of the run: every write
      // of the worker to it fails on the lock timeout for three times that long.
      const holder = new pg.Client({ connectionString: cluster.plainDatabaseUrl });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM tool_call WHERE id = $1 FOR UPDATE', [call.id]);
        await eventually(async () => (await ticks(session.rowId, '/once.log')).length === 8, 10_000);
        await sleep(3 * DB_TIMEOUT_MS);
        expect((await cluster.db.toolCall.findUniqueOrThrow({ where: { id: call.id } })).status).toBe('RUNNING');
        await holder.query('COMMIT');
      } finally {
        await holder.end();
      }
      const done = await waitForBatch(api, session.id, batch.batchId, 20_000);
      expect(done.calls.nodes[0]).toMatchObject({ status: 'SUCCEEDED', attempt: 1, output: { __typename: 'ToolSuccess', value: { ticks: 8 } } });
      expect((await ticks(session.rowId, '/once.log')).every((line) => line.endsWith('(attempt 1)'))).toBe(true);
    }),
    180_000,
  );
});

describe('the soak: a non-idempotent call whose job reaches one worker twice', () => {
  it(
    'runs once: the copy that arrives while the first still waits to claim it is not run beside it',
    explained(async () => {
      await stopWorkers();
      // Statements of this worker wait for the session's row as long as the test holds it.
      const worker = await startWorker('twice-1', { DB_STATEMENT_TIMEOUT_MS: '30000', DB_LOCK_TIMEOUT_MS: '30000' });
      const session = await newSession(api);
      const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
      // A calls job is on the main queue or its express twin (as the tenant's backlog stands).
      const queues = ['calls', EXPRESS_QUEUE].map((name) => new Queue(name, { connection, prefix: `${cluster.prefix}:bull` }));
      const activeJobOf = async (callId: string) =>
        (await Promise.all(queues.map(async (queue) => (await queue.getActive()).map((job) => ({ job, queue })))))
          .flat()
          .filter(({ job }) => (job.data as { calls?: Array<{ callId: string }> }).calls?.some((call) => call.callId === callId));
      const holder = new pg.Client({ connectionString: cluster.plainDatabaseUrl });
      await holder.connect();
      try {
        // The session's row held (as the event append takes it): the worker's first write that
        // announces something for the session — the claim of `first` — waits in flight…
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM session WHERE id = $1 FOR NO KEY UPDATE', [session.rowId]);
        const first = await submitBatch(api, { sessionId: session.id, calls: [{ id: 'first', tool: 'test_ticker', args: { ticks: 2, intervalMs: 10, path: '/first.log' } }] });
        await eventually(async () => (await activeJobOf('first')).length === 1, 20_000, 50, 'the first job taken');
        // …so the claim of `twice` queues behind it; then a second copy of its job (as a redispatch
        // after a Redis restart or a lost worker writes one) reaches the same worker, whose claim queues too.
        const twice = await submitBatch(api, { sessionId: session.id, calls: [{ id: 'twice', tool: 'test_ticker', args: { ticks: 5, intervalMs: 50, path: '/twice.log' } }] });
        const [{ job, queue }] = await eventually(async () => {
          const jobs = await activeJobOf('twice');
          return jobs.length === 1 ? (jobs as [(typeof jobs)[number]]) : undefined;
        }, 20_000, 50, 'the job of `twice` taken');
        await queue.add(job.name, job.data, { jobId: `${job.id}-copy` });
        // Taken: active beside the first, or already done (the worker saw it had that attempt in hand).
        await eventually(async () => ['active', 'completed'].includes(await queue.getJobState(`${job.id}-copy`)), 20_000, 50, 'the copy taken by the same worker');
        await sleep(300);
        expect(await cluster.db.toolCall.count({ where: { sessionId: session.rowId, status: 'RUNNING', callId: 'twice' } })).toBe(0);
        await holder.query('COMMIT');

        for (const batch of [first, twice]) expect((await waitForBatch(api, session.id, batch.batchId, 30_000)).status).toBe('COMPLETED');
      } finally {
        await holder.end();
        for (const queue of queues) await queue.close();
        connection.disconnect();
      }
      const lines = await ticks(session.rowId, '/twice.log');
      expect(lines).toEqual([1, 2, 3, 4, 5].map((tick) => `tick ${tick} (attempt 1)`));
      expect(await cluster.db.event.count({ where: { sessionId: session.rowId, callId: 'twice', type: 'ToolCallStarted' } })).toBe(1);
      expect(worker.child.running).toBe(true);
    }),
    180_000,
  );
});
