// Two API processes and two worker processes (real child processes) on one PostgreSQL and one
// Redis: events reach subscribers on any API process, in order and exactly once, across a
// 1,000-call burst and a reconnect to the other process; cancels reach either worker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEventCursor } from '../../src/realtime/cursors.js';
import { CancelToolBatchDocument, CancelToolCallDocument, type ToolCallEventsSubscription, ToolCallEventsDocument } from '../gql/graphql.js';
import { type ApiProcess, Cluster, type WorkerProcess } from '../support/cluster.js';
import { batchesCompleted, eventsOf, expectCompleteSequence, type StreamEvent } from '../support/events.js';
import { newSession, submitBatch, waitForBatch } from '../support/fixtures.js';
import type { GraphQLResponse } from '../support/toolrun.js';
import { eventually } from '../support/wait.js';

let cluster: Cluster;
let api1: ApiProcess;
let api2: ApiProcess;
let worker1: WorkerProcess;
let worker2: WorkerProcess;

/** A failing test says what the processes said. */
const explained = (body: () => Promise<void>) => () => cluster.explained(body)();

beforeAll(async () => {
  cluster = await Cluster.start();
  [api1, api2, worker1, worker2] = await Promise.all([
    cluster.startApi('api-1'),
    cluster.startApi('api-2'),
    cluster.startWorker('worker-1'),
    cluster.startWorker('worker-2'),
  ]);
}, 150_000);

afterAll(async () => {
  await cluster?.close();
}, 60_000);

const BATCHES = 10;
const CALLS_PER_BATCH = 100;
/** Per call Started + Completed, per batch one ToolBatchCompleted. */
const BURST_EVENTS = BATCHES * CALLS_PER_BATCH * 2 + BATCHES;

function burstBatch(index: number) {
  return Array.from({ length: CALLS_PER_BATCH }, (_, call) => ({ id: `b${index}-c${call}`, tool: 'echo', args: { message: `${index}/${call}` } }));
}

describe('events across processes', () => {
  it(
    'a subscriber on API 1 sees every event of a 1,000-call burst submitted on API 2, in order, over graphql-ws and SSE; one that disconnects mid-burst and resumes on API 2 with its cursor ends with exactly the full sequence',
    explained(async () => {
      const session = await newSession(api2);
      const fromStart = encodeEventCursor(session.rowId, 0);
      const overWs = api1.ws(ToolCallEventsDocument, { sessionId: session.id, after: fromStart });
      const overSse = api1.sse(ToolCallEventsDocument, { sessionId: session.id, after: fromStart });
      const resuming = api1.sse(ToolCallEventsDocument, { sessionId: session.id, after: fromStart });

      const collectWs = overWs.until(batchesCompleted(BATCHES), 180_000);
      const collectSse = overSse.until(batchesCompleted(BATCHES), 180_000);

      // First half of the burst; the resuming subscriber leaves part-way through it.
      const submitted: Array<Promise<unknown>> = [];
      for (let index = 0; index < BATCHES / 2; index++) submitted.push(submitBatch(api2, { sessionId: session.id, calls: burstBatch(index) }));
      const before = eventsOf(await resuming.until((_item, all) => all.length >= 300, 120_000));
      await resuming.close();
      const lastCursor = before.at(-1)!.cursor;

      // The rest of the burst starts while the subscriber is away, and goes on during its replay.
      for (let index = BATCHES / 2; index < BATCHES; index++) submitted.push(submitBatch(api2, { sessionId: session.id, calls: burstBatch(index) }));
      const resumed = api2.ws(ToolCallEventsDocument, { sessionId: session.id, after: lastCursor });
      const after = eventsOf(await resumed.until(batchesCompleted(BATCHES - before.filter((event) => event.__typename === 'ToolBatchCompleted').length), 180_000));
      await resumed.close();
      await Promise.all(submitted);

      const wsEvents = eventsOf(await collectWs);
      const sseEvents = eventsOf(await collectSse);
      await Promise.all([overWs.close(), overSse.close()]);

      for (const events of [wsEvents, sseEvents, [...before, ...after]]) {
        expect(events).toHaveLength(BURST_EVENTS);
        expectCompleteSequence(events);
        const completed = events.filter((event) => event.__typename === 'ToolCallCompleted');
        expect(completed).toHaveLength(BATCHES * CALLS_PER_BATCH);
        expect(completed.every((event) => event.__typename === 'ToolCallCompleted' && event.status === 'SUCCEEDED')).toBe(true);
      }
      // The three views are the same sequence of the same events.
      expect(sseEvents.map((event) => event.cursor)).toEqual(wsEvents.map((event) => event.cursor));
      expect([...before, ...after].map((event) => `${event.seq}:${event.__typename}:${'callId' in event ? event.callId : ''}`)).toEqual(
        wsEvents.map((event) => `${event.seq}:${event.__typename}:${'callId' in event ? event.callId : ''}`),
      );
      // And the sequence is the session's whole log after its SessionCreated (seq 1).
      const stored = await cluster.db.event.findMany({ where: { sessionId: session.rowId }, select: { seq: true, type: true }, orderBy: { seq: 'asc' } });
      expect(stored).toHaveLength(BURST_EVENTS + 1);
      expect(stored[0]).toEqual({ seq: 1n, type: 'SessionCreated' });
    }),
    240_000,
  );

  it(
    'answers a cursor older than the retention (events pruned by a worker) with CursorExpired, on either API process',
    explained(async () => {
      const session = await newSession(api1);
      const batch = await submitBatch(api1, { sessionId: session.id, waitMs: 20_000, calls: [1, 2, 3].map((n) => ({ id: `e${n}`, tool: 'echo', args: { message: '' } })) });
      expect(batch.status).toBe('COMPLETED');
      // Age the first events (SessionCreated and the first call event) past the retention; the workers' reconciler prunes them.
      await cluster.db.$executeRawUnsafe(`UPDATE event SET created_at = now() - interval '400 days' WHERE session_id = $1::uuid AND seq <= 2`, session.rowId);
      await eventually(async () => (await cluster.db.event.count({ where: { sessionId: session.rowId, seq: { lte: 2 } } })) === 0, 20_000, 200);

      for (const [api, transport] of [[api1, 'ws'], [api2, 'sse']] as const) {
        const expired = api[transport](ToolCallEventsDocument, { sessionId: session.id, after: encodeEventCursor(session.rowId, 0) });
        const answer = (await expired.next(10_000)).data!.toolCallEvents;
        await expired.close();
        expect(answer).toMatchObject({ __typename: 'CursorExpired', oldestCursor: encodeEventCursor(session.rowId, 2) });
      }
      // Resubscribing from the cursor it names replays what is left.
      const resync = api2.ws(ToolCallEventsDocument, { sessionId: session.id, after: encodeEventCursor(session.rowId, 2) });
      const rest = eventsOf(await resync.until(batchesCompleted(1), 10_000));
      await resync.close();
      expect(rest.map((event) => event.seq)).toEqual([3, 4, 5, 6, 7, 8]);
      expect(rest.at(-1)).toMatchObject({ __typename: 'ToolBatchCompleted', total: 3, succeeded: 3 });
    }),
    60_000,
  );
});

describe('cancellation across processes', () => {
  /** Submits sleeps until one runs on each worker; returns a running call id per worker. */
  async function sleepsOnBothWorkers(sessionId: string, sessionRowId: string): Promise<Map<string, string>> {
    const running = new Map<string, string>();
    for (let round = 0; round < 10 && running.size < 2; round++) {
      await submitBatch(api2, { sessionId, calls: Array.from({ length: 4 }, (_, n) => ({ id: `r${round}-s${n}`, tool: 'sleep', args: { ms: 60_000 } })) });
      await eventually(async () => {
        const rows = await cluster.db.toolCall.findMany({ where: { sessionId: sessionRowId, status: 'RUNNING', callId: { startsWith: `r${round}-` } } });
        if (rows.length < 4) return false;
        for (const row of rows) if (row.workerId && !running.has(row.workerId)) running.set(row.workerId, row.callId);
        return true;
      }, 20_000);
    }
    return running;
  }

  it(
    'a cancel through API 1 aborts a sleep running on either worker within a second',
    explained(async () => {
      const session = await newSession(api1);
      const events = api1.ws(ToolCallEventsDocument, { sessionId: session.id, after: encodeEventCursor(session.rowId, 0) });
      const running = await sleepsOnBothWorkers(session.id, session.rowId);
      expect([...running.keys()].sort()).toEqual([worker1.workerId, worker2.workerId].sort());

      for (const callId of running.values()) {
        const result = await api1.query(CancelToolCallDocument, { callId, sessionId: session.id });
        const returnedAt = Date.now();
        expect(result.cancelToolCall.__typename).toBe('ToolCall');
        const [completed] = eventsOf(
          await events.until((item: GraphQLResponse<ToolCallEventsSubscription>) => isCompletedOf(item, callId), 10_000),
        ).filter((event) => event.__typename === 'ToolCallCompleted' && event.callId === callId);
        const latencyMs = Date.now() - returnedAt;
        expect(completed).toMatchObject({ status: 'CANCELLED', output: { __typename: 'ToolCancellation' } });
        // The sleep stopped when signalled, not at the end of the grace period.
        expect(latencyMs, `cancel of ${callId} took ${latencyMs} ms`).toBeLessThan(1000);
      }
      await events.close();
      await cancelEverything(session);
    }),
    90_000,
  );

  it(
    'a cancel whose pub/sub signal was missed still reaches the running tool through the durable record',
    explained(async () => {
      const session = await newSession(api1);
      const batch = await submitBatch(api2, { sessionId: session.id, calls: [{ id: 'quiet', tool: 'sleep', args: { ms: 60_000 } }] });
      await eventually(async () => (await cluster.db.toolCall.findFirst({ where: { sessionId: session.rowId, callId: 'quiet', status: 'RUNNING' } })) !== null, 20_000);
      // Record the request the way the API does, but publish nothing.
      await cluster.db.toolCall.updateMany({ where: { sessionId: session.rowId, callId: 'quiet' }, data: { cancelRequestedAt: new Date() } });
      const done = await waitForBatch(api1, session.id, batch.batchId, 20_000);
      expect(done.calls.nodes[0]).toMatchObject({ status: 'CANCELLED', output: { __typename: 'ToolCancellation' } });
      expect(done.calls.nodes[0]!.durationMs!).toBeLessThan(30_000);
    }),
    60_000,
  );
});

function isCompletedOf(item: GraphQLResponse<ToolCallEventsSubscription>, callId: string): boolean {
  const event = item.data?.toolCallEvents as StreamEvent | undefined;
  return event?.__typename === 'ToolCallCompleted' && event.callId === callId;
}

/** Leaves no sleeper behind for the next test. */
async function cancelEverything(session: { id: string; rowId: string }): Promise<void> {
  const batches = await cluster.db.toolBatch.findMany({ where: { sessionId: session.rowId }, select: { batchId: true } });
  for (const { batchId } of batches) await api1.query(CancelToolBatchDocument, { sessionId: session.id, batchId });
}
