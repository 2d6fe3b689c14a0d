// graphql-ws fan-out: many sockets and selections on one session get every event once, in order,
// whether an event is written straight to the socket or through graphql-ws's own path.
import type { Socket } from 'node:net';
import { print } from 'graphql';
import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ToolCallEventsDocument, type ToolCallEventsSubscription } from '../gql/graphql.js';
import { batchCompleted, eventsOf, expectCompleteSequence } from '../support/events.js';
import { createSession, fromStart, newSession, submitBatch } from '../support/fixtures.js';
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

/** MINIMAL with each completed call's output (events of some size). */
const WITH_OUTPUT = MINIMAL.replace('... on ToolCallCompleted { callId }', '... on ToolCallCompleted { callId output { ... on ToolSuccess { value } } }');
type Frame = { type: string; payload?: { data?: { toolCallEvents?: { seq: number } } } };

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
  socket.send(JSON.stringify({ id: 'slow', type: 'subscribe', payload: { query: WITH_OUTPUT, variables: { sessionId, after } } }));
  const raw = (socket as unknown as { _socket: Socket })._socket;

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

describe('keep-alive', () => {
  let quick: Toolrun;
  beforeAll(async () => {
    quick = await startToolrun({ WS_KEEPALIVE_MS: 300 });
  });
  afterAll(async () => {
    await quick?.close();
  });

  /** A graphql-transport-ws client on a plain socket, acknowledged; its TCP socket for pausing reads. */
  async function rawClient(): Promise<{ socket: WebSocket; raw: Socket; frames: Frame[]; closed: Promise<number> }> {
    const socket = new WebSocket(await quick.endpoint.wsUrl(), 'graphql-transport-ws');
    const frames: Frame[] = [];
    socket.on('message', (data) => frames.push(JSON.parse(String(data))));
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${quick.apiKey}` } }));
    await expect.poll(() => frames.some((frame) => frame.type === 'connection_ack')).toBe(true);
    return { socket, raw: (socket as unknown as { _socket: Socket })._socket, frames, closed };
  }

  it('drops a socket that stops answering pings, and keeps one that is still reading a backlog sent before the ping', async () => {
    // A client that reads nothing for 1.5 s and has almost nothing queued: dropped once a ping goes
    // unanswered for 0.3 s (a paused socket sees the close when it reads again).
    const silent = await rawClient();
    let silentDropped = false;
    void silent.closed.then(() => (silentDropped = true));
    silent.raw.pause();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    silent.raw.resume();
    await expect.poll(() => silentDropped, { timeout: 3_000 }).toBe(true);

    // A client whose backlog (about 320 KB of events, replayed from the session's start) was sent
    // before the ping: given the time an 8 KB/s reader needs for it, so a 2 s pause is survived.
    const { id: sessionId, rowId } = await newSession(quick);
    const content = 'x'.repeat(32_000);
    const written = await submitBatch(quick, { sessionId, calls: [{ id: 'w', tool: 'write_file', args: { path: 'big.txt', content } }], waitMs: 10_000 });
    expect(written.status).toBe('COMPLETED');
    const calls = 10;
    const batch = await submitBatch(quick, { sessionId, calls: Array.from({ length: calls }, (_, i) => ({ id: `r${i}`, tool: 'read_file', args: { path: 'big.txt' } })), waitMs: 10_000 });
    expect(batch.status).toBe('COMPLETED');
    const expectedSeqs = (await quick.services.db.event.findMany({ where: { sessionId: rowId, type: { startsWith: 'Tool' } }, select: { seq: true }, orderBy: { seq: 'asc' } })).map((event) => Number(event.seq));
    const reader = await rawClient();
    reader.raw.pause();
    let dropped = false;
    void reader.closed.then(() => (dropped = true));
    reader.socket.send(JSON.stringify({ id: 'backlog', type: 'subscribe', payload: { query: WITH_OUTPUT, variables: { sessionId, after: fromStart(sessionId) } } }));
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    reader.raw.resume();
    await expect.poll(() => reader.frames.filter((frame) => frame.type === 'next').map((frame) => frame.payload!.data!.toolCallEvents!.seq), { timeout: 10_000 }).toEqual(expectedSeqs);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(dropped).toBe(false);
    reader.socket.close();
  }, 30_000);
});
