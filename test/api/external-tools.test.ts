// External tools: calls wait in PENDING_EXTERNAL until a client completes them with
// completeToolCall, or their deadline passes (real PostgreSQL, Redis, API and worker).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readEvents } from '../support/events.js';
import { encodeEventCursor } from '../../src/realtime/cursors.js';
import { OVERDUE_EXTERNAL_CALLS } from '../../src/domain/calls/call-decisions.js';
import { localId } from '../../src/resolvers/global-ids.js';
import {
  CallAttemptsDocument,
  CancelToolCallDocument,
  CompleteToolCallDocument,
  type CompleteToolCallMutationVariables,
  GetToolBatchDocument,
  RegisterExternalToolDocument,
  type RegisterExternalToolInput,
  type WaitingCallEventsSubscription,
  WaitingCallEventsDocument,
} from '../gql/graphql.js';
import { callOf, createSession, laneSettled, outputOf, submitBatch, waitForBatch, waitForStatus } from '../support/fixtures.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';
import { eventually, sleep } from '../support/wait.js';

let app: Toolrun;
beforeAll(async () => {
  app = await startToolrun({ CANCEL_GRACE_MS: 300 });
  await register({ name: 'ask_human', parametersSchema: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] } });
  await register({ name: 'ask_quickly', timeoutMs: 400 });
  await register({ name: 'ask_twice', retry: { maxAttempts: 2, backoff: { type: 'FIXED', delayMs: 10, maxDelayMs: 10 } } });
  await register({ name: 'ask_in_turn', scheduling: 'SERIAL' });
});
afterAll(async () => app?.close());

async function register(input: Partial<RegisterExternalToolInput> & { name: string }) {
  const result = await app.query(RegisterExternalToolDocument, { input: { description: `external ${input.name}`, parametersSchema: { type: 'object' }, ...input } });
  if (result.registerExternalTool.__typename !== 'ToolDefinition') throw new Error(JSON.stringify(result));
  expect(result.registerExternalTool).toMatchObject({ kind: 'EXTERNAL', url: null });
}

async function complete(variables: CompleteToolCallMutationVariables, apiKey?: string) {
  return (await app.query(CompleteToolCallDocument, variables, apiKey)).completeToolCall;
}

async function lastSeq(sessionId: string) {
  const events = await readEvents(app.services, localId(sessionId, 'Session'), 0, 10_000);
  return events.at(-1)?.seq ?? 0;
}

describe('external tools', () => {
  it('refuses a parameters schema that refers to itself without end; a call of a tool whose schema loops on its args fails alone', async () => {
    const refused = await app.query(RegisterExternalToolDocument, { input: { name: 'self_ref', description: 'x', parametersSchema: { type: 'object', $ref: '#' } } });
    expect(refused.registerExternalTool).toMatchObject({ __typename: 'ValidationError', field: 'parametersSchema' });
    await register({ name: 'loops_on_a', parametersSchema: { type: 'object', if: { required: ['a'] }, then: { $ref: '#' } } });
    const sessionId = await createSession(app);
    const batch = await submitBatch(app, { sessionId, waitMs: 10_000, calls: [{ id: 'fine', tool: 'add', args: { a: 1, b: 2 } }, { id: 'loops', tool: 'loops_on_a', args: { a: 1 } }] });
    expect(batch.status).toBe('COMPLETED');
    expect(batch.calls.nodes.map((call) => [call.callId, call.status])).toEqual([['fine', 'SUCCEEDED'], ['loops', 'FAILED']]);
  });

  it("bounds what a schema's patterns cost: a pattern too large is refused at registration, and args too long for a large one fail alone, typed", async () => {
    // RE2 matches in time linear in the input, but times the pattern's program: (a|…|h){1000} is ~3,000 instructions.
    const large = '(a|b|c|d|e|f|g|h){1000}';
    const tooLarge = await app.query(RegisterExternalToolDocument, { input: { name: 'huge_pattern', description: 'x', parametersSchema: { type: 'object', properties: { x: { type: 'string', pattern: large.repeat(4) } } } } });
    expect(tooLarge.registerExternalTool).toMatchObject({ __typename: 'ValidationError', field: 'parametersSchema', message: expect.stringContaining('RE2 instructions, at most 10000') });
    const tooLong = await app.query(RegisterExternalToolDocument, { input: { name: 'long_pattern', description: 'x', parametersSchema: { type: 'object', properties: { x: { type: 'string', pattern: 'a'.repeat(1001) } } } } });
    expect(tooLong.registerExternalTool).toMatchObject({ __typename: 'ValidationError', message: expect.stringContaining('1001 characters, at most 1000') });
    await register({ name: 'patterned', parametersSchema: { type: 'object', properties: { x: { type: 'string', pattern: large.repeat(3) } } } });
    const sessionId = await createSession(app);
    const batch = await submitBatch(app, {
      sessionId,
      waitMs: 10_000,
      calls: [
        { id: 'fine', tool: 'add', args: { a: 1, b: 2 } },
        { id: 'long', tool: 'patterned', args: { x: 'a'.repeat(20_000) } },
        { id: 'short', tool: 'patterned', args: { x: 'abc' } },
      ],
    });
    const call = (id: string) => batch.calls.nodes.find((node) => node.callId === id);
    expect(call('fine')?.status).toBe('SUCCEEDED');
    expect(outputOf(call('long'))).toMatchObject({ class: 'INVALID_REQUEST', code: 'invalid_arguments', message: expect.stringContaining('against a string of 20000 characters') });
    // The short string was checked (and failed the pattern) on what the budget had left.
    expect(outputOf(call('short'))).toMatchObject({ class: 'INVALID_REQUEST', code: 'invalid_arguments', message: expect.stringContaining('must match pattern') });
  });

  it('wait in PENDING_EXTERNAL without blocking their batch, announce what to do, and complete one at a time in any order', async () => {
    const sessionId = await createSession(app);
    const rawSessionId = localId(sessionId, 'Session');
    // From the first event on, so nothing is missed whatever the timing.
    const subscription = app.ws(WaitingCallEventsDocument, { sessionId, after: encodeEventCursor(rawSessionId, 0) });
    const batch = await submitBatch(app, {
      sessionId,
      calls: [
        { id: 'q1', tool: 'ask_human', args: { question: 'colour?' } },
        { id: 'sum', tool: 'add', args: { a: 2, b: 2 } },
        { id: 'q2', tool: 'ask_human', args: { question: 'size?' } },
      ],
    });
    type Event = WaitingCallEventsSubscription['toolCallEvents'];
    const awaiting = (items: Array<{ data?: WaitingCallEventsSubscription | null }>) =>
      items.map((item) => item.data!.toolCallEvents).filter((event): event is Extract<Event, { __typename: 'ToolCallAwaitingCompletion' }> => event.__typename === 'ToolCallAwaitingCompletion');
    const seen = await subscription.until((_item, all) => awaiting(all).length === 2);
    const announced = awaiting(seen);
    expect(announced.map((event) => event.callId).sort()).toEqual(['q1', 'q2']);
    const q1Event = announced.find((event) => event.callId === 'q1')!;
    expect(q1Event).toMatchObject({ tool: 'ask_human', args: { question: 'colour?' }, attempt: 1, maxAttempts: 1, timeoutMs: 300_000 });
    expect(Date.parse(q1Event.deadline) - Date.now()).toBeGreaterThan(250_000);

    // The batch's other call is not held up by the waiting ones.
    const sum = await waitForStatus(app, 'sum', sessionId, 'SUCCEEDED');
    expect(outputOf(sum)).toMatchObject({ value: { result: 4 } });
    const q1 = await callOf(app, 'q1', sessionId);
    expect(q1).toMatchObject({ status: 'PENDING_EXTERNAL', attempt: 1 });
    expect(q1.deadlineAt).toBe(new Date(q1Event.deadline).toISOString());

    // The second call first, with a value; then the first, with a failure.
    const second = await complete({ callId: 'q2', sessionId, result: { value: { answer: 'large', sizes: [1, 2] } } });
    expect(second).toMatchObject({ __typename: 'ToolCall', status: 'SUCCEEDED', output: { __typename: 'ToolSuccess', value: { answer: 'large', sizes: [1, 2] } } });
    expect((await app.query(GetToolBatchDocument, { sessionId, batchId: batch.batchId })).toolBatch).toMatchObject({ status: 'RUNNING', pendingCount: 1 });
    const first = await complete({
      callId: 'q1',
      sessionId,
      result: { failure: { class: 'EXECUTION', code: 'nobody_knows', message: 'Nobody could tell the colour' } },
    });
    expect(first).toMatchObject({ __typename: 'ToolCall', status: 'FAILED' });
    expect(outputOf(first.__typename === 'ToolCall' ? first : undefined)).toMatchObject({
      class: 'EXECUTION',
      code: 'nobody_knows',
      message: 'Nobody could tell the colour',
      source: 'TOOL',
      retry: { kind: 'NEVER' },
    });
    const done = await waitForBatch(app, sessionId, batch.batchId);
    expect(done.calls.nodes.map((call) => call.status)).toEqual(['FAILED', 'SUCCEEDED', 'SUCCEEDED']);
    const end = await subscription.until((item) => item.data?.toolCallEvents.__typename === 'ToolBatchCompleted');
    expect(end.at(-1)!.data!.toolCallEvents).toMatchObject({ succeeded: 2, failed: 1, cancelled: 0 });
    await subscription.close();
  });

  it('refuses a second completion with a typed error that changes nothing', async () => {
    const sessionId = await createSession(app);
    await submitBatch(app, { sessionId, calls: [{ id: 'once', tool: 'ask_human', args: { question: 'ok?' } }] });
    await waitForStatus(app, 'once', sessionId, 'PENDING_EXTERNAL');
    expect(await complete({ callId: 'once', sessionId, result: { value: 'yes' } })).toMatchObject({ __typename: 'ToolCall', status: 'SUCCEEDED' });
    const before = await lastSeq(sessionId);
    for (const result of [{ value: 'no' }, { failure: { class: 'EXTERNAL' as const, code: 'late', message: 'x' } }]) {
      expect(await complete({ callId: 'once', sessionId, result })).toMatchObject({
        __typename: 'CallAlreadyCompletedError',
        code: 'ALREADY_COMPLETED',
        callId: 'once',
        callStatus: 'SUCCEEDED',
      });
    }
    const after = await callOf(app, 'once', sessionId);
    expect(outputOf(after)).toEqual({ __typename: 'ToolSuccess', value: 'yes' });
    expect(await lastSeq(sessionId)).toBe(before);
    // A call that is not an external tool's is no target either.
    await submitBatch(app, { sessionId, calls: [{ id: 'plain', tool: 'add', args: { a: 1, b: 1 } }], waitMs: 10_000 });
    expect(await complete({ callId: 'plain', sessionId, result: { value: 3 } })).toMatchObject({ __typename: 'CallAlreadyCompletedError' });
    expect((await complete({ callId: 'missing', sessionId, result: { value: 3 } })).__typename).toBe('NotFoundError');
  });

  it('validates the result: exactly one of value, failure and outcome, each well-formed', async () => {
    const sessionId = await createSession(app);
    await submitBatch(app, { sessionId, calls: [{ id: 'v', tool: 'ask_human', args: { question: 'valid?' } }] });
    await waitForStatus(app, 'v', sessionId, 'PENDING_EXTERNAL');
    const invalid: CompleteToolCallMutationVariables['result'][] = [
      {},
      { value: 1, failure: { class: 'EXTERNAL', code: 'x', message: 'x' } },
      { value: { $lash_tool_value: 'attachment' } },
      { outcome: { status: 'success' } },
      { value: 1, outcome: { status: 'success', payload: 1 } },
      { failure: { class: 'EXTERNAL', code: 'Not A Code', message: 'x' } },
      { failure: { class: 'EXTERNAL', code: 'x', message: 'x', retry: { kind: 'SAFE', afterMs: -5 } } },
    ];
    for (const result of invalid) expect((await complete({ callId: 'v', sessionId, result })).__typename).toBe('ValidationError');
    expect((await callOf(app, 'v', sessionId)).status).toBe('PENDING_EXTERNAL');
    // A null value is a value.
    expect(await complete({ callId: 'v', sessionId, result: { value: null } })).toMatchObject({ status: 'SUCCEEDED', output: { value: null } });
  });

  it('fails TIMEOUT at the deadline; a late completion is a typed error', async () => {
    const sessionId = await createSession(app);
    const submitted = await submitBatch(app, {
      sessionId,
      calls: [
        { id: 'late', tool: 'ask_quickly', args: {} },
        { id: 'never', tool: 'ask_quickly', args: {} },
      ],
    });
    const pending = await waitForStatus(app, 'late', sessionId, 'PENDING_EXTERNAL');
    await sleep(Math.max(0, Date.parse(pending.deadlineAt!) - Date.now()) + 50);
    const late = await complete({ callId: 'late', sessionId, result: { value: 'too late' } });
    expect(late).toMatchObject({ __typename: 'DeadlinePassedError', code: 'DEADLINE_PASSED', callId: 'late', deadline: pending.deadlineAt });
    const failed = await callOf(app, 'late', sessionId);
    expect(failed.status).toBe('FAILED');
    expect(outputOf(failed)).toMatchObject({ class: 'TIMEOUT', code: 'deadline_exceeded', source: 'RUNTIME', retry: { kind: 'NEVER' } });
    expect(await complete({ callId: 'late', sessionId, result: { value: 'still late' } })).toMatchObject({ __typename: 'DeadlinePassedError' });

    // Nobody completes the other one: the reconciler expires it.
    const expired = await waitForStatus(app, 'never', sessionId, 'FAILED', 10_000);
    expect(outputOf(expired)).toMatchObject({ class: 'TIMEOUT', code: 'deadline_exceeded' });
    expect(expired.durationMs).toBeGreaterThanOrEqual(350);
    expect((await waitForBatch(app, sessionId, submitted.batchId)).calls.nodes.map((call) => call.status)).toEqual(['FAILED', 'FAILED']);
  });

  it("finds the calls past their deadline through an index of the waiting calls, not by reading every call ever made", async () => {
    // Whatever the table's size, the reaper's read (every pass of every worker) may use the partial index.
    const plan = await app.services.sql.transaction(async (connection) => {
      await connection.query('SET LOCAL enable_seqscan = off');
      return connection.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${OVERDUE_EXTERNAL_CALLS}`, [500]);
    });
    expect(JSON.stringify(plan)).toContain('"Index Name":"tool_call_external_deadline_idx"');
  });

  it('waits again as the next attempt when a completion says the failure is safe to retry', async () => {
    const sessionId = await createSession(app);
    await submitBatch(app, { sessionId, calls: [{ id: 'retry', tool: 'ask_twice', args: {} }] });
    await waitForStatus(app, 'retry', sessionId, 'PENDING_EXTERNAL');
    const failed = await complete({
      callId: 'retry',
      sessionId,
      result: { failure: { class: 'UNAVAILABLE', code: 'busy', message: 'Try again', retry: { kind: 'SAFE', afterMs: 50 } } },
    });
    expect(failed).toMatchObject({ __typename: 'ToolCall' });
    const again = await eventually(async () => {
      const call = await callOf(app, 'retry', sessionId);
      return call.status === 'PENDING_EXTERNAL' && call.attempt === 2 ? call : null;
    });
    expect(again.maxAttempts).toBe(2);
    // A late result meant for attempt 1 does not become attempt 2's, when it says which attempt it completes.
    const stale = await complete({ callId: 'retry', sessionId, attempt: 1, result: { value: 'late answer of attempt 1' } });
    expect(stale).toMatchObject({ __typename: 'InvalidStateError', code: 'INVALID_STATE', message: 'Attempt 1 of call `retry` is over: the call waits for the completion of attempt 2' });
    expect(await callOf(app, 'retry', sessionId)).toMatchObject({ status: 'PENDING_EXTERNAL', attempt: 2 });
    const exhausted = await complete({ callId: 'retry', sessionId, attempt: 2, result: { failure: { class: 'UNAVAILABLE', code: 'busy', message: 'Still busy', retry: { kind: 'SAFE' } } } });
    expect(exhausted).toMatchObject({ status: 'FAILED', attempt: 2, output: { code: 'busy', retry: { kind: 'EXHAUSTED', attempts: 2 } } });
    // Each attempt waited from its own start; the call's duration is its last attempt's.
    const { attempts } = (await app.query(CallAttemptsDocument, { sessionId, callId: 'retry' })).toolCall!;
    expect(attempts.map((attempt) => [attempt.attempt, attempt.end])).toEqual([[1, 'RETRIED'], [2, 'FAILED']]);
    const [first, second] = attempts;
    expect(Date.parse(second!.startedAt!)).toBeGreaterThanOrEqual(Date.parse(first!.endedAt!));
    expect(second!.durationMs!).toBeLessThanOrEqual(Date.parse(second!.endedAt!) - Date.parse(second!.startedAt!) + 5);
    expect((exhausted as { durationMs: number }).durationMs).toBe(second!.durationMs);
    const types = (await readEvents(app.services, localId(sessionId, 'Session'), 0)).map((event) => event.type);
    expect(types).toEqual([
      'SessionCreated',
      'ToolCallStarted',
      'ToolCallAwaitingCompletion',
      'ToolCallRetrying',
      'ToolCallStarted',
      'ToolCallAwaitingCompletion',
      'ToolCallCompleted',
      'ToolBatchCompleted',
    ]);
  });

  it('masks an INTERNAL failure a client reports, and logs what it said with the call id', async () => {
    const sessionId = await createSession(app);
    await submitBatch(app, { sessionId, calls: [{ id: 'secret', tool: 'ask_human', args: { question: '?' } }] });
    await waitForStatus(app, 'secret', sessionId, 'PENDING_EXTERNAL');
    const ahead = await complete({ callId: 'secret', sessionId, attempt: 3, result: { value: 1 } });
    expect(ahead).toMatchObject({ __typename: 'InvalidStateError', message: 'Attempt 3 of call `secret` has not started: the call waits for the completion of attempt 1' });
    const logged = vi.spyOn(app.services.logger, 'error');
    try {
      const completed = await complete({ callId: 'secret', sessionId, result: { failure: { class: 'INTERNAL', code: 'db_password_leak', message: 'password=hunter2' } } });
      expect(completed).toMatchObject({ status: 'FAILED', output: { class: 'INTERNAL', code: 'internal_error', message: 'An internal error occurred while executing the tool' } });
      expect(JSON.stringify(completed)).not.toContain('hunter2');
      expect(logged).toHaveBeenCalledWith(expect.objectContaining({ code: 'db_password_leak', details: 'password=hunter2', callId: 'secret', tool: 'ask_human' }), 'a client reported an internal error');
    } finally {
      logged.mockRestore();
    }
  });

  it('runs serial external calls in turn: the next waits until the one before is completed', async () => {
    const sessionId = await createSession(app);
    const batch = await submitBatch(app, {
      sessionId,
      calls: [
        { id: 's1', tool: 'ask_in_turn', args: {} },
        { id: 's2', tool: 'ask_in_turn', args: {} },
      ],
    });
    await waitForStatus(app, 's1', sessionId, 'PENDING_EXTERNAL');
    // The lane stopped at s1, which holds it: s2 stays queued until s1 is completed.
    await laneSettled(app, batch.batchId);
    expect((await callOf(app, 's2', sessionId)).status).toBe('QUEUED');
    expect(await complete({ callId: 's1', sessionId, result: { value: 1 } })).toMatchObject({ status: 'SUCCEEDED' });
    await waitForStatus(app, 's2', sessionId, 'PENDING_EXTERNAL');
    await complete({ callId: 's2', sessionId, result: { value: 2 } });
    expect((await waitForBatch(app, sessionId, batch.batchId)).calls.nodes.map((call) => call.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
  });

  it('can be cancelled while waiting for a completion; a completion afterwards changes nothing', async () => {
    const sessionId = await createSession(app);
    const batch = await submitBatch(app, {
      sessionId,
      calls: [
        { id: 'w1', tool: 'ask_in_turn', args: {} },
        { id: 'w2', tool: 'ask_in_turn', args: {} },
      ],
    });
    await waitForStatus(app, 'w1', sessionId, 'PENDING_EXTERNAL');
    const cancelled = (await app.query(CancelToolCallDocument, { callId: 'w1', sessionId })).cancelToolCall;
    expect(cancelled).toMatchObject({ __typename: 'ToolCall', status: 'CANCELLED', output: { __typename: 'ToolCancellation' } });
    expect(await complete({ callId: 'w1', sessionId, result: { value: 'x' } })).toMatchObject({ __typename: 'CallAlreadyCompletedError', callStatus: 'CANCELLED' });
    // The lane moves on to the next serial call at once.
    await waitForStatus(app, 'w2', sessionId, 'PENDING_EXTERNAL', 3000);
    await app.query(CancelToolCallDocument, { callId: 'w2', sessionId });
    expect((await waitForBatch(app, sessionId, batch.batchId)).calls.nodes.map((call) => call.status)).toEqual(['CANCELLED', 'CANCELLED']);
  });
});
