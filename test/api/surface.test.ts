// Authentication, tenant isolation, Relay ids, query cost bounds and the HTTP surface.
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createApiServer } from '../../src/server/app.js';
import {
  ApproveToolCallDocument,
  CancelToolBatchDocument,
  CreateSessionDocument,
  GetNodeDocument,
  GetSessionDocument,
  GetToolCallDocument,
  ListSessionsDocument,
  RegisterExternalToolDocument,
  SessionBatchesDocument,
  SpawnBackgroundDocument,
  TenantSettingsDocument,
  ToolCallEventsDocument,
  ToolsDocument,
  UpdateTenantSettingsDocument,
} from '../gql/graphql.js';
import { createSession, fromStart, submit, submitBatch } from '../support/fixtures.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

let app: Toolrun;
beforeAll(async () => {
  app = await startToolrun();
});
afterAll(async () => app?.close());

describe('authentication', () => {
  it('refuses a missing bearer and a wrong key with 401', async () => {
    const missing = await app.request(ToolsDocument, {}, null);
    expect(missing.status).toBe(401);
    expect(missing.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const wrong = await app.request(ToolsDocument, {}, 'trk_not-a-real-key');
    expect(wrong.status).toBe(401);
    expect(wrong.data ?? null).toBeNull();
  });

  it('refuses a WebSocket connection without a valid key in connection_init', async () => {
    const client = createClient({ url: await app.endpoint.wsUrl(), webSocketImpl: WebSocket, connectionParams: { authorization: 'Bearer trk_wrong' }, retryAttempts: 0 });
    const outcome = await new Promise<string>((resolve) => {
      client.subscribe({ query: '{ __typename }' }, { next: () => resolve('next'), error: (error) => resolve(`error:${(error as CloseEvent).code ?? ''}`), complete: () => resolve('complete') });
    });
    await client.dispose();
    expect(outcome).toMatch(/^error:44\d\d/);
  });

  it("treats another tenant's ids exactly like ids that do not exist", async () => {
    const sessionId = await createSession(app);
    const batch = await submitBatch(app, { sessionId, waitMs: 5000, calls: [{ id: 'mine', tool: 'echo', args: { message: '' } }] });
    const intruder = await app.newKey();

    expect((await app.query(GetSessionDocument, { id: sessionId }, intruder)).session).toBeNull();
    expect((await app.query(GetToolCallDocument, { callId: 'mine', sessionId }, intruder)).toolCall).toBeNull();
    const foreign = await submit(app, { sessionId, calls: [{ tool: 'echo', args: { message: '' } }] }, intruder);
    const missing = await submit(app, { sessionId: 'U2Vzc2lvbjowMDAwMDAwMC0wMDAwLTAwMDAtMDAwMC0wMDAwMDAwMDAwMDA=', calls: [{ tool: 'echo', args: { message: '' } }] }, intruder);
    expect(foreign.__typename).toBe('NotFoundError');
    expect(missing.__typename).toBe('NotFoundError');

    const nodeId = batch.calls.nodes[0]!.id;
    const mine = await app.request(GetNodeDocument, { id: nodeId });
    expect(mine.data?.node).toMatchObject({ __typename: 'ToolCall', callId: 'mine' });
    const theirs = await app.request(GetNodeDocument, { id: nodeId }, intruder);
    const nowhere = await app.request(GetNodeDocument, { id: Buffer.from('ToolCall:00000000-0000-0000-0000-000000000000').toString('base64') }, intruder);
    expect(theirs.data?.node ?? null).toBeNull();
    expect(theirs.errors?.map((error) => error.message.replace(/`[^`]*`/, '`id`'))).toEqual(nowhere.errors?.map((error) => error.message.replace(/`[^`]*`/, '`id`')));

    const list = await app.query(ListSessionsDocument, { first: 50 }, intruder);
    expect(list.sessions.nodes).toEqual([]);
  });

  it('lets a reader-only key read and subscribe, and answers each of its mutations with ForbiddenError', async () => {
    const { tenantSettings } = await app.query(TenantSettingsDocument, {});
    const reader = await app.newKey(tenantSettings.tenantName, ['reader']);
    const sessionId = await createSession(app);
    const batch = await submitBatch(app, { sessionId, waitMs: 5000, calls: [{ id: 'read-me', tool: 'echo', args: { message: 'read me' } }] });

    expect((await app.query(GetSessionDocument, { id: sessionId }, reader)).session).toMatchObject({ id: sessionId });
    expect((await app.query(GetToolCallDocument, { callId: 'read-me', sessionId }, reader)).toolCall).toMatchObject({ status: 'SUCCEEDED' });
    expect((await app.query(ToolsDocument, {}, reader)).tools.length).toBeGreaterThan(0);
    const events = app.sse(ToolCallEventsDocument, { sessionId, after: fromStart(sessionId) }, reader);
    const seen = await events.until((item) => item.data?.toolCallEvents.__typename === 'ToolBatchCompleted');
    await events.close();
    expect(seen.at(-1)?.data?.toolCallEvents).toMatchObject({ __typename: 'ToolBatchCompleted', batchId: batch.batchId });

    const forbidden = { __typename: 'ForbiddenError', code: 'FORBIDDEN' };
    expect((await app.query(CreateSessionDocument, { title: 'no' }, reader)).createSession).toMatchObject(forbidden);
    expect(await submit(app, { sessionId, calls: [{ tool: 'echo', args: { message: 'no' } }] }, reader)).toMatchObject({
      ...forbidden,
      message: '`executeToolBatch` needs an API key with the submitter role',
    });
    expect((await app.query(CancelToolBatchDocument, { sessionId, batchId: batch.batchId }, reader)).cancelToolBatch).toMatchObject(forbidden);
    expect((await app.query(SpawnBackgroundDocument, { sessionId, tool: 'sleep', args: { ms: 1 } }, reader)).spawnBackground).toMatchObject(forbidden);
    expect((await app.query(ApproveToolCallDocument, { callId: 'read-me', sessionId }, reader)).approveToolCall).toMatchObject(forbidden);
    const tool = { name: 'reader_tool', description: 'no', parametersSchema: { type: 'object' } };
    expect((await app.query(RegisterExternalToolDocument, { input: tool }, reader)).registerExternalTool).toMatchObject(forbidden);
    expect((await app.query(UpdateTenantSettingsDocument, { allowSelfApproval: true }, reader)).updateTenantSettings).toMatchObject(forbidden);
    expect((await app.query(TenantSettingsDocument, {})).tenantSettings.allowSelfApproval).toBe(false);
  });
});

describe('query cost', () => {
  it('loads 20 batches with all their calls in as many SQL statements as 2 batches', async () => {
    // An API-only instance: no worker loops, so every statement counted is the query's own.
    const idle = await startToolrun({}, { worker: false });
    try {
      const sessionId = await createSession(idle);
      for (let i = 0; i < 20; i++) {
        await submitBatch(idle, { sessionId, calls: Array.from({ length: 3 }, (_, j) => ({ id: `b${i}c${j}`, tool: 'echo', args: { message: `${i}-${j}` } })) });
      }
      const count = async (first: number) => {
        // The submissions' outbox rows are deleted in the background once BullMQ has their jobs.
        await idle.services.dispatcher.settle();
        idle.resetQueries();
        const result = await idle.query(SessionBatchesDocument, { id: sessionId, first });
        expect(result.session!.batches.nodes).toHaveLength(first);
        expect(result.session!.batches.nodes.every((batch) => batch.calls.nodes.length === 3)).toBe(true);
        return idle.queries.length;
      };
      const two = await count(2);
      const twenty = await count(20);
      expect(twenty).toBe(two);
      expect(twenty).toBeLessThanOrEqual(5);
    } finally {
      await idle.close();
    }
  });

  it('submits a 100-call batch with the same number of statements as a 10-call batch', async () => {
    const idle = await startToolrun({}, { worker: false });
    try {
      const sessionId = await createSession(idle);
      const measure = async (n: number) => {
        await idle.services.dispatcher.settle();
        idle.resetQueries();
        await submitBatch(idle, { sessionId, calls: Array.from({ length: n }, (_, i) => ({ tool: 'echo', args: { message: String(i) } })) });
        // With the deletion of its outbox rows once BullMQ has the jobs.
        await idle.services.dispatcher.settle();
        return idle.queries.length;
      };
      const ten = await measure(10);
      const hundred = await measure(100);
      expect(hundred).toBe(ten);
    } finally {
      await idle.close();
    }
  });

  it('bounds query depth, aliases and request size', async () => {
    const deep = `{ sessions { nodes { batches { nodes { session { batches { nodes { session { batches { nodes { session { batches { nodes { calls { batch { session { id } } } } } } } } } } } } } } } } }`;
    const tooDeep = await app.request(deep);
    expect(tooDeep.errors?.[0]?.message).toMatch(/depth/i);
    const aliases = `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: tools { name }`).join(' ')} }`;
    expect((await app.request(aliases)).errors?.[0]?.message).toMatch(/alias/i);
    const body = JSON.stringify({ query: '{ tools { name } }', variables: { pad: 'x'.repeat(3 * 1024 * 1024) } });
    const huge = await app.fetch('/graphql', {
      method: 'POST',
      // What an HTTP client declares; the limit is checked on it before the body is read.
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), authorization: `Bearer ${app.apiKey}` },
      body,
    });
    expect(huge.status).toBe(413);
  });
});

describe('http surface', () => {
  it('serves liveness and readiness', async () => {
    expect((await app.fetch('/health')).status).toBe(200);
    const ready = await app.fetch('/ready');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ database: 'ok', redis: 'ok' });
    // Probes and the metrics scrape are read-only: other methods are refused, saying which are allowed.
    const base = await app.baseUrl();
    for (const path of ['/health', '/ready', '/metrics']) {
      expect((await fetch(`${base}${path}`)).status).toBe(200);
      // A probe may carry a query string (a cache-buster, or anything at all).
      for (const query of ['?probe=1', '?%%', '?']) expect([path, query, (await fetch(`${base}${path}${query}`)).status]).toEqual([path, query, 200]);
      for (const method of ['POST', 'PUT', 'DELETE']) {
        const refused = await fetch(`${base}${path}`, { method });
        expect([path, method, refused.status, refused.headers.get('allow')]).toEqual([path, method, 405, 'GET, HEAD']);
      }
    }
  });

  it('turns readiness to 503 as soon as the API process starts to shut down, while it stays live', async () => {
    const other = createApiServer(app.services);
    expect((await other.yoga.fetch('http://toolrun.test/ready')).status).toBe(200);
    const closed = other.close();
    const ready = await other.yoga.fetch('http://toolrun.test/ready');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'not ready', database: 'ok', redis: 'ok', closing: true });
    expect((await other.yoga.fetch('http://toolrun.test/health')).status).toBe(200);
    await closed;
  });

  it('serves GraphiQL to browsers', async () => {
    const page = await app.fetch('/graphql', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('toolrun');
  });
});
