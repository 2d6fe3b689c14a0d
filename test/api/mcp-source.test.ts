// MCP servers as tool sources, against a real MCP server built with the SDK in this process
// (test/support/mcp-server.ts): registration and discovery, hints, progress, structured, text and
// image results, error results, cancellation and deadlines (notifications/cancelled), list
// changes, a restart, 5xx and an unreachable server — through toolrun's GraphQL API and events.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServerService } from '../../src/domain/tenants/mcp-servers.js';
import { SchemaCompileAllowance } from '../../src/domain/tenants/schema-compile-allowance.js';
import { SecretBox } from '../../src/domain/tenants/secret-box.js';
import { localId } from '../../src/resolvers/global-ids.js';
import { McpConnections } from '../../src/tools/mcp-client.js';
import {
  CancelToolCallDocument,
  McpServersDocument,
  RefreshMcpServerDocument,
  RegisterMcpServerDocument,
  type RegisterMcpServerInput,
  RemoveMcpServerDocument,
  ToolNamesDocument,
  UpdateMcpServerDocument,
} from '../gql/graphql.js';
import { readEvents } from '../support/events.js';
import { createSession, outputOf, submitBatch, waitForBatch, waitForStatus } from '../support/fixtures.js';
import { PIXEL_PNG, startTestMcpServer, type TestMcpServer } from '../support/mcp-server.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';
import { eventually } from '../support/wait.js';

const TOKEN = 'mcp-test-token';
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

let app: Toolrun;
let mcp: TestMcpServer;
beforeAll(async () => {
  [app, mcp] = await Promise.all([startToolrun({ HTTP_TOOL_ALLOW_LOOPBACK: true, CANCEL_GRACE_MS: 300, MCP_REQUEST_TIMEOUT_MS: 60_000, MCP_MAX_MESSAGE_BYTES: MAX_MESSAGE_BYTES }), startTestMcpServer({ bearerToken: TOKEN })]);
});
afterAll(async () => {
  await app?.close();
  await mcp?.close();
});

async function register(input: Partial<RegisterMcpServerInput> & { name: string }, apiKey?: string) {
  const result = await app.query(RegisterMcpServerDocument, { input: { url: mcp.url, bearerToken: TOKEN, ...input } }, apiKey);
  return result.registerMcpServer;
}

/** Runs one call in a new session and returns it with its session once its batch completed. */
async function runOne(tool: string, args: Record<string, unknown> = {}, options: { apiKey?: string; timeoutMs?: number } = {}) {
  const sessionId = await createSession(app, options.apiKey);
  const batch = await submitBatch(app, { sessionId, calls: [{ id: `c-${randomUUID().slice(0, 8)}`, tool, args }], waitMs: 20_000, timeoutMs: options.timeoutMs }, options.apiKey);
  expect(batch.status).toBe('COMPLETED');
  return { sessionId, call: batch.calls.nodes[0]! };
}

describe('registration and discovery', () => {
  it('validates the server, lists every page of its tools and maps their annotations onto hints', async () => {
    const cases: Array<[Partial<RegisterMcpServerInput> & { name: string }, string]> = [
      [{ name: 'Bad-Name' }, 'name'],
      [{ name: 'two__parts' }, 'name'],
      [{ name: 'private_net', url: 'http://10.1.2.3/mcp' }, 'url'],
      [{ name: 'wrong_scheme', url: 'ftp://example.com/mcp' }, 'url'],
      [{ name: 'no_token', bearerToken: null }, 'url'],
      [{ name: 'bad_headers', headers: { 'mcp-session-id': 'x' } }, 'headers'],
      // Characters no HTTP header can carry are named as such, not found out when the URL is tried.
      [{ name: 'ellipsis_token', bearerToken: 'ghp_…' }, 'bearerToken'],
      [{ name: 'wide_header', headers: { 'X-Team': 'équipe ✓' } }, 'headers'],
      [{ name: 'bad_timeout', timeoutMs: 1 }, 'timeoutMs'],
    ];
    for (const [input, field] of cases) expect({ input, result: await register(input) }).toMatchObject({ input, result: { __typename: 'ValidationError', field } });

    const registered = await register({ name: 'demo', headers: { 'X-Team': 'tools' } });
    if (registered.__typename !== 'McpServer') throw new Error(JSON.stringify(registered));
    expect(registered).toMatchObject({ name: 'demo', url: mcp.url, hasBearerToken: true, headerNames: ['x-team'], settings: { policy: 'AUTO', retry: { maxAttempts: 3 } } });
    expect(JSON.stringify(registered)).not.toContain(TOKEN);
    const tools = Object.fromEntries(registered.tools.map((tool) => [tool.name, tool]));
    // Two pages were listed: all six tools are there, named <server>__<tool>.
    expect(Object.keys(tools).sort()).toEqual(['demo__broken', 'demo__count_up', 'demo__echo', 'demo__explode', 'demo__picture', 'demo__slow']);
    expect(tools.demo__echo).toMatchObject({ kind: 'MCP', mcpServer: 'demo', hints: { readonly: true, destructive: false, idempotent: false, openWorld: true } });
    expect(tools.demo__count_up!.hints).toMatchObject({ readonly: false, destructive: false, idempotent: true, openWorld: false });
    // Without annotations the protocol's defaults apply: destructive, open-world.
    expect(tools.demo__broken!.hints).toMatchObject({ readonly: false, destructive: true, idempotent: false, openWorld: true });
    expect((await register({ name: 'demo' }))).toMatchObject({ __typename: 'ValidationError', field: 'name' });

    const { tools: listed } = await app.query(ToolNamesDocument, {});
    expect(listed.filter((tool) => tool.name.startsWith('demo__'))).toHaveLength(6);
    // Another tenant sees none of them and cannot call them.
    const other = await app.newKey(undefined, ['submitter', 'admin']);
    expect((await app.query(ToolNamesDocument, {}, other)).tools.some((tool) => tool.name.startsWith('demo__'))).toBe(false);
    expect((await app.query(McpServersDocument, {}, other)).mcpServers).toEqual([]);
    expect(outputOf((await runOne('demo__echo', { text: 'x' }, { apiKey: other })).call)).toMatchObject({ class: 'UNAVAILABLE' });
    // Only admins manage servers.
    const submitter = await app.newKey(undefined, ['submitter']);
    expect((await register({ name: 'not_mine' }, submitter)).__typename).toBe('ForbiddenError');
  });
});

describe('calls', () => {
  it('stores a server’s bearer token encrypted, never as its plain text', async () => {
    const view = await register({ name: 'sealed' });
    expect(view).toMatchObject({ __typename: 'McpServer', hasBearerToken: true });
    const row = await app.services.db.mcpServer.findFirst({ where: { name: 'sealed' }, select: { secret: true } });
    expect(row!.secret).toBeTruthy();
    expect(row!.secret).not.toContain(TOKEN);
    expect(row!.secret!.startsWith('{')).toBe(false);
  });

  it('returns text content as text and validates arguments against the input schema', async () => {
    const { call } = await runOne('demo__echo', { text: 'hello' });
    expect(call.status).toBe('SUCCEEDED');
    expect(outputOf(call)).toEqual({ __typename: 'ToolSuccess', value: 'hello' });
    const { call: invalid } = await runOne('demo__echo', { text: 5 });
    expect(outputOf(invalid)).toMatchObject({ class: 'INVALID_REQUEST', code: 'invalid_arguments' });
  });

  it('turns notifications/progress into ToolCallProgress and structuredContent into the value', async () => {
    const { sessionId, call } = await runOne('demo__count_up', { steps: 3 });
    expect(outputOf(call)).toEqual({ __typename: 'ToolSuccess', value: { counted: 3 } });
    const events = await readEvents(app.services, localId(sessionId, 'Session'));
    const progress = events.filter((event) => event.type === 'ToolCallProgress').map((event) => (event.payload as { progress: unknown }).progress);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    // Progress is coalesced; the last report always arrives.
    expect(progress.at(-1)).toEqual({ current: 3, total: 3, message: 'step 3' });
    const types = events.map((event) => event.type);
    expect(types.indexOf('ToolCallProgress')).toBeLessThan(types.indexOf('ToolCallCompleted'));
  });

  it('stores image content as a session file referenced as an attachment', async () => {
    const { sessionId, call } = await runOne('demo__picture');
    const value = outputOf(call).value as { text: string; attachments: Array<Record<string, unknown>> };
    expect(value.text).toBe('one pixel');
    expect(value.attachments).toHaveLength(1);
    const attachment = value.attachments[0]!;
    expect(attachment).toMatchObject({ $lash_tool_value: 'attachment', ref: { media_type: { kind: 'image', type: 'png' }, byte_len: Buffer.from(PIXEL_PNG, 'base64').length } });
    const path = (attachment.ref as { id: string }).id;
    expect(path).toMatch(/^\/mcp\/c-[0-9a-f]{8}\/2\.png\.base64$/);
    const file = await app.services.sessions.files(localId(sessionId, 'Session')).readFile(path);
    expect(file.content).toBe(PIXEL_PNG);
    expect(call.modelReturn?.parts.some((part) => part.type === 'ATTACHMENT' && part.attachment?.path === path)).toBe(true);
  });

  it('keeps a call\'s content files under /mcp/ whatever its call id (`..` and `.` are ids, not path segments), never over the session\'s own files', async () => {
    const sessionId = await createSession(app);
    const files = app.services.sessions.files(localId(sessionId, 'Session'));
    await files.writeFile('/2.png.base64', 'mine');
    await files.writeFile('/mcp/2.png.base64', 'mine too');
    const batch = await submitBatch(app, { sessionId, waitMs: 20_000, calls: [{ id: '..', tool: 'demo__picture', args: {} }] });
    const second = await submitBatch(app, { sessionId, waitMs: 20_000, calls: [{ id: '.', tool: 'demo__picture', args: {} }] });
    // Two ids that differ only where a path cannot hold them get two folders, not one the second overwrites.
    const others = await submitBatch(app, { sessionId, waitMs: 20_000, calls: [{ id: 'x/y', tool: 'demo__picture', args: {} }, { id: 'x_y', tool: 'demo__picture', args: {} }] });
    const paths = [batch.calls.nodes[0], second.calls.nodes[0], ...others.calls.nodes].map((call) => (outputOf(call).value as { attachments: Array<{ ref: { id: string } }> }).attachments[0]!.ref.id);
    for (const path of paths) {
      expect(path).toMatch(/^\/mcp\/[^/]+\/2\.png\.base64$/);
      expect((await files.readFile(path)).content).toBe(PIXEL_PNG);
    }
    expect(new Set(paths).size).toBe(4);
    expect(paths[3]).toBe('/mcp/x_y/2.png.base64');
    expect((await files.readFile('/2.png.base64')).content).toBe('mine');
    expect((await files.readFile('/mcp/2.png.base64')).content).toBe('mine too');
  });

  it('makes an isError result a TOOL / EXECUTION failure with the server’s message', async () => {
    const { call } = await runOne('demo__broken');
    expect(call.status).toBe('FAILED');
    expect(call.attempt).toBe(1);
    expect(outputOf(call)).toMatchObject({ class: 'EXECUTION', code: 'mcp_tool_error', source: 'TOOL', message: 'the widget is broken', retry: { kind: 'NEVER' } });
  });

  it('cuts a long error text between characters: the message keeps 2,000 of them, never half of an emoji', async () => {
    const text = `${'x'.repeat(1999)}😀 and more`;
    await mcp.addTool({ name: 'long_error', description: 'Fails with a long text', inputSchema: { type: 'object' } }, async () => ({ isError: true, content: [{ type: 'text', text }] }));
    try {
      await app.query(RefreshMcpServerDocument, { name: 'demo' });
      const { call } = await runOne('demo__long_error');
      const message = String(outputOf(call).message);
      expect(/\p{Cs}/u.test(message)).toBe(false);
      expect(message).toBe(`${'x'.repeat(1999)}😀`);
    } finally {
      await mcp.removeTool('long_error');
      await app.query(RefreshMcpServerDocument, { name: 'demo' });
    }
  });

  it('makes a JSON-RPC error a typed EXTERNAL failure, never INTERNAL', async () => {
    const { call } = await runOne('demo__explode');
    expect(outputOf(call)).toMatchObject({ class: 'EXTERNAL', code: 'mcp_protocol_error', retry: { kind: 'NEVER' } });
    expect(String(outputOf(call).message)).toContain('the server fell over');
    // The SDK's "MCP error <code>: " prefix once, though the server's message carried it already.
    expect(String(outputOf(call).message).match(/MCP error -?\d+: /g)).toHaveLength(1);
  });

  it('sends notifications/cancelled when the call is cancelled, and the call ends CANCELLED', async () => {
    const sessionId = await createSession(app);
    const before = mcp.cancelled.length;
    const batch = await submitBatch(app, { sessionId, calls: [{ id: 'slow-1', tool: 'demo__slow', args: { ms: 60_000 } }] });
    await waitForStatus(app, 'slow-1', sessionId, 'RUNNING');
    await eventually(async () => mcp.calls.includes('slow'));
    const cancelled = await app.query(CancelToolCallDocument, { callId: 'slow-1', sessionId });
    expect(cancelled.cancelToolCall.__typename).toBe('ToolCall');
    const done = await waitForBatch(app, sessionId, batch.batchId);
    expect(done.calls.nodes[0]).toMatchObject({ status: 'CANCELLED', output: { __typename: 'ToolCancellation' } });
    await eventually(async () => mcp.cancelled.length > before, 5000, 50, 'the MCP server saw notifications/cancelled');
  });

  it('sends notifications/cancelled at the deadline, and the call ends TIMEOUT', async () => {
    const before = mcp.cancelled.length;
    const { call } = await runOne('demo__slow', { ms: 60_000 }, { timeoutMs: 500 });
    expect(call.status).toBe('FAILED');
    expect(outputOf(call)).toMatchObject({ class: 'TIMEOUT' });
    await eventually(async () => mcp.cancelled.length > before, 5000, 50, 'the MCP server saw notifications/cancelled');
  });

  it('retries a 5xx answer (EXTERNAL, safe to retry)', async () => {
    mcp.failNextCalls(1, 503);
    const { call } = await runOne('demo__echo', { text: 'after 503' });
    expect(call).toMatchObject({ status: 'SUCCEEDED', attempt: 2 });
    expect(outputOf(call)).toMatchObject({ value: 'after 503' });
  });

  it('gives a server’s tools its policy: approval-gated calls wait for an approver', async () => {
    const updated = await app.query(UpdateMcpServerDocument, { name: 'demo', input: { policy: 'REQUIRES_APPROVAL' } });
    expect(updated.updateMcpServer).toMatchObject({ __typename: 'McpServer', settings: { policy: 'REQUIRES_APPROVAL' } });
    const sessionId = await createSession(app);
    await submitBatch(app, { sessionId, calls: [{ id: 'gated', tool: 'demo__echo', args: { text: 'gated' } }] });
    await waitForStatus(app, 'gated', sessionId, 'AWAITING_APPROVAL');
    await app.query(UpdateMcpServerDocument, { name: 'demo', input: { policy: 'AUTO' } });
  });
});

describe('list changes, restarts and failures', () => {
  it('refreshes on notifications/tools/list_changed and on demand; a removed tool makes new calls UNAVAILABLE', async () => {
    // A connection exists (earlier calls); the server announces a new tool.
    await mcp.addTool({ name: 'late', description: 'Added later', inputSchema: { type: 'object' } }, async () => ({ content: [{ type: 'text', text: 'late reply' }] }));
    await eventually(async () => (await app.query(ToolNamesDocument, {})).tools.some((tool) => tool.name === 'demo__late'), 10_000, 100, 'demo__late listed');
    expect(outputOf((await runOne('demo__late')).call)).toMatchObject({ value: 'late reply' });

    await mcp.removeTool('late');
    await eventually(async () => !(await app.query(ToolNamesDocument, {})).tools.some((tool) => tool.name === 'demo__late'), 10_000, 100, 'demo__late gone');
    expect(outputOf((await runOne('demo__late')).call)).toMatchObject({ class: 'UNAVAILABLE' });

    // On demand.
    await mcp.addTool({ name: 'on_demand', description: 'Listed on demand', inputSchema: { type: 'object' } }, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
    const refreshed = await app.query(RefreshMcpServerDocument, { name: 'demo' });
    if (refreshed.refreshMcpServer.__typename !== 'McpServer') throw new Error(JSON.stringify(refreshed));
    expect(refreshed.refreshMcpServer.tools.map((tool) => tool.name)).toContain('demo__on_demand');
  });

  it('keeps a listed tool whose description and schema hold U+0000 or a lone surrogate exactly, never failing INTERNAL', async () => {
    const description = 'Odd text: a\u0000b and x\ud800y';
    const inputSchema = { type: 'object' as const, properties: { text: { type: 'string', description: 'n\u0000l \udfff' } } };
    await mcp.addTool({ name: 'odd_text', description, inputSchema }, async () => ({ content: [{ type: 'text', text: 'odd' }] }));
    try {
      const refreshed = await app.query(RefreshMcpServerDocument, { name: 'demo' });
      if (refreshed.refreshMcpServer.__typename !== 'McpServer') throw new Error(JSON.stringify(refreshed));
      const listed = await app.request<{ tool: { description: string; parametersSchema: unknown } | null }, unknown>('query { tool(name: "demo__odd_text") { description parametersSchema } }', {});
      expect(listed.errors).toBeUndefined();
      expect(listed.data?.tool).toEqual({ description, parametersSchema: inputSchema });
      expect(outputOf((await runOne('demo__odd_text', { text: 'x' })).call)).toMatchObject({ value: 'odd' });
    } finally {
      await mcp.removeTool('odd_text');
      await app.query(RefreshMcpServerDocument, { name: 'demo' });
    }
  });

  it('reconnects after the server restarts, without spending an attempt, whatever the tool’s hints', async () => {
    expect(outputOf((await runOne('demo__echo', { text: 'before' })).call)).toMatchObject({ value: 'before' });
    await mcp.restart();
    const { call } = await runOne('demo__echo', { text: 'after restart' });
    expect(call).toMatchObject({ status: 'SUCCEEDED' });
    expect(outputOf(call)).toMatchObject({ value: 'after restart' });
    // A destructive tool too (no hints): the request that found the old connection gone never left.
    await mcp.restart();
    expect((await runOne('demo__slow', { ms: 1 })).call).toMatchObject({ status: 'SUCCEEDED', attempt: 1 });
  });

  it('fails calls to an unreachable server with a clear EXTERNAL failure, not a hang', async () => {
    await app.query(UpdateMcpServerDocument, { name: 'demo', input: { retry: { maxAttempts: 1 } } });
    await mcp.stop();
    const started = Date.now();
    const { call } = await runOne('demo__echo', { text: 'nobody home' });
    // Refused at once: well before the connect timeout (60 s here) or the call's deadline.
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(call.status).toBe('FAILED');
    expect(outputOf(call)).toMatchObject({ class: 'EXTERNAL', code: 'mcp_unreachable', retry: { kind: 'EXHAUSTED', attempts: 1 } });
    expect(String(outputOf(call).message)).toContain('ECONNREFUSED');
    await mcp.restart();
  });

  it('fails a result larger than the limit RESOURCE_LIMIT; retries a transport failure only for a tool that may run twice', async () => {
    await app.query(UpdateMcpServerDocument, { name: 'demo', input: { retry: { maxAttempts: 3 } } });
    await mcp.addTool({ name: 'huge', description: 'Answers 1.5 MB of text', inputSchema: { type: 'object' } }, async () => ({ content: [{ type: 'text', text: 'x'.repeat(1_500_000) }] }));
    await mcp.addTool({ name: 'charge', description: 'Charges a card (no hints: destructive, not idempotent)', inputSchema: { type: 'object' } }, async () => ({ content: [{ type: 'text', text: 'charged' }] }));
    const refreshed = await app.query(RefreshMcpServerDocument, { name: 'demo' });
    if (refreshed.refreshMcpServer.__typename !== 'McpServer') throw new Error(JSON.stringify(refreshed));
    const huge = (await runOne('demo__huge')).call;
    expect(huge.status).toBe('FAILED');
    expect(outputOf(huge)).toMatchObject({ class: 'RESOURCE_LIMIT', code: 'mcp_result_too_large' });

    // A 500 after the request was sent: the charge may have happened, so it is not sent again.
    mcp.failNextCalls(1, 500);
    const charged = (await runOne('demo__charge')).call;
    expect(charged).toMatchObject({ status: 'FAILED', attempt: 1 });
    expect(outputOf(charged)).toMatchObject({ class: 'EXTERNAL', code: 'mcp_http_500', retry: { kind: 'NEVER' } });
    // A 503 says the server did not take it: sent again.
    mcp.failNextCalls(1, 503);
    expect((await runOne('demo__charge')).call).toMatchObject({ status: 'SUCCEEDED', attempt: 2 });
  });

  it('reads no message past MCP_MAX_MESSAGE_BYTES (binary content counts): the call fails RESOURCE_LIMIT, the connection serves on', async () => {
    const picture = Buffer.alloc(MAX_MESSAGE_BYTES, 7).toString('base64');
    await mcp.addTool({ name: 'poster', description: 'Answers a 5.3 MB image', inputSchema: { type: 'object' } }, async () => ({ content: [{ type: 'image', data: picture, mimeType: 'image/png' }] }));
    const refreshed = await app.query(RefreshMcpServerDocument, { name: 'demo' });
    if (refreshed.refreshMcpServer.__typename !== 'McpServer') throw new Error(JSON.stringify(refreshed));
    const { call } = await runOne('demo__poster');
    expect(call).toMatchObject({ status: 'FAILED', attempt: 1 });
    expect(outputOf(call)).toMatchObject({ class: 'RESOURCE_LIMIT', code: 'mcp_result_too_large', retry: { kind: 'NEVER' } });
    expect(String(outputOf(call).message)).toContain(`larger than ${MAX_MESSAGE_BYTES} bytes`);
    expect(outputOf((await runOne('demo__echo', { text: 'still here' })).call)).toMatchObject({ __typename: 'ToolSuccess', value: 'still here' });
  });

  it('fails a call promptly when its server dies while it runs (the broken stream is noticed), without running it again', async () => {
    const sessionId = await createSession(app);
    const slowCalls = () => mcp.calls.filter((name) => name === 'slow').length;
    const before = slowCalls();
    const batch = await submitBatch(app, { sessionId, calls: [{ id: 'dies', tool: 'demo__slow', args: { ms: 60_000 } }], timeoutMs: 60_000 });
    await eventually(async () => slowCalls() > before, 10_000, 20, 'slow reached the server');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const callsBefore = mcp.calls.length;
    const stopped = Date.now();
    await mcp.stop();
    const done = await waitForBatch(app, sessionId, batch.batchId, 20_000);
    expect(Date.now() - stopped).toBeLessThan(15_000);
    expect(done.calls.nodes[0]).toMatchObject({ status: 'FAILED', attempt: 1 });
    expect(outputOf(done.calls.nodes[0])).toMatchObject({ class: 'EXTERNAL', retry: { kind: 'NEVER' } });
    await mcp.restart();
    expect(mcp.calls.length).toBe(callsBefore);
  });

  it('removes a server and its tools; a call already running on it finishes there', async () => {
    const sessionId = await createSession(app);
    const slowCalls = () => mcp.calls.filter((name) => name === 'slow').length;
    const before = slowCalls();
    const batch = await submitBatch(app, { sessionId, calls: [{ id: 'running-at-removal', tool: 'demo__slow', args: { ms: 1500 } }] });
    await waitForStatus(app, 'running-at-removal', sessionId, 'RUNNING');
    await eventually(async () => slowCalls() > before);
    expect((await app.query(RemoveMcpServerDocument, { name: 'demo' })).removeMcpServer).toMatchObject({ __typename: 'McpServer', name: 'demo' });
    const done = await waitForBatch(app, sessionId, batch.batchId, 10_000);
    expect(done.calls.nodes[0]).toMatchObject({ status: 'SUCCEEDED', attempt: 1 });
    expect((await app.query(RemoveMcpServerDocument, { name: 'demo' })).removeMcpServer.__typename).toBe('NotFoundError');
    expect((await app.query(ToolNamesDocument, {})).tools.some((tool) => tool.name.startsWith('demo__'))).toBe(false);
    expect(outputOf((await runOne('demo__echo', { text: 'x' })).call)).toMatchObject({ class: 'UNAVAILABLE' });
  });
});

describe('an MCP server that never answers', () => {
  it('is refused at registration saying it did not answer in time, not that an operation was aborted', async () => {
    const { createServer } = await import('node:http');
    const sockets = new Set<import('node:net').Socket>();
    const silent = createServer(() => undefined); // takes every request, answers none
    silent.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as import('node:net').AddressInfo;
    const { config, db, logger } = app.services;
    const connections = new McpConnections({ allowPrivate: false, allowLoopback: true, requestTimeoutMs: 500, maxResultBytes: config.HTTP_TOOL_MAX_RESPONSE_BYTES, maxMessageBytes: config.MCP_MAX_MESSAGE_BYTES });
    const service = new McpServerService({ config: { ...config, MCP_REQUEST_TIMEOUT_MS: 500 }, db, connections, logger, secrets: SecretBox.fromSettings(config), schemaCompiles: new SchemaCompileAllowance() });
    try {
      await expect(service.register(app.tenantId, { name: `silent_${randomUUID().slice(0, 6)}`, url: `http://127.0.0.1:${port}/mcp` })).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        message: expect.stringMatching(/^url: could not list the tools of MCP server `silent_\w+`: it did not answer within 0\.5 s \(MCP_REQUEST_TIMEOUT_MS\)$/),
      });
    } finally {
      await connections.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
