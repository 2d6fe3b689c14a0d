// graphql-ws fan-out: many sockets and selections on one session get every event once, in order,
// whether an event is written straight to the socket or through graphql-ws's own path.
import { print } from 'graphql';
import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ToolCallEventsDocument, type ToolCallEventsSubscription } from '../gql/graphql.js';
import { batchCompleted, eventsOf, expectCompleteSequence } from '../support/events.js';
import { createSession, fromStart, submitBatch } from '../support/fixtures.js';
import { startToolrun, type Toolrun, wsSubscription } from '../support/toolrun.js';

let app: Toolrun;
const clients: Client[] = [];
beforeAll(async () => {
  app = await startToolrun();
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  await app?.close();
});

const MINIMAL = /* GraphQL */ `
  subscription Minimal($sessionId: ID!, $after: String) {
    toolCallEvents(sessionId: $sessionId, after: $after) { __typename seq cursor ... on ToolCallCompleted { callId } ... on ToolBatchCompleted { batchId } }
  }
`;

it('delivers every event of a 300-call batch once, in order, to 40 subscriptions on 20 sockets with two selections', async () => {
  const sessionId = await createSession(app);
  const url = await app.endpoint.wsUrl();
  const subscriptions = [];
  for (let i = 0; i < 20; i++) {
    const client = createClient({ url, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${app.apiKey}` }, retryAttempts: 0 });
    clients.push(client);
    subscriptions.push(wsSubscription<ToolCallEventsSubscription>(client, print(ToolCallEventsDocument), { sessionId, after: fromStart(sessionId) }));
    subscriptions.push(wsSubscription<ToolCallEventsSubscription>(client, MINIMAL, { sessionId, after: fromStart(sessionId) }));
  }
  const batch = await submitBatch(app, { sessionId, calls: Array.from({ length: 300 }, (_, i) => ({ id: `c${i}`, tool: 'add', args: { a: i, b: 1 } })) });
  const received = await Promise.all(subscriptions.map(async (subscription) => eventsOf(await subscription.until(batchCompleted(batch.batchId), 60_000))));
  for (const events of received) {
    expectCompleteSequence(events);
    expect(events.filter((event) => event.__typename === 'ToolCallCompleted')).toHaveLength(300);
    expect(events.at(-1)).toMatchObject({ __typename: 'ToolBatchCompleted' });
  }
  expect(new Set(received.map((events) => events.length)).size).toBe(1);
  await Promise.all(subscriptions.map((subscription) => subscription.close()));
});

it('a reader that stops reading falls behind without loss: once it reads again it gets every event once, in order', async () => {
  const sessionId = await createSession(app);
  const content = 'x'.repeat(32_000);
  const written = await submitBatch(app, { sessionId, calls: [{ id: 'w', tool: 'write_file', args: { path: 'big.txt', content } }], waitMs: 10_000 });
  expect(written.status).toBe('COMPLETED');
  const after = fromStart(sessionId);

  // A graphql-transport-ws client on a plain socket whose reading is paused: the server's writes pile
  // up in the kernel and then in the process until the socket is full (the high-water mark), so the
  // events after that wait as queued events and reach it only when it reads again.
  const socket = new WebSocket(await app.endpoint.wsUrl(), 'graphql-transport-ws');
  const frames: Array<{ type: string; payload?: { data?: { toolCallEvents?: { __typename: string; seq: number; cursor: string } } } }> = [];
  socket.on('message', (data) => frames.push(JSON.parse(String(data))));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${app.apiKey}` } }));
  await expect.poll(() => frames.some((frame) => frame.type === 'connection_ack')).toBe(true);
  socket.send(JSON.stringify({ id: 'slow', type: 'subscribe', payload: { query: MINIMAL.replace('... on ToolCallCompleted { callId }', '... on ToolCallCompleted { callId output { ... on ToolSuccess { value } } }'), variables: { sessionId, after } } }));
  const raw = (socket as unknown as { _socket: import('node:net').Socket })._socket;

  // A reading subscriber says when the batch is done.
  const client = createClient({ url: await app.endpoint.wsUrl(), webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${app.apiKey}` }, retryAttempts: 0 });
  clients.push(client);
  const reader = wsSubscription<ToolCallEventsSubscription>(client, MINIMAL, { sessionId, after });
  await expect.poll(() => frames.filter((frame) => frame.type === 'next').length).toBeGreaterThan(0);
  raw.pause();
  const calls = 400;
  const batch = await submitBatch(app, { sessionId, calls: Array.from({ length: calls }, (_, i) => ({ id: `r${i}`, tool: 'read_file', args: { path: 'big.txt' } })) });
  const expected = eventsOf(await reader.until(batchCompleted(batch.batchId), 60_000));
  raw.resume();
  await expect.poll(() => frames.filter((frame) => frame.type === 'next').at(-1)?.payload?.data?.toolCallEvents?.seq, { timeout: 60_000 }).toBe(expected.at(-1)!.seq);
  const events = frames.filter((frame) => frame.type === 'next').map((frame) => frame.payload!.data!.toolCallEvents!);
  expect(events.map((event) => event.seq)).toEqual(expected.map((event) => event.seq));
  expect(events.map((event) => event.seq)).toEqual(Array.from({ length: events.length }, (_, index) => events[0]!.seq + index));
  expect(events.filter((event) => event.__typename === 'ToolCallCompleted')).toHaveLength(calls + 1);
  socket.close();
  await reader.close();
}, 120_000);
