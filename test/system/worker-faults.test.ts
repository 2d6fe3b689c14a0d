// Worker processes that die or are told to stop mid-batch: nothing is lost, idempotent work is
// re-run, non-idempotent work fails with `worker_lost`, and a graceful stop finishes what it
// runs and hands the rest to another worker. Also: an API process's own graceful stop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEventCursor } from '../../src/realtime/cursors.js';
import { GetToolBatchDocument, ToolCallEventsDocument } from '../gql/graphql.js';
import { type ApiProcess, Cluster, type WorkerProcess } from '../support/cluster.js';
import { batchesCompleted, eventsOf, expectCompleteSequence } from '../support/events.js';
import { newSession, submitBatch, waitForBatch } from '../support/fixtures.js';
import { eventually } from '../support/wait.js';

// Small worker slots and one call per job make it certain which calls run and which wait; a short
// drain keeps the graceful-stop test short (3 s, for 1.5 s and 6 s sleeps: a short sleep is still
// running when the stop arrives, even on a loaded machine). A killed worker is
// declared dead after 3 s of silence (12 heartbeats of 250 ms) rather than the default 5 s: on a
// machine loaded enough to starve a live worker's heartbeats for 2 s, 2 s would be too short.
const WORKER_ENV = {
  WORKER_CONCURRENCY: '4',
  CALLS_PER_JOB: '1',
  CANCEL_GRACE_MS: '600',
  WORKER_DRAIN_MS: '3000',
  WORKER_DEAD_AFTER_MS: '3000',
  ENABLE_TEST_TOOLS: 'true',
};

let cluster: Cluster;
let api: ApiProcess;
/** The two workers of the first test, started with the API (a process start takes seconds on a loaded machine). */
let workerA: WorkerProcess;
let workerB: WorkerProcess;

/** A failing test says what the processes said. */
const explained = (body: () => Promise<void>) => () => cluster.explained(body)();

beforeAll(async () => {
  cluster = await Cluster.start({ env: WORKER_ENV });
  [api, workerA, workerB] = await Promise.all([cluster.startApi('api'), cluster.startWorker('kill-a'), cluster.startWorker('kill-b')]);
}, 150_000);

afterAll(async () => {
  await cluster?.close();
}, 60_000);

async function ticksOf(sessionRowId: string): Promise<string[]> {
  const file = await cluster.db.sessionFile.findFirst({ where: { sessionId: sessionRowId, path: '/ticks.log' } });
  return (file?.content ?? '').split('\n').filter(Boolean);
}

async function runningCalls(sessionRowId: string) {
  return cluster.db.toolCall.findMany({ where: { sessionId: sessionRowId, status: 'RUNNING' }, select: { callId: true, workerId: true, attempt: true } });
}

let survivor: WorkerProcess;

describe('a worker killed mid-batch (SIGKILL)', () => {
  it(
    'leaves every call terminal: idempotent calls run again and succeed, a non-idempotent one fails worker_lost',
    explained(async () => {
      const session = await newSession(api);

      // test_ticker is not idempotent: it appends a line per tick to a file, for much longer than the test.
      const tickerBatch = await submitBatch(api, {
        sessionId: session.id,
        calls: [{ id: 'ticker', tool: 'test_ticker', args: { ticks: 10_000, intervalMs: 100, path: '/ticks.log' } }],
      });
      await eventually(async () => (await runningCalls(session.rowId)).some((row) => row.callId === 'ticker'), 20_000);
      const batch = await submitBatch(api, {
        sessionId: session.id,
        calls: Array.from({ length: 10 }, (_, n) => ({ id: `sleep-${n}`, tool: 'sleep', args: { ms: 2000, progressIntervalMs: 500 } })),
      });
      const events = api.sse(ToolCallEventsDocument, { sessionId: session.id, after: encodeEventCursor(session.rowId, 0) });

      // Both workers are full (4 slots each: the ticker and seven sleeps); three sleeps wait.
      const running = await eventually(async () => {
        const rows = await runningCalls(session.rowId);
        return rows.length === 8 ? rows : null;
      }, 20_000);
      const victimId = running.find((row) => row.callId === 'ticker')!.workerId!;
      const victim = victimId === workerA.workerId ? workerA : workerB;
      survivor = victim === workerA ? workerB : workerA;
      const interrupted = running.filter((row) => row.workerId === victimId && row.callId !== 'ticker').map((row) => row.callId);
      expect(interrupted.length).toBeGreaterThan(0);

      victim.child.signal('SIGKILL');
      expect((await victim.child.exited).signal).toBe('SIGKILL');

      const done = await waitForBatch(api, session.id, batch.batchId, 60_000);
      const ticked = await waitForBatch(api, session.id, tickerBatch.batchId, 60_000);
      const byId = new Map([...done.calls.nodes, ...ticked.calls.nodes].map((call) => [call.callId, call]));
      expect(done.calls.nodes).toHaveLength(10);
      expect(byId.get('ticker')).toMatchObject({
        status: 'FAILED',
        output: { __typename: 'ToolFailure', code: 'worker_lost', class: 'EXECUTION' },
      });
      for (let n = 0; n < 10; n++) {
        const call = byId.get(`sleep-${n}`)!;
        expect(call, `sleep-${n}`).toMatchObject({ status: 'SUCCEEDED', output: { __typename: 'ToolSuccess', value: { sleptMs: 2000 } } });
        expect(call.attempt, `attempt of sleep-${n}`).toBe(interrupted.includes(`sleep-${n}`) ? 2 : 1);
      }

      // Subscribers saw the loss, the re-runs and every completion, in order.
      const seen = eventsOf(await events.until(batchesCompleted(2), 30_000));
      await events.close();
      expectCompleteSequence(seen);
      const retried = seen.filter((event) => event.__typename === 'ToolCallRetrying');
      expect(retried.map((event) => 'callId' in event && event.callId).sort()).toEqual([...interrupted].sort());
      expect(retried.every((event) => event.__typename === 'ToolCallRetrying' && event.failure.code === 'worker_lost')).toBe(true);
      const completions = seen.filter((event) => event.__typename === 'ToolBatchCompleted');
      expect(completions.find((event) => event.batchId === batch.batchId)).toMatchObject({ total: 10, succeeded: 10, failed: 0 });
      expect(completions.find((event) => event.batchId === tickerBatch.batchId)).toMatchObject({ total: 1, succeeded: 0, failed: 1 });

      // The killed ticker's side effects stopped with its worker, and nothing ran it again (a
      // ticker would have written five more ticks in the half second).
      const ticks = await ticksOf(session.rowId);
      expect(ticks.length).toBeGreaterThan(0);
      expect(ticks.every((line) => line.endsWith('(attempt 1)'))).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await ticksOf(session.rowId)).toHaveLength(ticks.length);
    }),
    120_000,
  );
});

describe('a worker told to stop (SIGTERM)', () => {
  it(
    'finishes the calls it runs, hands a call longer than its grace back, and the queued calls run on another worker',
    explained(async () => {
      // Only `survivor` runs now: it takes the first four calls, the other four wait.
      const session = await newSession(api);
      const calls = [
        { id: 'long', tool: 'sleep', args: { ms: 6000, progressIntervalMs: 500 } },
        ...Array.from({ length: 7 }, (_, n) => ({ id: `short-${n}`, tool: 'sleep', args: { ms: 1500, progressIntervalMs: 250 } })),
      ];
      const batch = await submitBatch(api, { sessionId: session.id, calls });
      const running = await eventually(async () => {
        const rows = await runningCalls(session.rowId);
        return rows.length === 4 && rows.some((row) => row.callId === 'long') ? rows : null;
      }, 20_000);
      expect(new Set(running.map((row) => row.workerId))).toEqual(new Set([survivor.workerId]));
      const finishing = running.filter((row) => row.callId !== 'long').map((row) => row.callId);

      // Which worker ran what: sample the running calls from now until the batch is done.
      const ranOn = new Map<string, Set<string>>();
      const sampler = setInterval(() => {
        void runningCalls(session.rowId).then((rows) => {
          for (const row of rows) {
            const set = ranOn.get(row.callId) ?? new Set<string>();
            set.add(`${row.workerId}#${row.attempt}`);
            ranOn.set(row.callId, set);
          }
        }, () => undefined);
      }, 100);
      survivor.child.signal('SIGTERM');
      const successor = await cluster.startWorker('successor');
      let done;
      try {
        done = await waitForBatch(api, session.id, batch.batchId, 60_000);
      } finally {
        clearInterval(sampler);
      }
      const exit = await survivor.child.exited;
      expect(exit).toEqual({ code: 0, signal: null });

      const byId = new Map(done.calls.nodes.map((call) => [call.callId, call]));
      expect(done.calls.nodes.every((call) => call.status === 'SUCCEEDED')).toBe(true);
      // Running calls that fit in the grace period finished where they ran, on their first attempt.
      for (const callId of finishing) expect(byId.get(callId)!.attempt, callId).toBe(1);
      // The long one was handed back and ran again, from the start, on the other worker.
      expect(byId.get('long')).toMatchObject({ attempt: 2, output: { value: { sleptMs: 6000 } } });
      expect(ranOn.get('long')).toContain(`${successor.workerId}#2`);
      // Everything that waited ran on the other worker.
      for (const call of done.calls.nodes.filter((c) => !finishing.includes(c.callId) && c.callId !== 'long')) {
        expect(call.attempt, call.callId).toBe(1);
        expect([...(ranOn.get(call.callId) ?? [])], call.callId).toEqual([`${successor.workerId}#1`]);
      }
      survivor = successor;
    }),
    90_000,
  );
});

describe('an API process told to stop (SIGTERM)', () => {
  it(
    'ends its subscriptions and exits; a client resumes on another API process with its cursor and misses nothing',
    explained(async () => {
      const leaving = await cluster.startApi('api-leaving');
      expect(await leaving.get('/health')).toMatchObject({ status: 200 });
      expect(await leaving.get('/ready')).toMatchObject({ status: 200, body: { status: 'ready', database: 'ok', redis: 'ok' } });

      const session = await newSession(api);
      const first = await submitBatch(api, { sessionId: session.id, waitMs: 20_000, calls: [{ id: 'one', tool: 'echo', args: { message: '' } }] });
      expect(first.status).toBe('COMPLETED');
      const overWs = leaving.ws(ToolCallEventsDocument, { sessionId: session.id, after: encodeEventCursor(session.rowId, 0) });
      const overSse = leaving.sse(ToolCallEventsDocument, { sessionId: session.id, after: encodeEventCursor(session.rowId, 0) });
      const seenWs = eventsOf(await overWs.until(batchesCompleted(1), 10_000));
      const seenSse = eventsOf(await overSse.until(batchesCompleted(1), 10_000));

      leaving.child.signal('SIGTERM');
      // Both subscriptions complete (a clean end, not a cut connection) and the process exits.
      await expect(overWs.next(10_000)).rejects.toThrow('subscription ended');
      await expect(overSse.next(10_000)).rejects.toThrow('subscription ended');
      expect(await leaving.child.exited).toEqual({ code: 0, signal: null });

      const second = await submitBatch(api, { sessionId: session.id, waitMs: 20_000, calls: [{ id: 'two', tool: 'echo', args: { message: '' } }] });
      expect(second.status).toBe('COMPLETED');
      for (const seen of [seenWs, seenSse]) {
        const resumed = api.ws(ToolCallEventsDocument, { sessionId: session.id, after: seen.at(-1)!.cursor });
        const rest = eventsOf(await resumed.until(batchesCompleted(1), 10_000));
        await resumed.close();
        expectCompleteSequence([...seen, ...rest]);
        expect(rest.at(-1)).toMatchObject({ __typename: 'ToolBatchCompleted', batchId: second.batchId });
      }
      const { toolBatch } = await api.query(GetToolBatchDocument, { sessionId: session.id, batchId: second.batchId });
      expect(toolBatch?.status).toBe('COMPLETED');
    }),
    60_000,
  );
});

describe('a worker killed and started again under the same WORKER_ID (a restarted container)', () => {
  it(
    'recovers the calls its previous process left running, as a lost worker’s',
    explained(async () => {
      await survivor.child.stop(10_000);
      const first = await cluster.startWorker('same-id');
      const session = await newSession(api);
      const batch = await submitBatch(api, {
        sessionId: session.id,
        calls: [
          { id: 'sleep', tool: 'sleep', args: { ms: 3000 } },
          { id: 'ticker', tool: 'test_ticker', args: { ticks: 10_000, intervalMs: 100, path: '/ticks.log' } },
        ],
      });
      await eventually(async () => (await runningCalls(session.rowId)).length === 2, 20_000);

      first.child.signal('SIGKILL');
      await first.child.exited;
      const again = await cluster.startWorker('same-id');
      expect(again.workerId).toBe(first.workerId);

      const done = await waitForBatch(api, session.id, batch.batchId, 30_000);
      const byId = new Map(done.calls.nodes.map((call) => [call.callId, call]));
      expect(byId.get('sleep')).toMatchObject({ status: 'SUCCEEDED', attempt: 2 });
      expect(byId.get('ticker')).toMatchObject({ status: 'FAILED', output: { __typename: 'ToolFailure', code: 'worker_lost' } });
      survivor = again;
    }),
    90_000,
  );

  it(
    'refuses to start under the WORKER_ID of a live worker, whose running calls it leaves alone',
    explained(async () => {
      const session = await newSession(api);
      const batch = await submitBatch(api, { sessionId: session.id, calls: [{ id: 'sleep', tool: 'sleep', args: { ms: 2500 } }] });
      await eventually(async () => (await runningCalls(session.rowId)).length === 1, 20_000);

      const twin = cluster.spawnWorker('same-id');
      expect(await twin.child.exited).toEqual({ code: 1, signal: null });
      expect(twin.child.output()).toMatch(/toolrun: WORKER_ID ".*same-id" is in use by a live worker \(pid \d+ on .+, its last heartbeat \d+ ms ago\): give each worker its own WORKER_ID/);

      const done = await waitForBatch(api, session.id, batch.batchId, 30_000);
      expect(done.calls.nodes[0]).toMatchObject({ status: 'SUCCEEDED', attempt: 1 });
    }),
    90_000,
  );
});

describe('a worker whose WORKER_DRAIN_MS is longer than the default', () => {
  it(
    'lets a running call finish within its drain on SIGTERM and exits 0, rather than giving up at a fixed deadline',
    explained(async () => {
      // Only this worker runs calls now. With CANCEL_GRACE_MS 600 the stop used to be given up after
      // 5 × 600 ms + 10 s, whatever the drain: at 13 s, in the middle of this 20 s drain.
      for (const worker of [workerA, workerB, survivor]) await worker?.child.stop(10_000);
      const patient = await cluster.startWorker('patient', { WORKER_DRAIN_MS: '20000' });
      const session = await newSession(api);
      const batch = await submitBatch(api, { sessionId: session.id, calls: [{ id: 'long', tool: 'sleep', args: { ms: 15_000 } }] });
      await eventually(async () => (await runningCalls(session.rowId)).length === 1, 20_000);

      patient.child.signal('SIGTERM');
      expect(await patient.child.exited).toEqual({ code: 0, signal: null });
      expect(patient.child.output()).not.toContain('shutdown did not finish in time');
      const done = await waitForBatch(api, session.id, batch.batchId, 10_000);
      expect(done.calls.nodes[0]).toMatchObject({ status: 'SUCCEEDED', attempt: 1 });
    }),
    90_000,
  );
});
