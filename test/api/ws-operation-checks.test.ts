// A subscription over graphql-ws passes the same checks before it starts as over HTTP and SSE: its
// input (server/plugins/use-input-limits.ts) and its cost (use-query-cost.ts). graphql-ws
// subscriptions are served by server/graphql-ws.ts, which executes their events itself rather than
// through the envelop subscribe that runs those checks as hooks.
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../support/fixtures.js';
import { sseSubscription, startToolrun, type Subscription, type Toolrun, wsClient, wsSubscription } from '../support/toolrun.js';

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

/** The first error the subscription answers with, whether sent as a result or as graphql-ws's error message. */
async function firstError(subscription: Subscription<unknown>): Promise<{ message: string; extensions?: Record<string, unknown> } | undefined> {
  try {
    return (await subscription.next(3_000)).errors?.[0] as { message: string; extensions?: Record<string, unknown> } | undefined;
  } catch (error) {
    if ((error as Error).message.startsWith('no subscription payload')) return undefined;
    return (JSON.parse((error as Error).message) as Array<{ message: string; extensions?: Record<string, unknown> }>)[0];
  } finally {
    await subscription.close();
  }
}

const transports = {
  'graphql-ws': (query: string, variables: Record<string, unknown>) => wsSubscription<unknown>(client, query, variables),
  SSE: (query: string, variables: Record<string, unknown>) => sseSubscription<unknown>(app.endpoint, query, variables, app.apiKey),
};

describe.each(Object.entries(transports))('a subscription over %s', (_name, subscribe) => {
  it('is refused QUERY_TOO_COSTLY when it may return more objects than the limit, and starts when it may not', async () => {
    const sessionId = await createSession(app);
    const costly = `subscription($sessionId: ID!, $first: Int) {
      toolCallEvents(sessionId: $sessionId) { ... on ToolBatchCompleted { batch { calls(first: $first) { nodes { callId session { batches(first: 100) { nodes { batchId } } } } } } } }
    }`;
    expect(await firstError(subscribe(costly, { sessionId, first: 1000 }))).toMatchObject({ extensions: { code: 'QUERY_TOO_COSTLY' } });
    const allowed = subscribe(costly, { sessionId, first: 5 });
    await expect(allowed.next(500)).rejects.toThrow('no subscription payload');
    await allowed.close();
  });

  it('is refused BAD_USER_INPUT naming the variable when its input holds U+0000', async () => {
    // batchId only filters: nothing but the input check would refuse it.
    const query = 'subscription($sessionId: ID!, $batchId: String) { toolCallEvents(sessionId: $sessionId, batchId: $batchId) { seq } }';
    const sessionId = await createSession(app);
    expect(await firstError(subscribe(query, { sessionId, batchId: 'a\u0000b' }))).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: '$batchId' } });
  });
});
