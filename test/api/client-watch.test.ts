// The typed client's watchBatch / watchTask against the in-process API on a real port: a watch of
// work that is already finished, from a cursor at its last event, ends instead of resubscribing
// for ever (the server completes such a stream at once, with no event); an empty batch, which
// executeToolBatch answers COMPLETED without storing it, is found and watched like any other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createToolrunClient, type ToolrunClient } from '../../src/client/index.js';
import { createSession } from '../support/fixtures.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

let app: Toolrun;
let client: ToolrunClient;
beforeAll(async () => {
  app = await startToolrun();
  client = createToolrunClient({ url: `${await app.baseUrl()}/graphql`, apiKey: app.apiKey, webSocketImpl: WebSocket, maxRetryDelayMs: 200 });
});
afterAll(async () => {
  await client?.close();
  await app?.close();
});

/** Every item of the iterator, or a failure when it has not ended within `ms`. */
async function drain<T>(iterator: AsyncIterableIterator<T>, ms: number): Promise<T[]> {
  const items: T[] = [];
  const ended = (async () => {
    for await (const item of iterator) items.push(item);
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  const outcome = await Promise.race([ended.then(() => 'ended' as const), timedOut]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    await iterator.return?.();
    throw new Error(`the watch did not end within ${ms} ms (${items.length} events)`);
  }
  return items;
}

describe('client watch of finished work', () => {
  it('ends a watchBatch from the cursor of the batch’s last event', async () => {
    const sessionId = await createSession(app);
    const batch = await client.executeBatch({ sessionId, calls: [{ tool: 'add', args: { a: 1, b: 2 } }] });
    if (batch.__typename !== 'ToolBatch') throw new Error(JSON.stringify(batch));
    const events = await drain(client.watchBatch(sessionId, batch.batchId, { after: batch.eventCursor }), 20_000);
    expect(events.at(-1)?.__typename).toBe('ToolBatchCompleted');

    // Nothing broke while it found the batch done: the link never shows a reconnect.
    const states: string[] = [];
    const stop = client.onLinkState((state) => states.push(state));
    const again = await drain(client.watchBatch(sessionId, batch.batchId, { after: events.at(-1)!.cursor }), 10_000);
    stop();
    expect(again).toEqual([]);
    expect(states).not.toContain('reconnecting');
    // A watch of the same batch from an earlier cursor still delivers what follows it.
    const rest = await drain(client.watchBatch(sessionId, batch.batchId, { after: events.at(-2)!.cursor }), 10_000);
    expect(rest.map((event) => event.cursor)).toEqual([events.at(-1)!.cursor]);
    expect(client.linkState).toBe('idle');
  });

  it('ends a watchTask from the cursor of the task’s TaskFinished', async () => {
    const sessionId = await createSession(app);
    const run = await client.spawn({ sessionId, tool: 'sleep', args: { ms: 10 } });
    if (run.__typename !== 'BackgroundRun') throw new Error(JSON.stringify(run));
    const events = await drain(client.watchTask(run.taskId, { after: run.eventCursor }), 20_000);
    expect(events.at(-1)?.__typename).toBe('TaskFinished');
    expect(await drain(client.watchTask(run.taskId, { after: events.at(-1)!.cursor }), 10_000)).toEqual([]);
  });

  it('answers and watches an empty batch as the completed batch executeToolBatch returned', async () => {
    const sessionId = await createSession(app);
    const batch = await client.executeBatch({ sessionId, calls: [] });
    if (batch.__typename !== 'ToolBatch') throw new Error(JSON.stringify(batch));
    expect(batch.status).toBe('COMPLETED');
    const found = await app.request('query($s: ID!, $b: String!) { toolBatch(sessionId: $s, batchId: $b) { batchId status callCount calls { totalCount } } }', { s: sessionId, b: batch.batchId });
    expect(found).toMatchObject({ data: { toolBatch: { batchId: batch.batchId, status: 'COMPLETED', callCount: 0, calls: { totalCount: 0 } } } });
    expect(await drain(client.watchBatch(sessionId, batch.batchId, { after: batch.eventCursor }), 10_000)).toEqual([]);
    const cancelled = await app.request('mutation($s: ID!, $b: String!) { cancelToolBatch(sessionId: $s, batchId: $b) { __typename ... on ToolBatch { status } } }', { s: sessionId, b: batch.batchId });
    expect(cancelled).toMatchObject({ data: { cancelToolBatch: { __typename: 'ToolBatch', status: 'COMPLETED' } } });
    // Another tenant's key finds nothing there.
    const other = await app.newKey();
    const foreign = await app.request('query($s: ID!, $b: String!) { toolBatch(sessionId: $s, batchId: $b) { batchId } }', { s: sessionId, b: batch.batchId }, other);
    expect(foreign.data).toEqual({ toolBatch: null });
  });
});
