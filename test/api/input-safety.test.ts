// Issue 10 through the public API: bad input gets a typed answer naming the field (never INTERNAL,
// never an error log line), node ids that name nothing are null, request bodies are capped on the
// bytes read (chunked HTTP, WebSocket), calls per request are capped across aliases, the address
// guard sees IPv4 inside IPv6, introspection is a setting, and user patterns run in linear time.
import { request as httpRequest } from 'node:http';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createLogger } from '../../src/logger.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

const CREATE_SESSION = 'mutation($t: String, $m: JSON) { createSession(title: $t, metadata: $m) { __typename ... on Session { id } ... on Error { message } } }';
const EXECUTE = `mutation($s: ID!, $c: [ToolCallInput!]!, $w: Int) {
  executeToolBatch(sessionId: $s, calls: $c, waitMs: $w) {
    __typename
    ... on ToolBatch { status calls(first: 1000) { nodes { callId status attempt output { __typename ... on ToolSuccess { value } ... on ToolFailure { class code message } } } } }
    ... on Error { message }
  }
}`;

/** A logger that keeps the server's error-level lines. */
function capturingLogger(lines: Array<Record<string, unknown>>) {
  return () =>
    createLogger(
      { LOG_LEVEL: 'warn' },
      {
        destination: {
          write: (line: string) => {
            const parsed = JSON.parse(line) as Record<string, unknown>;
            if ((parsed.level as number) >= 50) lines.push(parsed);
          },
        },
      },
    );
}

describe('query limits', () => {
  let toolrun: Toolrun;
  beforeAll(async () => {
    toolrun = await startToolrun({ MAX_QUERY_DEPTH: 4, MAX_QUERY_ALIASES: 3, MAX_QUERY_TOKENS: 400 });
  });
  afterAll(async () => toolrun?.close());

  it('refuses a query too deep, with too many aliases, directives or tokens, each with a code naming the limit', async () => {
    const codeOf = async (query: string) => (await toolrun.request(query, {})).errors?.map((error) => error.extensions?.code);
    expect(await codeOf('{ sessions { nodes { batches { nodes { calls { nodes { callId } } } } } } }')).toEqual(['QUERY_TOO_DEEP']);
    expect(await codeOf('{ a: tools { name } b: tools { name } c: tools { name } d: tools { name } }')).toEqual(['QUERY_TOO_MANY_ALIASES']);
    expect(await codeOf(`{ __typename ${'@skip(if: false) '.repeat(51)}}`)).toEqual(['QUERY_TOO_MANY_DIRECTIVES']);
    expect(await codeOf(`{ ${'__typename '.repeat(450)}}`)).toEqual(['QUERY_TOO_LONG']);
    expect((await toolrun.request('{ __typename }', {})).errors).toBeUndefined();
  });

  it("refuses them over graphql-ws as that operation's error, the socket going on", async () => {
    const client = createClient({ url: await toolrun.endpoint.wsUrl(), webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${toolrun.apiKey}` }, retryAttempts: 0 });
    let closed = 0;
    client.on('closed', () => closed++);
    const outcome = (query: string) =>
      new Promise<{ errors?: Array<{ extensions?: Record<string, unknown> }>; data?: unknown }>((resolve) => {
        let data: unknown;
        client.subscribe({ query }, { next: (value) => (data = value.data), error: (errors) => resolve({ errors: errors as never }), complete: () => resolve({ data }) });
      });
    try {
      const taskEvents = (selection: string) => `subscription { taskEvents(sessionId: "00000000-0000-4000-8000-000000000000") ${selection} }`;
      for (const [query, code] of [
        [`{ ${['a', 'b', 'c', 'd'].map((alias) => `${alias}: tools { name }`).join(' ')} }`, 'QUERY_TOO_MANY_ALIASES'],
        ['{ sessions { nodes { batches { nodes { calls { nodes { callId } } } } } } }', 'QUERY_TOO_DEEP'],
        [taskEvents(`{ __typename ${'@skip(if: false) '.repeat(51)}}`), 'QUERY_TOO_MANY_DIRECTIVES'],
      ] as const) {
        const result = await outcome(query);
        expect(result.errors?.map((error) => error.extensions?.code), query).toEqual([code]);
      }
      // The same socket answers the next operation.
      expect(await outcome('{ __typename }')).toEqual({ data: { __typename: 'Query' } });
      expect(closed).toBe(0);
    } finally {
      await client.dispose();
    }
  });
});

describe('input safety', () => {
  let toolrun: Toolrun;
  let sessionId: string;
  const errorLines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    toolrun = await startToolrun({ MAX_CALLS_PER_REQUEST: 50, MAX_REQUEST_BYTES: 64 * 1024 }, { logger: capturingLogger(errorLines) });
    const created = await toolrun.request<{ createSession: { id: string } }, unknown>(CREATE_SESSION, { t: 'safety' });
    sessionId = created.data!.createSession.id;
  });
  afterAll(() => toolrun?.close());

  const expectRefused = async (query: string, variables: unknown, field: string | RegExp) => {
    const result = await toolrun.request<unknown, unknown>(query, variables);
    expect(result.status).toBeLessThan(500);
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    return result;
  };

  it('refuses U+0000, lone surrogates and __proto__ keys anywhere in input, naming the field', async () => {
    await expectRefused(CREATE_SESSION, { t: 'a\u0000b' }, '$t');
    await expectRefused(CREATE_SESSION, { t: 'x\ud800y' }, '$t');
    await expectRefused(CREATE_SESSION, { m: { deep: ['ok', { k: 'x\udfff' }] } }, '$m.deep[1].k');
    await expectRefused(CREATE_SESSION, { m: { ['k\u0000']: 1 } }, '$m["k\\u0000"]');
    await expectRefused(CREATE_SESSION, JSON.parse('{"m": {"__proto__": null}}'), '$m.__proto__');
    await expectRefused('mutation { createSession(metadata: {__proto__: null}) { __typename } }', {}, 'createSession(metadata:).__proto__');
    await expectRefused('mutation { createSession(title: "a\\u0000b") { __typename } }', {}, 'createSession(title:)');
    await expectRefused(EXECUTE, { s: sessionId, c: [{ tool: 'ec\u0000ho', args: {} }] }, '$c[0].tool');
    await expectRefused(EXECUTE, { s: sessionId, c: [{ tool: 'echo', args: JSON.parse('{"__proto__": {"x": 1}}') }] }, '$c[0].args.__proto__');
    // A tool call's args may hold any text: they are stored losslessly and reach the tool exactly.
    const viaVariable = await toolrun.request<{ executeToolBatch: { calls: { nodes: Array<{ output: { value: unknown } }> } } }, unknown>(EXECUTE, {
      s: sessionId,
      c: [{ tool: 'echo', args: { message: 'a\u0000b\ud800c' } }],
      w: 10_000,
    });
    expect(viaVariable.errors).toBeUndefined();
    expect(viaVariable.data?.executeToolBatch.calls.nodes[0]?.output.value).toMatchObject({ echoed: 'a\u0000b\ud800c' });
    const viaLiteral = await toolrun.request<{ executeToolBatch: { calls: { nodes: Array<{ output: { value: unknown } }> } } }, unknown>(
      'mutation($s: ID!) { executeToolBatch(sessionId: $s, waitMs: 10000, calls: [{tool: "echo", args: {message: "a\\u0000b"}}]) { ... on ToolBatch { calls(first: 1000) { nodes { output { ... on ToolSuccess { value } } } } } } }',
      { s: sessionId },
    );
    expect(viaLiteral.errors).toBeUndefined();
    expect(viaLiteral.data?.executeToolBatch.calls.nodes[0]?.output.value).toMatchObject({ echoed: 'a\u0000b' });
    // Whatever the shape of the query: args as a variable of a literal call too — unless that variable is also used elsewhere.
    const ARGS_VARIABLE = 'mutation($s: ID!, $a: JSON) { executeToolBatch(sessionId: $s, waitMs: 10000, calls: [{tool: "echo", args: $a}]) { ... on ToolBatch { calls(first: 1000) { nodes { output { ... on ToolSuccess { value } } } } } } }';
    const viaArgsVariable = await toolrun.request<{ executeToolBatch: { calls: { nodes: Array<{ output: { value: unknown } }> } } }, unknown>(ARGS_VARIABLE, { s: sessionId, a: { message: 'a\u0000b' } });
    expect(viaArgsVariable.errors).toBeUndefined();
    expect(viaArgsVariable.data?.executeToolBatch.calls.nodes[0]?.output.value).toMatchObject({ echoed: 'a\u0000b' });
    await expectRefused(
      'mutation($s: ID!, $a: JSON) { createSession(metadata: $a) { __typename } executeToolBatch(sessionId: $s, calls: [{tool: "echo", args: $a}]) { __typename } }',
      { s: sessionId, a: { message: 'a\u0000b' } },
      '$a.message',
    );
    // A well-formed pair is fine.
    const ok = await toolrun.request<{ createSession: { __typename: string } }, unknown>(CREATE_SESSION, { t: 'emoji \ud83d\ude00', m: { a: '\ud83d\ude00' } });
    expect(ok.data?.createSession.__typename).toBe('Session');
    // Limits count characters (code points), as people and JSON Schema do: 300 astral ones are within 500.
    const astral = await toolrun.request<{ createSession: { __typename: string } }, unknown>(CREATE_SESSION, { t: '\u{20000}'.repeat(300) });
    expect(astral.data?.createSession.__typename).toBe('Session');
    const tooLong = await toolrun.request<{ createSession: { __typename: string; message?: string } }, unknown>(CREATE_SESSION, { t: '\u{20000}'.repeat(501) });
    expect(tooLong.data?.createSession).toMatchObject({ __typename: 'ValidationError' });
    // A metadata key, at any depth, is at most 256 characters, as a call id or an idempotency key is.
    const WITH_FIELD = 'mutation($m: JSON) { createSession(metadata: $m) { __typename ... on ValidationError { field } } }';
    const longKey = await toolrun.request<{ createSession: { __typename: string; field?: string } }, unknown>(WITH_FIELD, { m: { outer: { ['k'.repeat(257)]: 1 } } });
    expect(longKey.data?.createSession).toEqual({ __typename: 'ValidationError', field: 'metadata' });
    const keyAtLimit = await toolrun.request<{ createSession: { __typename: string } }, unknown>(WITH_FIELD, { m: { outer: { ['\u{20000}'.repeat(256)]: 1 } } });
    expect(keyAtLimit.data?.createSession.__typename).toBe('Session');
  });

  it("bounds the target of a background run as a call's tool is bounded: spawn_background and spawnBackground alike, with a typed refusal", async () => {
    // spawn_background's args are kept losslessly, so its `tool` may hold what PostgreSQL cannot take.
    const spawned = await toolrun.request<{ executeToolBatch: { calls: { nodes: Array<{ callId: string; status: string; output: Record<string, unknown> }> } } }, unknown>(EXECUTE, {
      s: sessionId,
      w: 10_000,
      c: [
        { id: 'nul', tool: 'spawn_background', args: { tool: 'report\u0000progress', args: {} } },
        { id: 'lone', tool: 'spawn_background', args: { tool: 'report\ud800progress', args: {} } },
        { id: 'long', tool: 'spawn_background', args: { tool: 'x'.repeat(10_000), args: {} } },
        // Longer than any tool's name but within an identifier's bound: unknown, as a call's tool is.
        { id: 'unknown', tool: 'spawn_background', args: { tool: 'x'.repeat(256), args: {} } },
      ],
    });
    expect(spawned.errors).toBeUndefined();
    const byId = new Map(spawned.data!.executeToolBatch.calls.nodes.map((call) => [call.callId, call]));
    expect(byId.get('nul')!.output).toMatchObject({ __typename: 'ToolFailure', class: 'INVALID_REQUEST', message: 'tool contains U+0000 (NUL), which is not accepted' });
    expect(byId.get('lone')!.output).toMatchObject({ __typename: 'ToolFailure', class: 'INVALID_REQUEST', message: expect.stringContaining('tool contains a lone UTF-16 surrogate') });
    expect(byId.get('long')!.output).toMatchObject({ __typename: 'ToolFailure', class: 'INVALID_REQUEST', message: expect.stringMatching(/^tool is longer than 256 characters/) });
    expect(byId.get('unknown')!.output).toMatchObject({ __typename: 'ToolFailure', class: 'UNAVAILABLE', code: 'unknown_tool' });
    // The mutation: a ValidationError naming `tool`, not an unknown tool's error echoing 10,000 characters.
    const SPAWN = 'mutation($s: ID!, $t: String!) { spawnBackground(sessionId: $s, tool: $t, args: {}) { __typename ... on ValidationError { field message } } }';
    const long = await toolrun.request<{ spawnBackground: Record<string, unknown> }, unknown>(SPAWN, { s: sessionId, t: 'x'.repeat(10_000) });
    expect(long.data?.spawnBackground).toEqual({ __typename: 'ValidationError', field: 'tool', message: expect.stringMatching(/^tool is longer than 256 characters/) });
    const unknown = await toolrun.request<{ spawnBackground: Record<string, unknown> }, unknown>(SPAWN, { s: sessionId, t: 'x'.repeat(256) });
    expect(unknown.data?.spawnBackground).toMatchObject({ __typename: 'UnknownToolError' });
  });

  it('keeps metadata exactly when its text starts with U+E000 (the storage codec\'s marker, a private-use character a client may send), and finds it by metadataContains', async () => {
    const metadata = { k: '\ue000abc', ['\ue000key']: '\ue000\ue000z', plain: 'x\ue000y', nested: { list: ['\ue000'] } };
    const created = await toolrun.request<{ createSession: { id: string; metadata: unknown } }, unknown>(
      'mutation($m: JSON) { createSession(title: "pua", metadata: $m) { ... on Session { id metadata } } }',
      { m: metadata },
    );
    expect(created.data?.createSession.metadata).toEqual(metadata);
    const id = created.data!.createSession.id;
    const read = await toolrun.request<{ session: { metadata: unknown; recentEvents: Array<{ metadata: unknown }> } }, unknown>(
      'query($s: ID!) { session(id: $s) { metadata recentEvents(count: 1) { ... on SessionCreated { metadata } } } }',
      { s: id },
    );
    expect(read.data?.session).toEqual({ metadata, recentEvents: [{ metadata }] });
    const found = await toolrun.request<{ sessions: { nodes: Array<{ id: string }> } }, unknown>('query($m: JSON) { sessions(filter: { metadataContains: $m }) { nodes { id } } }', {
      m: { k: '\ue000abc', ['\ue000key']: '\ue000\ue000z' },
    });
    expect(found.data?.sessions.nodes).toEqual([{ id }]);
  });

  it('keeps what write_todos is given losslessly on its session, U+0000 and lone surrogates included, as any tool argument', async () => {
    const created = await toolrun.request<{ createSession: { id: string } }, unknown>(CREATE_SESSION, { t: 'todos' });
    const session = created.data!.createSession.id;
    const todos = [
      { id: 'n\u0000', content: 'a\u0000b', status: 'pending' },
      { id: 'lone', content: 'x \ud800 y \udfff', status: 'completed' },
    ];
    const written = await toolrun.request<{ executeToolBatch: { calls: { nodes: Array<{ status: string; output: Record<string, unknown> }> } } }, unknown>(EXECUTE, {
      s: session,
      w: 10_000,
      c: [{ tool: 'write_todos', args: { todos } }],
    });
    expect(written.data?.executeToolBatch.calls.nodes[0]).toMatchObject({ status: 'SUCCEEDED', output: { __typename: 'ToolSuccess', value: { todos } } });
    const read = await toolrun.request<{ session: { todos: unknown } }, unknown>('query($s: ID!) { session(id: $s) { todos } }', { s: session });
    expect(read.data?.session.todos).toEqual(todos);
  });

  it('refuses a number too large to represent (1e400) anywhere in input, args included, naming the field; nothing of the batch is kept', async () => {
    // JSON.stringify cannot write such a number: the body is sent as text.
    const raw = async (query: string, variablesJson: string) => {
      const response = await toolrun.endpoint.fetch(toolrun.endpoint.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${toolrun.apiKey}` },
        body: `{"query":${JSON.stringify(query)},"variables":${variablesJson}}`,
      });
      return { status: response.status, ...((await response.json()) as { errors?: Array<{ extensions?: Record<string, unknown> }> }) };
    };
    const refused = async (query: string, variablesJson: string, field: string) => {
      const result = await raw(query, variablesJson);
      expect(result.status).toBeLessThan(500);
      expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    };
    await refused(EXECUTE, `{"s":${JSON.stringify(sessionId)},"c":[{"id":"fine","tool":"add","args":{"a":1,"b":2}},{"id":"huge","tool":"echo","args":{"message":"x","n":1e400}}]}`, '$c[1].args.n');
    await refused(EXECUTE, `{"s":${JSON.stringify(sessionId)},"c":[{"id":"neg","tool":"echo","args":{"list":[-1e400]}}]}`, '$c[0].args.list[0]');
    await refused(CREATE_SESSION, '{"m":{"x":1e400}}', '$m.x');
    await expectRefused('mutation($s: ID!) { executeToolBatch(sessionId: $s, calls: [{tool: "add", args: {a: 1e400, b: 1}}]) { __typename } }', { s: sessionId }, 'executeToolBatch(calls:)[0].args.a');
    const kept = await toolrun.request<{ toolCall: unknown }, unknown>('query($s: ID!) { toolCall(sessionId: $s, callId: "fine") { callId } }', { s: sessionId });
    expect(kept.data?.toolCall).toBeNull();
  });

  it('refuses JSON nested deeper than the limit, 10,000 deep included, without a stack overflow', async () => {
    const deep = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;
    for (const n of [65, 10_000]) {
      // Written by hand: JSON.stringify itself recurses.
      const body = `{"query": ${JSON.stringify(EXECUTE)}, "variables": {"s": "${sessionId}", "c": [{"tool": "echo", "args": {"message": ${deep(n)}}}]}}`;
      const response = await toolrun.endpoint.fetch(toolrun.endpoint.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${toolrun.apiKey}` },
        body,
      });
      expect(response.status).toBeLessThan(500);
      const result = (await response.json()) as { errors: Array<{ message: string; extensions: Record<string, unknown> }> };
      expect(result.errors[0]!.extensions.code).toBe('BAD_USER_INPUT');
      expect(result.errors[0]!.message).toContain('nested deeper than 64 levels');
      expect(String(result.errors[0]!.extensions.field)).toMatch(/^\$c\[0\]\.args\.message/);
      // The same as a literal in the document.
      const literal = await toolrun.request<unknown, unknown>(`mutation($s: ID!) { executeToolBatch(sessionId: $s, calls: [{tool: "echo", args: {message: ${deep(n)}}}]) { __typename } }`, { s: sessionId });
      expect(literal.status).toBeLessThan(500);
      expect(literal.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    // 60 levels of args are accepted.
    const accepted = await toolrun.request<{ executeToolBatch: { __typename: string } }, unknown>(EXECUTE, {
      s: sessionId,
      c: [{ tool: 'echo', args: { message: JSON.parse(deep(58)) } }],
    });
    expect(accepted.data?.executeToolBatch.__typename).toBe('ToolBatch');
  });

  it('answers node ids that name nothing with null, and unknown sessions with NOT_FOUND', async () => {
    const missingSession = Buffer.from('Session:00000000-0000-4000-8000-000000000000').toString('base64');
    const otherTenant = await toolrun.newKey();
    for (const id of ['zzz', 'U2Vzc2lvbjoxMjM=', '00000000-0000-4000-8000-000000000000', missingSession, Buffer.from('Nope:1').toString('base64')]) {
      const result = await toolrun.request<{ node: unknown }, unknown>('query($id: ID!) { node(id: $id) { id } }', { id });
      expect(result, id).toMatchObject({ data: { node: null } });
      expect(result.errors, id).toBeUndefined();
    }
    const mine = sessionId;
    expect((await toolrun.request('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: ['zzz', mine, missingSession] })).data).toEqual({ nodes: [null, { id: mine }, null] });
    // Another tenant's session is nothing to this key.
    expect((await toolrun.request('query($id: ID!) { node(id: $id) { id } }', { id: mine }, otherTenant)).data).toEqual({ node: null });
    for (const field of [
      'schedules(sessionId: $s) { nodes { id } }',
      'tasks(sessionId: $s) { nodes { id } }',
      'sessionFiles(sessionId: $s) { nodes { path } }',
      'sessionMessages(sessionId: $s) { kind }',
      'toolCalls(filter: {sessionId: $s}) { totalCount }',
      'toolCallCounts(filter: {sessionId: $s}) { total }',
    ]) {
      for (const s of ['00000000-0000-4000-8000-000000000000', 'zz']) {
        const result = await toolrun.request(`query($s: ID!) { ${field} }`, { s });
        expect(result.errors?.[0]?.extensions, `${field} ${s}`).toMatchObject({ code: 'NOT_FOUND' });
      }
      const foreign = await toolrun.request(`query($s: ID!) { ${field} }`, { s: sessionId }, otherTenant);
      expect(foreign.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' });
    }
    // So is a schedule that names nothing of the tenant's.
    for (const s of ['00000000-0000-4000-8000-000000000000', 'zz']) {
      const result = await toolrun.request('query($s: ID!) { tasks(scheduleId: $s) { nodes { id } } }', { s });
      expect(result.errors?.[0]?.extensions, s).toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('says what was not found in a message of bounded length, the whole name kept in resourceId', async () => {
    const name = `${'n'.repeat(4_999)}😀`;
    const removed = await toolrun.request<{ removeTool: { __typename: string; message: string; resourceId: string } }, unknown>(
      'mutation($n: String!) { removeTool(name: $n) { __typename ... on NotFoundError { message resourceId } } }',
      { n: name },
    );
    const answer = removed.data!.removeTool;
    expect(answer.__typename).toBe('NotFoundError');
    expect(answer.resourceId).toBe(name);
    expect(answer.message).toBe(`RegisteredTool \`${'n'.repeat(200)}…\` was not found`);
    const session = await toolrun.request('query($s: ID!) { tasks(sessionId: $s) { nodes { id } } }', { s: 'x'.repeat(5_000) });
    expect(session.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' });
    expect(session.errors![0]!.message.length).toBeLessThan(300);
  });

  it('refuses lists too long to look up or filter by, and empty filter lists, naming the argument; a list of 100 is answered', async () => {
    const fieldOf = async (query: string, v: unknown) => {
      const result = await toolrun.request<unknown, unknown>(query, { v });
      expect(result.status, query).toBeLessThan(500);
      return result.errors ? result.errors.map((error) => `${String(error.extensions?.code)} ${String(error.extensions?.field)}`) : 'answered';
    };
    const strings = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
    const leaves = (n: number) => Object.fromEntries(strings(n).map((key, i) => [key, i]));
    const lists: Array<[string, (n: number) => unknown, string]> = [
      ['query($v: [ID!]!) { nodes(ids: $v) { id } }', strings, 'ids'],
      ['query($v: [String!]) { toolCalls(filter: {failureCode: $v}) { totalCount } }', strings, 'failureCode'],
      ['query($v: [String!]) { toolCallCounts(filter: {tool: $v}) { total } }', strings, 'tool'],
      ['query($v: [ToolCallStatus!]) { toolCalls(filter: {status: $v}) { totalCount } }', (n) => Array.from({ length: n }, () => 'QUEUED'), 'status'],
      ['query($v: JSON) { sessions(filter: {metadataContains: $v}) { totalCount } }', leaves, 'metadataContains'],
    ];
    for (const [query, values, field] of lists) {
      expect(await fieldOf(query, values(100)), query).toBe('answered');
      expect(await fieldOf(query, values(101)), query).toEqual([`VALIDATION_FAILED ${field}`]);
    }
    // "In one of these" with none of them is no filter nowhere (as `types: []` is refused): leave the list out for that.
    for (const field of ['status', 'tool', 'failureClass', 'failureCode']) {
      expect(await fieldOf(`query($v: ToolCallFilter) { toolCalls(filter: $v) { totalCount } }`, { [field]: [] }), field).toEqual([`VALIDATION_FAILED ${field}`]);
      expect(await fieldOf(`query($v: ToolCallFilter) { toolCallCounts(filter: $v) { total } }`, { [field]: [] }), field).toEqual([`VALIDATION_FAILED ${field}`]);
    }
    expect(await fieldOf('query($v: [ID!]!) { nodes(ids: $v) { id } }', [])).toBe('answered');
  });

  it('gives every refusal a code: variables of the wrong type, a missing operation name, a page size out of bounds', async () => {
    const refusals: Array<[string, Record<string, unknown>, string]> = [
      ['query($f: Int) { tasks(first: $f) { totalCount } }', { f: 'abc' }, 'BAD_USER_INPUT'],
      ['query($s: TaskState) { tasks(state: $s) { totalCount } }', { s: 'NOPE' }, 'BAD_USER_INPUT'],
      ['mutation($e: DateTime) { createApiKey(name: "x", roles: [reader], expiresAt: $e) { __typename } }', { e: 'tomorrow' }, 'BAD_USER_INPUT'],
      ['mutation($s: ID!, $a: JSON!) { spawnBackground(sessionId: $s, tool: "sleep", args: $a) { __typename } }', { s: sessionId, a: null }, 'BAD_USER_INPUT'],
      ['query A { __typename } query B { __typename }', {}, 'OPERATION_RESOLUTION_FAILURE'],
      ['query($s: ID!) { sessionFiles(sessionId: $s, first: -1) { nodes { path } } }', { s: sessionId }, 'VALIDATION_FAILED'],
      ['query($s: ID!) { sessionFiles(sessionId: $s, first: 1000) { nodes { path } } }', { s: sessionId }, 'VALIDATION_FAILED'],
      ['query($s: ID!) { sessionFiles(sessionId: $s, last: 201) { nodes { path } } }', { s: sessionId }, 'VALIDATION_FAILED'],
      // An edited cursor that decodes to a path with a NUL.
      ['query($s: ID!, $a: String) { sessionFiles(sessionId: $s, first: 2, after: $a) { nodes { path } } }', { s: sessionId, a: Buffer.from('/a\u0000b').toString('base64url') }, 'VALIDATION_FAILED'],
      // Not a 32-bit Int: refused as such, not priced by the cost check as a huge page.
      ['query($f: Int) { sessions(first: $f) { nodes { title } } }', { f: 99_999_999_999 }, 'BAD_USER_INPUT'],
      ['query($f: Int) { sessions(first: $f) { nodes { title } } }', { f: 1e300 }, 'BAD_USER_INPUT'],
      ['query($s: ID!, $c: Int!) { session(id: $s) { recentEvents(count: $c) { type } } }', { s: sessionId, c: 99_999_999_999 }, 'BAD_USER_INPUT'],
      // A kind no message has (a typo) is refused, as `tasks(kind:)` refuses one, not answered with an empty list.
      ['query($s: ID!) { sessionMessages(sessionId: $s, kind: "background-run") { kind } }', { s: sessionId }, 'VALIDATION_FAILED'],
      ['query($s: ID!) { tasks(sessionId: $s, kind: "background") { totalCount } }', { s: sessionId }, 'VALIDATION_FAILED'],
    ];
    for (const [query, variables, code] of refusals) {
      const result = await toolrun.request(query, variables);
      expect(result.errors?.length, query).toBeGreaterThan(0);
      expect(result.errors!.map((error) => error.extensions?.code), query).toEqual(result.errors!.map(() => code));
    }
    // `variables` or `extensions` that are no JSON, in a GET's query string or a form's body (they were a 500 with a stack in the log).
    const query = encodeURIComponent('{ __typename }');
    const requests: Array<[string, RequestInit]> = [
      [`/graphql?query=${query}&variables=%7Bbad`, {}],
      [`/graphql?query=${query}&extensions=nope`, {}],
      ['/graphql', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `query=${query}&variables=%7Bbad` }],
    ];
    for (const [path, init] of requests) {
      const response = await toolrun.fetch(path, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${toolrun.apiKey}` } });
      const body = (await response.json()) as { errors: Array<{ message: string; extensions: Record<string, unknown> }> };
      expect(response.status, path).toBe(400);
      expect(body.errors.map((error) => error.extensions.code), path).toEqual(['BAD_REQUEST']);
      expect(body.errors[0]!.message, path).toMatch(/variables|extensions/);
    }
  });

  it('caps tool calls per request across aliases', async () => {
    const calls = Array.from({ length: 30 }, (_, i) => ({ tool: 'add', args: { a: i, b: 1 } }));
    const query = `mutation($s: ID!, $c: [ToolCallInput!]!) { a: executeToolBatch(sessionId: $s, calls: $c) { __typename } b: executeToolBatch(sessionId: $s, calls: $c) { __typename } }`;
    const refused = await toolrun.request(query, { s: sessionId, c: calls });
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'MAX_CALLS_PER_REQUEST', max: 50 });
    expect(refused.data ?? null).toBeNull();
    const accepted = await toolrun.request<Record<string, { __typename: string }>, unknown>(query, { s: sessionId, c: calls.slice(0, 25) });
    expect(accepted.data).toEqual({ a: { __typename: 'ToolBatch' }, b: { __typename: 'ToolBatch' } });
  });

  it('caps request bodies on the bytes read: chunked HTTP and WebSocket messages', async () => {
    const url = new URL((await toolrun.endpoint.wsUrl()).replace('ws:', 'http:'));
    const big = JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(200 * 1024) } });
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${toolrun.apiKey}`, 'transfer-encoding': 'chunked' } },
        (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      request.on('error', reject);
      // Chunked: no Content-Length is ever sent.
      for (let offset = 0; offset < big.length; offset += 16 * 1024) request.write(big.slice(offset, offset + 16 * 1024));
      request.end();
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toContain('PAYLOAD_TOO_LARGE');
    // A chunked body under the cap is served.
    const small = await toolrun.request<{ __typename: string }, unknown>('{ __typename }', { pad: 'x'.repeat(1024) });
    expect(small.data).toEqual({ __typename: 'Query' });

    const socket = new WebSocket(await toolrun.endpoint.wsUrl(), 'graphql-transport-ws');
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${toolrun.apiKey}`, pad: 'x'.repeat(200 * 1024) } }));
    expect(await closed).toBe(1009);
  });

  it('logged no error line for any of this input', () => {
    expect(errorLines).toEqual([]);
  });
});

describe('introspection setting', () => {
  it('is off by default in production and can be turned on', async () => {
    const introspect = '{ __schema { queryType { name } } }';
    const production = await startToolrun({ NODE_ENV: 'production' }, { worker: false });
    const explicit = await startToolrun({ NODE_ENV: 'production', INTROSPECTION: true }, { worker: false });
    try {
      const refused = await production.request(introspect);
      expect(refused.errors?.[0]?.message).toMatch(/introspection/i);
      expect((await production.request('{ __typename }')).data).toEqual({ __typename: 'Query' });
      expect((await explicit.request(introspect)).data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    } finally {
      await production.close();
      await explicit.close();
    }
  });
});
