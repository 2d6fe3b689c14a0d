// Seed 004 (tool values and outcomes): its tests, run through GraphQL against a real toolrun.
// Values reach toolrun the way an agent runtime sends them (completeToolCall of an external
// tool, in the seeds' wire form) and come back in the seeds' JSON forms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../../support/fixtures.js';
import { startToolrun, type Toolrun } from '../../support/toolrun.js';
import { complete, completedCall, imageRef, payloadOf, pendingExternalCall, registerExternalTool, runCall, TAG } from '../../support/seeds.js';

let app: Toolrun;
let sessionId: string;
beforeAll(async () => {
  app = await startToolrun();
  await registerExternalTool(app, 'runtime');
  sessionId = await createSession(app);
});
afterAll(async () => app?.close());

const attachment = (id: string) => ({ [TAG]: 'attachment', ref: imageRef(id) });
const attachmentPart = (id: string) => ({ type: 'ATTACHMENT', text: null, attachment: { attachmentId: id, mediaType: 'image/png', byteLen: 3, width: 1, height: 1, label: 'tiny' } });

describe('seed 004: tool values and outcomes', () => {
  it('tool_value_serializes_nested_attachments', async () => {
    const value = [attachment('img')];
    const call = await completedCall(app, sessionId, 'runtime', { value });
    const json = payloadOf(call) as unknown as Array<Record<string, Record<string, unknown>>>;
    expect(json[0]![TAG]).toBe('attachment');
    expect(json[0]!.ref!.id).toBe('img');
    // It decodes back to the same value: the outcome carries it unchanged, with its metadata.
    expect(call.outcome).toEqual({ status: 'success', payload: value });
    expect(call.output).toEqual({ __typename: 'ToolSuccess', value });
    expect(call.modelReturn?.parts).toEqual([{ type: 'TEXT', text: '[', attachment: null }, attachmentPart('img'), { type: 'TEXT', text: ']', attachment: null }]);
  });

  it('tool_value_escapes_user_reserved_key', async () => {
    // A user object that uses the reserved key travels escaped, and decodes back to that object.
    const escaped = { [TAG]: 'object', entries: { [TAG]: 'user' } };
    const call = await completedCall(app, sessionId, 'runtime', { value: escaped });
    const json = payloadOf(call);
    expect(json[TAG]).toBe('object');
    expect(typeof json.entries).toBe('object');
    expect(call.outcome).toEqual({ status: 'success', payload: escaped });
    // The parts (model_parts) show the user's object itself; the text (format_tool_output_content)
    // is serde_json's text of the wire form, where it stays escaped.
    expect(call.modelReturn?.parts).toEqual([{ type: 'TEXT', text: '{"$lash_tool_value":"user"}', attachment: null }]);
    expect(call.modelReturn?.text).toBe('{"$lash_tool_value":"object","entries":{"$lash_tool_value":"user"}}');
    const nested = await completedCall(app, sessionId, 'runtime', { value: [{ [TAG]: 'object', entries: { [TAG]: 'user', n: 1 } }, attachment('img')] });
    // An attachment stands in the text in its wire form, where the parts have an attachment part.
    expect(nested.modelReturn?.text).toBe(
      '[{"$lash_tool_value":"object","entries":{"$lash_tool_value":"user","n":1}},{"$lash_tool_value":"attachment","ref":{"byte_len":3,"height":1,"id":"img","label":"tiny","media_type":{"kind":"image","type":"png"},"width":1}}]',
    );
    expect(nested.modelReturn?.parts).toEqual([{ type: 'TEXT', text: '[{"$lash_tool_value":"user","n":1},', attachment: null }, attachmentPart('img'), { type: 'TEXT', text: ']', attachment: null }]);
  });

  it('tool_value_rejects_malformed_reserved_object', async () => {
    const callId = 'malformed';
    await pendingExternalCall(app, sessionId, 'runtime', callId);
    const refused = await complete(app, { callId, sessionId, result: { value: { [TAG]: 'attachment', extra: true } } });
    expect(refused).toMatchObject({ __typename: 'ValidationError', field: 'result.value' });
    expect((refused as { message: string }).message).toContain('malformed attachment tool value');
    for (const value of [{ [TAG]: 7 }, { [TAG]: 'mystery', ref: {} }, { [TAG]: 'object', entries: {}, more: 1 }]) {
      expect(await complete(app, { callId, sessionId, result: { value } }), JSON.stringify(value)).toMatchObject({ __typename: 'ValidationError' });
    }
    expect(await complete(app, { callId, sessionId, result: { value: 'fine' } })).toMatchObject({ __typename: 'ToolCall', status: 'SUCCEEDED' });
  });

  it('tool_value_model_parts_preserve_attachment_position', async () => {
    const call = await completedCall(app, sessionId, 'runtime', { value: ['before', attachment('img'), 'after'] });
    expect(call.modelReturn?.parts).toEqual([{ type: 'TEXT', text: '["before",', attachment: null }, attachmentPart('img'), { type: 'TEXT', text: ',"after"]', attachment: null }]);
  });

  it('tool_output_failure_projects_raw_attachments_after_failure_text', async () => {
    const raw = { image: attachment('img') };
    const call = await completedCall(app, sessionId, 'runtime', {
      outcome: { status: 'failure', payload: { class: 'execution', code: 'boom', message: 'boom', source: 'tool', retry: { type: 'never' }, raw } },
    });
    expect(call.modelReturn?.parts).toEqual([{ type: 'TEXT', text: '[Tool execution failed]\nboom', attachment: null }, attachmentPart('img')]);
    expect(call.output).toMatchObject({ __typename: 'ToolFailure', class: 'EXECUTION', code: 'boom', source: 'TOOL', raw });
    expect(call.outcome).toEqual({ status: 'failure', payload: { class: 'execution', code: 'boom', message: 'boom', source: 'tool', retry: { type: 'never' }, raw } });
  });

  it('raw values of failures and cancellations are readable over the API, in the outcome and the GraphQL types', async () => {
    const raw = { image: attachment('img'), note: 'partial' };
    // A tool's own failure (failing_tool's `raw` option): ToolFailure.raw.
    const failed = await runCall(app, sessionId, 'failing_tool', { code: 'boom', message: 'boom', raw });
    expect(failed.output).toMatchObject({ __typename: 'ToolFailure', code: 'boom', source: 'TOOL', raw });
    expect(failed.outcome).toEqual({ status: 'failure', payload: { class: 'execution', code: 'boom', message: 'boom', source: 'tool', retry: { type: 'never' }, raw } });
    // A cancellation reported by a runtime: ToolCancellation.raw, its attachments after the text.
    const cancelled = await completedCall(app, sessionId, 'runtime', { outcome: { status: 'cancelled', payload: { message: 'stopped', source: 'cancellation', raw } } });
    expect(cancelled.status).toBe('CANCELLED');
    expect(cancelled.output).toEqual({ __typename: 'ToolCancellation', message: 'stopped', source: 'CANCELLATION', raw });
    expect(cancelled.outcome).toEqual({ status: 'cancelled', payload: { message: 'stopped', source: 'cancellation', raw } });
    expect(cancelled.modelReturn?.parts).toEqual([{ type: 'TEXT', text: '[Tool execution cancelled]\nstopped', attachment: null }, attachmentPart('img')]);
    // Without one, raw is absent from the outcome and null in the type.
    const plain = await completedCall(app, sessionId, 'runtime', { outcome: { status: 'cancelled', payload: { message: 'stopped', source: 'runtime' } } });
    expect(plain.outcome).toEqual({ status: 'cancelled', payload: { message: 'stopped', source: 'runtime' } });
    expect(plain.output).toMatchObject({ __typename: 'ToolCancellation', raw: null });
  });

  it('model_tool_return_text_part_serializes', async () => {
    const call = await completedCall(app, sessionId, 'runtime', { value: 'hello' });
    const json = call.modelReturn?.json as { parts: unknown[]; call_id: string; tool_name: string };
    expect(json.parts[0]).toEqual({ type: 'text', text: 'hello' });
    expect(json).toEqual({ call_id: call.callId, tool_name: 'runtime', parts: [{ type: 'text', text: 'hello' }] });
  });

  it('tool_output_status_distinguishes_cancelled_from_failure', async () => {
    const failed = await completedCall(app, sessionId, 'runtime', {
      outcome: { status: 'failure', payload: { class: 'execution', code: 'boom', message: 'boom', source: 'tool', retry: { type: 'never' } } },
    });
    const cancelled = await completedCall(app, sessionId, 'runtime', { outcome: { status: 'cancelled', payload: { message: 'stopped', source: 'cancellation' } } });
    expect(failed.status).toBe('FAILED');
    expect((failed.outcome as { status: string }).status).toBe('failure');
    expect(cancelled.status).toBe('CANCELLED');
    expect((cancelled.outcome as { status: string }).status).toBe('cancelled');
    expect(cancelled.output).toMatchObject({ __typename: 'ToolCancellation', message: 'stopped', source: 'CANCELLATION' });
    expect(cancelled.modelReturn?.text).toBe('[Tool execution cancelled]\nstopped');
  });

  it('format_tool_output_content: strings raw, anything else JSON with sorted keys and floats as floats', async () => {
    const text = async (value: unknown) => (await completedCall(app, sessionId, 'runtime', { value })).modelReturn?.text;
    expect(await text('plain text')).toBe('plain text');
    expect(await text({ zeta: 1, alpha: [true, null, 2.5], 'middle key': 'x' })).toBe('{"alpha":[true,null,2.5],"middle key":"x","zeta":1}');
    // A float the tool computed is printed as Rust prints an f64, and text and parts agree.
    const add = await runCall(app, sessionId, 'multiply', { a: 2.5, b: 4 });
    expect(add.modelReturn?.text).toBe('{"result":10.0}');
    expect(add.modelReturn?.parts).toEqual([{ type: 'TEXT', text: add.modelReturn?.text, attachment: null }]);
    const small = await runCall(app, sessionId, 'divide', { a: 1, b: 10_000_000 });
    expect(small.modelReturn?.text).toBe('{"result":1e-7}');
  });

  it('outcomes in the seeds’ JSON form: classes, sources and retries in snake_case', async () => {
    const retrying = await runCall(app, sessionId, 'failing_tool', { class: 'RESOURCE_LIMIT', code: 'busy', message: 'try later', retry: 'SAFE', retryAfterMs: 5 });
    expect(retrying.outcome).toEqual({
      status: 'failure',
      payload: { class: 'resource_limit', code: 'busy', message: 'try later', source: 'tool', retry: { type: 'exhausted', attempts: 3 } },
    });
    const denied = await completedCall(app, sessionId, 'runtime', {
      failure: { class: 'PERMISSION_DENIED', code: 'nope', message: 'not allowed', retry: { kind: 'NEVER' } },
    });
    expect(denied.outcome).toMatchObject({ status: 'failure', payload: { class: 'permission_denied', source: 'tool', retry: { type: 'never' } } });
    const safe = await completedCall(app, sessionId, 'runtime', {
      outcome: { status: 'failure', payload: { class: 'external', code: 'flaky', message: 'again', source: 'plugin', retry: { type: 'safe', after_ms: 250 } } },
    });
    // The tool has one attempt, so a safe retry is exhausted at once.
    expect(safe.outcome).toMatchObject({ payload: { class: 'external', source: 'plugin', retry: { type: 'exhausted', attempts: 1 } } });
    const unknown = await runCall(app, sessionId, 'no_such_tool', {});
    expect(unknown.outcome).toEqual({
      status: 'failure',
      payload: { class: 'unavailable', code: 'tool_unavailable', message: 'Tool id `no_such_tool` is unavailable in this session', source: 'runtime', retry: { type: 'never' } },
    });
  });

  it('completions in the seeds’ JSON form are checked, naming what is wrong', async () => {
    const callId = 'bad-outcome';
    await pendingExternalCall(app, sessionId, 'runtime', callId);
    const refusals: Array<[unknown, string]> = [
      [{ status: 'done', payload: 1 }, 'result.outcome.status'],
      [{ status: 'success' }, 'result.outcome.payload'],
      [{ status: 'failure', payload: { class: 'EXECUTION', code: 'x', message: 'x', source: 'tool', retry: { type: 'never' } } }, 'result.outcome.payload.class'],
      [{ status: 'failure', payload: { class: 'execution', code: 'x', message: 'x', source: 'tool', retry: { type: 'later' } } }, 'result.outcome.payload.retry.type'],
      [{ status: 'cancelled', payload: { message: 'x', source: 'nobody' } }, 'result.outcome.payload.source'],
      [{ status: 'success', payload: { [TAG]: 'attachment', ref: { id: 'x' } } }, 'result.outcome.payload'],
    ];
    for (const [outcome, field] of refusals) {
      expect(await complete(app, { callId, sessionId, result: { outcome } }), JSON.stringify(outcome)).toMatchObject({ __typename: 'ValidationError', field });
    }
    expect(await complete(app, { callId, sessionId, result: { value: 1, outcome: { status: 'success', payload: 1 } } })).toMatchObject({ __typename: 'ValidationError', field: 'result' });
    const done = await complete(app, { callId, sessionId, result: { outcome: { status: 'success', payload: { ok: true } } } });
    expect(done).toMatchObject({ __typename: 'ToolCall', status: 'SUCCEEDED', outcome: { status: 'success', payload: { ok: true } } });
  });
});
