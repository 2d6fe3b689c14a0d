// toolCallEvents over graphql-ws and SSE: ordering, cursors, replay without gaps or duplicates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetSessionDocument, type ToolCallEventsSubscription, ToolCallEventsDocument } from './gql/graphql.js';
import { createSession, submitBatch } from './support/fixtures.js';
import { startToolrun, type Toolrun } from './support/toolrun.js';
import type { SessionEvent } from '../src/domain/event-log.js';
import { sessionEventStream } from '../src/realtime/session-event-stream.js';

type Event = ToolCallEventsSubscription['toolCallEvents'];

let app: Toolrun;
beforeAll(async () => {
  app = await startToolrun();
});
afterAll(async () => app?.close());

const eventsOf = (items: Array<{ data?: ToolCallEventsSubscription | null }>) => items.map((item) => item.data!.toolCallEvents);
const batchDone = (batchId: string) => (item: { data?: ToolCallEventsSubscription | null }) =>
  item.data?.toolCallEvents.__typename === 'ToolBatchCompleted' && item.data.toolCallEvents.batchId === batchId;

function assertWellOrdered(events: Event[]) {
  const seqs = events.map((event) => event.seq);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  expect(new Set(seqs).size).toBe(seqs.length);
  const started = new Set<string>();
  for (const event of events) {
    if (event.__typename === 'ToolCallStarted') started.add(event.callId);
    if (event.__typename === 'ToolCallCompleted') expect(started.has(event.callId)).toBe(true);
  }
}

describe.each(['ws', 'sse'] as const)('toolCallEvents over %s', (transport) => {
  it('streams Started, Progress and Completed of every call, then ToolBatchCompleted, in order', async () => {
    const sessionId = await createSession(app);
    const subscription = app[transport](ToolCallEventsDocument, { sessionId });
    // Subscribing is asynchronous; give the stream a moment to attach before submitting.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const batch = await submitBatch(app, {
      sessionId,
      calls: [
        { id: 'a', tool: 'sleep', args: { ms: 300, progressIntervalMs: 50 } },
        { id: 'b', tool: 'add', args: { a: 1, b: 1 } },
        { id: 'c', tool: 'nope', args: {} },
      ],
    });
    const events = eventsOf(await subscription.until(batchDone(batch.batchId)));
    await subscription.close();
    assertWellOrdered(events);
    const types = events.map((event) => `${event.__typename}:${'callId' in event ? event.callId : ''}`);
    for (const call of ['a', 'b', 'c']) {
      expect(types).toContain(`ToolCallStarted:${call}`);
      expect(types).toContain(`ToolCallCompleted:${call}`);
    }
    expect(types.some((type) => type === 'ToolCallProgress:a')).toBe(true);
    expect(events.at(-1)).toMatchObject({ __typename: 'ToolBatchCompleted', total: 3, succeeded: 2, failed: 1, cancelled: 0 });
    const completedA = events.find((event) => event.__typename === 'ToolCallCompleted' && event.callId === 'a');
    expect(completedA).toMatchObject({ status: 'SUCCEEDED', attempt: 1, output: { __typename: 'ToolSuccess', value: { sleptMs: 300 } } });
  });
});

describe('cursors', () => {
  it('replays exactly the missed events after a reconnect, then continues live', async () => {
    const sessionId = await createSession(app);
    const first = app.ws(ToolCallEventsDocument, { sessionId });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const batch1 = await submitBatch(app, { sessionId, calls: [{ id: 'one', tool: 'echo', args: { message: '1' } }] });
    const seen = eventsOf(await first.until(batchDone(batch1.batchId)));
    await first.close();
    const lastCursor = seen.at(-1)!.cursor;

    // While nobody listens, more happens.
    const batch2 = await submitBatch(app, { sessionId, waitMs: 10_000, calls: [{ id: 'two', tool: 'echo', args: { message: '' } }, { id: 'three', tool: 'add', args: { a: 1, b: 2 } }] });
    expect(batch2.status).toBe('COMPLETED');

    const resumed = app.sse(ToolCallEventsDocument, { sessionId, after: lastCursor });
    const missed = eventsOf(await resumed.until(batchDone(batch2.batchId)));
    const batch3 = await submitBatch(app, { sessionId, calls: [{ id: 'four', tool: 'echo', args: { message: '' } }] });
    const live = eventsOf(await resumed.until(batchDone(batch3.batchId)));
    await resumed.close();

    const all = [...seen, ...missed, ...live];
    assertWellOrdered(all);
    // Dense: nothing skipped between the first event seen and the last.
    expect(all.map((event) => event.seq)).toEqual(Array.from({ length: all.length }, (_, i) => all[0]!.seq + i));
    expect(missed[0]!.seq).toBe(seen.at(-1)!.seq + 1);
    expect(missed.filter((event) => event.__typename === 'ToolCallCompleted').map((event) => 'callId' in event && event.callId)).toEqual(
      expect.arrayContaining(['two', 'three']),
    );

    // The session's lastEventCursor lets a client subscribe from "now".
    const { session } = await app.query(GetSessionDocument, { id: sessionId });
    expect(session?.lastEventCursor).toBe(live.at(-1)!.cursor);
  });

  it('filters by batch', async () => {
    const sessionId = await createSession(app);
    const subscription = app.ws(ToolCallEventsDocument, { sessionId, batchId: 'tool-batch:placeholder' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const other = await submitBatch(app, { sessionId, waitMs: 5000, calls: [{ tool: 'echo', args: { message: '' } }] });
    expect(other.status).toBe('COMPLETED');
    await expect(subscription.next(500)).rejects.toThrow(/no subscription payload/);
    await subscription.close();
  });

  it('refuses a cursor of another session and answers an expired cursor with CursorExpired', async () => {
    const sessionA = await createSession(app);
    const sessionB = await createSession(app);
    const batch = await submitBatch(app, { sessionId: sessionA, waitMs: 5000, calls: [{ id: 'x', tool: 'echo', args: { message: '' } }, { id: 'y', tool: 'echo', args: { message: '' } }] });
    const { session } = await app.query(GetSessionDocument, { id: sessionA });
    const cursor = session!.lastEventCursor!;

    const wrong = app.sse(ToolCallEventsDocument, { sessionId: sessionB, after: cursor });
    const answer = await wrong.next(5000);
    expect(answer.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    await wrong.close();

    // Retention removed the oldest events of session A.
    const rawSessionId = (await app.services.db.toolBatch.findFirst({ where: { batchId: batch.batchId } }))!.sessionId;
    await app.services.db.event.deleteMany({ where: { sessionId: rawSessionId, seq: { lte: 3 } } });
    const early = Buffer.from(`evt:${rawSessionId}:1`).toString('base64url');
    const expired = app.ws(ToolCallEventsDocument, { sessionId: sessionA, after: early });
    const event = (await expired.next(5000)).data!.toolCallEvents;
    expect(event).toMatchObject({ __typename: 'CursorExpired' });
    await expired.close();
  });
});

describe('the event stream when database reads fail', () => {
  it('retries them: it replays and then goes on live instead of ending', async () => {
    const sessionId = await createSession(app);
    const first = await submitBatch(app, { sessionId, waitMs: 10_000, calls: [{ id: 'f1', tool: 'echo', args: { message: '' } }] });
    const rowId = (await app.services.db.toolBatch.findFirst({ where: { batchId: first.batchId } }))!.sessionId;
    // Every raw read fails while `failing` > 0, as on a connection the server just terminated.
    let failing = 3;
    const db = new Proxy(app.services.db, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (property !== '$queryRawUnsafe') return value;
        return (...args: unknown[]) =>
          failing-- > 0 ? Promise.reject(new Error('terminating connection due to administrator command')) : (value as (...a: unknown[]) => unknown).apply(target, args);
      },
    });
    const controller = new AbortController();
    const stream = sessionEventStream(db, app.services.bus, { sessionId: rowId, afterSeq: 0, signal: controller.signal, catchUpIntervalMs: 100 });
    const seen: SessionEvent[] = [];
    const take = async (count: number) => {
      while (seen.length < count) {
        const next = await Promise.race([stream.next(), new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`only ${seen.length} events`)), 10_000))]);
        if (next.done) throw new Error('the stream ended');
        seen.push(next.value);
      }
    };
    await take(3);
    failing = 4;
    await submitBatch(app, { sessionId, calls: [{ id: 'f2', tool: 'echo', args: { message: '' } }] });
    await take(6);
    controller.abort();
    await stream.return(undefined);
    expect(failing).toBeLessThanOrEqual(0);
    expect(seen.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(seen.at(-1)).toMatchObject({ type: 'ToolBatchCompleted' });
  });
});
