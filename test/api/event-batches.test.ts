// toolCallEventBatches: the events of toolCallEvents, several per message. Flattened, its messages
// are exactly the events toolCallEvents gives; each message holds at most maxEvents; a message's
// cursor resumes after its last event; over graphql-ws and SSE. taskEventBatches and
// tenantEventBatches likewise for their streams.
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { encodeTenantEventCursor } from '../../src/realtime/cursors.js';
import { SpawnBackgroundDocument, TenantCursorDocument } from '../gql/graphql.js';
import { expectCompleteSequence, type StreamEvent } from '../support/events.js';
import { createSession, fromStart, submitBatch } from '../support/fixtures.js';
import { type GraphQLResponse, sseSubscription, startToolrun, type Subscription, type Toolrun, wsClient, wsSubscription } from '../support/toolrun.js';

let app: Toolrun;
let client: Client;
beforeAll(async () => {
  app = await startToolrun();
  client = wsClient(app.endpoint, app.apiKey);
});
afterAll(async () => {
  await client?.dispose();
  await app?.close();
});

const EVENT_FIELDS = /* GraphQL */ `__typename seq cursor ... on ToolCallEvent { callId batchId } ... on ToolCallCompleted { status } ... on ToolBatchCompleted { batchId succeeded }`;
const BATCHES = /* GraphQL */ `
  subscription Batches($sessionId: ID!, $after: String, $batchId: String, $completeWhenDone: Boolean, $maxEvents: Int) {
    toolCallEventBatches(sessionId: $sessionId, after: $after, batchId: $batchId, completeWhenDone: $completeWhenDone, maxEvents: $maxEvents) {
      cursor
      events { ${EVENT_FIELDS} }
    }
  }
`;
const EVENTS = /* GraphQL */ `
  subscription Events($sessionId: ID!, $after: String) {
    toolCallEvents(sessionId: $sessionId, after: $after) { ${EVENT_FIELDS} }
  }
`;

type Message = { toolCallEventBatches: { cursor: string; events: StreamEvent[] } };
const messagesOf = (items: Array<GraphQLResponse<Message>>) =>
  items.map((item) => {
    if (!item.data) throw new Error(`subscription error: ${JSON.stringify(item.errors)}`);
    return item.data.toolCallEventBatches;
  });
const endsBatch = (batchId: string) => (item: GraphQLResponse<Message>) =>
  item.data?.toolCallEventBatches.events.some((event) => event.__typename === 'ToolBatchCompleted' && event.batchId === batchId) ?? false;

/** A session with one finished batch of `calls` `add` calls. */
async function finishedBatch(calls: number) {
  const sessionId = await createSession(app);
  const batch = await submitBatch(app, { sessionId, calls: Array.from({ length: calls }, (_, i) => ({ id: `c${i}`, tool: 'add', args: { a: i, b: 1 } })), waitMs: 30_000 });
  expect(batch.status).toBe('COMPLETED');
  return { sessionId, batchId: batch.batchId };
}

it('replays a finished batch in messages of at most maxEvents whose events, flattened, are exactly those of toolCallEvents', async () => {
  const { sessionId, batchId } = await finishedBatch(120);
  const after = fromStart(sessionId);
  const single = wsSubscription<{ toolCallEvents: StreamEvent }>(client, EVENTS, { sessionId, after });
  const batched = wsSubscription<Message>(client, BATCHES, { sessionId, after, maxEvents: 50 });
  const expected = (await single.until((item) => item.data?.toolCallEvents.__typename === 'ToolBatchCompleted', 30_000)).map((item) => item.data!.toolCallEvents);
  const messages = messagesOf(await batched.until(endsBatch(batchId), 30_000));
  await Promise.all([single.close(), batched.close()]);

  const flattened = messages.flatMap((message) => message.events);
  expect(flattened).toEqual(expected);
  expectCompleteSequence(flattened);
  for (const message of messages) {
    expect(message.events.length).toBeGreaterThan(0);
    expect(message.events.length).toBeLessThanOrEqual(50);
    expect(message.cursor).toBe(message.events.at(-1)!.cursor);
  }
  // A replay has its events ready at once: they come in full messages, not one by one.
  expect(messages.length).toBeLessThanOrEqual(Math.ceil(flattened.length / 50) + 1);
});

it('writes messages larger than a socket write is copied for whole and in order, beside small frames on the same socket', async () => {
  const { sessionId, batchId } = await finishedBatch(200);
  const after = fromStart(sessionId);
  // On one socket: two large replays (each event of 400 about 150 bytes) and a per-event stream.
  const large = [0, 1].map(() => wsSubscription<Message>(client, BATCHES, { sessionId, after, maxEvents: 1000 }));
  const single = wsSubscription<{ toolCallEvents: StreamEvent }>(client, EVENTS, { sessionId, after });
  const expected = (await single.until((item) => item.data?.toolCallEvents.__typename === 'ToolBatchCompleted', 30_000)).map((item) => item.data!.toolCallEvents);
  for (const stream of large) {
    const messages = messagesOf(await stream.until(endsBatch(batchId), 30_000));
    expect(Math.max(...messages.map((message) => JSON.stringify(message).length))).toBeGreaterThan(16 * 1024);
    expect(messages.flatMap((message) => message.events)).toEqual(expected);
    await stream.close();
  }
  await single.close();
});

it('resumes after a message’s cursor with the events that follow it, and maxEvents 1 gives one event per message', async () => {
  const { sessionId, batchId } = await finishedBatch(10);
  const first = wsSubscription<Message>(client, BATCHES, { sessionId, after: fromStart(sessionId), maxEvents: 4 });
  const [opening] = messagesOf([await first.next(15_000)]);
  await first.close();
  expect(opening!.events).toHaveLength(4);

  const rest = wsSubscription<Message>(client, BATCHES, { sessionId, after: opening!.cursor, maxEvents: 1 });
  const messages = messagesOf(await rest.until(endsBatch(batchId), 15_000));
  await rest.close();
  expect(messages.every((message) => message.events.length === 1)).toBe(true);
  expectCompleteSequence([...opening!.events, ...messages.flatMap((message) => message.events)]);
});

it('delivers live events of a running batch over graphql-ws and SSE, and completes after the batch with completeWhenDone', async () => {
  const sessionId = await createSession(app);
  const after = fromStart(sessionId);
  const streams: Array<Subscription<Message>> = [
    wsSubscription<Message>(client, BATCHES, { sessionId, after }),
    sseSubscription<Message>(app.endpoint, BATCHES, { sessionId, after }, app.apiKey),
  ];
  const batch = await submitBatch(app, { sessionId, calls: Array.from({ length: 200 }, (_, i) => ({ id: `c${i}`, tool: 'add', args: { a: i, b: 1 } })) });
  const done = wsSubscription<Message>(client, BATCHES, { sessionId, after, batchId: batch.batchId, completeWhenDone: true });
  for (const stream of streams) {
    const events = messagesOf(await stream.until(endsBatch(batch.batchId), 60_000)).flatMap((message) => message.events);
    expectCompleteSequence(events);
    expect(events.filter((event) => event.__typename === 'ToolCallCompleted')).toHaveLength(200);
    await stream.close();
  }
  const watched = messagesOf(await done.until(endsBatch(batch.batchId), 60_000)).flatMap((message) => message.events);
  expect(watched.at(-1)).toMatchObject({ __typename: 'ToolBatchCompleted', batchId: batch.batchId, succeeded: 200 });
  await expect(done.next(5_000)).rejects.toThrow('subscription ended');
});

it.each([0, -1, 1001])('refuses maxEvents %i naming maxEvents in each batched stream, before any stream starts', async (maxEvents) => {
  const sessionId = await createSession(app);
  for (const [field, args] of [
    ['toolCallEventBatches', '(sessionId: $sessionId, maxEvents: $maxEvents)'],
    ['taskEventBatches', '(sessionId: $sessionId, maxEvents: $maxEvents)'],
    ['tenantEventBatches', '(sessionId: $sessionId, maxEvents: $maxEvents)'],
  ]) {
    const query = `subscription($sessionId: ID!, $maxEvents: Int) { ${field}${args} { cursor } }`;
    const stream = wsSubscription<Message>(client, query, { sessionId, maxEvents });
    expect((await stream.next(10_000)).errors?.[0], field).toMatchObject({ message: 'maxEvents must be between 1 and 1000', extensions: { code: 'VALIDATION_FAILED', field: 'maxEvents' } });
  }
});

const TASK_BATCHES = /* GraphQL */ `
  subscription TaskBatches($taskId: ID!, $after: String) {
    taskEventBatches(taskId: $taskId, after: $after, completeWhenDone: true, maxEvents: 2) { cursor events { __typename seq cursor ... on TaskEvent { taskId } } }
  }
`;
const TASK_EVENTS = /* GraphQL */ `
  subscription TaskOne($taskId: ID!, $after: String) {
    taskEvents(taskId: $taskId, after: $after, completeWhenDone: true) { __typename seq cursor ... on TaskEvent { taskId } }
  }
`;
const TENANT_BATCHES = /* GraphQL */ `
  subscription TenantBatches($after: String, $types: [EventType!]) {
    tenantEventBatches(after: $after, types: $types, maxEvents: 3) { cursor events { __typename tenantSeq cursor sessionId } }
  }
`;
const TENANT_EVENTS = /* GraphQL */ `
  subscription TenantOne($after: String, $types: [EventType!]) {
    tenantEvents(after: $after, types: $types) { __typename tenantSeq cursor sessionId }
  }
`;
type Batched<E> = { cursor: string; events: E[] };

it('taskEventBatches gives a task’s events as taskEvents does, a few per message, and completes after TaskFinished', async () => {
  const sessionId = await createSession(app);
  const spawned = (await app.query(SpawnBackgroundDocument, { sessionId, tool: 'sleep', args: { ms: 1 } })).spawnBackground;
  if (spawned.__typename !== 'BackgroundRun') throw new Error(`spawnBackground answered ${spawned.__typename}`);
  const after = fromStart(sessionId);
  type TaskEvent = { __typename: string; seq: number; cursor: string };
  const single = wsSubscription<{ taskEvents: TaskEvent }>(client, TASK_EVENTS, { taskId: spawned.taskId, after });
  const batched = wsSubscription<{ taskEventBatches: Batched<TaskEvent> }>(client, TASK_BATCHES, { taskId: spawned.taskId, after });
  const expected = (await single.until((item) => item.data?.taskEvents.__typename === 'TaskFinished', 15_000)).map((item) => item.data!.taskEvents);
  const messages = (await batched.until((item) => item.data?.taskEventBatches.events.some((event) => event.__typename === 'TaskFinished') ?? false, 15_000)).map((item) => item.data!.taskEventBatches);
  expect(messages.flatMap((message) => message.events)).toEqual(expected);
  expect(messages.every((message) => message.events.length <= 2 && message.cursor === message.events.at(-1)!.cursor)).toBe(true);
  await expect(batched.next(5_000)).rejects.toThrow('subscription ended');
  await single.close();
});

it('tenantEventBatches gives the tenant stream as tenantEvents does, with tenant cursors that resume it', async () => {
  const { tenantSettings } = await app.query(TenantCursorDocument, {});
  const after = tenantSettings.lastEventCursor ?? encodeTenantEventCursor(app.tenantId, 0);
  const types = ['SessionCreated', 'ToolBatchCompleted'];
  type TenantEvent = { __typename: string; tenantSeq: number; cursor: string; sessionId: string };
  const single = wsSubscription<{ tenantEvents: TenantEvent }>(client, TENANT_EVENTS, { after, types });
  const batched = wsSubscription<{ tenantEventBatches: Batched<TenantEvent> }>(client, TENANT_BATCHES, { after, types });
  for (let i = 0; i < 4; i++) {
    const sessionId = await createSession(app);
    await submitBatch(app, { sessionId, calls: [{ id: 'a', tool: 'add', args: { a: 1, b: i } }], waitMs: 10_000 });
  }
  const expected = (await single.until((_item, all) => all.length === 8, 15_000)).map((item) => item.data!.tenantEvents);
  const messages = (await batched.until((_item, all) => all.flatMap((item) => item.data?.tenantEventBatches.events ?? []).length >= 8, 15_000)).map((item) => item.data!.tenantEventBatches);
  await Promise.all([single.close(), batched.close()]);
  const flattened = messages.flatMap((message) => message.events);
  expect(flattened.slice(0, 8)).toEqual(expected);
  expect(messages.every((message) => message.events.length <= 3 && message.cursor === message.events.at(-1)!.cursor)).toBe(true);

  // A message's cursor is a tenant cursor: tenantEvents resumes after it with the next event.
  const resumed = wsSubscription<{ tenantEvents: TenantEvent }>(client, TENANT_EVENTS, { after: messages[0]!.cursor, types });
  expect((await resumed.next(10_000)).data!.tenantEvents).toEqual(flattened[messages[0]!.events.length]);
  await resumed.close();
});

it('prices a message as maxEvents events: a selection that may return more objects than the cost limit is refused', async () => {
  const sessionId = await createSession(app);
  // Each event of up to 1000 may carry 100 calls: about 100,000 objects a message.
  const costly = `subscription($sessionId: ID!, $maxEvents: Int) {
    toolCallEventBatches(sessionId: $sessionId, maxEvents: $maxEvents) { events { ... on ToolBatchCompleted { batch { calls(first: 100) { nodes { callId } } } } } }
  }`;
  const refused = sseSubscription<Message>(app.endpoint, costly, { sessionId, maxEvents: 1000 }, app.apiKey);
  expect((await refused.next(10_000)).errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COSTLY' });
  await refused.close();
  // The same selection with fewer events a message, and the plain events of the full maxEvents, are allowed.
  for (const [query, maxEvents] of [[costly, 100], [BATCHES, 1000]] as const) {
    const allowed = sseSubscription<Message>(app.endpoint, query, { sessionId, maxEvents }, app.apiKey);
    await expect(allowed.next(500)).rejects.toThrow('no subscription payload');
    await allowed.close();
  }
});

it('answers NOT_FOUND to another tenant’s key for a session that is not its own, in each batched stream', async () => {
  const sessionId = await createSession(app);
  const stranger = wsClient(app.endpoint, await app.newKey());
  try {
    for (const field of ['toolCallEventBatches', 'taskEventBatches', 'tenantEventBatches']) {
      const stream = wsSubscription<Message>(stranger, `subscription($sessionId: ID!) { ${field}(sessionId: $sessionId) { cursor } }`, { sessionId });
      expect((await stream.next(10_000)).errors?.[0]?.extensions, field).toMatchObject({ code: 'NOT_FOUND' });
      await stream.close();
    }
  } finally {
    await stranger.dispose();
  }
});
