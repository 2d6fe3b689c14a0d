// Property-based input fuzzing (fast-check): every mutation of the schema with variables generated
// from its argument types, and every built-in tool with generated args. Whatever the input: no
// INTERNAL answer, no 5xx, no unhandled rejection, no error line in the server log, and no call
// that ends INTERNAL.
import fc from 'fast-check';
import {
  type GraphQLArgument,
  type GraphQLInputType,
  getNamedType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql.js';
import { createLogger } from '../../src/logger.js';
import { builtinTools } from '../../src/tools/builtin/index.js';
import { anyString } from '../support/arbitraries.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

const NASTY_STRINGS = ['', ' ', 'a\u0000b', 'x\ud800y', '\udfff', '\uE000', '\uE0000', '../../etc/passwd', '/', '%', '_', "'; DROP TABLE x; --", '{"a":1}', 'null', '💥'.repeat(50), 'x'.repeat(5000), '(a+)+$', '[', 'http://[::127.0.0.1]/', 'http://10.0.0.1/', 'http://localhost:1/'];

const text = fc.oneof({ arbitrary: fc.string({ maxLength: 40 }), weight: 4 }, { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 2 }, { arbitrary: anyString(20), weight: 1 });
const number = fc.oneof(fc.integer({ min: -5, max: 100 }), fc.constantFrom(0, -1, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 1e308, -0, 0.5));
const deep = fc.integer({ min: 60, max: 400 }).map((depth) => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { k: value };
  return value;
});
const json: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 4 },
  { arbitrary: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }), weight: 2 },
  { arbitrary: fc.constant(JSON.parse('{"__proto__": {"polluted": true}}') as unknown), weight: 1 },
  { arbitrary: deep, weight: 1 },
);

/** Values of a GraphQL input type; `ids` are ids worth hitting (a real session, batch, call). */
function valueOf(type: GraphQLInputType, ids: string[], depth = 0): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) return valueOf(type.ofType, ids, depth);
  const orNull = (arbitrary: fc.Arbitrary<unknown>) => fc.oneof({ arbitrary, weight: 6 }, { arbitrary: fc.constant(null), weight: 1 });
  if (isListType(type)) return orNull(fc.array(valueOf(type.ofType, ids, depth + 1), { maxLength: depth > 1 ? 1 : 3 }));
  if (isEnumType(type)) return orNull(fc.constantFrom(...type.getValues().map((value) => value.name)));
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    if (depth > 3) return fc.constant(null);
    return orNull(
      fc.record(Object.fromEntries(fields.map((field) => [field.name, valueOf(field.type, ids, depth + 1)])), {
        requiredKeys: fields.filter((field) => isNonNullType(field.type)).map((field) => field.name),
      }),
    );
  }
  if (isScalarType(type)) {
    switch (type.name) {
      case 'Int':
      case 'Float':
        return orNull(number);
      case 'Boolean':
        return orNull(fc.boolean());
      case 'ID':
        return orNull(fc.oneof({ arbitrary: fc.constantFrom(...ids), weight: 3 }, { arbitrary: fc.uuid(), weight: 1 }, { arbitrary: text, weight: 1 }));
      case 'JSON':
        return orNull(json);
      case 'DateTime':
        return orNull(fc.oneof(fc.date({ noInvalidDate: true }).map((date) => date.toISOString()), text));
      default:
        return orNull(text);
    }
  }
  return fc.constant(null);
}

function mutationDocument(name: string, args: readonly GraphQLArgument[], composite: boolean): string {
  const variables = args.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(', ');
  const passed = args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  return `mutation${variables ? `(${variables})` : ''} { ${name}${passed ? `(${passed})` : ''}${composite ? ' { __typename }' : ''} }`;
}

describe('input fuzzing', () => {
  let toolrun: Toolrun;
  const errorLines: Array<Record<string, unknown>> = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  let ids: string[];
  let sessionId: string;

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    toolrun = await startToolrun(
      { MAX_CALL_TIMEOUT_MS: 2000 },
      {
        logger: () =>
          createLogger(
            { LOG_LEVEL: 'warn' },
            { destination: { write: (line: string) => void (JSON.parse(line).level >= 50 && errorLines.push(JSON.parse(line) as Record<string, unknown>)) } },
          ),
      },
    );
    const created = await toolrun.request<{ createSession: { id: string } }, unknown>('mutation { createSession(title: "fuzz") { ... on Session { id } } }');
    sessionId = created.data!.createSession.id;
    const batch = await toolrun.request<{ executeToolBatch: { batchId: string; calls: { nodes: Array<{ id: string; callId: string }> } } }, unknown>(
      'mutation($s: ID!) { executeToolBatch(sessionId: $s, calls: [{tool: "delete_file", args: {path: "/x"}}, {tool: "echo", args: {message: "hi"}}]) { ... on ToolBatch { batchId calls(first: 1000) { nodes { id callId } } } } }',
      { s: sessionId },
    );
    const { batchId, calls } = batch.data!.executeToolBatch;
    ids = [sessionId, batchId, ...calls.nodes.flatMap((call) => [call.id, call.callId])];
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await toolrun?.close();
  });

  const expectTyped = (result: { status: number; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> }, what: string) => {
    expect(result.status, what).toBeLessThan(500);
    for (const error of result.errors ?? []) {
      expect(error.extensions?.code, `${what}: ${error.message}`).not.toBe('INTERNAL_SERVER_ERROR');
      expect(error.message, what).not.toBe('Unexpected error.');
    }
  };

  it('answers every mutation with generated variables without an internal error', async () => {
    const mutations = Object.values(schema.getMutationType()!.getFields());
    expect(mutations.length).toBeGreaterThan(10);
    for (const field of mutations) {
      const document = mutationDocument(field.name, field.args, isCompositeType(getNamedType(field.type)));
      const variables = fc.record(Object.fromEntries(field.args.map((arg) => [arg.name, valueOf(arg.type, ids)])));
      await fc.assert(
        fc.asyncProperty(variables, async (values) => {
          const result = await toolrun.request(document, values);
          expectTyped(result, `${field.name} ${JSON.stringify(values).slice(0, 300)}`);
        }),
        { numRuns: 12 },
      );
    }
  });

  it('runs every built-in tool with generated args to a typed outcome', async () => {
    const submitted: Array<{ tool: string; batchId: string }> = [];
    for (const { definition: tool } of builtinTools) {
      const properties = Object.keys((tool.parametersSchema as { properties?: Record<string, unknown> }).properties ?? {});
      const args = fc.oneof(
        { arbitrary: fc.record(Object.fromEntries(properties.map((name) => [name, fc.oneof(text, number, fc.boolean(), json)])), { requiredKeys: [] }), weight: 4 },
        { arbitrary: json, weight: 1 },
      );
      await fc.assert(
        fc.asyncProperty(args, async (value) => {
          const result = await toolrun.request<{ executeToolBatch: { __typename: string; batchId?: string } }, unknown>(
            'mutation($s: ID!, $c: [ToolCallInput!]!) { executeToolBatch(sessionId: $s, calls: $c, timeoutMs: 1000) { __typename ... on ToolBatch { batchId } } }',
            { s: sessionId, c: [{ tool: tool.name, args: value }] },
          );
          expectTyped(result, `${tool.name} ${JSON.stringify(value).slice(0, 300)}`);
          const batchId = result.data?.executeToolBatch?.batchId;
          if (batchId) submitted.push({ tool: tool.name, batchId });
        }),
        { numRuns: 6 },
      );
    }
    // Every call that ended, ended with a typed outcome (calls waiting for approval stay waiting).
    const deadline = Date.now() + 20_000;
    for (const { tool, batchId } of submitted) {
      for (;;) {
        const result = await toolrun.request<{ toolBatch: { status: string; calls: { nodes: Array<{ status: string; output: { class?: string; message?: string } | null }> } } }, unknown>(
          'query($s: ID!, $b: String!) { toolBatch(sessionId: $s, batchId: $b) { status calls(first: 1000) { nodes { status output { ... on ToolFailure { class message } } } } } }',
          { s: sessionId, b: batchId },
        );
        expectTyped(result, `${tool} ${batchId}`);
        const batch = result.data!.toolBatch;
        for (const call of batch.calls.nodes) expect(call.output?.class, `${tool}: ${call.output?.message}`).not.toBe('INTERNAL');
        if (batch.status === 'COMPLETED' || batch.calls.nodes.every((call) => call.status === 'AWAITING_APPROVAL') || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });

  it('left no unhandled rejection and no error line in the server log', () => {
    expect(unhandled).toEqual([]);
    expect(errorLines.map((line) => `${String(line.msg)} ${JSON.stringify(line.err ?? '').slice(0, 300)}`)).toEqual([]);
  });
});
