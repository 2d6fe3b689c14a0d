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
  const url = `${(await app.baseUrl()).replace(/^http/, 'ws')}/graphql`;
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
