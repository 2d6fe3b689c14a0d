// One tenant's worst (a tool output PostgreSQL cannot store as is, a catastrophic regular
// expression, a grep that runs past its deadline, a flood of calls) while another tenant works:
// the other tenant loses nothing, runs nothing twice and finishes promptly; the first gets exactly
// what its tools returned.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

const CREATE_SESSION = 'mutation { createSession(title: "cross-tenant") { ... on Session { id } } }';
const EXECUTE = `mutation($s: ID!, $c: [ToolCallInput!]!, $w: Int, $t: Int) {
  executeToolBatch(sessionId: $s, calls: $c, waitMs: $w, timeoutMs: $t) {
    __typename
    ... on ToolBatch { batchId status calls(first: 1000) { nodes { callId status attempt durationMs output { __typename ... on ToolSuccess { value } ... on ToolFailure { class code message } } } } }
    ... on Error { message }
  }
}`;
const BATCH = `query($s: ID!, $b: String!) {
  toolBatch(sessionId: $s, batchId: $b) { status calls(first: 1000) { nodes { callId status attempt durationMs output { __typename ... on ToolSuccess { value } ... on ToolFailure { class code message } } } } }
}`;

interface Call {
  callId: string;
  status: string;
  attempt: number;
  durationMs: number | null;
  output: { __typename: string; value?: unknown; class?: string; code?: string; message?: string } | null;
}
interface Batch {
  batchId: string;
  status: string;
  calls: { nodes: Call[] };
}

/** The uuid of a Relay global id. */
const rawId = (globalId: string) => Buffer.from(globalId, 'base64').toString().split(':')[1]!;

/** Bytes no text column can hold: NUL, invalid UTF-8 (decoded as U+FFFD), and the storable codec's own marker. */
const BINARY = Buffer.from([0x50, 0x4b, 0x00, 0x03, 0xff, 0xfe, 0x00, 0xee, 0x80, 0x80, 0x61, 0x00]);

describe('one tenant cannot hurt another', () => {
  let toolrun: Toolrun;
  let server: Server;
  let binaryUrl: string;
  let keyB: string;
  let sessionA: string;
  let sessionB: string;

  beforeAll(async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.end(BINARY);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    binaryUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/file.bin`;
    toolrun = await startToolrun({ WEB_FETCH_ALLOW_LOOPBACK: true, CALLS_PER_JOB: 8 });
    keyB = await toolrun.newKey();
    sessionA = ((await toolrun.request<{ createSession: { id: string } }, unknown>(CREATE_SESSION)).data!.createSession.id);
    sessionB = ((await toolrun.request<{ createSession: { id: string } }, unknown>(CREATE_SESSION, {}, keyB)).data!.createSession.id);
  });
  afterAll(async () => {
    await toolrun?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  const submit = async (sessionId: string, calls: unknown[], key?: string, options: { waitMs?: number; timeoutMs?: number } = {}): Promise<Batch> => {
    const result = await toolrun.request<{ executeToolBatch: Batch & { __typename: string; message?: string } }, unknown>(
      EXECUTE,
      { s: sessionId, c: calls, w: options.waitMs ?? 0, t: options.timeoutMs },
      key,
    );
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    expect(result.data!.executeToolBatch.__typename, result.data!.executeToolBatch.message).toBe('ToolBatch');
    return result.data!.executeToolBatch;
  };
  const completed = async (sessionId: string, batchId: string, key?: string, timeoutMs = 60_000): Promise<Batch> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const result = await toolrun.request<{ toolBatch: Batch }, unknown>(BATCH, { s: sessionId, b: batchId }, key);
      if (result.data?.toolBatch.status === 'COMPLETED') return result.data.toolBatch;
      if (Date.now() > deadline) throw new Error(`batch ${batchId} did not complete: ${JSON.stringify(result)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it("checks each tool schema's patterns on their own: another tenant's pattern, compiled first, never stands in for them", async () => {
    const REGISTER = `mutation($input: RegisterExternalToolInput!) { registerExternalTool(input: $input) { __typename ... on Error { message } } }`;
    const register = async (name: string, pattern: string, key?: string) => {
      const input = { name, description: 'd', parametersSchema: { type: 'object', properties: { code: { type: 'string', pattern } }, patternProperties: { [`^${name}_`]: { type: 'string', pattern } } } };
      const result = await toolrun.request<{ registerExternalTool: { __typename: string } }, unknown>(REGISTER, { input }, key);
      expect(result.data?.registerExternalTool.__typename, JSON.stringify(result)).toBe('ToolDefinition');
    };
    await register('only_never', '^never$', await toolrun.newKey(undefined, ['admin']));
    await register('digits', '^[0-9]+$');
    const batch = await submit(sessionA, [
      { id: 'p-digits', tool: 'digits', args: { code: '123' } },
      { id: 'p-letters', tool: 'digits', args: { code: 'abc' } },
      { id: 'p-never', tool: 'digits', args: { code: 'never' } },
      { id: 'p-property', tool: 'digits', args: { digits_x: 'abc' } },
      { id: 'p-builtin', tool: 'failing_tool', args: { code: 'valid_code' } },
    ]);
    const status = Object.fromEntries(batch.calls.nodes.map((call) => [call.callId, [call.status, call.output?.code ?? null]]));
    // Arguments are checked at submission: a refused call is FAILED at once, an accepted one is not.
    expect(status['p-digits']![0]).not.toBe('FAILED');
    expect(status).toMatchObject({
      'p-letters': ['FAILED', 'invalid_arguments'],
      'p-never': ['FAILED', 'invalid_arguments'],
      'p-property': ['FAILED', 'invalid_arguments'],
    });
    expect(status['p-builtin']![1]).not.toBe('invalid_arguments');
  });

  it('keeps tenant B whole while tenant A stores binary output, runs a catastrophic pattern, a grep past its deadline and a flood', async () => {
    // Tenant A's file store: a line that makes a backtracking engine take seconds, and 8 MB to grep.
    const filesA = toolrun.services.sessions.files(rawId(sessionA));
    await filesA.writeFile('/redos.txt', `${'a'.repeat(27)}b\n`);
    const bulk = `${'x'.repeat(199)}\n`.repeat(7_000);
    for (let n = 0; n < 6; n++) await filesA.writeFile(`/bulk/${n}.txt`, bulk);

    // Unloaded latency of B's single add, for the comparison below.
    const unloadedStart = Date.now();
    const unloaded = await submit(sessionB, [{ tool: 'add', args: { a: 1, b: 2 } }], keyB, { waitMs: 30_000 });
    const unloadedMs = Date.now() - unloadedStart;
    expect(unloaded.status).toBe('COMPLETED');

    const started = Date.now();
    const [binary, redos, slowGrep, ...flood] = await Promise.all([
      submit(sessionA, Array.from({ length: 16 }, () => ({ tool: 'web_fetch', args: { url: binaryUrl } }))),
      submit(sessionA, [{ tool: 'grep_files', args: { pattern: '^(a+)+$', path: '/redos.txt' } }]),
      submit(sessionA, [{ tool: 'grep_files', args: { pattern: '^(x+x+)+y$', path: '/bulk' } }], undefined, { timeoutMs: 100 }),
      ...Array.from({ length: 4 }, () => submit(sessionA, Array.from({ length: 100 }, (_, i) => ({ tool: 'multiply', args: { a: i, b: 2 } })))),
    ]);
    // B works meanwhile: parallel calls that land in the same write groups as A's binary outputs.
    const bStart = Date.now();
    const bBatches = await Promise.all(Array.from({ length: 4 }, (_, n) => submit(sessionB, Array.from({ length: 8 }, (_, i) => ({ tool: 'add', args: { a: n, b: i } })), keyB)));
    const bDone = await Promise.all(bBatches.map((batch) => completed(sessionB, batch.batchId, keyB)));
    const bMs = Date.now() - bStart;

    // B lost nothing and ran each call once.
    for (const [n, batch] of bDone.entries()) {
      for (const [i, call] of batch.calls.nodes.entries()) {
        expect(call, JSON.stringify(call)).toMatchObject({ status: 'SUCCEEDED', attempt: 1, output: { __typename: 'ToolSuccess', value: { result: n + i } } });
      }
    }
    const events = await toolrun.services.db.event.groupBy({
      by: ['callId', 'type'],
      where: { sessionId: rawId(sessionB), type: { in: ['ToolCallStarted', 'ToolCallCompleted', 'ToolCallRetrying'] } },
      _count: true,
    });
    for (const row of events) expect(row, JSON.stringify(row)).toMatchObject({ _count: 1 });
    expect(events.some((row) => row.type === 'ToolCallRetrying')).toBe(false);

    // A got exactly what its tool returned: NUL, U+FFFD, and the private-use marker round-trip.
    const fetched = await completed(sessionA, binary.batchId);
    const expectedBody = new TextDecoder('utf-8').decode(BINARY);
    expect(expectedBody).toContain('\u0000');
    for (const call of fetched.calls.nodes) {
      expect(call.status, JSON.stringify(call.output)).toBe('SUCCEEDED');
      expect((call.output!.value as { body: string }).body).toBe(expectedBody);
      expect(call.attempt).toBe(1);
    }

    // The catastrophic pattern answers at once on RE2 (no match: the line ends in b).
    const redosDone = await completed(sessionA, redos.batchId);
    expect(redosDone.calls.nodes[0]).toMatchObject({ status: 'SUCCEEDED', output: { value: { count: 0 } } });
    // The grep past its deadline ends TIMEOUT, promptly: it did not outlive its deadline.
    const slowDone = await completed(sessionA, slowGrep.batchId);
    expect(slowDone.calls.nodes[0]).toMatchObject({ status: 'FAILED', output: { class: 'TIMEOUT' } });
    expect(slowDone.calls.nodes[0]!.durationMs).toBeLessThan(3000);

    for (const batch of flood) expect((await completed(sessionA, batch.batchId)).calls.nodes.every((call) => call.status === 'SUCCEEDED')).toBe(true);
    console.log(`cross-tenant: B unloaded ${unloadedMs} ms; B's 32 calls under load ${bMs} ms; all of A ${Date.now() - started} ms`);
    // B stays prompt while A floods (fair dispatch itself is the quotas work; this bounds the harm).
    expect(bMs).toBeLessThan(20_000);
  });
});
