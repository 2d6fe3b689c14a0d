// toolCallEvents over graphql-ws and SSE: ordering, cursors, replay without gaps or duplicates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../src/model/events.js';
import { encodeEventCursor, encodeTenantEventCursor } from '../../src/realtime/cursors.js';
import { EventFeed } from '../../src/realtime/event-feed.js';
import { EventReader } from '../../src/realtime/event-reader.js';
import { sessionEvents } from '../../src/realtime/subscription.js';
import type { Queryable } from '../../src/sql.js';
import {
  BatchEventsUntilDoneDocument,
  CreatedSessionsDocument,
  CreateSessionDocument,
  type EventType,
  GetSessionDocument,
  RecentEventsDocument,
  RecentEventsOfSessionsDocument,
  SpawnBackgroundDocument,
  TaskEventCursorDocument,
  TaskEventsDocument,
  TaskEventsUntilDoneDocument,
  TenantCursorDocument,
  TenantEventsDocument,
  ToolCallEventsDocument,
} from '../gql/graphql.js';
import { batchCompleted, eventsOf, expectCompleteSequence, readEvents } from '../support/events.js';
import { createSession, fromStart, newSession, submitBatch, waitForBatch } from '../support/fixtures.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

let app: Toolrun;
beforeAll(async () => {
  app = await startToolrun();
});
afterAll(async () => app?.close());

describe.each(['ws', 'sse'] as const)('toolCallEvents over %s', (transport) => {
  it('streams Started, Progress and Completed of every call, then ToolBatchCompleted, in order', async () => {
    const sessionId = await createSession(app);
    // From the session's start: whenever the stream attaches, it misses nothing.
    const subscription = app[transport](ToolCallEventsDocument, { sessionId, after: fromStart(sessionId) });
    const batch = await submitBatch(app, {
      sessionId,
      calls: [
        { id: 'a', tool: 'sleep', args: { ms: 300, progressIntervalMs: 50 } },
        { id: 'b', tool: 'add', args: { a: 1, b: 1 } },
        { id: 'c', tool: 'nope', args: {} },
      ],
    });
    const events = eventsOf(await subscription.until(batchCompleted(batch.batchId)));
    await subscription.close();
    expectCompleteSequence(events);
    const types = events.map((event) => `${event.__typename}:${'callId' in event ? event.callId : ''}`);
    for (const call of ['a', 'b']) {
      expect(types).toContain(`ToolCallStarted:${call}`);
      expect(types).toContain(`ToolCallCompleted:${call}`);
    }
    // The unknown tool's call never started: it only completes.
    expect(types).toContain('ToolCallCompleted:c');
    expect(types).not.toContain('ToolCallStarted:c');
    expect(types.some((type) => type === 'ToolCallProgress:a')).toBe(true);
    expect(events.at(-1)).toMatchObject({ __typename: 'ToolBatchCompleted', total: 3, succeeded: 2, failed: 1, cancelled: 0 });
    const completedA = events.find((event) => event.__typename === 'ToolCallCompleted' && event.callId === 'a');
    expect(completedA).toMatchObject({ status: 'SUCCEEDED', attempt: 1, output: { __typename: 'ToolSuccess', value: { sleptMs: 300 } } });
  });
});

describe('cursors', () => {
  it('replays exactly the missed events after a reconnect, then continues live', async () => {
    const sessionId = await createSession(app);
    const first = app.ws(ToolCallEventsDocument, { sessionId, after: fromStart(sessionId) });
    const batch1 = await submitBatch(app, { sessionId, calls: [{ id: 'one', tool: 'echo', args: { message: '1' } }] });
    const seen = eventsOf(await first.until(batchCompleted(batch1.batchId)));
    await first.close();
    const lastCursor = seen.at(-1)!.cursor;

    // While nobody listens, more happens.
    const batch2 = await submitBatch(app, { sessionId, waitMs: 10_000, calls: [{ id: 'two', tool: 'echo', args: { message: '' } }, { id: 'three', tool: 'add', args: { a: 1, b: 2 } }] });
    expect(batch2.status).toBe('COMPLETED');

    const resumed = app.sse(ToolCallEventsDocument, { sessionId, after: lastCursor });
    const missed = eventsOf(await resumed.until(batchCompleted(batch2.batchId)));
    const batch3 = await submitBatch(app, { sessionId, calls: [{ id: 'four', tool: 'echo', args: { message: '' } }] });
    const live = eventsOf(await resumed.until(batchCompleted(batch3.batchId)));
    await resumed.close();

    // Dense from the session's first event: nothing skipped, nothing twice, in order.
    expectCompleteSequence([...seen, ...missed, ...live]);
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
    const other = await submitBatch(app, { sessionId, waitMs: 5000, calls: [{ id: 'theirs', tool: 'echo', args: { message: '' } }] });
    const mine = await submitBatch(app, { sessionId, waitMs: 5000, calls: [{ id: 'mine', tool: 'echo', args: { message: '' } }] });
    expect([other.status, mine.status]).toEqual(['COMPLETED', 'COMPLETED']);
    // Replayed from the start, the other batch's events come first in the log; none gets through.
    const subscription = app.ws(ToolCallEventsDocument, { sessionId, batchId: mine.batchId, after: fromStart(sessionId) });
    const events = eventsOf(await subscription.until(batchCompleted(mine.batchId)));
    await subscription.close();
    expect(events.map((event) => event.__typename)).toEqual(['ToolCallStarted', 'ToolCallCompleted', 'ToolBatchCompleted']);
    expect(events.every((event) => 'batchId' in event && event.batchId === mine.batchId)).toBe(true);
    expect(events[0]!.seq).toBeGreaterThan(3);
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
    const early = encodeEventCursor(rawSessionId, 1);
    const expired = app.ws(ToolCallEventsDocument, { sessionId: sessionA, after: early });
    const event = (await expired.next(5000)).data!.toolCallEvents;
    expect(event).toMatchObject({ __typename: 'CursorExpired' });
    await expired.close();
    // Resuming after it, as after any event, delivers every event still retained: from seq 4 on.
    if (event.__typename !== 'CursorExpired') throw new Error('expected CursorExpired');
    const resumed = app.ws(ToolCallEventsDocument, { sessionId: sessionA, after: event.cursor });
    expect((await resumed.next(5000)).data!.toolCallEvents).toMatchObject({ seq: 4 });
    await resumed.close();
    expect(event.cursor).toBe(event.oldestCursor);
  });

  it('points a task whose first events are past the retention at a cursor that answers CursorExpired, not at its later events', async () => {
    const sessionId = await createSession(app);
    const spawned = (await app.query(SpawnBackgroundDocument, { sessionId, tool: 'sleep', args: { ms: 1 } })).spawnBackground;
    if (spawned.__typename !== 'BackgroundRun') throw new Error(`spawnBackground answered ${spawned.__typename}`);
    const taskId = spawned.taskId;
    const untilDone = app.ws(TaskEventsUntilDoneDocument, { taskId, after: fromStart(sessionId) });
    await untilDone.until((item) => item.data?.taskEvents.type === 'TaskFinished', 15_000);
    await untilDone.close();
    const { task } = await app.query(TaskEventCursorDocument, { id: taskId });
    const whole = app.ws(TaskEventsUntilDoneDocument, { taskId, after: task!.eventCursor! });
    expect((await whole.next(5000)).data!.taskEvents).toMatchObject({ type: 'TaskCreated' });
    await whole.close();

    // Retention removed the task's TaskCreated (the oldest events of the session), not its later ones.
    const rawSessionId = (await app.services.db.task.findUniqueOrThrow({ where: { id: taskId } })).sessionId;
    const created = await app.services.db.event.findFirstOrThrow({ where: { sessionId: rawSessionId, taskId, type: 'TaskCreated' } });
    await app.services.db.event.deleteMany({ where: { sessionId: rawSessionId, seq: { lte: created.seq } } });
    const after = (await app.query(TaskEventCursorDocument, { id: taskId })).task!.eventCursor!;
    const stream = app.ws(TaskEventsUntilDoneDocument, { taskId, after });
    expect((await stream.next(5000)).data!.taskEvents).toMatchObject({ __typename: 'CursorExpired' });
    await stream.close();
  });
});

describe('streams that could only wait forever', () => {
  it('refuses a cursor ahead of the newest event, of a session or of the tenant, rather than skip the events up to it', async () => {
    const sessionId = await createSession(app);
    const first = await submitBatch(app, { sessionId, waitMs: 5000, calls: [{ id: 'a', tool: 'echo', args: { message: '' } }] });
    const { session } = await app.query(GetSessionDocument, { id: sessionId });
    const rawSessionId = (await app.services.db.toolBatch.findFirstOrThrow({ where: { batchId: first.batchId } })).sessionId;
    const head = (await app.services.db.event.aggregate({ where: { sessionId: rawSessionId }, _max: { seq: true } }))._max.seq!;
    expect(session!.lastEventCursor).toBe(encodeEventCursor(rawSessionId, Number(head)));
    const ahead = app.ws(ToolCallEventsDocument, { sessionId, after: encodeEventCursor(rawSessionId, Number(head) + 2) });
    expect((await ahead.next(5000)).errors?.[0]).toMatchObject({ message: 'after is ahead of the newest event of this session', extensions: { code: 'VALIDATION_FAILED' } });
    await ahead.close();
    // The newest event itself is a cursor like any other: the stream goes on live from it.
    const atHead = app.ws(ToolCallEventsDocument, { sessionId, after: session!.lastEventCursor });
    const second = await submitBatch(app, { sessionId, calls: [{ id: 'b', tool: 'echo', args: { message: '' } }] });
    expect(eventsOf(await atHead.until(batchCompleted(second.batchId))).map((event) => event.seq)).toEqual([Number(head) + 1, Number(head) + 2, Number(head) + 3]);
    await atHead.close();

    const tenantId = (await app.services.db.session.findUniqueOrThrow({ where: { id: rawSessionId }, select: { tenantId: true } })).tenantId;
    const tenantHead = (await app.services.db.event.aggregate({ where: { tenantId }, _max: { tenantSeq: true } }))._max.tenantSeq!;
    const tenantAhead = app.ws(TenantEventsDocument, { after: encodeTenantEventCursor(tenantId, Number(tenantHead) + 50) });
    expect((await tenantAhead.next(5000)).errors?.[0]).toMatchObject({ message: 'after is ahead of the newest event of this tenant', extensions: { code: 'VALIDATION_FAILED' } });
    await tenantAhead.close();
  });

  it('refuses an empty cursor, as a malformed one, rather than read it as "from now"', async () => {
    const sessionId = await createSession(app);
    for (const stream of [
      app.ws(ToolCallEventsDocument, { sessionId, after: '' }),
      app.sse(ToolCallEventsDocument, { sessionId, after: '' }),
      app.ws(TaskEventsDocument, { sessionId, after: '' }),
      app.ws(TenantEventsDocument, { after: '' }),
    ]) {
      expect((await stream.next(5000)).errors?.[0]).toMatchObject({ message: expect.stringMatching(/^after is not a cursor of /), extensions: { code: 'VALIDATION_FAILED', field: 'after' } });
      await stream.close();
    }
  });

  it('completeWhenDone on a batch that has finished replays its events and completes; an unknown batch is NOT_FOUND', async () => {
    const sessionId = await createSession(app);
    const batch = await submitBatch(app, { sessionId, waitMs: 5000, calls: [{ id: 'done', tool: 'echo', args: { message: '' } }] });
    expect(batch.status).toBe('COMPLETED');
    const late = app.ws(BatchEventsUntilDoneDocument, { sessionId, batchId: batch.batchId });
    const events = eventsOf(await late.until(batchCompleted(batch.batchId)));
    expect(events.map((event) => event.__typename)).toEqual(['ToolCallStarted', 'ToolCallCompleted', 'ToolBatchCompleted']);
    await expect(late.next(5000)).rejects.toThrow('subscription ended');

    // A client that got the last events but not the end resumes from its last cursor: the rest, then the end.
    const resumed = app.ws(BatchEventsUntilDoneDocument, { sessionId, batchId: batch.batchId, after: events[0]!.cursor });
    expect(eventsOf(await resumed.until(batchCompleted(batch.batchId))).map((event) => event.__typename)).toEqual(['ToolCallCompleted', 'ToolBatchCompleted']);
    await expect(resumed.next(5000)).rejects.toThrow('subscription ended');
    // From the ToolBatchCompleted's cursor, or from a later one, there is nothing left: it ends at once.
    await submitBatch(app, { sessionId, waitMs: 5000, calls: [{ id: 'later', tool: 'echo', args: { message: '' } }] });
    const { session } = await app.query(GetSessionDocument, { id: sessionId });
    for (const after of [events[2]!.cursor, session!.lastEventCursor!]) {
      const atEnd = app.ws(BatchEventsUntilDoneDocument, { sessionId, batchId: batch.batchId, after });
      await expect(atEnd.next(5000)).rejects.toThrow('subscription ended');
    }

    const unknown = app.ws(BatchEventsUntilDoneDocument, { sessionId, batchId: 'tool-batch:nope' });
    expect((await unknown.next(5000)).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    await unknown.close();
  });
});

describe('completeWhenDone without a cursor', () => {
  it('completes for a batch that completed while the subscription started', async () => {
    const sessionId = await createSession(app);
    const batch = await submitBatch(app, { sessionId, calls: [{ id: 'nap', tool: 'sleep', args: { ms: 200 } }] });
    // The subscription reads the batch while it is unfinished; it completes before the stream starts.
    const calls = app.services.calls;
    const findBatch = calls.findBatch;
    let delayed = false;
    calls.findBatch = async (...args: Parameters<typeof findBatch>) => {
      const found = await findBatch.apply(calls, args);
      if (!delayed && found.batchId === batch.batchId) {
        delayed = true;
        expect(found.status).not.toBe('COMPLETED');
        await waitForBatch(app, sessionId, batch.batchId);
      }
      return found;
    };
    try {
      const stream = app.ws(BatchEventsUntilDoneDocument, { sessionId, batchId: batch.batchId });
      const events = eventsOf(await stream.until(batchCompleted(batch.batchId), 5000));
      expect(delayed).toBe(true);
      expect(events.at(-1)).toMatchObject({ __typename: 'ToolBatchCompleted' });
      await expect(stream.next(5000)).rejects.toThrow('subscription ended');
    } finally {
      calls.findBatch = findBatch;
    }
  });
});

describe('the event stream when database reads fail', () => {
  it('retries them: it replays and then goes on live instead of ending', async () => {
    const sessionId = await createSession(app);
    const first = await submitBatch(app, { sessionId, waitMs: 10_000, calls: [{ id: 'f1', tool: 'echo', args: { message: '' } }] });
    const rowId = (await app.services.db.toolBatch.findFirst({ where: { batchId: first.batchId } }))!.sessionId;
    // Every read fails while `failing` > 0, as on a connection the server just terminated.
    let failing = 3;
    const sql: Queryable = {
      query: (statement, values) =>
        failing-- > 0 ? Promise.reject(new Error('terminating connection due to administrator command')) : app.services.sql.query(statement, values),
    };
    // Announcements can be lost too: then the stream has to read what it missed, and those reads fail at first.
    let dropping = false;
    const bus = new Proxy(app.services.bus, {
      get(target, property, receiver) {
        if (property !== 'subscribe') return Reflect.get(target, property, receiver) as unknown;
        return (name: string, listener: (message: unknown) => void) => target.subscribe(name, (message) => !dropping && listener(message));
      },
    });
    const feed = new EventFeed(bus, new EventReader(sql), app.services.logger, { ringSize: 0, subscriberQueue: 100, freshnessIntervalMs: 100 });
    const controller = new AbortController();
    const stream = sessionEvents(feed, { tenantId: app.tenantId, sessionId: rowId, afterSeq: 0, matches: () => true, signal: controller.signal });
    const seen: SessionEvent[] = [];
    const take = async (count: number) => {
      while (seen.length < count) {
        const next = await Promise.race([stream.next(), new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`only ${seen.length} events`)), 10_000))]);
        if (next.done) throw new Error('the stream ended');
        seen.push(next.value);
      }
    };
    await take(4);
    failing = 4;
    dropping = true;
    await submitBatch(app, { sessionId, calls: [{ id: 'f2', tool: 'echo', args: { message: '' } }] });
    await take(7);
    controller.abort();
    await stream.return?.();
    feed.close();
    expect(failing).toBeLessThanOrEqual(0);
    expect(seen.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(seen[0]).toMatchObject({ type: 'SessionCreated' });
    expect(seen.at(-1)).toMatchObject({ type: 'ToolBatchCompleted' });
  });
});

describe('SessionCreated', () => {
  it('is the first event (seq 1) of each session really created, in the tenant stream with what a list row shows', async () => {
    const { tenantSettings } = await app.query(TenantCursorDocument, {});
    const stream = app.ws(CreatedSessionsDocument, { after: tenantSettings.lastEventCursor ?? encodeTenantEventCursor(app.tenantId, 0), types: ['SessionCreated'] });
    // A refused create makes no row, so it announces nothing: the stream's first event is the next session's.
    const refused = await app.query(CreateSessionDocument, { title: 'x'.repeat(501) });
    expect(refused.createSession.__typename).toBe('ValidationError');
    const created = (await app.query(CreateSessionDocument, { title: 'announced', metadata: { team: 'a', tags: ['x'] } })).createSession;
    if (created.__typename !== 'Session') throw new Error(JSON.stringify(created));
    // What createSession returns is the session as committed: its newest event is its SessionCreated.
    expect(created.lastEventCursor).toBe(encodeEventCursor(created.sessionId, 1));

    const event = (await stream.next()).data!.tenantEvents;
    await stream.close();
    expect(event).toEqual({
      __typename: 'SessionCreated',
      type: 'SessionCreated',
      seq: 1,
      cursor: expect.any(String),
      sessionCursor: created.lastEventCursor,
      sessionId: created.id,
      at: created.lastActivityAt,
      title: 'announced',
      metadata: { team: 'a', tags: ['x'] },
      createdAt: created.createdAt,
      session: { sessionId: created.sessionId, title: 'announced' },
    });
    const stored = await readEvents(app.services, created.sessionId);
    expect(stored.map((stored) => [stored.seq, stored.type])).toEqual([[1, 'SessionCreated']]);
    // The session's own streams of calls and tasks do not carry it.
    const calls = app.sse(ToolCallEventsDocument, { sessionId: created.id, after: encodeEventCursor(created.sessionId, 0) });
    const batch = await submitBatch(app, { sessionId: created.id, calls: [{ id: 'after-created', tool: 'echo', args: { message: '' } }] });
    const callEvents = eventsOf(await calls.until(batchCompleted(batch.batchId)));
    await calls.close();
    expect(callEvents[0]!.seq).toBe(2);
  });
});

describe('Session.recentEvents', () => {
  it('are the newest events (of some types), oldest first, with cursors a stream resumes after; bad counts and types are refused by name', async () => {
    const { id, rowId } = await newSession(app);
    const batch = await submitBatch(app, {
      sessionId: id,
      calls: [
        { id: 'r1', tool: 'add', args: { a: 1, b: 2 } },
        { id: 'r2', tool: 'add', args: { a: 3, b: 4 } },
      ],
      waitMs: 10_000,
    });
    expect(batch.status).toBe('COMPLETED');
    const stored = await readEvents(app.services, rowId);
    const recent = async (variables: { count?: number; types?: Array<'ToolCallCompleted' | 'ToolBatchCompleted'> }) => (await app.query(RecentEventsDocument, { id, ...variables })).session!.recentEvents;

    const all = await recent({ count: 1000 });
    expect(all.map((event) => [event.seq, event.__typename])).toEqual(stored.map((event) => [event.seq, event.type]));
    expect((await recent({})).length).toBe(stored.length);
    const newestTwo = await recent({ count: 2 });
    expect(newestTwo.map((event) => event.seq)).toEqual(stored.slice(-2).map((event) => event.seq));
    expect(newestTwo.at(-1)!.__typename).toBe('ToolBatchCompleted');
    const completed = await recent({ types: ['ToolCallCompleted'] });
    expect(completed.map((event) => (event.__typename === 'ToolCallCompleted' ? event.callId : null)).sort()).toEqual(['r1', 'r2']);
    expect(await recent({ count: 0 })).toEqual([]);
    // Its cursors are session cursors: a stream after the next-to-last event delivers the last.
    const stream = app.ws(ToolCallEventsDocument, { sessionId: id, after: newestTwo[0]!.cursor });
    expect((await stream.next()).data!.toolCallEvents.seq).toBe(newestTwo[1]!.seq);
    await stream.close();

    const refused: Array<[{ count?: number; types?: EventType[] }, string]> = [
      [{ count: -1 }, 'count'],
      [{ count: 1001 }, 'count'],
      [{ types: [] }, 'types'],
    ];
    for (const [variables, field] of refused) {
      const response = await app.request(RecentEventsDocument, { id, ...variables });
      expect(response.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_FAILED', field });
    }
  });

  it('of a page of sessions cost one query, whatever the page size', async () => {
    for (let i = 0; i < 3; i++) await newSession(app);
    app.resetQueries();
    const { sessions } = await app.query(RecentEventsOfSessionsDocument, { first: 3 });
    expect(sessions.nodes.every((node) => node.recentEvents.length >= 1)).toBe(true);
    expect(app.queries.filter((sql) => sql.includes('ORDER BY seq DESC LIMIT')).length).toBe(1);
  });
});
