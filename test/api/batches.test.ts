// Tool batches through the public API (HTTP), against real PostgreSQL, Redis and workers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallAttemptsDocument, CancelToolBatchDocument, CancelToolCallDocument, GetToolCallDocument, ToolsDocument } from '../gql/graphql.js';
import { createSession, newSession, outputOf, submit, submitBatch, waitForBatch } from '../support/fixtures.js';
import { localId } from '../../src/resolvers/global-ids.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';
import { eventually } from '../support/wait.js';

let app: Toolrun;
beforeAll(async () => {
  app = await startToolrun({ CANCEL_GRACE_MS: 300 });
});
afterAll(async () => app?.close());

describe('tools', () => {
  it('lists built-in definitions with schema, hints, policy and scheduling', async () => {
    const { tools } = await app.query(ToolsDocument, {});
    const names = tools.map((tool) => tool.name);
    for (const name of ['echo', 'get_current_time', 'add', 'subtract', 'multiply', 'divide', 'get_weather', 'get_forecast', 'write_todos', 'read_file', 'write_file', 'edit_file', 'list_directory', 'grep_files', 'delete_file', 'stat_file', 'web_fetch', 'sleep', 'failing_tool']) {
      expect(names).toContain(name);
    }
    const sleep = tools.find((tool) => tool.name === 'sleep')!;
    expect(sleep.kind).toBe('BUILTIN');
    expect(sleep.hints.supportsBackground).toBe(true);
    expect(sleep.parametersSchema).toMatchObject({ type: 'object' });
    // Its own default (an hour) is more than a call may get: the catalogue says what a call gets.
    expect(sleep.timeoutMs).toBe(app.services.config.MAX_CALL_TIMEOUT_MS);
    expect(tools.find((tool) => tool.name === 'write_file')!.scheduling).toBe('SERIAL');
  });
});

describe('executeToolBatch', () => {
  it('runs calls and keeps input order; waitMs returns the finished results', async () => {
    const sessionId = await createSession(app);
    const batch = await submitBatch(app, {
      sessionId,
      waitMs: 10_000,
      calls: [
        { id: 'slow', tool: 'sleep', args: { ms: 150 } },
        { id: 'sum', tool: 'add', args: { a: 2, b: 3 } },
        { id: 'echo', tool: 'echo', args: { message: 'hi' } },
      ],
    });
    expect(batch.status).toBe('COMPLETED');
    expect(batch.pendingCount).toBe(0);
    expect(batch.calls.nodes.map((call) => call.callId)).toEqual(['slow', 'sum', 'echo']);
    expect(batch.calls.nodes.every((call) => call.status === 'SUCCEEDED')).toBe(true);
    expect(outputOf(batch.calls.nodes[1])).toEqual({ __typename: 'ToolSuccess', value: { result: 5 } });
    expect(batch.calls.nodes[1]!.attempt).toBe(1);
    expect(batch.calls.nodes[0]!.durationMs).toBeGreaterThanOrEqual(140);
    // add works in f64, as the seed's does: the model reads 5.0.
    expect(batch.calls.nodes[1]!.modelReturn?.text).toBe('{"result":5.0}');
    // The answer is the batch as stored: a later read shows every field the same.
    expect({ __typename: 'ToolBatch', ...(await waitForBatch(app, sessionId, batch.batchId)) }).toEqual(batch);
  });

  it('gives a deterministic batch id and runs an identical resubmission nothing twice', async () => {
    const sessionId = await createSession(app);
    const calls = [
      { id: 'w1', tool: 'write_file', args: { path: '/log.txt', content: 'once' } },
      { id: 'e1', tool: 'echo', args: { message: 'x' } },
    ];
    const first = await submitBatch(app, { sessionId, calls, waitMs: 10_000 });
    expect(first.batchId).toMatch(/^tool-batch:[0-9a-f]{64}$/);
    const again = await submitBatch(app, { sessionId, calls, waitMs: 10_000 });
    expect(again.id).toBe(first.id);
    expect(again.batchId).toBe(first.batchId);
    expect(again.calls.nodes.map((call) => call.attempt)).toEqual([1, 1]);
    const rows = await app.services.db.toolCall.count({ where: { sessionId: first.calls.nodes[0]!.id ? undefined : undefined, batch: { batchId: first.batchId } } });
    expect(rows).toBe(2);
    const events = await app.services.db.event.count({ where: { batchId: first.batchId, type: 'ToolCallStarted' } });
    expect(events).toBe(2);
  });

  it('lets an idempotency key take precedence and refuses its reuse for other calls', async () => {
    const sessionId = await createSession(app);
    const a = await submitBatch(app, { sessionId, idempotencyKey: 'k-1', calls: [{ tool: 'echo', args: { message: 'a' } }] });
    const b = await submitBatch(app, { sessionId, idempotencyKey: 'k-1', calls: [{ tool: 'echo', args: { message: 'a' } }] });
    expect(b.id).toBe(a.id);
    expect(b.calls.nodes[0]!.callId).toBe(a.calls.nodes[0]!.callId);
    const reused = await submit(app, { sessionId, idempotencyKey: 'k-1', calls: [{ tool: 'echo', args: { message: 'other' } }] });
    expect(reused.__typename).toBe('IdempotencyKeyReusedError');
  });

  it('always makes a new batch for server-assigned ids without a key', async () => {
    const sessionId = await createSession(app);
    const a = await submitBatch(app, { sessionId, calls: [{ tool: 'echo', args: { message: 'a' } }] });
    const b = await submitBatch(app, { sessionId, calls: [{ tool: 'echo', args: { message: 'a' } }] });
    expect(b.batchId).not.toBe(a.batchId);
    expect(a.calls.nodes[0]!.callId).toMatch(/^call_[0-9a-f]{32}$/);
    // The answer (given before the batch ran) says when the batch was created as the stored batch does.
    expect((await waitForBatch(app, sessionId, a.batchId)).createdAt).toBe(a.createdAt);
  });

  it('answers toolCall with a call id used in two sessions as its description says: a VALIDATION_FAILED error naming sessionId', async () => {
    const [one, two] = [await createSession(app), await createSession(app)];
    for (const sessionId of [one, two]) await submitBatch(app, { sessionId, calls: [{ id: 'twice', tool: 'add', args: { a: 1, b: 1 } }] });
    const ambiguous = await app.request('{ toolCall(callId: "twice") { callId } }');
    expect(ambiguous.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_FAILED', field: 'sessionId' });
    expect((await app.request('query($s: ID) { toolCall(callId: "twice", sessionId: $s) { callId } }', { s: two })).data).toEqual({ toolCall: { callId: 'twice' } });
    const description = (await app.request('{ __type(name: "Query") { fields { name description } } }')).data as { __type: { fields: Array<{ name: string; description: string }> } };
    const said = description.__type.fields.find((field) => field.name === 'toolCall')!.description;
    expect(said).toContain('VALIDATION_FAILED');
    expect(said).not.toMatch(/null when[^.;]*several sessions/);
  });

  it('refuses a call id already used in the session, and duplicates within a batch', async () => {
    const sessionId = await createSession(app);
    await submitBatch(app, { sessionId, calls: [{ id: 'dup', tool: 'echo', args: { message: '1' } }] });
    const conflict = await submit(app, { sessionId, calls: [{ id: 'dup', tool: 'echo', args: { message: '2' } }, { id: 'fresh', tool: 'echo', args: { message: '' } }] });
    expect(conflict).toMatchObject({ __typename: 'CallIdConflictError', callIds: ['dup'], code: 'CALL_ID_CONFLICT' });
    expect(await app.services.db.toolCall.count({ where: { sessionId: undefined, callId: 'fresh', session: { id: (await app.services.db.toolCall.findFirst({ where: { callId: 'dup' }, select: { sessionId: true }, orderBy: { queuedAt: 'desc' } }))!.sessionId } } })).toBe(0);
    const twice = await submit(app, { sessionId, calls: [{ id: 'x', tool: 'echo', args: { message: '' } }, { id: 'x', tool: 'echo', args: { message: '' } }] });
    expect(twice).toMatchObject({ __typename: 'ValidationError', field: 'calls.1.id' });
  });

  it('runs a call whose args hold characters PostgreSQL cannot store, and returns them exactly', async () => {
    const sessionId = await createSession(app);
    const message = 'a\u0000b\ud800c';
    const batch = await submitBatch(app, { sessionId, waitMs: 10_000, calls: [{ id: 'nul', tool: 'echo', args: { message } }] });
    expect(batch.calls.nodes[0]!.status).toBe('SUCCEEDED');
    expect(outputOf(batch.calls.nodes[0])).toMatchObject({ value: { echoed: message } });
  });

  it('validates the batch itself with typed errors', async () => {
    const sessionId = await createSession(app);
    // An empty batch is not an error (seed 001): it completes at once with no calls.
    expect(await submit(app, { sessionId, calls: [] })).toMatchObject({ __typename: 'ToolBatch', status: 'COMPLETED', callCount: 0, calls: { nodes: [] } });
    expect(await submit(app, { sessionId, calls: [{ tool: 'echo', timeoutMs: 0 }] })).toMatchObject({ __typename: 'ValidationError' });
    expect(await submit(app, { sessionId: 'not-a-session', calls: [{ tool: 'echo' }] })).toMatchObject({ __typename: 'NotFoundError' });
    // A negative wait is refused before anything is submitted.
    expect(await submit(app, { sessionId, waitMs: -5, calls: [{ id: 'negative-wait', tool: 'echo', args: { message: '' } }] })).toMatchObject({ __typename: 'ValidationError', field: 'waitMs' });
    expect((await app.query(GetToolCallDocument, { callId: 'negative-wait', sessionId })).toolCall).toBeNull();
  });

  it('bounds the free text of a batch, naming the field: tool names, call ids and idempotency keys (256 characters); nothing of a refused batch is kept', async () => {
    const sessionId = await createSession(app);
    const fine = { id: 'fine', tool: 'echo', args: { message: '' } };
    for (const tool of [`${'😀'.repeat(256)}x`, 't'.repeat(300_000)]) {
      expect(await submit(app, { sessionId, calls: [fine, { id: 'long-tool', tool, args: {} }] })).toMatchObject({ __typename: 'ValidationError', field: 'calls.1.tool' });
    }
    expect(await submit(app, { sessionId, calls: [fine, { id: 'i'.repeat(257), tool: 'echo', args: { message: '' } }] })).toMatchObject({ __typename: 'ValidationError', field: 'calls.1.id' });
    expect(await submit(app, { sessionId, idempotencyKey: '😀'.repeat(257), calls: [fine] })).toMatchObject({ __typename: 'ValidationError', field: 'idempotencyKey' });
    expect((await app.query(GetToolCallDocument, { callId: 'fine', sessionId })).toolCall).toBeNull();
    // At the bounds, all is taken.
    expect(await submit(app, { sessionId, idempotencyKey: '😀'.repeat(256), calls: [{ ...fine, id: 'i'.repeat(256) }] })).toMatchObject({ __typename: 'ToolBatch' });
  });

  it('completes unknown tools as UNAVAILABLE and invalid args as INVALID_REQUEST, and still runs the rest', async () => {
    const sessionId = await createSession(app);
    const batch = await submitBatch(app, {
      sessionId,
      waitMs: 10_000,
      timeoutMs: 5000,
      calls: [
        { id: 'u', tool: 'no_such_tool', args: {}, timeoutMs: 1234 },
        { id: 'i', tool: 'add', args: { a: 'one', b: 2 } },
        { id: 'n', tool: 'add', args: 'not an object', timeoutMs: 1234 },
        { id: 'ok', tool: 'multiply', args: { a: 3, b: 4 } },
      ],
    });
    const [unknown, invalid, notObject, ok] = batch.calls.nodes;
    // Ended without running: no attempt.
    expect((await app.query(CallAttemptsDocument, { sessionId, callId: 'u' })).toolCall!.attempts).toEqual([]);
    expect(outputOf(unknown)).toMatchObject({ __typename: 'ToolFailure', class: 'UNAVAILABLE', code: 'tool_unavailable', message: 'Tool id `no_such_tool` is unavailable in this session' });
    expect(unknown!.modelReturn?.text).toBe('[Tool execution failed]\nTool id `no_such_tool` is unavailable in this session');
    // A name longer than any tool's (64) that a model may write is kept as it came and fails alone, its
    // message quoting 100 characters of it; up to 256 characters (code points, not UTF-16 units).
    const longest = `${'t'.repeat(99)}${'😀'.repeat(157)}`;
    const longestBatch = await submitBatch(app, { sessionId, waitMs: 10_000, calls: [{ id: 'longest', tool: longest, args: {} }] });
    expect(longestBatch.calls.nodes[0]!.tool).toBe(longest);
    expect(outputOf(longestBatch.calls.nodes[0])).toMatchObject({ class: 'UNAVAILABLE', code: 'tool_unavailable', message: `Tool id \`${'t'.repeat(99)}…\` is unavailable in this session` });
    expect(outputOf(invalid)).toMatchObject({ __typename: 'ToolFailure', class: 'INVALID_REQUEST' });
    expect(invalid!.attempt).toBe(0);
    expect(outputOf(notObject)).toMatchObject({ class: 'INVALID_REQUEST' });
    expect(outputOf(ok)).toMatchObject({ value: { result: 12 } });
    // Those that ended at submission were queued and completed at that one moment, the batch's creation.
    for (const call of [unknown!, invalid!, notObject!]) expect([call.queuedAt, call.completedAt]).toEqual([batch.createdAt, batch.createdAt]);
    // They never ran, so they had no deadline, whatever the client asked for (0, as for the unknown tool without one); the call that ran had the batch's.
    expect(batch.calls.nodes.map((call) => [call.callId, call.timeoutMs])).toEqual([['u', 0], ['i', 0], ['n', 0], ['ok', 5000]]);
  });

  it('runs PARALLEL calls concurrently: all ten 200 ms sleeps are running at one moment', async () => {
    const sessionId = await createSession(app);
    const batch = await submitBatch(app, { sessionId, waitMs: 10_000, calls: Array.from({ length: 10 }, (_, i) => ({ id: `s${i}`, tool: 'sleep', args: { ms: 200 } })) });
    expect(batch.status).toBe('COMPLETED');
    expect(batch.calls.nodes.every((call) => call.status === 'SUCCEEDED')).toBe(true);
    const lastStart = Math.max(...batch.calls.nodes.map((call) => Date.parse(call.startedAt!)));
    const firstEnd = Math.min(...batch.calls.nodes.map((call) => Date.parse(call.completedAt!)));
    expect(lastStart).toBeLessThan(firstEnd);
  });

  it('runs SERIAL calls one at a time in batch order', async () => {
    const sessionId = await createSession(app);
    const calls = Array.from({ length: 5 }, (_, i) => ({ id: `w${i}`, tool: 'write_file', args: { path: '/serial.txt', content: `v${i}` } }));
    const batch = await submitBatch(app, { sessionId, waitMs: 10_000, calls });
    expect(batch.calls.nodes.every((call) => call.status === 'SUCCEEDED')).toBe(true);
    for (let i = 1; i < batch.calls.nodes.length; i++) {
      const previous = batch.calls.nodes[i - 1]!;
      const current = batch.calls.nodes[i]!;
      expect(new Date(current.startedAt!).getTime()).toBeGreaterThanOrEqual(new Date(previous.completedAt!).getTime());
    }
    const file = await app.services.db.sessionFile.findFirst({ where: { path: '/serial.txt', session: { batches: { some: { batchId: batch.batchId } } } } });
    expect(file?.content).toBe('v4');
  });

  it('retries a SAFE failure with backoff and ends EXHAUSTED', async () => {
    const sessionId = await createSession(app);
    const batch = await submitBatch(app, {
      sessionId,
      waitMs: 10_000,
      calls: [
        { id: 'always', tool: 'failing_tool', args: { class: 'EXTERNAL', retry: 'SAFE', retryAfterMs: 30 } },
        { id: 'second', tool: 'failing_tool', args: { retry: 'SAFE', succeedOnAttempt: 2 } },
        { id: 'never', tool: 'failing_tool', args: { class: 'EXECUTION', code: 'nope', message: 'no retry' } },
      ],
    });
    const [always, second, never] = batch.calls.nodes;
    expect(always!.attempt).toBe(3);
    expect(outputOf(always)).toMatchObject({ class: 'EXTERNAL', retry: { kind: 'EXHAUSTED', attempts: 3 } });
    expect(second!.status).toBe('SUCCEEDED');
    expect(second!.attempt).toBe(2);
    expect(never!.attempt).toBe(1);
    expect(outputOf(never)).toMatchObject({ code: 'nope', message: 'no retry', retry: { kind: 'NEVER' }, source: 'TOOL' });
    const retrying = await app.services.db.event.findMany({ where: { batchId: batch.batchId, callId: 'always', type: 'ToolCallRetrying' }, orderBy: { seq: 'asc' } });
    expect(retrying.map((event) => (event.payload as { delayMs: number }).delayMs)).toEqual([30, 30]);

    // Each call's attempts, as its events tell them: how each ended, how long it ran.
    const attempts = async (callId: string) => (await app.query(CallAttemptsDocument, { sessionId, callId })).toolCall!.attempts;
    const ended = (list: Awaited<ReturnType<typeof attempts>>) => list.map((attempt) => [attempt.attempt, attempt.end, attempt.failure?.retry.kind ?? null]);
    expect(ended(await attempts('always'))).toEqual([
      [1, 'RETRIED', 'SAFE'],
      [2, 'RETRIED', 'SAFE'],
      [3, 'FAILED', 'EXHAUSTED'],
    ]);
    expect(ended(await attempts('second'))).toEqual([
      [1, 'RETRIED', 'SAFE'],
      [2, 'SUCCEEDED', null],
    ]);
    expect(ended(await attempts('never'))).toEqual([[1, 'FAILED', 'NEVER']]);
    for (const attempt of await attempts('always')) {
      expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
      expect(Date.parse(attempt.endedAt!)).toBeGreaterThanOrEqual(Date.parse(attempt.startedAt!));
    }
    // The attempt that ended the call ended when the call did.
    for (const callId of ['always', 'second', 'never']) {
      const { data } = await app.request<{ toolCall: { completedAt: string; attempts: Array<{ endedAt: string }> } }, unknown>(
        'query($s: ID!, $c: String!) { toolCall(sessionId: $s, callId: $c) { completedAt attempts { endedAt } } }',
        { s: sessionId, c: callId },
      );
      expect(data!.toolCall.attempts.at(-1)!.endedAt, callId).toBe(data!.toolCall.completedAt);
    }
  });

  it('a call cancelled while it waits to run again keeps the attempt that ran, as retried', async () => {
    const sessionId = await createSession(app);
    await submitBatch(app, { sessionId, calls: [{ id: 'later', tool: 'failing_tool', args: { retry: 'SAFE', retryAfterMs: 60_000 } }] });
    await eventually(async () => (await app.services.db.event.count({ where: { callId: 'later', type: 'ToolCallRetrying', sessionId: localId(sessionId, 'Session') } })) === 1);
    const cancelled = await app.query(CancelToolCallDocument, { callId: 'later', sessionId });
    expect(cancelled.cancelToolCall).toMatchObject({ __typename: 'ToolCall', status: 'CANCELLED' });
    const { attempts } = (await app.query(CallAttemptsDocument, { sessionId, callId: 'later' })).toolCall!;
    expect(attempts.map((attempt) => [attempt.attempt, attempt.end, attempt.failure?.code ?? null])).toEqual([[1, 'RETRIED', 'intentional_failure']]);
  });

  it('fails a call past its deadline with TIMEOUT', async () => {
    const sessionId = await createSession(app);
    const started = Date.now();
    const batch = await submitBatch(app, { sessionId, waitMs: 10_000, calls: [{ id: 't', tool: 'sleep', args: { ms: 5000 }, timeoutMs: 300 }] });
    expect(Date.now() - started).toBeLessThan(2500);
    expect(outputOf(batch.calls.nodes[0])).toMatchObject({ __typename: 'ToolFailure', class: 'TIMEOUT', code: 'timeout' });
    expect(batch.calls.nodes[0]!.timeoutMs).toBe(300);
  });

  it('masks internal errors', async () => {
    const sessionId = await createSession(app);
    const response = await app.request(
      (await import('../gql/graphql.js')).ExecuteToolBatchDocument,
      { sessionId, waitMs: 10_000, calls: [{ id: 'boom', tool: 'failing_tool', args: { internal: true, message: 'db password is hunter2' } }] },
    );
    const batch = response.data!.executeToolBatch as unknown as { calls: { nodes: Array<{ output: unknown; modelReturn: { text: string } }> } };
    expect(batch.calls.nodes[0]!.output).toMatchObject({ class: 'INTERNAL', message: 'An internal error occurred while executing the tool' });
    expect(batch.calls.nodes[0]!.modelReturn.text).toBe('[Tool execution failed]\nAn internal error occurred while executing the tool');
    // The client's own args are echoed back; nothing else may carry the error's message.
    expect(JSON.stringify({ ...batch.calls.nodes[0], args: null })).not.toContain('hunter2');
    const events = await app.services.db.event.findMany({ where: { callId: 'boom' }, select: { payload: true } });
    expect(JSON.stringify(events)).not.toContain('hunter2');

    // A failure the tool itself classes INTERNAL is masked the same way (the seeds' internal_error_msg).
    const typed = await app.request((await import('../gql/graphql.js')).ExecuteToolBatchDocument, {
      sessionId,
      waitMs: 10_000,
      calls: [{ id: 'typed-internal', tool: 'failing_tool', args: { class: 'INTERNAL', code: 'db_down', message: 'password=hunter2 at 10.0.0.5' } }],
    });
    const typedCall = (typed.data!.executeToolBatch as unknown as { calls: { nodes: Array<{ output: unknown; modelReturn: { text: string } }> } }).calls.nodes[0]!;
    expect(typedCall.output).toMatchObject({ class: 'INTERNAL', code: 'internal_error', message: 'An internal error occurred while executing the tool' });
    expect(JSON.stringify({ ...typedCall, args: null })).not.toContain('hunter2');
    expect(JSON.stringify({ ...typedCall, args: null })).not.toContain('db_down');
    const typedEvents = await app.services.db.event.findMany({ where: { callId: 'typed-internal' }, select: { payload: true } });
    expect(JSON.stringify(typedEvents)).not.toContain('hunter2');
  });
});

describe('cancellation', () => {
  it('stops a running sleep promptly and records CANCELLED', async () => {
    const sessionId = await createSession(app);
    const batch = await submitBatch(app, { sessionId, calls: [{ id: 'long', tool: 'sleep', args: { ms: 20_000 } }] });
    await eventually(async () => (await app.query(GetToolCallDocument, { callId: 'long', sessionId })).toolCall?.status === 'RUNNING');
    const started = Date.now();
    const cancelled = await app.query(CancelToolCallDocument, { callId: 'long', sessionId });
    expect(cancelled.cancelToolCall.__typename).toBe('ToolCall');
    const done = await waitForBatch(app, sessionId, batch.batchId, 5000);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(done.calls.nodes[0]!.status).toBe('CANCELLED');
    expect(outputOf(done.calls.nodes[0])).toMatchObject({ __typename: 'ToolCancellation', source: 'CANCELLATION' });
    expect(done.calls.nodes[0]!.modelReturn?.text).toMatch(/^\[Tool execution cancelled\]\n/);
    // Cancelling again is a no-op that returns the finished call.
    const again = await app.query(CancelToolCallDocument, { callId: 'long', sessionId });
    expect(again.cancelToolCall).toMatchObject({ __typename: 'ToolCall', status: 'CANCELLED' });
  });

  it('takes the delayed job of a call waiting out a retry’s backoff off the queue when the call is cancelled', async () => {
    const { id: sessionId, rowId } = await newSession(app);
    await submitBatch(app, { sessionId, calls: [{ id: 'backoff', tool: 'failing_tool', args: { class: 'EXTERNAL', retry: 'SAFE', retryAfterMs: 60_000 } }] });
    await eventually(async () => {
      const call = (await app.query(GetToolCallDocument, { callId: 'backoff', sessionId })).toolCall;
      return call?.status === 'QUEUED' && call.attempt === 1;
    });
    const row = await app.services.db.toolCall.findFirstOrThrow({ where: { callId: 'backoff', sessionId: rowId }, select: { id: true } });
    const retryJob = async () => (await Promise.all(Object.values(app.services.queues.all).map((queue) => queue.getJob(`run:${row.id}:2`)))).find(Boolean);
    await eventually(async () => (await (await retryJob())?.isDelayed()) === true);
    const cancelled = await app.query(CancelToolCallDocument, { callId: 'backoff', sessionId });
    expect(cancelled.cancelToolCall).toMatchObject({ __typename: 'ToolCall', status: 'CANCELLED' });
    await eventually(async () => (await retryJob()) === undefined);
  });

  it('cancels a whole batch, running and waiting calls alike', async () => {
    const sessionId = await createSession(app);
    const batch = await submitBatch(app, {
      sessionId,
      calls: [
        { id: 'p', tool: 'sleep', args: { ms: 20_000 } },
        { id: 's1', tool: 'write_file', args: { path: '/a', content: 'a' } },
        { id: 'q', tool: 'sleep', args: { ms: 20_000 } },
      ],
    });
    await eventually(async () => (await app.query(GetToolCallDocument, { callId: 'q', sessionId })).toolCall?.status === 'RUNNING');
    const result = await app.query(CancelToolBatchDocument, { sessionId, batchId: batch.batchId });
    expect(result.cancelToolBatch.__typename).toBe('ToolBatch');
    const done = await waitForBatch(app, sessionId, batch.batchId, 5000);
    expect(done.calls.nodes.find((call) => call.callId === 'p')!.status).toBe('CANCELLED');
    expect(done.calls.nodes.find((call) => call.callId === 'q')!.status).toBe('CANCELLED');
  });

  it('cancels queued calls without running them', async () => {
    const idle = await startToolrun({}, { worker: false });
    try {
      const sessionId = await createSession(idle);
      const batch = await submitBatch(idle, { sessionId, calls: [{ id: 'a', tool: 'echo', args: { message: '' } }, { id: 'b', tool: 'write_file', args: { path: '/x', content: 'x' } }] });
      expect(batch.calls.nodes.map((call) => call.status)).toEqual(['QUEUED', 'QUEUED']);
      const result = await idle.query(CancelToolBatchDocument, { sessionId, batchId: batch.batchId });
      if (result.cancelToolBatch.__typename !== 'ToolBatch') throw new Error('cancel failed');
      expect(result.cancelToolBatch.status).toBe('COMPLETED');
      expect(result.cancelToolBatch.calls.nodes.map((call) => [call.status, call.attempt])).toEqual([
        ['CANCELLED', 0],
        ['CANCELLED', 0],
      ]);
    } finally {
      await idle.close();
    }
  });

  it('answers an unknown call with a typed error', async () => {
    const result = await app.query(CancelToolCallDocument, { callId: 'nope-never-used' });
    expect(result.cancelToolCall).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
  });
});
