// Seed 002 (a runtime's tool registry, built-in tools and background runs): its tests, run
// through GraphQL against a real toolrun (PostgreSQL, Redis, API and worker).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelScheduleDocument, CancelTaskDocument, SeedSchedulesDocument, SeedTaskEventsDocument, SeedToolsDocument } from '../../gql/graphql.js';
import { fileContent, finished, getTask, messages, waitForTask } from '../../support/background.js';
import { createSession, fromStart } from '../../support/fixtures.js';
import { completedCall, payloadOf, registerExternalTool, runCall } from '../../support/seeds.js';
import { startToolrun, type Toolrun } from '../../support/toolrun.js';
import { eventually } from '../../support/wait.js';

let app: Toolrun;
let sessionId: string;
beforeAll(async () => {
  app = await startToolrun();
  await registerExternalTool(app, 'demo');
  sessionId = await createSession(app);
});
afterAll(async () => app?.close());

/** The seed's `ToolRegistry::with_defaults()`: 18 tools. */
const SEED_DEFAULTS = [
  'get_current_time',
  'echo',
  'report_progress',
  'add',
  'subtract',
  'multiply',
  'divide',
  'get_weather',
  'get_forecast',
  'write_todos',
  'read_file',
  'write_file',
  'edit_file',
  'list_directory',
  'grep_files',
  'delete_file',
  'stat_file',
  'web_fetch',
];

async function tools() {
  return (await app.query(SeedToolsDocument, {})).tools;
}

/** The default built-ins: toolrun lists spawn_background too, as contributed by its capability. */
async function defaults() {
  return (await tools()).filter((tool) => tool.kind === 'BUILTIN' && tool.capability === null);
}

describe('seed 002: tools.rs', () => {
  it('test_echo_tool', async () => {
    const call = await runCall(app, sessionId, 'echo', { message: 'Hello, world!' });
    expect(call.status).toBe('SUCCEEDED');
    expect(payloadOf(call)).toEqual({ echoed: 'Hello, world!', length: 13 });
    // `length` counts UTF-8 bytes, as Rust's str::len does.
    expect(payloadOf(await runCall(app, sessionId, 'echo', { message: 'héllo ✓' }))).toEqual({ echoed: 'héllo ✓', length: 10 });
    // The seed's schema: `message` is required and nothing else is accepted.
    const [echo] = (await tools()).filter((tool) => tool.name === 'echo');
    expect(echo!.parametersSchema).toEqual({
      type: 'object',
      properties: { message: { type: 'string', description: 'The message to echo back' } },
      required: ['message'],
      additionalProperties: false,
    });
    expect((await runCall(app, sessionId, 'echo', { text: 'old shape' })).output).toMatchObject({ __typename: 'ToolFailure', class: 'INVALID_REQUEST' });
  });

  it('test_failing_tool_with_tool_error', async () => {
    const call = await runCall(app, sessionId, 'failing_tool', { message: 'Something went wrong' });
    expect(call.output).toMatchObject({ __typename: 'ToolFailure', message: 'Something went wrong' });
    // FailingTool::default(): without arguments it fails with the seed's message.
    const plain = await runCall(app, sessionId, 'failing_tool', {});
    expect(plain.output).toMatchObject({ __typename: 'ToolFailure', class: 'EXECUTION', message: 'Tool execution failed' });
    expect(plain.modelReturn?.text).toBe('[Tool execution failed]\nTool execution failed');
  });

  it('test_failing_tool_with_internal_error', async () => {
    const call = await runCall(app, sessionId, 'failing_tool', { internal: true, message: 'Database connection failed' });
    // Deliberate difference: toolrun masks an internal error's message at the API (DESIGN.md); the seed keeps it in-process.
    expect(call.output).toMatchObject({ __typename: 'ToolFailure', class: 'INTERNAL', message: 'An internal error occurred while executing the tool' });
    expect(JSON.stringify([call.output, call.outcome, call.toolResult, call.modelReturn])).not.toContain('Database connection failed');
  });

  it('test_tool_result_conversion', async () => {
    // Success
    const success = await completedCall(app, sessionId, 'demo', { value: { value: 42 } });
    const successResult = success.toolResult as Record<string, unknown>;
    expect(successResult.error).toBeNull();
    expect((successResult.result as Record<string, unknown>).value).toBe(42);
    expect(successResult.tool_call_id).toBe(success.callId);

    // Tool error (packaged as {"error": "..."} in result, also sets error)
    const toolError = await runCall(app, sessionId, 'failing_tool', { message: 'Invalid input' });
    expect(toolError.toolResult).toMatchObject({ error: 'Invalid input', result: { error: 'Invalid input' } });

    // Internal error (packaged as {"error": "..."} with the generic message)
    const internal = await runCall(app, sessionId, 'failing_tool', { internal: true, message: 'Secret database error' });
    expect(internal.toolResult).toMatchObject({
      error: 'An internal error occurred while executing the tool',
      result: { error: 'An internal error occurred while executing the tool' },
    });
    expect(JSON.stringify([internal.output, internal.outcome, internal.toolResult, internal.modelReturn])).not.toContain('Secret database error');
  });

  it('test_tool_registry', async () => {
    const names = (await tools()).map((tool) => tool.name);
    expect(names).toContain('get_current_time');
    expect(names).toContain('echo');
    expect(names).not.toContain('nonexistent');
  });

  it('test_tool_display_name_in_definition', async () => {
    const [tool] = (await tools()).filter((candidate) => candidate.name === 'get_current_time');
    expect(tool!.displayName).toBe('Get Current Time');
  });

  it('test_success_with_raw_output_object_preserves_shape', async () => {
    const call = await completedCall(app, sessionId, 'demo', { value: { stdout: 'hello', _raw_output: 'raw stdout bytes' } });
    expect(payloadOf(call)).toEqual({ stdout: 'hello' });
    // The sidecar key must not leak to the model-visible result.
    expect(call.modelReturn?.text).toBe('{"stdout":"hello"}');
    expect(call.rawOutput).toBe('raw stdout bytes');
    expect(call.toolResult).toMatchObject({ result: { stdout: 'hello' }, raw_output: 'raw stdout bytes' });
  });

  it('test_success_with_raw_output_scalar_unwraps_to_string', async () => {
    const call = await completedCall(app, sessionId, 'demo', { value: { _raw_output_scalar: 'compact summary', _raw_output: 'full output bytes' } });
    expect(call.outcome).toEqual({ status: 'success', payload: 'compact summary' });
    expect(call.modelReturn?.text).toBe('compact summary');
    expect(call.rawOutput).toBe('full output bytes');
  });

  it('test_success_result_with_raw_output_scalar_key_is_not_unwrapped', async () => {
    const call = await completedCall(app, sessionId, 'demo', { value: { _raw_output_scalar: 'user_value', kept: true } });
    expect(payloadOf(call)).toEqual({ _raw_output_scalar: 'user_value', kept: true });
    expect(call.rawOutput).toBeNull();
  });

  it('test_success_result_with_only_raw_output_scalar_key_is_not_unwrapped', async () => {
    const call = await completedCall(app, sessionId, 'demo', { value: { _raw_output_scalar: 'v' } });
    expect(payloadOf(call)).toEqual({ _raw_output_scalar: 'v' });
    expect(call.rawOutput).toBeNull();
  });

  it('test_echo_tool_display_name', async () => {
    const [echo] = (await tools()).filter((tool) => tool.name === 'echo');
    expect(echo!.displayName).toBe('Echo');
  });

  it('test_all_default_tools_have_display_names', async () => {
    for (const tool of await defaults()) expect(tool.displayName, tool.name).toBeTruthy();
  });

  it('test_tool_registry_as_executor', async () => {
    const call = await runCall(app, sessionId, 'echo', { message: 'test' }, 'call_1');
    expect(call.toolResult).toMatchObject({ tool_call_id: 'call_1', error: null });
    expect((call.toolResult as { result: Record<string, unknown> }).result.echoed).toBe('test');
  });

  it('test_tool_to_definition', async () => {
    const [tool] = (await tools()).filter((candidate) => candidate.name === 'get_current_time');
    expect(tool).toMatchObject({ name: 'get_current_time', policy: 'AUTO', kind: 'BUILTIN' });
  });

  it('test_with_defaults_has_expected_tools', async () => {
    const names = (await defaults()).map((tool) => tool.name);
    for (const name of SEED_DEFAULTS) expect(names, `should have ${name}`).toContain(name);
    // spawn_background comes from the background_execution capability, not the defaults.
    expect(names).not.toContain('spawn_background');
    // Deliberate difference: toolrun's defaults add `sleep` and `failing_tool` to the seed's 18.
    expect(names.filter((name) => !SEED_DEFAULTS.includes(name)).sort()).toEqual(['failing_tool', 'sleep']);
  });

  it('test_with_defaults_tools_are_executable', async () => {
    const call = await runCall(app, sessionId, 'echo', { message: 'hello from defaults' });
    expect(call.toolResult).toMatchObject({ error: null, result: { echoed: 'hello from defaults' } });
  });

  it('test_with_defaults_math_tools', async () => {
    const call = await runCall(app, sessionId, 'add', { a: 5, b: 3 });
    expect(call.toolResult).toMatchObject({ error: null, result: { result: 8 } });
    // The seed's arithmetic is f64: the model reads 8.0.
    expect(call.modelReturn?.text).toBe('{"result":8.0}');
    expect(call.modelReturn?.parts).toEqual([{ type: 'TEXT', text: '{"result":8.0}', attachment: null }]);
  });

  it('test_with_defaults_excludes_capability_only_tools', async () => {
    const names = (await defaults()).map((tool) => tool.name);
    expect(names).not.toContain('bash');
    expect(names).not.toContain('kv_store');
    expect(names).not.toContain('spawn_background');
    // It is auto-activated because background-capable tools exist.
    const spawn = (await tools()).find((tool) => tool.name === 'spawn_background');
    expect(spawn).toMatchObject({ capability: 'background_execution', displayName: 'Spawn Background' });
    expect((await tools()).some((tool) => tool.hints.supportsBackground)).toBe(true);
  });
});

describe('seed 002: spawn_background as a tool', () => {

  it('test_spawn_background_executes_and_signals_session', async () => {
    const session = await createSession(app);
    const call = await runCall(app, session, 'spawn_background', {
      tool: 'report_progress',
      args: { steps: 1, intervalMs: 0, label: 'hello from background', summary: 'Background complete' },
    });
    expect(call.status).toBe('SUCCEEDED');
    const value = payloadOf(call);
    const runId = value.run_id as string;
    expect(value).toEqual({
      run_id: runId,
      resource_id: runId,
      task_id: value.task_id,
      title: 'Report Progress',
      tool: 'report_progress',
      status: 'running',
      signal_on_completion: true,
      artifact_dir: `/.background/${runId}`,
      log_path: `/.background/${runId}/output.log`,
      result_path: `/.background/${runId}/result.json`,
    });
    expect(runId).toMatch(/^bg_[0-9a-f]{32}$/);
    expect(await waitForTask(app, value.task_id as string, finished)).toMatchObject({ state: 'SUCCEEDED', summary: 'Background complete' });

    const sessionMessages = await messages(app, session);
    expect(sessionMessages).toHaveLength(1);
    expect(sessionMessages[0]!.text).toContain('Background run completed');
    expect(await fileContent(app, session, `/.background/${runId}/output.log`)).toContain('hello from background');
  });

  it('test_spawn_background_persists_failure_artifacts', async () => {
    const session = await createSession(app);
    const call = await runCall(app, session, 'spawn_background', {
      tool: 'report_progress',
      args: { steps: 1, intervalMs: 0, stream: 'stderr', label: 'background failed', failAtStep: 1, failMessage: 'boom' },
    });
    const value = payloadOf(call);
    expect(await waitForTask(app, value.task_id as string, finished)).toMatchObject({ state: 'FAILED', error: 'boom' });
    expect(await fileContent(app, session, `/.background/${value.run_id as string}/output.log`)).toContain('background failed');
    const result = JSON.parse((await fileContent(app, session, `/.background/${value.run_id as string}/result.json`))!);
    expect(result.status).toBe('failed');
    expect(result.error).toBe('boom');
  });

  it('test_spawn_background_rejects_when_session_active_run_limit_reached', async () => {
    const session = await createSession(app);
    const taskIds: string[] = [];
    for (let index = 0; index < 5; index++) {
      const call = await runCall(app, session, 'spawn_background', { tool: 'sleep', args: { ms: 60_000 }, signal_on_completion: false });
      expect(call.status, 'a background run below the session limit should start').toBe('SUCCEEDED');
      taskIds.push(payloadOf(call).task_id as string);
    }
    const refused = await runCall(app, session, 'spawn_background', { tool: 'sleep', args: { ms: 60_000 } });
    expect(refused.output).toMatchObject({ __typename: 'ToolFailure', class: 'RESOURCE_LIMIT' });
    expect((refused.output as { message: string }).message).toContain('active background runs per session');
    expect((refused.output as { message: string }).message).toBe(
      'Maximum 5 active background runs per session. Wait for an existing run to finish before starting another.',
    );
    for (const id of taskIds) await app.query(CancelTaskDocument, { id });
    for (const id of taskIds) await waitForTask(app, id, finished);
  });

  it('test_spawn_background_caps_output_log_size', async () => {
    const session = await createSession(app);
    const call = await runCall(app, session, 'spawn_background', { tool: 'report_progress', args: { steps: 1, intervalMs: 0, outputChars: 262_144 + 4096 } });
    const value = payloadOf(call);
    await waitForTask(app, value.task_id as string, (task) => task.state === 'SUCCEEDED');
    const log = (await fileContent(app, session, `/.background/${value.run_id as string}/output.log`))!;
    expect(log).toContain('[system] background output truncated');
    expect([...log].length).toBeLessThanOrEqual(262_144 + 128);
  });

  it('test_spawn_background_can_create_scheduled_monitor', async () => {
    const session = await createSession(app);
    const call = await runCall(app, session, 'spawn_background', {
      tool: 'report_progress',
      title: 'Watch PR 1319',
      args: { summary: 'Background complete' },
      schedule: { cron_expression: '*/10 * * * *', timezone: 'America/Chicago' },
    });
    expect(call.status, JSON.stringify(call.output)).toBe('SUCCEEDED');
    const value = payloadOf(call);
    expect(value.status).toBe('scheduled');
    expect(value.title).toBe('Watch PR 1319');
    expect(value.cron_expression).toBe('*/10 * * * *');
    expect(value.timezone).toBe('America/Chicago');
    expect(value).toMatchObject({ created: true, tool: 'report_progress', signal_on_completion: true, schedule_type: 'recurring', scheduled_at: null, enabled: true });
    expect(Object.keys(value).sort()).toEqual(
      ['created', 'status', 'title', 'tool', 'signal_on_completion', 'schedule_id', 'schedule_type', 'cron_expression', 'scheduled_at', 'timezone', 'next_trigger_at', 'enabled', 'task_id'].sort(),
    );
    expect(value.next_trigger_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

    const schedules = (await app.query(SeedSchedulesDocument, { sessionId: session })).schedules.nodes;
    expect(schedules).toHaveLength(1);
    expect(schedules[0]!.cronExpression).toBe('*/10 * * * *');
    expect(schedules[0]!.description).toContain('Monitor: Watch PR 1319');
    expect(schedules[0]!.description).toContain('"summary": "Background complete"');
    expect(schedules[0]!.taskId).toBe(value.task_id);
    expect((await getTask(app, value.task_id as string)).kind).toBe('monitor');
    await app.query(CancelScheduleDocument, { id: schedules[0]!.scheduleId });
  });

  it('test_spawn_background_rejects_invalid_scheduled_at', async () => {
    const call = await runCall(app, sessionId, 'spawn_background', { tool: 'report_progress', args: {}, schedule: { scheduled_at: 'tomorrow at noon' } });
    expect(call.output).toMatchObject({ __typename: 'ToolFailure' });
    expect((call.output as { message: string }).message).toContain('scheduled_at must be RFC3339');
  });

  it('test_spawn_background_rejects_ambiguous_schedule_shape', async () => {
    const call = await runCall(app, sessionId, 'spawn_background', {
      tool: 'report_progress',
      args: {},
      schedule: { cron_expression: '*/10 * * * *', scheduled_at: '2026-04-16T15:30:00Z' },
    });
    expect(call.output).toMatchObject({ __typename: 'ToolFailure' });
    expect((call.output as { message: string }).message).toContain('must not include both cron_expression and scheduled_at');
  });

  it('test_cancel_background_run_via_task_registry', async () => {
    const session = await createSession(app);
    const call = await runCall(app, session, 'spawn_background', { tool: 'sleep', args: { ms: 600_000 }, signal_on_completion: false });
    const value = payloadOf(call);
    const taskId = value.task_id as string;
    // Wait for a heartbeat to confirm the run is live.
    await eventually(async () => (await getTask(app, taskId)).heartbeatAt, 10_000);
    await app.query(CancelTaskDocument, { id: taskId });
    expect(await waitForTask(app, taskId, finished)).toMatchObject({ state: 'CANCELED' });
    const result = JSON.parse((await fileContent(app, session, `/.background/${value.run_id as string}/result.json`))!);
    expect(result.status).toBe('canceled');
    expect(await fileContent(app, session, `/.background/${value.run_id as string}/output.log`)).toContain('Canceled by request.');
    expect(await messages(app, session)).toEqual([]);
  });

  it('refuses bad arguments with the seed’s messages, in the seed’s order', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'Missing required parameter: tool'],
      [{ tool: '  ', args: {} }, 'Missing required parameter: tool'],
      [{ tool: 'sleep' }, 'Missing required parameter: args (object expected)'],
      [{ tool: 'sleep', args: [] }, 'Missing required parameter: args (object expected)'],
      // The schedule is checked before the target tool.
      [{ tool: 'no_such_tool', args: {}, schedule: 5 }, 'schedule must be an object'],
      [{ tool: 'no_such_tool', args: {}, schedule: {} }, 'schedule must include exactly one of cron_expression (recurring) or scheduled_at (one-shot)'],
      [{ tool: 'no_such_tool', args: {}, schedule: { cron_expression: '* * * * *', scheduled_at: 'soon' } }, 'scheduled_at must be RFC3339'],
      [{ tool: 'no_such_tool', args: {} }, 'Unknown tool: no_such_tool'],
      [{ tool: 'spawn_background', args: {} }, 'spawn_background cannot target itself recursively'],
      [{ tool: 'echo', args: { message: 'x' } }, 'Tool does not support background execution: echo'],
    ];
    const batch = await runCall(app, sessionId, 'spawn_background', cases[0]![0]);
    expect(batch.output).toMatchObject({ __typename: 'ToolFailure', message: cases[0]![1] });
    for (const [args, message] of cases.slice(1)) {
      const call = await runCall(app, sessionId, 'spawn_background', args);
      expect(call.output, JSON.stringify(args)).toMatchObject({ __typename: 'ToolFailure', message });
      expect(call.modelReturn?.text).toBe(`[Tool execution failed]\n${message}`);
    }
  });

  it('reports the status texts Queued, then Starting, then the tool’s own', async () => {
    const session = await createSession(app);
    const events = app.ws(SeedTaskEventsDocument, { sessionId: session, after: fromStart(session) });
    const call = await runCall(app, session, 'spawn_background', { tool: 'report_progress', args: { steps: 2, intervalMs: 300, label: 'step' } });
    const taskId = payloadOf(call).task_id as string;
    const seen = await events.until((item) => item.data?.taskEvents.type === 'TaskFinished');
    await events.close();
    const ofTask = seen.map((item) => item.data!.taskEvents);
    const created = ofTask.find((event) => event.__typename === 'TaskCreated');
    expect(created).toMatchObject({ stateDetail: 'Queued' });
    const texts = ofTask.flatMap((event) => (event.__typename === 'TaskStatus' ? [event.text] : []));
    expect(texts).toEqual(['Starting', 'step 1/2', 'step 2/2']);
    expect((await getTask(app, taskId)).state).toBe('SUCCEEDED');
  });
});
