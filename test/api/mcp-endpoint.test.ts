// toolrun as an MCP server: the SDK's own client against `/mcp` on a real port — auth, listing,
// calls as durable toolrun calls, progress, cancellation, approvals, roles and tenant isolation;
// background runs as MCP tasks; and an MCP session served by another API process.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GetTaskDocument, RegisterExternalToolDocument } from '../gql/graphql.js';
import { readEvents } from '../support/events.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';
import { eventually } from '../support/wait.js';

let app: Toolrun;
let base: string;
const clients: Client[] = [];

beforeAll(async () => {
  app = await startToolrun({ ENABLE_TEST_TOOLS: true, CANCEL_GRACE_MS: 300 });
  base = await app.baseUrl();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
});
afterAll(async () => {
  await app?.close();
});

async function connect(apiKey: string | null = app.apiKey, options: { fetch?: typeof fetch } = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} }, ...options });
  const client = new Client({ name: 'test-host', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** The Mcp-Session-Id of a connected client, which is the id of its toolrun session. */
function sessionOf(client: Client): string {
  return (client.transport as StreamableHTTPClientTransport).sessionId!;
}

/** The headers of a POST in a client's MCP session. */
function sessionHeaders(client: Client): Record<string, string> {
  return {
    authorization: `Bearer ${app.apiKey}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': sessionOf(client),
    'mcp-protocol-version': '2025-06-18',
  };
}

/** One JSON-RPC request of a client's MCP session, sent as written (the SDK's client picks its own ids); its response. */
async function rpc(client: Client, request: { id: string | number; method: string; params: unknown }) {
  const response = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: sessionHeaders(client),
    body: JSON.stringify({ jsonrpc: '2.0', ...request }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  return JSON.parse(data ? data.slice(6) : text) as { id: string | number; result?: CallToolResult; error?: { code: number; message: string } };
}

/** The toolrun call an MCP tools/call made (its id starts with `mcp-`), once it exists. */
function mcpCall(tool: string, status?: string) {
  return eventually(async () => {
    const call = await app.services.db.toolCall.findFirst({ where: { tool, callId: { startsWith: 'mcp-' }, ...(status ? { status: status as never } : {}) }, orderBy: { queuedAt: 'desc' } });
    return call ?? null;
  }, 10_000, 50, `an MCP call of ${tool}${status ? ` ${status}` : ''}`);
}

describe('toolrun at /mcp', () => {
  it('refuses a client without a valid API key', async () => {
    for (const key of [null, 'trk_not-a-key']) {
      await expect(connect(key)).rejects.toMatchObject({ code: 401, message: expect.stringContaining('Missing or invalid API key') });
    }
  });

  it('lists the tenant’s tools with their hints, and never another tenant’s', async () => {
    const registered = await app.query(RegisterExternalToolDocument, {
      input: { name: 'tenant_a_only', description: 'Only tenant A has it', parametersSchema: { type: 'object', properties: { x: { type: 'string' } } } },
    });
    expect(registered.registerExternalTool.__typename).toBe('ToolDefinition');
    const client = await connect();
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('echo')).toMatchObject({
      description: expect.stringContaining('Echo'),
      inputSchema: { type: 'object', required: ['message'] },
      annotations: { readOnlyHint: true, idempotentHint: true, destructiveHint: false },
    });
    expect(byName.has('tenant_a_only')).toBe(true);
    expect(byName.has('spawn_background')).toBe(true);

    const other = await connect(await app.newKey());
    const otherTools = (await other.listTools()).tools.map((tool) => tool.name);
    expect(otherTools).toContain('echo');
    expect(otherTools).not.toContain('tenant_a_only');
  });

  it('runs tools/call as a durable call in the session of the MCP session, answering text and structured content', async () => {
    const client = await connect();
    const result = (await client.callTool({ name: 'echo', arguments: { message: 'hi' } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ echoed: 'hi', length: 2 });
    expect(result.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('"echoed"') });

    const call = await mcpCall('echo');
    expect(call.status).toBe('SUCCEEDED');
    const session = await app.services.db.session.findUniqueOrThrow({ where: { id: call.sessionId } });
    expect(session.title).toBe('MCP session (test-host)');
    // Announced like any session: its first event.
    const [first] = await readEvents(app.services, call.sessionId, 0, 1);
    expect(first).toMatchObject({ seq: 1, type: 'SessionCreated', payload: { title: 'MCP session (test-host)', metadata: { mcp: { client: 'test-host', closedAt: null } } } });
    // The next call of this MCP session lands in the same toolrun session.
    await client.callTool({ name: 'echo', arguments: { message: 'again' } });
    expect(await app.services.db.toolCall.count({ where: { sessionId: call.sessionId } })).toBe(2);

    const failed = (await client.callTool({ name: 'echo', arguments: { message: 5 } })) as CallToolResult;
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toMatchObject({ status: 'FAILURE', failure: { class: 'INVALID_REQUEST', code: 'invalid_arguments' } });
    const unknown = (await client.callTool({ name: 'no_such_tool', arguments: {} })) as CallToolResult;
    expect(unknown).toMatchObject({ isError: true, structuredContent: { failure: { class: 'UNAVAILABLE' } } });
  });

  it('answers a retried tools/call (the same request id and arguments) with the outcome of the one call it made', async () => {
    const client = await connect();
    const callTool = () => rpc(client, { id: 'retried-1', method: 'tools/call', params: { name: 'echo', arguments: { message: 'once' } } });
    const first = await callTool();
    expect(first.result?.structuredContent).toEqual({ echoed: 'once', length: 4 });
    expect((await callTool()).result).toEqual(first.result);
    expect(await app.services.db.toolCall.count({ where: { callId: 'mcp-"retried-1"' } })).toBe(1);
  });

  it('keeps the request ids 1 and "1" apart: two calls, each answered with its own outcome', async () => {
    const client = await connect();
    const number = await rpc(client, { id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'number' } } });
    const string = await rpc(client, { id: '1', method: 'tools/call', params: { name: 'echo', arguments: { message: 'string' } } });
    expect(number).toMatchObject({ id: 1, result: { structuredContent: { echoed: 'number' } } });
    expect(string).toMatchObject({ id: '1', result: { structuredContent: { echoed: 'string' } } });
    const sessionId = sessionOf(client);
    const calls = await app.services.db.toolCall.findMany({ where: { sessionId, callId: { in: ['mcp-1', 'mcp-"1"'] } }, orderBy: { queuedAt: 'asc' } });
    expect(calls.map((call) => [call.callId, call.args])).toEqual([
      ['mcp-1', { message: 'number' }],
      ['mcp-"1"', { message: 'string' }],
    ]);
  });

  it('refuses params that do not fit the method with -32602 naming the parameter, and submits nothing', async () => {
    const client = await connect();
    const sessionId = sessionOf(client);
    expect(await rpc(client, { id: 'bad-args', method: 'tools/call', params: { name: 'echo', arguments: [1] } })).toEqual({
      jsonrpc: '2.0',
      id: 'bad-args',
      error: { code: -32602, message: 'Invalid tools/call params: `arguments` (expected record, received array)' },
    });
    expect((await rpc(client, { id: 'bad-task', method: 'tasks/get', params: { taskId: 5 } })).error).toEqual({
      code: -32602,
      message: 'Invalid tasks/get params: `taskId` (expected string, received number)',
    });
    // What GraphQL's input limits refuse: a name PostgreSQL cannot hold, arguments nested too deep.
    expect((await rpc(client, { id: 'nul-name', method: 'tools/call', params: { name: 'ec\u0000ho', arguments: {} } })).error).toMatchObject({ code: -32602, message: expect.stringContaining('params.name contains U+0000') });
    let deep: unknown = 1;
    for (let level = 0; level < 100; level++) deep = [deep];
    expect((await rpc(client, { id: 'deep', method: 'tools/call', params: { name: 'echo', arguments: { deep } } })).error).toMatchObject({ code: -32602, message: expect.stringContaining('nested deeper than') });
    // A name past any identifier's bound is refused as a parameter, not stored as an unknown tool's call.
    expect((await rpc(client, { id: 'long-name', method: 'tools/call', params: { name: 'n'.repeat(257), arguments: {} } })).error).toMatchObject({ code: -32602, message: expect.stringMatching(/^params\.name is longer than 256 characters/) });
    // Cursors that no list of theirs gave are refused, each said once.
    // toolrun's own refusals say their message once (the SDK's McpError would put `MCP error -32602: ` before it).
    expect((await rpc(client, { id: 'tools-cursor', method: 'tools/list', params: { cursor: 'garbage' } })).error).toEqual({ code: -32602, message: '`cursor` is not a cursor of this list (tools/list answers every tool at once)' });
    const tasksCursor = (await rpc(client, { id: 'tasks-cursor', method: 'tasks/list', params: { cursor: 'garbage' } })).error;
    expect(tasksCursor).toMatchObject({ code: -32602, message: expect.stringContaining('Failed to list tasks: `cursor` is not a cursor of this list') });
    expect(tasksCursor!.message).not.toMatch(/MCP error.*MCP error/);
    // An empty cursor is no cursor, and not "the first page" either.
    expect((await rpc(client, { id: 'tasks-empty-cursor', method: 'tasks/list', params: { cursor: '' } })).error).toMatchObject({ code: -32602, message: expect.stringContaining('`cursor` is not a cursor of this list') });
    expect((await rpc(client, { id: 'tools-empty-cursor', method: 'tools/list', params: { cursor: '' } })).error).toMatchObject({ code: -32602 });
    // A `__proto__` key is refused, not dropped on the way (the SDK's parsing would lose it).
    const proto = await rpc(client, { id: 'proto', method: 'tools/call', params: { name: 'echo', arguments: JSON.parse('{"__proto__": {"message": "x"}}') } });
    expect(proto.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^params\.arguments\.__proto__ is a key that is not accepted/) });
    expect(await app.services.db.toolCall.count({ where: { sessionId } })).toBe(0);
  });

  it('refuses an initialize whose params do not fit, or hold what PostgreSQL cannot, with -32602 (no session opened)', async () => {
    const initialize = (params: unknown) =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params }),
      });
    // This tenant's (other test files share the database and create sessions meanwhile).
    const ownSessions = () => app.services.db.session.count({ where: { tenantId: app.tenantId } });
    const sessions = await ownSessions();
    const valid = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1' } };
    for (const [params, message] of [
      [{ ...valid, clientInfo: { name: 'a\u0000b', version: '1' } }, 'contains U+0000'],
      [{ ...valid, clientInfo: { name: 'a\ud800b', version: '1' } }, 'lone UTF-16 surrogate'],
      [{ ...valid, protocolVersion: 5 }, 'initialize needs params'],
      [undefined, 'initialize needs params'],
    ] as const) {
      const response = await initialize(params);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: number; message: string } }).error).toMatchObject({ code: -32602, message: expect.stringContaining(message) });
    }
    expect(await ownSessions()).toBe(sessions);
  });

  it('opens no session for an initialize the transport refuses for its headers (Accept, Content-Type), answering 406 / 415', async () => {
    const ownSessions = () => app.services.db.session.count({ where: { tenantId: app.tenantId } });
    const sessions = await ownSessions();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1' } } });
    for (const [headers, status] of [
      [{ 'content-type': 'application/json' }, 406],
      [{ 'content-type': 'application/json', accept: 'application/json' }, 406],
      [{ 'content-type': 'text/plain', accept: 'application/json, text/event-stream' }, 415],
      [{ 'content-type': 'application/jsonx', accept: 'application/json, text/event-stream' }, 415],
    ] as const) {
      const response = await fetch(`${base}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${app.apiKey}`, ...headers }, body });
      expect(response.status, JSON.stringify(headers)).toBe(status);
      expect(response.headers.get('mcp-session-id')).toBeNull();
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/^(Not Acceptable|Unsupported Media Type)/);
    }
    expect(await ownSessions()).toBe(sessions);
    // Headers a client may well send are taken: a charset, Accept with more types and qualities.
    const taken = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.apiKey}`, 'content-type': 'application/json; charset=utf-8', accept: 'application/json;q=0.9, text/event-stream, */*;q=0.1' },
      body,
    });
    expect(taken.status).toBe(200);
    await taken.body?.cancel();
    expect(await ownSessions()).toBe(sessions + 1);
  });

  it('keeps the first 200 characters of a long client name in its session, never half of a surrogate pair', async () => {
    const valid = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1' } };
    // The 200th character is an emoji: a cut by UTF-16 units would keep half of it, which jsonb refuses.
    for (const [name, kept] of [
      [`${'x'.repeat(199)}😀 and more`, `${'x'.repeat(199)}😀`],
      ['😀'.repeat(300), '😀'.repeat(200)],
    ] as const) {
      const response = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { ...valid, clientInfo: { name, version: '1' } } }),
      });
      expect(response.status).toBe(200);
      await response.body?.cancel();
      const sessionId = response.headers.get('mcp-session-id')!;
      const session = await app.services.db.session.findUniqueOrThrow({ where: { id: sessionId } });
      expect(session.title).toBe(`MCP session (${kept})`);
      expect(session.metadata).toMatchObject({ mcp: { client: kept } });
    }
  });

  it('answers a body that is not JSON -32700 in one plain line, with or without a session', async () => {
    const client = await connect();
    for (const session of [null, sessionOf(client)]) {
      const response = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(session ? { 'mcp-session-id': session } : {}) },
        body: '{"jsonrpc": "2.0", "id": 1,',
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not JSON' } });
    }
  });

  it('answers a body over the size limit 413 and closes that connection (the rest is never read)', async () => {
    const { request } = await import('node:http');
    const url = new URL(`${base}/mcp`);
    const answer = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: '/mcp', method: 'POST', headers: { authorization: `Bearer ${app.apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
      });
      req.on('error', reject);
      req.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"');
      req.write('x'.repeat(app.services.config.MAX_REQUEST_BYTES + 1024));
      req.end('"}}');
    });
    expect(answer).toEqual({ status: 413, connection: 'close' });
  });

  it('streams progress notifications', async () => {
    const client = await connect();
    const progress: Array<{ progress: number; total?: number }> = [];
    const result = (await client.callTool({ name: 'test_ticker', arguments: { ticks: 3, intervalMs: 150, path: '/mcp-ticks.log' } }, undefined, {
      onprogress: (update) => progress.push(update),
    })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ ticks: 3 });
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.at(-1)).toMatchObject({ progress: 3, total: 3 });
  });

  it('sends progress values that increase with every notification, status lines between counts included', async () => {
    const client = await connect();
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    // report_progress sends a status line (no count) before each step's count.
    await client.callTool({ name: 'report_progress', arguments: { steps: 3, intervalMs: 100 } }, undefined, { onprogress: (update) => progress.push(update) });
    expect(progress.some((update) => update.message?.startsWith('step '))).toBe(true);
    for (const [index, update] of progress.entries()) if (index > 0) expect(update.progress, JSON.stringify(progress)).toBeGreaterThan(progress[index - 1]!.progress);
    expect(progress.at(-1)).toMatchObject({ progress: 3, total: 3 });
  });

  it('cancels the toolrun call when the client cancels', async () => {
    const client = await connect();
    const controller = new AbortController();
    const pending = client.callTool({ name: 'sleep', arguments: { ms: 60_000 } }, undefined, { signal: controller.signal });
    const running = await mcpCall('sleep', 'RUNNING');
    controller.abort('changed my mind');
    await expect(pending).rejects.toThrow();
    await eventually(async () => (await app.services.db.toolCall.findUniqueOrThrow({ where: { id: running.id } })).status === 'CANCELLED', 10_000, 50, 'the call cancelled');
  });

  it('cancels a call whose cancellation arrived before it (the two POSTs race, on any process)', async () => {
    const client = await connect();
    // The client cancels at once after sending: its notification is served before its tools/call.
    const cancelled = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: sessionHeaders(client),
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'early-1', reason: 'changed my mind' } }),
    });
    expect(cancelled.status).toBe(202);
    const started = Date.now();
    const answer = await rpc(client, { id: 'early-1', method: 'tools/call', params: { name: 'sleep', arguments: { ms: 60_000 } } });
    expect(answer.result, JSON.stringify(answer)).toMatchObject({ isError: true, structuredContent: { status: 'CANCELLED' } });
    expect(Date.now() - started).toBeLessThan(8000);
    const call = await app.services.db.toolCall.findFirstOrThrow({ where: { sessionId: sessionOf(client), callId: 'mcp-"early-1"' } });
    expect(call.status).toBe('CANCELLED');
  });

  it('holds approval-gated tools for an approver (visible as AWAITING_APPROVAL) and tells the client', async () => {
    await app.query(RegisterExternalToolDocument, {
      input: { name: 'needs_ok', description: 'Needs approval', parametersSchema: { type: 'object' }, policy: 'REQUIRES_APPROVAL' },
    });
    const client = await connect();
    const messages: string[] = [];
    const controller = new AbortController();
    const pending = client.callTool({ name: 'needs_ok', arguments: {} }, undefined, { signal: controller.signal, onprogress: (update) => messages.push(update.message ?? '') });
    const waiting = await mcpCall('needs_ok', 'AWAITING_APPROVAL');
    await eventually(async () => messages.some((message) => message.includes('approval')), 5000, 50, 'an approval progress message');
    controller.abort();
    await expect(pending).rejects.toThrow();
    await eventually(async () => (await app.services.db.toolCall.findUniqueOrThrow({ where: { id: waiting.id } })).status === 'CANCELLED');
  });

  it('tells the client when a call waits for an external completion, and answers the completion', async () => {
    await app.query(RegisterExternalToolDocument, {
      input: { name: 'ask_someone', description: 'Waits for someone to answer', parametersSchema: { type: 'object' }, timeoutMs: 60_000 },
    });
    const client = await connect();
    const messages: string[] = [];
    const pending = client.callTool({ name: 'ask_someone', arguments: {} }, undefined, { onprogress: (update) => messages.push(update.message ?? '') });
    const waiting = await mcpCall('ask_someone', 'PENDING_EXTERNAL');
    await eventually(async () => messages.some((message) => /^waiting for an external completion \(attempt 1\/1, until \d{4}-\d\d-\d\dT[\d:.]+Z\)$/.test(message)), 5000, 50, 'an external-wait progress message');
    const completed = await app.request(
      `mutation($s: ID!, $c: String!) { completeToolCall(sessionId: $s, callId: $c, result: { value: { answer: "blue" } }) { ... on ToolCall { status } ... on Error { code message } } }`,
      { s: Buffer.from(`Session:${sessionOf(client)}`).toString('base64'), c: waiting.callId },
    );
    expect(JSON.stringify(completed.data)).toContain('SUCCEEDED');
    expect(((await pending) as CallToolResult).structuredContent).toEqual({ answer: 'blue' });
  });

  it('needs the submitter role to open a session (it creates one), to call tools, and to end another key’s session', async () => {
    const { name } = await app.services.db.tenant.findUniqueOrThrow({ where: { id: app.tenantId } });
    const sameTenantReader = await app.newKey(name, ['reader']);
    const sessionsBefore = await app.services.db.session.count({ where: { tenantId: app.tenantId } });
    await expect(connect(sameTenantReader)).rejects.toThrow(/submitter role needed to open an MCP session/);
    expect(await app.services.db.session.count({ where: { tenantId: app.tenantId } })).toBe(sessionsBefore);
    const submitters = await connect();
    // In a session of its tenant that a submitter opened, a reader may list the tools, not call them.
    const asReader = (message: object) =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sameTenantReader}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionOf(submitters), 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
      }).then((response) => response.text());
    expect(await asReader({ method: 'tools/list' })).toContain('"echo"');
    expect(await asReader({ method: 'tools/call', params: { name: 'echo', arguments: { message: 'x' } } })).toContain('lacks the submitter role needed to call tools');
    const ended = await fetch(`${base}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${sameTenantReader}`, 'mcp-session-id': sessionOf(submitters) } });
    expect(ended.status).toBe(403);
    expect(await ended.text()).toContain('submitter');
    expect((await submitters.callTool({ name: 'echo', arguments: { message: 'still open' } })).isError).toBeFalsy();
  });

  it('keeps an MCP session to the tenant that opened it', async () => {
    const client = await connect();
    const transport = client.transport as StreamableHTTPClientTransport;
    const response = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await app.newKey()}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
  });
});

describe('background runs as MCP tasks', () => {
  /** Starts a background run with a task-augmented tools/call; returns its task. */
  async function startTask(client: Client, name: string, args: Record<string, unknown>) {
    const { task } = await client.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
    return task;
  }
  const runOf = (taskId: string) => app.services.db.task.findUniqueOrThrow({ where: { id: taskId } });

  it('keeps a run\'s arguments exactly, U+0000 and lone surrogates included, as a call\'s', async () => {
    const client = await connect();
    for (const label of ['a\u0000b', 'x \ud800 y']) {
      const task = await startTask(client, 'report_progress', { steps: 1, intervalMs: 10, label });
      await eventually(async () => (await runOf(task.taskId)).state === 'SUCCEEDED', 15_000);
      const { task: run } = await app.query(GetTaskDocument, { id: task.taskId });
      expect(run?.args).toEqual({ steps: 1, intervalMs: 10, label });
    }
  });

  it('advertises tasks, and task support on the tools that can run in the background', async () => {
    const client = await connect();
    expect(client.getServerCapabilities()?.tasks).toMatchObject({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const byName = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
    expect(byName.get('test_ticker')?.execution).toEqual({ taskSupport: 'optional' });
    expect(byName.get('sleep')?.execution).toEqual({ taskSupport: 'optional' });
    expect(byName.get('echo')?.execution).toBeUndefined();
    expect(byName.has('spawn_background')).toBe(true);
  });

  it('starts a toolrun background run, reports its status and answers its value as the result', async () => {
    const client = await connect();
    const messages = [];
    const stream = client.experimental.tasks.callToolStream({ name: 'test_ticker', arguments: { ticks: 2, intervalMs: 50, path: '/mcp-task.log' } }, CallToolResultSchema, { task: { ttl: 60_000 } });
    for await (const message of stream) messages.push(message);
    expect(messages[0]).toMatchObject({ type: 'taskCreated', task: { status: 'working', pollInterval: expect.any(Number) } });
    const taskId = (messages[0] as { task: { taskId: string } }).task.taskId;
    expect(messages.at(-1)).toMatchObject({ type: 'result', result: { structuredContent: { ticks: 2 } } });

    // It is a toolrun background run in the session of the MCP session.
    const run = await runOf(taskId);
    expect(run).toMatchObject({ kind: 'background_tool', tool: 'test_ticker', state: 'SUCCEEDED', sessionId: (client.transport as StreamableHTTPClientTransport).sessionId });
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'completed' });
    const result = (await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ ticks: 2 });
    expect((await client.experimental.tasks.listTasks()).tasks.map((task) => task.taskId)).toContain(taskId);

    // A tool that cannot run in the background is refused with the reason.
    await expect(startTask(client, 'echo', { message: 'x' })).rejects.toThrow(/echo/);
  });

  it('waits in tasks/result for a run to finish', async () => {
    const client = await connect();
    const task = await startTask(client, 'sleep', { ms: 600 });
    expect(task.status).toBe('working');
    const result = (await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect((await runOf(task.taskId)).state).toBe('SUCCEEDED');
  });

  it('cancels the run on tasks/cancel; another tenant can neither see nor cancel it', async () => {
    const client = await connect();
    const task = await startTask(client, 'sleep', { ms: 60_000 });
    await eventually(async () => (await runOf(task.taskId)).state === 'RUNNING', 10_000, 50, 'the run running');
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'working' });

    const other = await connect(await app.newKey());
    await expect(other.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/not found/i);
    await expect(other.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toThrow(/not found/i);
    await expect(other.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/not found/i);
    expect((await other.experimental.tasks.listTasks()).tasks).toEqual([]);
    expect((await runOf(task.taskId)).state).toBe('RUNNING');

    expect(await client.experimental.tasks.cancelTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    await eventually(async () => (await runOf(task.taskId)).state === 'CANCELED', 10_000, 50, 'the run canceled');
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'cancelled' });
    const result = (await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as CallToolResult;
    expect(result).toMatchObject({ isError: true, structuredContent: { status: 'canceled' } });
    await expect(client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/terminal/);
  });
});

describe('an MCP session on several API processes', () => {
  let second: Toolrun;
  beforeAll(async () => {
    // Another API process over the same PostgreSQL and Redis (its prefix too), without a worker.
    second = await startToolrun({ ENABLE_TEST_TOOLS: true, REDIS_PREFIX: app.services.config.REDIS_PREFIX }, { worker: false });
  });
  afterAll(async () => {
    await second?.close();
  });

  it('is served by any of them: initialized on one, called, cancelled and closed through another', async () => {
    const secondBase = await second.baseUrl();
    const served: string[] = [];
    // Initialize reaches the first process; every later request the second.
    const routed: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const target = served.length === 0 ? url : new URL(url.pathname, secondBase);
      served.push(target.origin);
      return fetch(target, init);
    };
    const client = await connect(app.apiKey, { fetch: routed });
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const progress: number[] = [];
    const result = (await client.callTool({ name: 'test_ticker', arguments: { ticks: 2, intervalMs: 50, path: '/mcp-second.log' } }, undefined, {
      onprogress: (update) => progress.push(update.progress),
    })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ ticks: 2 });
    expect(progress.at(-1)).toBe(2);
    expect(served[0]).toBe(base);
    expect(served.slice(1).every((origin) => origin === secondBase)).toBe(true);
    expect(served.length).toBeGreaterThan(1);
    const call = await mcpCall('test_ticker');
    expect(call.sessionId).toBe(sessionId);

    // The client's cancel reaches a process that does not hold the call's request.
    const controller = new AbortController();
    const pending = client.callTool({ name: 'sleep', arguments: { ms: 60_000 } }, undefined, { signal: controller.signal });
    const running = await mcpCall('sleep', 'RUNNING');
    controller.abort('changed my mind');
    await expect(pending).rejects.toThrow();
    await eventually(async () => (await app.services.db.toolCall.findUniqueOrThrow({ where: { id: running.id } })).status === 'CANCELLED', 10_000, 50, 'the call cancelled');

    // Closing the session on one process closes it for all.
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    const response = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
  });
});
