// Redis restarted and PostgreSQL connections cut while calls run: the processes reconnect by
// themselves, no submitted call is lost, every call ends terminal, and a subscriber still gets
// the whole event sequence. Redis here is a private redis-server the test starts and restarts.
// Also: shutting down while Redis is away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db.js';
import { encodeEventCursor } from '../../src/realtime/cursors.js';
import { ToolCallEventsDocument } from '../gql/graphql.js';
import { type ApiProcess, Cluster, RedisServer, type WorkerProcess } from '../support/cluster.js';
import { batchesCompleted, eventsOf, expectCompleteSequence } from '../support/events.js';
import { newSession, submitBatch, waitForBatch } from '../support/fixtures.js';
import { eventually, sleep } from '../support/wait.js';

let redis: RedisServer;
let cluster: Cluster;
let api: ApiProcess;
let worker1: WorkerProcess;
let worker2: WorkerProcess;

/** A failing test says what the processes said. */
const explained = (body: () => Promise<void>) => () => cluster.explained(body, () => redis.output())();

beforeAll(async () => {
  redis = await RedisServer.start();
  // A short grace keeps the shutdown deadline short (5 × CANCEL_GRACE_MS + 10 s).
  // One call per job, so that calls wait in Redis (and are lost with it) rather than in a worker's hands.
  cluster = await Cluster.start({ redisUrl: redis.url, env: { WORKER_CONCURRENCY: '4', CALLS_PER_JOB: '1', CANCEL_GRACE_MS: '200' } });
  [api, worker1, worker2] = await Promise.all([cluster.startApi('api'), cluster.startWorker('worker-1'), cluster.startWorker('worker-2')]);
}, 150_000);

afterAll(async () => {
  await cluster?.close();
  await redis?.kill();
}, 60_000);

const sleeps = (prefix: string, count: number, ms: number) =>
  Array.from({ length: count }, (_, n) => ({ id: `${prefix}-${n}`, tool: 'sleep', args: { ms, progressIntervalMs: 250 } }));

describe('Redis restarted mid-run', () => {
  it(
    'loses no call: running calls finish, queued calls (their jobs gone with Redis) run after the restart, new work runs, subscribers catch up',
    explained(async () => {
      const session = await newSession(api);
      const events = api.sse(ToolCallEventsDocument, { sessionId: session.id, after: encodeEventCursor(session.rowId, 0) });
      // 8 run at once (2 workers × 4 slots), 2 wait for a slot in the workers, 6 wait in Redis.
      const batch = await submitBatch(api, { sessionId: session.id, calls: sleeps('r', 16, 1500) });
      await eventually(async () => (await cluster.db.toolCall.count({ where: { sessionId: session.rowId, status: 'RUNNING' } })) === 8, 20_000);

      await redis.kill();
      const unready = await eventually(async () => {
        const ready = await api.get('/ready');
        return ready.status === 503 ? ready : null;
      }, 10_000);
      expect(unready.body).toMatchObject({ redis: 'unreachable', database: 'ok' });
      // A batch submitted while Redis is away is recorded (and answered) all the same.
      const during = await submitBatch(api, { sessionId: session.id, calls: sleeps('during', 2, 100) });
      expect(during.calls.nodes.map((call) => call.status)).toEqual(['QUEUED', 'QUEUED']);
      await sleep(1000);
      await redis.restart();

      await eventually(async () => (await api.get('/ready')).status === 200, 20_000);
      const done = await waitForBatch(api, session.id, batch.batchId, 60_000);
      expect(done.calls.nodes.map((call) => call.status)).toEqual(Array(16).fill('SUCCEEDED'));
      const doneDuring = await waitForBatch(api, session.id, during.batchId, 60_000);
      expect(doneDuring.calls.nodes.map((call) => call.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
      // New work runs as usual.
      const after = await submitBatch(api, { sessionId: session.id, waitMs: 30_000, calls: [{ id: 'after', tool: 'echo', args: { message: 'back' } }] });
      expect(after.status).toBe('COMPLETED');

      const seen = eventsOf(await events.until(batchesCompleted(3), 60_000));
      await events.close();
      expectCompleteSequence(seen);
      const completed = seen.filter((event) => event.__typename === 'ToolCallCompleted');
      expect(completed).toHaveLength(19);
      expect([api.child.running, worker1.child.running, worker2.child.running]).toEqual([true, true, true]);
    }),
    150_000,
  );
});

describe('Redis restarted while a retry waits out its backoff', () => {
  it(
    'runs the next attempt when the wait is over (afterMs exactly), not as soon as the jobs are written again',
    explained(async () => {
      const session = await newSession(api);
      const batch = await submitBatch(api, {
        sessionId: session.id,
        calls: [{ id: 'parallel', tool: 'failing_tool', args: { retry: 'SAFE', retryAfterMs: 6000, succeedOnAttempt: 2 } }],
      });
      const retried = await eventually(
        () => cluster.db.event.findFirst({ where: { sessionId: session.rowId, callId: 'parallel', type: 'ToolCallRetrying' } }),
        20_000,
      );
      await redis.kill();
      await redis.restart();

      const done = await waitForBatch(api, session.id, batch.batchId, 60_000);
      expect(done.calls.nodes.map((call) => [call.callId, call.status, call.attempt])).toEqual([['parallel', 'SUCCEEDED', 2]]);
      const second = await cluster.db.event.findFirstOrThrow({ where: { sessionId: session.rowId, callId: 'parallel', type: 'ToolCallStarted', seq: { gt: retried.seq } } });
      expect(second.createdAt.getTime() - retried.createdAt.getTime()).toBeGreaterThanOrEqual(5900);
    }),
    90_000,
  );
});

describe('PostgreSQL connections cut mid-run', () => {
  it(
    'the processes reconnect by themselves, every call ends terminal, and a subscriber gets the whole sequence',
    explained(async () => {
      const session = await newSession(api);
      const events = api.ws(ToolCallEventsDocument, { sessionId: session.id, after: encodeEventCursor(session.rowId, 0) });
      const calls = [...sleeps('p', 12, 1500), ...Array.from({ length: 40 }, (_, n) => ({ id: `e-${n}`, tool: 'echo', args: { message: String(n) } }))];
      const batch = await submitBatch(api, { sessionId: session.id, calls });
      await eventually(async () => (await cluster.db.toolCall.count({ where: { sessionId: session.rowId, status: 'RUNNING', tool: 'sleep' } })) >= 4, 20_000);
      // The subscription is live before the cuts: one that subscribes while its session lookup
      // meets a cut connection is refused with a retryable error, not what this test is about.
      const first = await events.next(30_000);

      // Cut every connection of the processes, again and again for a few seconds, so that
      // transactions, event reads and heartbeats fail in flight.
      let cut = 0;
      for (const stop = Date.now() + 3000; Date.now() < stop; await sleep(150)) cut += await cluster.cutDatabaseConnections();
      expect(cut).toBeGreaterThan(0);

      const done = await waitForBatch(api, session.id, batch.batchId, 90_000);
      expect(done.calls.nodes).toHaveLength(52);
      expect(done.calls.nodes.every((call) => ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(call.status))).toBe(true);
      // Every tool here is idempotent: whatever was interrupted ran again and succeeded.
      expect(done.calls.nodes.filter((call) => call.status !== 'SUCCEEDED').map((call) => [call.callId, call.output])).toEqual([]);

      const seen = eventsOf([first, ...(await events.until(batchesCompleted(1), 60_000))]);
      await events.close();
      expectCompleteSequence(seen);
      expect(seen.filter((event) => event.__typename === 'ToolCallCompleted')).toHaveLength(52);

      // And the service goes on: new work, readiness, every process still up.
      const after = await submitBatch(api, { sessionId: session.id, waitMs: 30_000, calls: [{ id: 'after', tool: 'echo', args: { message: '' } }] });
      expect(after.status).toBe('COMPLETED');
      expect((await api.get('/ready')).status).toBe(200);
      expect([api.child.running, worker1.child.running, worker2.child.running]).toEqual([true, true, true]);
    }),
    150_000,
  );
});

describe('a database client whose connections are terminated again and again', () => {
  it('keeps the process alive: the queries in flight fail, the next ones reconnect', async () => {
    // Without a listener on every pooled client, a termination that lands while a client is
    // between owners is an unhandled 'error' event, which ends the process (node-postgres#2762).
    const url = new URL(cluster.plainDatabaseUrl);
    const appName = `${cluster.appName}-churn`;
    url.searchParams.set('application_name', appName);
    const db = createDb(url.toString(), { poolSize: 5 });
    let ok = 0;
    let failed = 0;
    // At least 3 s, and on until a termination has hit a query in flight (a loaded machine may take
    // longer to get there), at most 20 s.
    const started = Date.now();
    const done = () => Date.now() - started > 20_000 || (Date.now() - started > 3000 && ok > 0 && failed > 0);
    const churn = async () => {
      while (!done()) {
        try {
          await db.$transaction(async (tx) => {
            await tx.$queryRawUnsafe('SELECT 1');
            await tx.$queryRawUnsafe('SELECT 2');
          });
          await db.$queryRawUnsafe('SELECT 3');
          ok++;
        } catch {
          failed++;
        }
      }
    };
    const terminate = async () => {
      while (!done()) {
        await cluster.db.$queryRawUnsafe(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, appName);
        await sleep(5 + Math.random() * 20);
      }
    };
    try {
      await Promise.all([churn(), churn(), churn(), churn(), terminate()]);
      expect(ok).toBeGreaterThan(0);
      expect(failed).toBeGreaterThan(0);
      expect(await db.$queryRawUnsafe<Array<{ one: number }>>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await db.$disconnect();
    }
  }, 45_000);
});

describe('SIGTERM while Redis is away', () => {
  it(
    'a worker whose close cannot finish still exits, at its shutdown deadline; an API process exits at once',
    explained(async () => {
      await redis.kill();
      const started = Date.now();
      worker1.child.signal('SIGTERM');
      api.child.signal('SIGTERM');
      expect(await api.child.exited).toEqual({ code: 0, signal: null });
      // BullMQ cannot close its connections cleanly without Redis; the process gives up on that
      // after 5 × CANCEL_GRACE_MS + 10 s rather than hanging until someone kills it.
      const exit = await worker1.child.exited;
      expect(exit.signal).toBeNull();
      expect(Date.now() - started).toBeLessThan(30_000);
      if (exit.code !== 0) expect(worker1.child.output()).toContain('shutdown did not finish in time');
      await redis.restart();
    }),
    60_000,
  );
});
