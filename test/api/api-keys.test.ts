// API keys through the public API: create, list, revoke, rotate, expiry and last use; a revoked
// or expired key refused everywhere within a second (HTTP on another API process, an open
// WebSocket closed with 4403, an open SSE stream ended); subscription limits per socket and per
// key. (`npm run apikey`: test/system/apikey-command.test.ts.)
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createLogger } from '../../src/logger.js';
import { createApiServer } from '../../src/server/app.js';
import { closeServices, createServices } from '../../src/services.js';
import { graphqlClient, sseSubscription, startToolrun, type Toolrun } from '../support/toolrun.js';

const CREATE = `mutation($name: String!, $roles: [Role!]!, $expiresAt: DateTime) {
  createApiKey(name: $name, roles: $roles, expiresAt: $expiresAt) {
    __typename ... on Error { code message }
    ... on IssuedApiKey { key apiKey { id prefix name roles expiresAt lastUsedAt revokedAt active } }
  }
}`;
const LIST = `{ apiKeys { id prefix name roles expiresAt lastUsedAt revokedAt active } }`;
const REVOKE = `mutation($id: String!) { revokeApiKey(id: $id) { __typename ... on Error { code message } ... on ApiKey { id revokedAt active } } }`;
const ROTATE = `mutation($id: String!, $overlap: Int!) {
  rotateApiKey(id: $id, overlapSeconds: $overlap) {
    __typename ... on Error { code message }
    ... on IssuedApiKey { key apiKey { id name roles } previous { id expiresAt active } }
  }
}`;
const SESSION = `mutation { createSession { ... on Session { id } } }`;
const EVENTS = `subscription($sessionId: ID!) { toolCallEvents(sessionId: $sessionId) { type } }`;
const TENANT_EVENTS = `subscription($sessionId: ID!) { tenantEvents(sessionId: $sessionId) { type } }`;
const TOOLS = `{ tools { name } }`;

interface Issued {
  key: string;
  apiKey: { id: string; prefix: string; name: string; roles: string[]; expiresAt: string | null; lastUsedAt: string | null; active: boolean };
}

describe('API keys', () => {
  let toolrun: Toolrun;
  let sessionId: string;

  beforeAll(async () => {
    toolrun = await startToolrun({ MAX_SUBSCRIPTIONS_PER_SOCKET: 2, MAX_SUBSCRIPTIONS_PER_KEY: 3 }, { worker: false });
    sessionId = ((await toolrun.request(SESSION)).data as { createSession: { id: string } }).createSession.id;
  });
  afterAll(() => toolrun?.close());

  async function issue(roles = ['reader', 'submitter'], expiresAt?: Date): Promise<Issued> {
    const result = await toolrun.request(CREATE, { name: 'app', roles, expiresAt: expiresAt?.toISOString() ?? null });
    const issued = (result.data as { createApiKey: Issued & { __typename: string } }).createApiKey;
    expect(issued.__typename, JSON.stringify(result)).toBe('IssuedApiKey');
    return issued;
  }

  const works = async (key: string) => (await toolrun.request(TOOLS, undefined, key)).status === 200;

  /** A WebSocket client whose close code is kept. */
  async function wsClient(key: string) {
    const closed: { code?: number; reason?: string } = {};
    const client = createClient({
      url: await toolrun.endpoint.wsUrl(),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${key}` },
      retryAttempts: 0,
      lazy: false,
      // The close is what these tests look at: not an error to print.
      onNonLazyError: () => undefined,
      on: { closed: (event) => Object.assign(closed, { code: (event as CloseEvent).code, reason: (event as CloseEvent).reason }) },
    });
    return { client, closed };
  }

  function subscribe(client: ReturnType<typeof createClient>, query: string, variables: Record<string, unknown>) {
    const seen: { next: unknown[]; error: unknown; completed: boolean } = { next: [], error: null, completed: false };
    const dispose = client.subscribe({ query, variables }, {
      next: (value) => seen.next.push(value),
      error: (error) => (seen.error = error),
      complete: () => (seen.completed = true),
    });
    return { seen, dispose };
  }

  async function within<T>(ms: number, check: () => T | Promise<T>): Promise<number> {
    const start = Date.now();
    while (!(await check())) {
      if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return Date.now() - start;
  }

  it('are created with their roles, listed without the key, and record their last use', async () => {
    const issued = await issue(['reader']);
    expect(issued.key).toMatch(/^trk_/);
    expect(issued.apiKey).toMatchObject({ name: 'app', roles: ['reader'], active: true, lastUsedAt: null, prefix: issued.key.slice(0, 10) });
    expect(await works(issued.key)).toBe(true);
    const list = await toolrun.request(LIST);
    expect(JSON.stringify(list)).not.toContain(issued.key);
    const listed = (list.data as { apiKeys: Issued['apiKey'][] }).apiKeys.find((key) => key.id === issued.apiKey.id)!;
    await within(2000, async () => {
      const again = (await toolrun.request(LIST)).data as { apiKeys: Issued['apiKey'][] };
      return again.apiKeys.find((key) => key.id === issued.apiKey.id)!.lastUsedAt !== null;
    });
    expect(listed.active).toBe(true);
  });

  it('refuse bad input with a typed error naming the field', async () => {
    const unknownRole = await toolrun.request(`mutation { createApiKey(name: "x", roles: []) { __typename ... on ValidationError { field } } }`);
    expect(unknownRole.data).toEqual({ createApiKey: { __typename: 'ValidationError', field: 'roles' } });
    const blank = await toolrun.request(CREATE, { name: '   ', roles: ['reader'] });
    expect(blank.data).toMatchObject({ createApiKey: { code: 'VALIDATION_FAILED', message: expect.stringContaining('name must be 1-100 characters') } });
    const padded = await toolrun.request(CREATE, { name: '  dashboard ', roles: ['reader'] });
    expect(padded.data).toMatchObject({ createApiKey: { apiKey: { name: 'dashboard' } } });
    const past = await toolrun.request(CREATE, { name: 'x', roles: ['reader'], expiresAt: new Date(Date.now() - 1000).toISOString() });
    expect((past.data as { createApiKey: { code: string } }).createApiKey.code).toBe('VALIDATION_FAILED');
    const overlap = await toolrun.request(ROTATE, { id: (await issue()).apiKey.id, overlap: -1 });
    expect((overlap.data as { rotateApiKey: { code: string } }).rotateApiKey.code).toBe('VALIDATION_FAILED');
    const other = await toolrun.newKey(undefined, ['admin']);
    const foreign = await toolrun.request(REVOKE, { id: (await issue()).apiKey.id }, other);
    expect((foreign.data as { revokeApiKey: { code: string } }).revokeApiKey.code).toBe('NOT_FOUND');
  });

  it('a WebSocket with a wrong or missing key is closed with 4401, which graphql-ws clients do not retry', async () => {
    for (const key of ['trk_not-a-key', '']) {
      const { client, closed } = await wsClient(key);
      try {
        await within(3000, () => closed.code !== undefined);
        expect(closed).toEqual({ code: 4401, reason: 'Unauthorized: missing or invalid API key' });
      } finally {
        await client.dispose();
      }
    }
  });

  it('revoked: refused within a second on another API process, its WebSocket closed with 4403, its SSE streams (session and tenant) ended by an UNAUTHENTICATED error', async () => {
    const issued = await issue();
    // A second API process on the same deployment, which has the key cached.
    const services = createServices(toolrun.services.config, createLogger(toolrun.services.config));
    const other = createApiServer(services);
    const otherClient = graphqlClient(
      { url: 'http://other.test/graphql', fetch: (url, init) => Promise.resolve(other.yoga.fetch(new Request(url, init))), wsUrl: async () => '' },
      issued.key,
    );
    try {
      expect((await otherClient.request(TOOLS)).status).toBe(200);
      const { client, closed } = await wsClient(issued.key);
      const ws = subscribe(client, EVENTS, { sessionId });
      // Over SSE, where no socket close can say why, each stream's last message is a typed error.
      const sses = [EVENTS, TENANT_EVENTS].map((query) => sseSubscription<unknown>(toolrun.endpoint, query, { sessionId }, issued.key));
      const sseEnded = sses.map(async (sse) => {
        const last = await sse.next(5000);
        const ended = await sse.next(5000).then(
          () => 'another message',
          (error: Error) => error.message,
        );
        return { errors: last.errors, ended };
      });
      await within(2000, () => toolrun.services.streams.count(issued.apiKey.id) === 3);

      const revoked = await toolrun.request(REVOKE, { id: issued.apiKey.prefix });
      expect((revoked.data as { revokeApiKey: { active: boolean } }).revokeApiKey.active).toBe(false);
      expect(await within(1000, () => closed.code === 4403)).toBeLessThan(1000);
      expect(closed.reason).toBe('API key revoked');
      for (const ended of await Promise.all(sseEnded)) {
        expect(ended).toEqual({
          errors: [expect.objectContaining({ message: 'The API key was revoked: this subscription ended', extensions: { code: 'UNAUTHENTICATED', reason: 'revoked' } })],
          ended: 'subscription ended',
        });
      }
      await within(1000, async () => (await otherClient.request(TOOLS)).status === 401);
      expect(await works(issued.key)).toBe(false);
      expect(ws.seen.next).toEqual([]);
      expect(toolrun.services.streams.count(issued.apiKey.id)).toBe(0);
      await client.dispose();
    } finally {
      await other.close();
      await closeServices(services);
    }
  });

  it('rotated: the new key works at once, the old one until the overlap ends (then its socket closes)', async () => {
    const issued = await issue(['reader', 'approver']);
    const { client, closed } = await wsClient(issued.key);
    subscribe(client, EVENTS, { sessionId });
    const sse = sseSubscription<unknown>(toolrun.endpoint, EVENTS, { sessionId }, issued.key);
    const sseEnded = sse.next(5000).then((last) => last.errors);
    await within(2000, () => toolrun.services.streams.count(issued.apiKey.id) === 2);
    // By its prefix as keys are listed (`trk_abc…`), pasted with the ellipsis.
    const rotated = (await toolrun.request(ROTATE, { id: `${issued.apiKey.prefix}…`, overlap: 2 })).data as {
      rotateApiKey: { key: string; apiKey: { id: string; name: string; roles: string[] }; previous: { id: string; expiresAt: string; active: boolean } };
    };
    const { key, apiKey, previous } = rotated.rotateApiKey;
    expect(apiKey).toMatchObject({ name: 'app', roles: ['reader', 'approver'] });
    expect(previous).toMatchObject({ id: issued.apiKey.id, active: true });
    expect(await works(key)).toBe(true);
    expect(await works(issued.key)).toBe(true);
    const expiresAt = Date.parse(previous.expiresAt);
    await within(3000, () => closed.code !== undefined);
    expect(closed).toEqual({ code: 4403, reason: 'API key expired' });
    expect(await sseEnded).toEqual([expect.objectContaining({ message: 'The API key has expired: this subscription ended', extensions: { code: 'UNAUTHENTICATED', reason: 'expired' } })]);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    expect(Date.now() - expiresAt).toBeLessThan(1000);
    expect(await works(issued.key)).toBe(false);
    expect(await works(key)).toBe(true);
    await client.dispose();
  });

  it('rotate once: the successor keeps the original expiry; a second rotation, or several at once, make one successor', async () => {
    const original = await issue(['submitter']);
    type Rotated = { rotateApiKey: { __typename: string; code?: string; message?: string; apiKey?: { id: string; expiresAt: string | null; rotatedAt: string | null }; previous?: { id: string; rotatedAt: string | null } } };
    const rotate = async (id: string) =>
      ((await toolrun.request(`mutation($id: String!) { rotateApiKey(id: $id, overlapSeconds: 3600) { __typename ... on Error { code message }
          ... on IssuedApiKey { apiKey { id expiresAt rotatedAt } previous { id rotatedAt } } } }`, { id })).data as Rotated).rotateApiKey;
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => rotate(original.apiKey.id)));
    const successes = results.filter((result) => result.__typename === 'IssuedApiKey');
    expect(successes).toHaveLength(1);
    expect(successes[0]).toMatchObject({ apiKey: { expiresAt: null, rotatedAt: null }, previous: { id: original.apiKey.id } });
    expect(successes[0]!.previous!.rotatedAt).not.toBeNull();
    for (const refused of results.filter((result) => result.__typename !== 'IssuedApiKey')) {
      expect(refused).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('already rotated') });
    }
    const listed = ((await toolrun.request(LIST)).data as { apiKeys: Issued['apiKey'][] }).apiKeys.filter((key) => key.name === original.apiKey.name);
    expect(listed.filter((key) => key.active && key.expiresAt === null).map((key) => key.id)).toContain(successes[0]!.apiKey!.id);
    // Its successor is the key to rotate next, and it too keeps the original (absent) expiry.
    const next = await rotate(successes[0]!.apiKey!.id);
    expect(next).toMatchObject({ __typename: 'IssuedApiKey', apiKey: { expiresAt: null } });
  });

  it('expire at their expiresAt', async () => {
    const issued = await issue(['reader'], new Date(Date.now() + 1500));
    expect(await works(issued.key)).toBe(true);
    await within(2500, async () => !(await works(issued.key)));
    const listed = ((await toolrun.request(LIST)).data as { apiKeys: Issued['apiKey'][] }).apiKeys.find((key) => key.id === issued.apiKey.id)!;
    expect(listed.active).toBe(false);
  });

  it('limit subscriptions per socket with a typed error that leaves the socket open, and per key', async () => {
    const issued = await issue(['reader']);
    const { client, closed } = await wsClient(issued.key);
    const first = subscribe(client, EVENTS, { sessionId });
    const second = subscribe(client, EVENTS, { sessionId });
    await within(2000, () => toolrun.services.streams.count(issued.apiKey.id) === 2);
    const third = subscribe(client, EVENTS, { sessionId });
    await within(2000, () => third.seen.error !== null);
    expect(third.seen.error).toMatchObject([{ extensions: { code: 'LIMIT_EXCEEDED', limit: 'subscriptionsPerSocket', max: 2 } }]);
    // A query over a query limit fails alone too.
    const tooManyTokens = subscribe(client, `{ tools { name ${'description '.repeat(6000)} } }`, {});
    await within(2000, () => tooManyTokens.seen.error !== null);
    expect(JSON.stringify(tooManyTokens.seen.error)).toMatch(/token/i);
    const query = subscribe(client, TOOLS, {});
    await within(2000, () => query.seen.completed);
    expect(query.seen.next).toHaveLength(1);
    expect(closed.code).toBeUndefined();

    // Freed when one ends; the key's limit (3) counts SSE too.
    first.dispose();
    await within(2000, () => toolrun.services.streams.count(issued.apiKey.id) === 1);
    const sse = sseSubscription(toolrun.endpoint, EVENTS, { sessionId }, issued.key);
    const again = subscribe(client, EVENTS, { sessionId });
    await within(2000, () => toolrun.services.streams.count(issued.apiKey.id) === 3);
    const overKey = sseSubscription(toolrun.endpoint, EVENTS, { sessionId }, issued.key);
    const refused = await overKey.next(5000);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect(again.seen.error).toBeNull();
    second.dispose();
    again.dispose();
    await sse.close();
    await client.dispose();

    // A subscription refused for its Accept header (406) holds no slot: ten of them, then three streams open.
    await within(2000, () => toolrun.services.streams.count(issued.apiKey.id) === 0);
    for (let i = 0; i < 10; i++) {
      const response = await toolrun.endpoint.fetch(toolrun.endpoint.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${issued.key}` },
        body: JSON.stringify({ query: EVENTS, variables: { sessionId } }),
      });
      expect(response.status).toBe(406);
    }
    await within(2000, () => toolrun.services.streams.count(issued.apiKey.id) === 0);
    const streams = [0, 1, 2].map(() => sseSubscription(toolrun.endpoint, EVENTS, { sessionId }, issued.key));
    await within(2000, () => toolrun.services.streams.count(issued.apiKey.id) === 3);
    await Promise.all(streams.map((stream) => stream.close()));
  });

});
