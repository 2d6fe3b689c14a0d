// Seed 001 (an agent runtime's batch execution). The seed file has no tests of its own; these
// check, through GraphQL against a real toolrun, the behaviour of the seed functions they are
// named after.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelToolCallDocument, SeedExecuteToolBatchDocument } from '../../gql/graphql.js';
import { createSession } from '../../support/fixtures.js';
import { startToolrun, type Toolrun } from '../../support/toolrun.js';
import { eventually } from '../../support/wait.js';
import { payloadOf, runBatch, seedCallOf } from '../../support/seeds.js';

const GRACE_MS = 4000;
let app: Toolrun;
let sessionId: string;
beforeAll(async () => {
  app = await startToolrun({ CANCEL_GRACE_MS: GRACE_MS });
  sessionId = await createSession(app);
});
afterAll(async () => app?.close());

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Submits one call, waits until it runs, cancels it and waits for its outcome. */
async function cancelWhileRunning(callId: string, args: Record<string, unknown>) {
  const { executeToolBatch } = await app.query(SeedExecuteToolBatchDocument, { sessionId, calls: [{ id: callId, tool: 'sleep', args }] });
  expect(executeToolBatch.__typename).toBe('ToolBatch');
  await eventually(async () => (await seedCallOf(app, sessionId, callId))?.status === 'RUNNING');
  const requested = Date.now();
  await app.query(CancelToolCallDocument, { callId, sessionId });
  const done = await eventually(async () => {
    const call = await seedCallOf(app, sessionId, callId);
    return call && ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(call.status) ? call : null;
  }, 20_000);
  return { call: done, afterMs: Date.now() - requested };
}

describe('seed 001: tool_execution.rs', () => {
  it('deterministic_tool_invocation_batch_id', async () => {
    const batch = await runBatch(app, {
      sessionId,
      calls: [
        { id: 'c1', tool: 'echo', args: { message: 'hi' } },
        { id: 'c2', tool: 'add', args: { b: 2, a: 1.5 } },
      ],
    });
    // sha256 of serde_json's text of [{"id", "tool_id", "args"}]: keys sorted, as the seed hashes it.
    const identity = '[{"args":{"message":"hi"},"id":"c1","tool_id":"echo"},{"args":{"a":1.5,"b":2},"id":"c2","tool_id":"add"}]';
    expect(batch.batchId).toBe(`tool-batch:${sha256(identity)}`);
    // The same batch again is the same batch, and runs nothing twice.
    const again = await runBatch(app, {
      sessionId,
      calls: [
        { id: 'c1', tool: 'echo', args: { message: 'hi' } },
        { id: 'c2', tool: 'add', args: { a: 1.5, b: 2 } },
      ],
    });
    expect(again.id).toBe(batch.id);
    // The args are hashed as the serde_json Value they are: an object that uses the tool-value tag
    // key is not a tool value here, so it is not escaped.
    const tagged = await runBatch(app, { sessionId, calls: [{ id: 'r1', tool: 'no_such_tool', args: { $lash_tool_value: 'user', n: 1 } }] });
    expect(tagged.batchId).toBe(`tool-batch:${sha256('[{"args":{"$lash_tool_value":"user","n":1},"id":"r1","tool_id":"no_such_tool"}]')}`);
  });

  it('call_tool_batch returns an empty result for an empty batch', async () => {
    const batch = await runBatch(app, { sessionId, calls: [] });
    expect(batch).toMatchObject({ status: 'COMPLETED', callCount: 0, pendingCount: 0, calls: { nodes: [] } });
    expect(batch.batchId).toBe(`tool-batch:${sha256('[]')}`);
  });

  it('call_tool_batch: an unknown tool id is unavailable in this session', async () => {
    const batch = await runBatch(app, {
      sessionId,
      calls: [
        { id: 'u1', tool: 'no_such_tool', args: {} },
        { id: 'u2', tool: 'echo', args: { message: 'still runs' } },
      ],
    });
    const [unknown, echo] = batch.calls.nodes;
    expect(unknown!.output).toMatchObject({ __typename: 'ToolFailure', class: 'UNAVAILABLE', code: 'tool_unavailable', source: 'RUNTIME' });
    expect((unknown!.output as { message: string }).message).toBe('Tool id `no_such_tool` is unavailable in this session');
    expect(unknown!.modelReturn?.text).toBe('[Tool execution failed]\nTool id `no_such_tool` is unavailable in this session');
    expect(payloadOf(echo)).toEqual({ echoed: 'still runs', length: 10 });
  });

  it('execute_prepared_tool_batch_launches: a result produced within the grace period wins', async () => {
    // The tool finishes its work although it was cancelled, well within the grace period.
    const { call } = await cancelWhileRunning('finishes-anyway', { ms: 600, ignoreAbort: true });
    expect(call.status).toBe('SUCCEEDED');
    expect(call.outcome).toEqual({ status: 'success', payload: { sleptMs: 600 } });
  });

  it('execute_prepared_tool_batch_launches: past the grace period the call is cancelled', async () => {
    const { call, afterMs } = await cancelWhileRunning('too-slow', { ms: 20_000, ignoreAbort: true });
    expect(call.status).toBe('CANCELLED');
    expect(call.outcome).toEqual({ status: 'cancelled', payload: { message: 'tool call cancelled', source: 'cancellation' } });
    expect(call.modelReturn?.text).toBe('[Tool execution cancelled]\ntool call cancelled');
    expect(afterMs).toBeGreaterThanOrEqual(GRACE_MS - 100);
    expect(afterMs).toBeLessThan(19_000);
  });

  it('execute_prepared_tool_batch_launches: a tool that stops on the cancel is cancelled at once', async () => {
    const { call, afterMs } = await cancelWhileRunning('stops', { ms: 20_000 });
    expect(call.status).toBe('CANCELLED');
    expect(afterMs).toBeLessThan(GRACE_MS);
  });
});
