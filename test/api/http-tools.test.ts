// Tools a tenant registers at run time, and HTTP tools against a real local HTTP server that
// verifies every request's signature (real PostgreSQL, Redis, API and worker).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvents } from '../support/events.js';
import { localId } from '../../src/resolvers/global-ids.js';
import { MAX_TOOL_VALUE_DEPTH } from '../../src/model/tool-value.js';
import { callHttpTool, parseRetryAfter, webhookHeaders } from '../../src/tools/http-tool.js';
import type { ToolContext } from '../../src/tools/types.js';
import {
  GetToolDocument,
  RegisterExternalToolDocument,
  RegisterHttpToolDocument,
  type RegisterHttpToolInput,
  RemoveToolDocument,
  RotateToolSigningSecretDocument,
  TenantSettingsDocument,
  ToolNamesDocument,
  ToolsDocument,
  UpdateToolDocument,
} from '../gql/graphql.js';
import { createSession, failureOf, outputOf, submitBatch } from '../support/fixtures.js';
import { json, startToolServer, type ToolServer, verifyWebhook } from '../support/tool-server.js';
import { finished, spawnRun, waitForTask } from '../support/background.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

const MAX_RESPONSE_BYTES = 4096;
const SCHEMA = { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: false };

let app: Toolrun;
let server: ToolServer;
beforeAll(async () => {
  [app, server] = await Promise.all([
    startToolrun({ HTTP_TOOL_ALLOW_LOOPBACK: true, HTTP_TOOL_MAX_RESPONSE_BYTES: MAX_RESPONSE_BYTES, CANCEL_GRACE_MS: 300 }),
    startToolServer(),
  ]);
});
afterAll(async () => {
  await app?.close();
  await server?.close();
});

type HttpInput = Omit<RegisterHttpToolInput, 'url' | 'description' | 'parametersSchema'> & Partial<RegisterHttpToolInput> & { path?: string };

async function registerHttp(input: HttpInput, apiKey?: string) {
  const { path = '/ok', ...rest } = input;
  const result = await app.query(
    RegisterHttpToolDocument,
    { input: { description: `test tool ${rest.name}`, parametersSchema: SCHEMA, url: `${server.base}${path}`, ...rest } },
    apiKey,
  );
  const registration = result.registerHttpTool;
  if (registration.__typename !== 'HttpToolRegistration') throw new Error(`registration failed: ${JSON.stringify(registration)}`);
  server.secrets.add(registration.signingSecret);
  return registration;
}

/** Runs one call in a new session and returns it once its batch completed. */
async function runOne(tool: string, args: Record<string, unknown> = { q: 'x' }, apiKey?: string) {
  const sessionId = await createSession(app, apiKey);
  const batch = await submitBatch(app, { sessionId, calls: [{ id: `c-${randomUUID().slice(0, 8)}`, tool, args }], waitMs: 20_000 }, apiKey);
  expect(batch.status).toBe('COMPLETED');
  return { sessionId, call: batch.calls.nodes[0]! };
}

describe('registration', () => {
  it('validates names, schemas, URLs, timeouts and retry policies, and refuses built-in and taken names', async () => {
    const attempt = (input: Partial<RegisterHttpToolInput>) =>
      app
        .query(RegisterHttpToolDocument, { input: { name: 'valid_name', description: 'd', parametersSchema: SCHEMA, url: `${server.base}/ok`, ...input } })
        .then((result) => result.registerHttpTool);
    const cases: Array<[Partial<RegisterHttpToolInput>, string, string | null]> = [
      [{ name: 'Bad-Name' }, 'ValidationError', 'name'],
      [{ name: '9lives' }, 'ValidationError', 'name'],
      [{ name: `a${'b'.repeat(64)}` }, 'ValidationError', 'name'],
      [{ name: 'echo' }, 'ToolNameConflictError', null],
      [{ parametersSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } } }, 'ValidationError', 'parametersSchema'],
      [{ parametersSchema: { type: 'string' } }, 'ValidationError', 'parametersSchema'],
      [{ parametersSchema: [1, 2] }, 'ValidationError', 'parametersSchema'],
      [{ url: 'ftp://example.com/tool' }, 'ValidationError', 'url'],
      [{ url: 'not a url' }, 'ValidationError', 'url'],
      [{ url: 'https://user:secret@example.com/' }, 'ValidationError', 'url'],
      // Loopback is allowed in this test deployment; other private ranges are not.
      [{ url: 'http://10.1.2.3/tool' }, 'ValidationError', 'url'],
      [{ url: 'http://[fd00::1]/tool' }, 'ValidationError', 'url'],
      [{ timeoutMs: 5 }, 'ValidationError', 'timeoutMs'],
      [{ timeoutMs: 100_000_000 }, 'ValidationError', 'timeoutMs'],
      [{ retry: { maxAttempts: 0 } }, 'ValidationError', 'retry.maxAttempts'],
      [{ retry: { maxAttempts: 11 } }, 'ValidationError', 'retry.maxAttempts'],
      [{ retry: { backoff: { delayMs: 1000, maxDelayMs: 10 } } }, 'ValidationError', 'retry.backoff.maxDelayMs'],
      [{ description: '   ' }, 'ValidationError', 'description'],
    ];
    for (const [input, typename, field] of cases) {
      const result = await attempt(input);
      expect({ input, typename: result.__typename }).toEqual({ input, typename });
      if (field) expect(result).toMatchObject({ field });
    }
    expect(await attempt({ name: 'echo' })).toMatchObject({ __typename: 'ToolNameConflictError', toolName: 'echo', builtin: true, code: 'TOOL_NAME_CONFLICT' });

    const external = await app.query(RegisterExternalToolDocument, { input: { name: 'delete_file', description: 'd', parametersSchema: SCHEMA } });
    expect(external.registerExternalTool).toMatchObject({ __typename: 'ToolNameConflictError', builtin: true });
    const background = await app.query(RegisterExternalToolDocument, {
      input: { name: 'in_background', description: 'd', parametersSchema: SCHEMA, hints: { supportsBackground: true } },
    });
    expect(background.registerExternalTool).toMatchObject({ __typename: 'ValidationError', field: 'hints.supportsBackground' });

    expect((await attempt({ name: 'taken_once' })).__typename).toBe('HttpToolRegistration');
    expect(await attempt({ name: 'taken_once' })).toMatchObject({ __typename: 'ToolNameConflictError', builtin: false });
    const again = await app.query(RegisterExternalToolDocument, { input: { name: 'taken_once', description: 'd', parametersSchema: SCHEMA } });
    expect(again.registerExternalTool).toMatchObject({ __typename: 'ToolNameConflictError', builtin: false });
    // Nothing invalid was stored.
    const { tools } = await app.query(ToolNamesDocument, {});
    expect(tools.filter((tool) => tool.kind !== 'BUILTIN').map((tool) => tool.name)).toEqual(['taken_once']);
  });

  it('needs the admin role to register, update, rotate or remove', async () => {
    const { tenantSettings } = await app.query(TenantSettingsDocument, {});
    const submitter = await app.newKey(tenantSettings.tenantName, ['submitter', 'approver']);
    const register = await app.query(
      RegisterHttpToolDocument,
      { input: { name: 'not_allowed', description: 'd', parametersSchema: SCHEMA, url: `${server.base}/ok` } },
      submitter,
    );
    expect(register.registerHttpTool).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
    await registerHttp({ name: 'admin_only' });
    expect((await app.query(UpdateToolDocument, { name: 'admin_only', input: { timeoutMs: 1000 } }, submitter)).updateTool.__typename).toBe('ForbiddenError');
    expect((await app.query(RotateToolSigningSecretDocument, { name: 'admin_only' }, submitter)).rotateToolSigningSecret.__typename).toBe('ForbiddenError');
    expect((await app.query(RemoveToolDocument, { name: 'admin_only' }, submitter)).removeTool.__typename).toBe('ForbiddenError');
    expect((await app.query(GetToolDocument, { name: 'admin_only' }, submitter)).tool?.kind).toBe('HTTP');
  });

  it('keeps registered tools to their tenant: listing, calling, updating, removing', async () => {
    const other = await app.newKey(undefined, ['submitter', 'approver', 'admin']);
    await registerHttp({ name: 'lookup', path: '/tenant-a', policy: 'AUTO', scheduling: 'PARALLEL' });
    server.route('/tenant-a', (call, response) => json(response, 200, { tenant: 'a', q: call.body.args.q }));
    server.route('/tenant-b', (call, response) => json(response, 200, { tenant: 'b', q: call.body.args.q }));

    // The other tenant neither sees nor can call, change or remove it…
    expect((await app.query(ToolNamesDocument, {}, other)).tools.some((tool) => tool.name === 'lookup')).toBe(false);
    expect((await app.query(GetToolDocument, { name: 'lookup' }, other)).tool).toBeNull();
    const { call: unavailable } = await runOne('lookup', { q: 'x' }, other);
    expect(outputOf(unavailable)).toMatchObject({ __typename: 'ToolFailure', class: 'UNAVAILABLE', code: 'tool_unavailable' });
    expect((await app.query(UpdateToolDocument, { name: 'lookup', input: { timeoutMs: 1000 } }, other)).updateTool).toMatchObject({
      __typename: 'NotFoundError',
    });
    expect((await app.query(RemoveToolDocument, { name: 'lookup' }, other)).removeTool.__typename).toBe('NotFoundError');

    // …and may register the same name for itself, which reaches its own endpoint.
    await registerHttp({ name: 'lookup', path: '/tenant-b' }, other);
    expect(outputOf((await runOne('lookup', { q: 'one' })).call)).toEqual({ __typename: 'ToolSuccess', value: { tenant: 'a', q: 'one' } });
    expect(outputOf((await runOne('lookup', { q: 'two' }, other)).call)).toEqual({ __typename: 'ToolSuccess', value: { tenant: 'b', q: 'two' } });

    const listed = (await app.query(ToolsDocument, {})).tools.find((tool) => tool.name === 'lookup');
    expect(listed).toMatchObject({ kind: 'HTTP', policy: 'AUTO', scheduling: 'PARALLEL', timeoutMs: 30_000, retry: { maxAttempts: 1 } });
    expect(listed?.hints).toMatchObject({ openWorld: true, readonly: false });

    // Update: fields not given keep their value; arguments are validated against the new schema.
    const updated = await app.query(UpdateToolDocument, {
      name: 'lookup',
      input: { description: 'Looks things up', hints: { readonly: true }, parametersSchema: { type: 'object', required: ['q'], properties: { q: { type: 'integer' } } } },
    });
    expect(updated.updateTool).toMatchObject({
      __typename: 'ToolDefinition',
      description: 'Looks things up',
      url: `${server.base}/tenant-a`,
      hints: { readonly: true, openWorld: true },
      timeoutMs: 30_000,
    });
    const { call: invalid } = await runOne('lookup', { q: 'text' });
    expect(outputOf(invalid)).toMatchObject({ class: 'INVALID_REQUEST', code: 'invalid_arguments' });
    expect((await app.query(UpdateToolDocument, { name: 'lookup', input: { url: 'gopher://x' } })).updateTool).toMatchObject({ field: 'url' });
    expect((await app.query(UpdateToolDocument, { name: 'echo', input: { timeoutMs: 1000 } })).updateTool).toMatchObject({ __typename: 'ValidationError', field: 'name' });

    // Remove: the name is free again and calls find the tool unavailable; the other tenant's stays.
    expect((await app.query(RemoveToolDocument, { name: 'lookup' })).removeTool).toMatchObject({ __typename: 'ToolDefinition', name: 'lookup', kind: 'HTTP' });
    expect((await app.query(RemoveToolDocument, { name: 'lookup' })).removeTool.__typename).toBe('NotFoundError');
    expect(outputOf((await runOne('lookup', { q: 1 })).call)).toMatchObject({ class: 'UNAVAILABLE' });
    expect(outputOf((await runOne('lookup', { q: 'three' }, other)).call)).toMatchObject({ value: { tenant: 'b' } });
  });

  it('shows the signing secret once, stores it encrypted; a rotation signs with both secrets for its overlap', async () => {
    const registration = await registerHttp({ name: 'secretive', path: '/secretive' });
    server.route('/secretive', (_call, response) => json(response, 200, { ok: true }));
    expect(registration.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(registration.signatureHeader).toBe('webhook-signature');
    const visible = JSON.stringify([await app.query(ToolsDocument, {}), await app.query(GetToolDocument, { name: 'secretive' })]);
    expect(visible).not.toContain(registration.signingSecret);
    const stored = await app.services.db.registeredTool.findFirstOrThrow({ where: { tenantId: app.tenantId, name: 'secretive' } });
    expect(stored.signingSecret).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(JSON.stringify(stored)).not.toContain(registration.signingSecret.slice(6));

    await runOne('secretive');
    const first = server.callsTo('/secretive').at(-1)!;
    expect(verifyWebhook(registration.signingSecret, first.rawBody, first.headers)).toBe(true);

    const rotate = (overlapSeconds: number) =>
      app.request<{ rotateToolSigningSecret: { __typename: string; signingSecret: string } }, unknown>(
        `mutation($s: Int) { rotateToolSigningSecret(name: "secretive", overlapSeconds: $s) { __typename ... on HttpToolRegistration { signingSecret } } }`,
        { s: overlapSeconds },
      );
    const rotated = (await rotate(3600)).data!.rotateToolSigningSecret;
    expect(rotated.__typename).toBe('HttpToolRegistration');
    const secret = rotated.signingSecret;
    expect(secret).not.toBe(registration.signingSecret);
    server.secrets.add(secret);
    await runOne('secretive');
    const second = server.callsTo('/secretive').at(-1)!;
    expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyWebhook(secret, second.rawBody, second.headers)).toBe(true);
    expect(verifyWebhook(registration.signingSecret, second.rawBody, second.headers)).toBe(true);

    // Rotating again with an overlap while this one's runs would end the oldest secret's early: refused, naming when it ends.
    const again = (await app.request<{ rotateToolSigningSecret: { __typename: string; field?: string; message?: string } }, unknown>(
      `mutation { rotateToolSigningSecret(name: "secretive", overlapSeconds: 60) { __typename ... on ValidationError { field message } } }`,
      {},
    )).data!.rotateToolSigningSecret;
    expect(again).toMatchObject({ __typename: 'ValidationError', field: 'overlapSeconds', message: expect.stringContaining('within the overlap of its last rotation') });
    await runOne('secretive');
    expect(verifyWebhook(registration.signingSecret, server.callsTo('/secretive').at(-1)!.rawBody, server.callsTo('/secretive').at(-1)!.headers)).toBe(true);

    // Rotating again without overlap: only the newest secret signs.
    const newest = (await rotate(0)).data!.rotateToolSigningSecret.signingSecret;
    server.secrets.add(newest);
    await runOne('secretive');
    const third = server.callsTo('/secretive').at(-1)!;
    expect(verifyWebhook(newest, third.rawBody, third.headers)).toBe(true);
    expect(verifyWebhook(secret, third.rawBody, third.headers)).toBe(false);
    expect(verifyWebhook(registration.signingSecret, third.rawBody, third.headers)).toBe(false);
    expect((await rotate(-1)).data!.rotateToolSigningSecret.__typename).toBe('ValidationError');
  });
});

describe('HTTP tools', () => {
  it('POSTs a signed {callId, sessionId, tool, args, attempt} and returns the JSON body as the value', async () => {
    await registerHttp({ name: 'weather_http', path: '/weather', hints: { readonly: true, idempotent: true } });
    server.route('/weather', (call, response) =>
      json(response, 200, { city: call.body.args.q, temperature: 21, chart: { $lash_tool_value: 'attachment', ref: { id: '/charts/oslo.png', media_type: { kind: 'image', type: 'png' }, byte_len: 2048 } } }),
    );
    const { sessionId, call } = await runOne('weather_http', { q: 'Oslo' });
    expect(call.status).toBe('SUCCEEDED');
    expect(call.attempt).toBe(1);
    const received = server.callsTo('/weather');
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request!.verified).toBe(true);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(request!.headers['webhook-id']).toBe(`lash-tool:${localId(sessionId, 'Session')}:${call.callId}:weather_http:1`);
    const rawSessionId = localId(sessionId, 'Session');
    expect(request!.headers['idempotency-key']).toBe(`lash-tool:${rawSessionId}:${call.callId}:weather_http`);
    expect(request!.body).toEqual({ callId: call.callId, sessionId: rawSessionId, tool: 'weather_http', args: { q: 'Oslo' }, attempt: 1 });
    // The body is a tool value in its wire form: tagged objects are file attachments.
    expect(outputOf(call)).toMatchObject({ __typename: 'ToolSuccess', value: { city: 'Oslo', temperature: 21 } });
    expect(call.modelReturn?.parts.map((part) => part.type)).toEqual(['TEXT', 'ATTACHMENT', 'TEXT']);
    expect(call.modelReturn?.parts[1]?.attachment?.path).toBe('/charts/oslo.png');
  });

  it('keeps a definition whose text starts with U+E000 exactly (description, schema), on registration and update, and validates with it', async () => {
    const schema = { type: 'object', properties: { q: { type: 'string', enum: ['\ue000a', '\ue000\ue000b'], description: '\ue000Q' } }, required: ['q'], additionalProperties: false };
    await registerHttp({ name: 'pua_http', path: '/pua', description: '\ue000 first', parametersSchema: schema });
    server.route('/pua', (call, response) => json(response, 200, { q: call.body.args.q }));
    const listed = async () => (await app.request<{ tool: { description: string; parametersSchema: unknown } }, unknown>('query { tool(name: "pua_http") { description parametersSchema } }', {})).data?.tool;
    expect(await listed()).toEqual({ description: '\ue000 first', parametersSchema: schema });
    // The schema's enum is the one given: its values are accepted, their shortened forms are not.
    expect(outputOf((await runOne('pua_http', { q: '\ue000a' })).call)).toMatchObject({ __typename: 'ToolSuccess', value: { q: '\ue000a' } });
    expect(outputOf((await runOne('pua_http', { q: 'a' })).call)).toMatchObject({ __typename: 'ToolFailure', class: 'INVALID_REQUEST' });
    const updated = await app.query(UpdateToolDocument, { name: 'pua_http', input: { description: '\ue000 second' } });
    expect(updated.updateTool.__typename).not.toMatch(/Error$/);
    expect(await listed()).toEqual({ description: '\ue000 second', parametersSchema: schema });
  });

  it('fails a 4xx answer EXTERNAL and never retries it', async () => {
    await registerHttp({ name: 'picky', path: '/picky', retry: { maxAttempts: 3, backoff: { type: 'FIXED', delayMs: 10, maxDelayMs: 10 } } });
    server.route('/picky', (_call, response) => json(response, 422, { error: 'q must be a city' }));
    const { call } = await runOne('picky');
    expect(call.attempt).toBe(1);
    expect(server.callsTo('/picky')).toHaveLength(1);
    expect(outputOf(call)).toMatchObject({ class: 'EXTERNAL', code: 'http_422', source: 'TOOL', retry: { kind: 'NEVER' } });
    expect(String(outputOf(call).message)).toContain('q must be a city');
  });

  it('fails a 3xx answer as a 4xx (EXTERNAL http_<status>, the start of the body in the message), never following or retrying it', async () => {
    await registerHttp({ name: 'moved', path: '/moved', retry: { maxAttempts: 3, backoff: { type: 'FIXED', delayMs: 10, maxDelayMs: 10 } } });
    server.route('/moved', (_call, response) => {
      response.writeHead(302, { location: `${server.base}/ok`, 'content-type': 'text/plain' });
      response.end('moved to the new endpoint');
    });
    const before = server.callsTo('/ok').length;
    const { call } = await runOne('moved');
    expect(call.attempt).toBe(1);
    expect(server.callsTo('/moved')).toHaveLength(1);
    expect(server.callsTo('/ok')).toHaveLength(before);
    expect(outputOf(call)).toMatchObject({ class: 'EXTERNAL', code: 'http_302', source: 'TOOL', retry: { kind: 'NEVER' } });
    expect(String(outputOf(call).message)).toContain('redirects are not followed');
    expect(String(outputOf(call).message)).toContain('moved to the new endpoint');
  });

  it('cuts the body it quotes from a failed answer between characters: no half of an emoji in the message or in raw.body', async () => {
    await registerHttp({ name: 'emoji_error', path: '/emoji-error' });
    // The 200th and the 1,000th characters are emoji: a cut by UTF-16 units would keep half of each.
    const body = `${'x'.repeat(199)}😀${'y'.repeat(799)}😀 and more`;
    server.route('/emoji-error', (_call, response) => {
      response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(body);
    });
    const { sessionId, call } = await runOne('emoji_error');
    const failure = outputOf(call) as unknown as { code: string; message: string };
    expect(failure.code).toBe('http_400');
    const read = await app.request<{ toolCall: { output: { raw: { status: number; body: string } } } }, unknown>(
      'query($s: ID!, $c: String!) { toolCall(callId: $c, sessionId: $s) { output { ... on ToolFailure { raw } } } }',
      { s: sessionId, c: call.callId },
    );
    const raw = read.data!.toolCall.output.raw;
    const lone = /\p{Cs}/u;
    expect(lone.test(failure.message), failure.message.slice(-20)).toBe(false);
    expect(lone.test(raw.body)).toBe(false);
    expect(failure.message.endsWith(`${'x'.repeat(199)}😀`)).toBe(true);
    expect(raw).toEqual({ status: 400, body: `${'x'.repeat(199)}😀${'y'.repeat(799)}😀` });
    expect(lone.test(call.modelReturn!.text)).toBe(false);
  });

  it('retries 5xx and 429 as the endpoint says in Retry-After (seconds or an HTTP date), then succeeds', async () => {
    const retry = { maxAttempts: 3, backoff: { type: 'FIXED' as const, delayMs: 8000, maxDelayMs: 8000 } };
    await registerHttp({ name: 'flaky_503', path: '/flaky-503', retry });
    await registerHttp({ name: 'flaky_429', path: '/flaky-429', retry });
    server.route('/flaky-503', (call, response) =>
      call.body.attempt === 1 ? json(response, 503, { error: 'warming up' }, { 'retry-after': '1' }) : json(response, 200, { attempt: call.body.attempt }),
    );
    server.route('/flaky-429', (call, response) =>
      call.body.attempt === 1
        ? json(response, 429, { error: 'slow down' }, { 'retry-after': new Date(Date.now() + 2000).toUTCString() })
        : json(response, 200, { attempt: call.body.attempt }),
    );
    const [a, b] = await Promise.all([runOne('flaky_503'), runOne('flaky_429')]);
    for (const [{ sessionId, call }, path, code] of [
      [a, '/flaky-503', 'http_503'],
      [b, '/flaky-429', 'http_429'],
    ] as const) {
      expect(call.attempt).toBe(2);
      expect(outputOf(call)).toEqual({ __typename: 'ToolSuccess', value: { attempt: 2 } });
      const [first, second] = server.callsTo(path).filter((request) => request.body.callId === call.callId);
      // Honoured Retry-After (about 1 s), not the tool's 8 s backoff.
      expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(code === 'http_503' ? 950 : 1);
      expect(second!.receivedAt - first!.receivedAt).toBeLessThan(4000);
      const events = await readEvents(app.services, localId(sessionId, 'Session'), 0);
      const retrying = events.find((event) => event.type === 'ToolCallRetrying');
      expect(retrying?.payload).toMatchObject({ attempt: 1, nextAttempt: 2, failure: { class: 'EXTERNAL', code, retry: { kind: 'SAFE' } } });
      const delayMs = retrying!.payload.delayMs as number;
      if (code === 'http_503') expect(delayMs).toBe(1000);
      else expect(delayMs > 0 && delayMs <= 2000).toBe(true);
    }
  });

  it('runs in the background when it says it can; a summary or failure it sends with NUL or a lone surrogate shows U+FFFD, never refused', async () => {
    server.route('/odd-summary', (_call, response) => json(response, 200, { summary: 'done\u0000 \ud800 here' }));
    server.route('/odd-failure', (_call, response) => response.writeHead(422, { 'content-type': 'text/plain' }).end('bad\u0000input'));
    await registerHttp({ name: 'odd_summary', path: '/odd-summary', hints: { supportsBackground: true } });
    await registerHttp({ name: 'odd_failure', path: '/odd-failure', hints: { supportsBackground: true } });
    const sessionId = await createSession(app);
    const ok = await spawnRun(app, { sessionId, tool: 'odd_summary', args: { q: 'x' } });
    const bad = await spawnRun(app, { sessionId, tool: 'odd_failure', args: { q: 'x' } });
    const [okTask, badTask] = await Promise.all([waitForTask(app, ok.taskId, finished), waitForTask(app, bad.taskId, finished)]);
    expect(okTask).toMatchObject({ state: 'SUCCEEDED', summary: 'done\uFFFD \uFFFD here' });
    expect(badTask.state).toBe('FAILED');
    expect(badTask.error).toContain('bad\uFFFDinput');
  });

  it('keeps the first 2,000 characters of a long background summary whole: an emoji at the cut is kept, not shown as U+FFFD', async () => {
    const summary = `${'s'.repeat(1999)}😀 and more`;
    server.route('/long-summary', (_call, response) => json(response, 200, { summary }));
    await registerHttp({ name: 'long_summary', path: '/long-summary', hints: { supportsBackground: true } });
    const sessionId = await createSession(app);
    const run = await spawnRun(app, { sessionId, tool: 'long_summary', args: { q: 'x' } });
    const task = await waitForTask(app, run.taskId, finished);
    expect(task).toMatchObject({ state: 'SUCCEEDED', summary: `${'s'.repeat(1999)}😀` });
  });

  it('gives up on 5xx after maxAttempts (EXHAUSTED) and reports network errors as retryable EXTERNAL failures', async () => {
    await registerHttp({ name: 'broken', path: '/broken', retry: { maxAttempts: 2, backoff: { type: 'FIXED', delayMs: 20, maxDelayMs: 20 } } });
    server.route('/broken', (_call, response) => json(response, 500, { error: 'boom' }));
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const registration = await app.query(RegisterHttpToolDocument, {
      input: { name: 'unreachable', description: 'd', parametersSchema: SCHEMA, url: `http://127.0.0.1:${port}/gone` },
    });
    expect(registration.registerHttpTool.__typename).toBe('HttpToolRegistration');

    const [{ call: broken }, { call: unreachable }] = await Promise.all([runOne('broken'), runOne('unreachable')]);
    expect(broken.attempt).toBe(2);
    expect(outputOf(broken)).toMatchObject({ class: 'EXTERNAL', code: 'http_500', retry: { kind: 'EXHAUSTED', attempts: 2 } });
    expect(outputOf(unreachable)).toMatchObject({ class: 'EXTERNAL', code: 'network_error', retry: { kind: 'EXHAUSTED', attempts: 1 } });
    expect(String(outputOf(unreachable).message)).toContain('ECONNREFUSED');
  });

  it('fails an attempt that outlives its deadline TIMEOUT, safe to retry', async () => {
    await registerHttp({ name: 'sluggish', path: '/sluggish', timeoutMs: 300, retry: { maxAttempts: 2, backoff: { type: 'FIXED', delayMs: 20, maxDelayMs: 20 } } });
    server.route('/sluggish', () => undefined); // never answers
    const started = Date.now();
    const { sessionId, call } = await runOne('sluggish');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(call.attempt).toBe(2);
    expect(outputOf(call)).toMatchObject({ class: 'TIMEOUT', code: 'http_timeout', retry: { kind: 'EXHAUSTED', attempts: 2 } });
    expect(server.callsTo('/sluggish').filter((request) => request.body.callId === call.callId).map((request) => request.body.attempt)).toEqual([1, 2]);
    const events = await readEvents(app.services, localId(sessionId, 'Session'), 0);
    expect(events.find((event) => event.type === 'ToolCallRetrying')?.payload).toMatchObject({ failure: { class: 'TIMEOUT', retry: { kind: 'SAFE' } } });
  });

  it('caps the response size (RESOURCE_LIMIT) and fails bodies that are not JSON or not valid tool values', async () => {
    const big = 'x'.repeat(MAX_RESPONSE_BYTES * 3);
    server.route('/big', (_call, response) => json(response, 200, { big }));
    server.route('/big-chunked', (_call, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      for (let index = 0; index < 12; index++) response.write(index === 0 ? `{"big":"${'y'.repeat(1000)}` : 'y'.repeat(1000));
      response.end('"}');
    });
    server.route('/text', (_call, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('hello');
    });
    server.route('/malformed', (_call, response) => json(response, 200, { $lash_tool_value: 'attachment', ref: 'nope' }));
    server.route('/empty', (_call, response) => {
      response.writeHead(204);
      response.end();
    });
    for (const name of ['big', 'big_chunked', 'text', 'malformed', 'empty']) await registerHttp({ name: `resp_${name}`, path: `/${name.replace('_', '-')}` });
    const [bigCall, chunked, text, malformed, empty] = await Promise.all(['big', 'big_chunked', 'text', 'malformed', 'empty'].map((name) => runOne(`resp_${name}`)));
    for (const result of [bigCall, chunked]) {
      expect(outputOf(result!.call)).toMatchObject({ class: 'RESOURCE_LIMIT', code: 'response_too_large', retry: { kind: 'NEVER' } });
    }
    expect(outputOf(text!.call)).toMatchObject({ class: 'EXTERNAL', code: 'invalid_response' });
    expect(outputOf(malformed!.call)).toMatchObject({ class: 'EXTERNAL', code: 'invalid_tool_value' });
    expect(outputOf(empty!.call)).toEqual({ __typename: 'ToolSuccess', value: null });
  });

  it('fails an answer nested deeper than a tool value may be EXTERNAL invalid_tool_value, once, without retrying it', async () => {
    let hits = 0;
    const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
    server.route('/deep', (_call, response) => {
      hits++;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(nested(MAX_TOOL_VALUE_DEPTH + 1));
    });
    server.route('/deep-enough', (_call, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(nested(MAX_TOOL_VALUE_DEPTH));
    });
    await registerHttp({ name: 'resp_deep', path: '/deep', retry: { maxAttempts: 3 } });
    await registerHttp({ name: 'resp_deep_enough', path: '/deep-enough' });
    const [deep, deepEnough] = await Promise.all([runOne('resp_deep'), runOne('resp_deep_enough')]);
    expect(outputOf(deep.call)).toMatchObject({ class: 'EXTERNAL', code: 'invalid_tool_value', message: expect.stringContaining(`nests deeper than ${MAX_TOOL_VALUE_DEPTH} levels`), retry: { kind: 'NEVER' } });
    expect(hits).toBe(1);
    expect(deepEnough.call.status).toBe('SUCCEEDED');
  });
});

describe('HTTP tool client', () => {
  const settings = { allowPrivate: false, allowLoopback: false, maxResponseBytes: 1024, maxRetryAfterMs: 60_000 };
  function context(): ToolContext {
    return {
      tenantId: randomUUID(),
      sessionId: randomUUID(),
      callId: 'c1',
      tool: 'probe',
      attempt: 1,
      maxAttempts: 1,
      replayKey: 'r',
      signal: new AbortController().signal,
      deadline: new Date(Date.now() + 10_000),
      reportProgress: () => undefined,
      output: () => undefined,
      status: () => undefined,
      files: undefined as never,
      setTodos: async () => undefined,
      webFetch: { allowPrivate: false, allowLoopback: false, maxBytes: 1, timeoutMs: 1000 },
      logger: pino({ level: 'silent' }),
    };
  }
  it('refuses loopback and private endpoints unless allowed, by IP literal and by resolved name', async () => {
    server.route('/probe', (_call, response) => json(response, 200, { ok: true }));
    server.secrets.add('whsec_cHJvYmU=');
    const port = new URL(server.base).port;
    for (const url of [`http://127.0.0.1:${port}/probe`, `http://localhost:${port}/probe`, 'http://192.168.0.10/probe', 'http://[::1]/probe']) {
      expect(await failureOf(callHttpTool({ url, signingSecrets: ['whsec_cHJvYmU='] }, {}, context(), settings))).toMatchObject({
        class: 'PERMISSION_DENIED',
        code: 'address_not_allowed',
      });
    }
    expect(await callHttpTool({ url: `http://localhost:${port}/probe`, signingSecrets: ['whsec_cHJvYmU='] }, {}, context(), { ...settings, allowLoopback: true })).toEqual({
      ok: true,
    });
  });

  it('signs the Standard Webhooks way (the standardwebhooks package verifies); parses Retry-After', () => {
    const body = '{"a":1}';
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const headers = webhookHeaders([secret], 'msg_1', body);
    expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook('whsec_b3RoZXI=').verify(body, headers)).toThrow();
    const stale = webhookHeaders([secret], 'msg_1', body, Math.floor(Date.now() / 1000) - 3600);
    expect(() => new Webhook(secret).verify(body, stale)).toThrow();
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    // Neither whole seconds nor an HTTP date (Date.parse would take them for years long past: a retry at once).
    expect(parseRetryAfter('1.5', now)).toBeNull();
    expect(parseRetryAfter('-5', now)).toBeNull();
    expect(parseRetryAfter('2026-01-01T00:00:09Z', now)).toBeNull();
    // The obsolete HTTP date forms are dates too.
    expect(parseRetryAfter('Thursday, 01-Jan-26 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Thu Jan  1 00:00:05 2026', now)).toBe(5000);
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
