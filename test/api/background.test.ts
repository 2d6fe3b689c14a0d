// Background runs (DESIGN.md §4, issue 3) through the public API against real PostgreSQL and
// Redis, with an in-process worker: runs that succeed, fail and are cancelled with their
// artifacts, messages and events; the output cap; limits under concurrent spawns; schedules;
// every refusal. (With real worker processes: test/system/background-workers.test.ts.)
//
// This file runs alone (the vitest project `api-alone`, after the other api files and before the
// system tier): the per-worker limit counts the active runs of the whole database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, MAX_ACTIVE_BACKGROUND_RUNS_PER_SESSION } from '../../src/domain/tasks/background.js';
import { CANCELED_LINE, charLength, MAX_OUTPUT_LOG_CHARS, TRUNCATION_LINE } from '../../src/domain/tasks/background-output.js';
import { createLogger } from '../../src/logger.js';
import { closeServices, createServices } from '../../src/services.js';
import {
  CancelScheduleDocument,
  CancelTaskDocument,
  ExecuteToolBatchDocument,
  ListSchedulesDocument,
  ListTasksDocument,
  SessionFilesDocument,
  SpawnBackgroundDocument,
  type SpawnBackgroundMutationVariables,
  TaskEventsDocument,
  TaskEventsUntilDoneDocument,
} from '../gql/graphql.js';
import {
  activeRuns,
  fileContent,
  finished,
  finishedEvent,
  getTask,
  messages,
  spawn,
  spawnRun,
  type TaskEvent,
  taskEventsOf as eventsOf,
  waitForTask,
} from '../support/background.js';
import { fromStart, newSession } from '../support/fixtures.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';
import { eventually } from '../support/wait.js';

describe('background runs (in-process worker)', () => {
  let app: Toolrun;
  beforeAll(async () => {
    app = await startToolrun({
      ENABLE_TEST_TOOLS: true,
      SCHEDULE_ALLOW_SECONDS: true,
      // The per-worker limit is tested with one tenant filling the worker (quotas.test.ts tests the tenant's).
      TENANT_MAX_BACKGROUND_RUNS: 64,
      CANCEL_GRACE_MS: 300,
      // Long, so that a prompt cancel can only have come through the cancel channel.
      HEARTBEAT_INTERVAL_MS: 5000,
      TASK_REAPER_INTERVAL_MS: 500,
    });
  });
  afterAll(async () => app?.close());

  it('runs to success: progress and output stream to a subscriber; artifacts, task fields and the session message', async () => {
    const session = await newSession(app);
    const subscription = app.sse(TaskEventsDocument, { sessionId: session.id, after: fromStart(session.id) });
    const run = await spawnRun(app, {
      sessionId: session.id,
      tool: 'report_progress',
      args: { steps: 4, intervalMs: 40, summary: 'all four steps done' },
      title: 'Four steps',
    });
    expect(run.runId).toMatch(/^bg_[0-9a-f]{32}$/);
    expect(run).toMatchObject({
      title: 'Four steps',
      tool: 'report_progress',
      status: 'QUEUED',
      signalOnCompletion: true,
      artifactDir: `/.background/${run.runId}`,
      logPath: `/.background/${run.runId}/output.log`,
      resultPath: `/.background/${run.runId}/result.json`,
    });

    const events = eventsOf(await subscription.until(finishedEvent(run.taskId)));
    await subscription.close();
    const seqs = events.map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    const types = events.map((event) => event.__typename);
    expect(types[0]).toBe('TaskCreated');
    expect(types).toContain('TaskStarted');
    expect(types).toContain('TaskStatus');
    expect(types.at(-1)).toBe('TaskFinished');
    expect(types.indexOf('TaskStarted')).toBeLessThan(types.indexOf('TaskProgress'));
    const progress = events.filter((event) => event.__typename === 'TaskProgress');
    expect(progress.at(-1)).toMatchObject({ progress: { current: 4, total: 4, unit: 'steps', label: 'step' } });
    const output = events
      .filter((event): event is Extract<TaskEvent, { __typename: 'TaskOutput' }> => event.__typename === 'TaskOutput')
      .map((event) => event.text)
      .join('');
    expect(output).toBe('step 1/4\nstep 2/4\nstep 3/4\nstep 4/4\n');
    expect(events.at(-1)).toMatchObject({
      state: 'SUCCEEDED',
      summary: 'all four steps done',
      error: null,
      resultPath: run.resultPath,
      logPath: run.logPath,
      runId: run.runId,
    });

    const task = await getTask(app, run.taskId);
    expect(task).toMatchObject({
      taskId: run.taskId,
      kind: 'background_tool',
      state: 'SUCCEEDED',
      stateDetail: 'Completed',
      title: 'Four steps',
      tool: 'report_progress',
      args: { steps: 4, intervalMs: 40, summary: 'all four steps done' },
      runId: run.runId,
      attempt: 1,
      summary: 'all four steps done',
      error: null,
      progress: { current: 4, total: 4 },
      outputTruncated: false,
      cancelRequestedAt: null,
    });
    expect(task.workerId).toBe(app.services.workerId);
    expect(task.heartbeatAt).not.toBeNull();
    expect(task.startedAt).not.toBeNull();
    expect(task.finishedAt).not.toBeNull();
    const log = '[stdout] step 1/4\n[stdout] step 2/4\n[stdout] step 3/4\n[stdout] step 4/4\n';
    expect(task.outputTail).toBe(log);
    expect(task.outputSize).toBe(log.length);

    expect(await fileContent(app, session.id, run.logPath)).toBe(log);
    expect(JSON.parse((await fileContent(app, session.id, run.resultPath))!)).toEqual({ steps: 4, summary: 'all four steps done' });
    const listed = await app.query(SessionFilesDocument, { sessionId: session.id, path: run.artifactDir });
    expect(listed.sessionFiles.nodes.map((file) => file.path)).toEqual([run.artifactDir, run.logPath, run.resultPath]);

    const [message, ...more] = await messages(app, session.id);
    expect(more).toHaveLength(0);
    expect(message!.kind).toBe('background_run');
    expect(message!.text).toBe(
      [
        'Background run completed.',
        `- run_id: ${run.runId}`,
        '- title: Four steps',
        '- tool: report_progress',
        '- summary: all four steps done',
        `- result_path: ${run.resultPath}`,
        `- log_path: ${run.logPath}`,
      ].join('\n'),
    );

    // Replay: a client that saw only the first event gets exactly the rest, in order.
    const replay = app.ws(TaskEventsDocument, { taskId: run.taskId, after: events[0]!.cursor });
    const replayed = eventsOf(await replay.until(finishedEvent(run.taskId)));
    await replay.close();
    expect(replayed.map((event) => event.seq)).toEqual(events.slice(1).map((event) => event.seq));
  });

  it('shows the progress a run reports as it was reported, text starting with U+E000 included (as its TaskProgress event does)', async () => {
    const session = await newSession(app);
    const run = await spawnRun(app, { sessionId: session.id, tool: 'report_progress', args: { steps: 2, intervalMs: 0, label: '\ue000label' } });
    const task = await waitForTask(app, run.taskId, finished);
    expect(task).toMatchObject({ state: 'SUCCEEDED', progress: { current: 2, total: 2, label: '\ue000label' } });
  });

  it('fails with the failure in result.json, the log so far and a "failed" message', async () => {
    const session = await newSession(app);
    const run = await spawnRun(app, { sessionId: session.id, tool: 'report_progress', args: { steps: 3, intervalMs: 20, failAtStep: 2 } });
    const task = await waitForTask(app, run.taskId, finished);
    expect(task).toMatchObject({ state: 'FAILED', error: 'step 2/3 failed as requested', summary: 'step 2/3 failed as requested', title: 'Report Progress' });
    expect(JSON.parse((await fileContent(app, session.id, run.resultPath))!)).toEqual({ status: 'failed', error: 'step 2/3 failed as requested' });
    expect(await fileContent(app, session.id, run.logPath)).toBe('[stdout] step 1/3\n[stdout] step 2/3\n');
    const [message] = await messages(app, session.id);
    expect(message!.text.split('\n')[0]).toBe('Background run failed.');
    expect(message!.text).toContain('- summary: step 2/3 failed as requested');

    // Resumed with completeWhenDone from a cursor before its TaskFinished: the rest, then the end; from that cursor: the end at once.
    const all = eventsOf(await app.ws(TaskEventsDocument, { taskId: run.taskId, after: fromStart(session.id) }).until(finishedEvent(run.taskId)));
    const last = all.at(-1)!;
    const rest = app.ws(TaskEventsUntilDoneDocument, { taskId: run.taskId, after: all.at(-2)!.cursor });
    expect((await rest.next(5000)).data?.taskEvents).toMatchObject({ type: 'TaskFinished', cursor: last.cursor });
    await expect(rest.next(5000)).rejects.toThrow('subscription ended');
    const atEnd = app.ws(TaskEventsUntilDoneDocument, { taskId: run.taskId, after: last.cursor });
    await expect(atEnd.next(5000)).rejects.toThrow('subscription ended');
  });

  it('completes a stream without `after` (completeWhenDone) for a run that finished while the subscription started', async () => {
    const session = await newSession(app);
    const run = await spawnRun(app, { sessionId: session.id, tool: 'report_progress', args: { steps: 2, intervalMs: 100 } });
    // The subscription reads the run while it is unfinished; the run finishes before the stream starts.
    const tasks = app.services.tasks;
    const findTask = tasks.findTask;
    let delayed = false;
    tasks.findTask = async (...args: Parameters<typeof findTask>) => {
      const task = await findTask.apply(tasks, args);
      if (!delayed && task.id === run.taskId) {
        delayed = true;
        expect(finished(task)).toBe(false);
        await waitForTask(app, run.taskId, finished);
      }
      return task;
    };
    try {
      const stream = app.ws(TaskEventsUntilDoneDocument, { taskId: run.taskId });
      const items = await stream.until((item) => item.data?.taskEvents.type === 'TaskFinished', 5000);
      expect(delayed).toBe(true);
      expect(items.at(-1)?.data?.taskEvents.type).toBe('TaskFinished');
      await expect(stream.next(5000)).rejects.toThrow('subscription ended');
    } finally {
      tasks.findTask = findTask;
    }
  });

  it('still ends a run whose artifacts cannot be written (the session made /.background a file)', async () => {
    const session = await newSession(app);
    await app.query(ExecuteToolBatchDocument, { sessionId: session.id, waitMs: 5000, calls: [{ id: 'w', tool: 'write_file', args: { path: '/.background', content: 'mine' } }] });
    const run = await spawnRun(app, { sessionId: session.id, tool: 'report_progress', args: { steps: 2, intervalMs: 10 } });
    const task = await waitForTask(app, run.taskId, finished);
    expect(task).toMatchObject({ state: 'SUCCEEDED', outputTail: '[stdout] step 1/2\n[stdout] step 2/2\n' });
    expect(await fileContent(app, session.id, '/.background')).toBe('mine');
    expect(await messages(app, session.id)).toHaveLength(1);
  });

  it('cancels a running run fast through the cancel channel; the log ends "Canceled by request."; cancelTask is idempotent', async () => {
    const session = await newSession(app);
    const run = await spawnRun(app, { sessionId: session.id, tool: 'sleep', args: { ms: 30_000, progressIntervalMs: 50 }, title: 'long nap' });
    await waitForTask(app, run.taskId, (task) => task.state === 'RUNNING' && (task.progress?.current ?? 0) > 0);
    const asked = Date.now();
    const canceled = await app.query(CancelTaskDocument, { id: run.taskId });
    expect(canceled.cancelTask).toMatchObject({ __typename: 'Task', state: expect.stringMatching(/^(RUNNING|CANCELED)$/) });
    expect((canceled.cancelTask as { cancelRequestedAt: string | null }).cancelRequestedAt).not.toBeNull();
    const task = await waitForTask(app, run.taskId, finished, 5000);
    // Well under the 5 s heartbeat (which also checks for cancellation): the cancel channel reached the running tool.
    expect(Date.now() - asked).toBeLessThan(2500);
    expect(task).toMatchObject({ state: 'CANCELED', summary: 'Canceled by request.', error: null });
    const log = (await fileContent(app, session.id, run.logPath))!;
    expect(log.endsWith(`${CANCELED_LINE}\n`)).toBe(true);
    expect(JSON.parse((await fileContent(app, session.id, run.resultPath))!)).toEqual({ status: 'canceled' });
    const [message] = await messages(app, session.id);
    expect(message!.text.split('\n')[0]).toBe('Background run canceled.');

    const again = await app.query(CancelTaskDocument, { id: run.taskId });
    expect(again.cancelTask).toMatchObject({ __typename: 'Task', state: 'CANCELED', finishedAt: task.finishedAt });
    expect(await messages(app, session.id)).toHaveLength(1);
  });

  it('caps the output log at 262,144 characters with the truncation line; outputTail keeps the last 2,048', async () => {
    const session = await newSession(app);
    const subscription = app.sse(TaskEventsDocument, { sessionId: session.id, after: fromStart(session.id) });
    const run = await spawnRun(app, { sessionId: session.id, tool: 'report_progress', args: { steps: 3, intervalMs: 0, outputChars: 100_000 }, signalOnCompletion: false });
    const events = eventsOf(await subscription.until(finishedEvent(run.taskId), 30_000));
    await subscription.close();
    const task = await getTask(app, run.taskId);
    expect(task).toMatchObject({ state: 'SUCCEEDED', outputTruncated: true, outputSize: MAX_OUTPUT_LOG_CHARS });
    const log = (await fileContent(app, session.id, run.logPath))!;
    const suffix = `\n${TRUNCATION_LINE}\n`;
    expect(TRUNCATION_LINE).toBe('[system] background output truncated at 262144 characters');
    expect(log.endsWith(suffix)).toBe(true);
    expect(charLength(log)).toBe(MAX_OUTPUT_LOG_CHARS + charLength(suffix));
    expect(log.startsWith('[stdout] step 1/3\n[stdout] 0123456789')).toBe(true);
    expect(task.outputTail).toHaveLength(2048);
    expect(task.outputTail.endsWith('0123456789\n')).toBe(true);
    expect(events.filter((event) => event.__typename === 'TaskOutput' && event.truncated)).toHaveLength(1);
    // signalOnCompletion: false leaves no message.
    expect(await messages(app, session.id)).toHaveLength(0);
  });

  it('refuses every invalid spawn with a typed error', async () => {
    const session = await newSession(app);
    const sessionId = session.id;
    const refusal = async (variables: Omit<SpawnBackgroundMutationVariables, 'sessionId'>, sid = sessionId) => spawn(app, { sessionId: sid, ...variables });
    expect(await refusal({ tool: 'no_such_tool', args: {} })).toMatchObject({ __typename: 'UnknownToolError', code: 'UNKNOWN_TOOL', toolName: 'no_such_tool' });
    expect(await refusal({ tool: 'spawn_background', args: { tool: 'sleep', args: { ms: 1 } } })).toMatchObject({
      __typename: 'BackgroundNotSupportedError',
      code: 'SPAWN_ITSELF',
      toolName: 'spawn_background',
    });
    expect(await refusal({ tool: 'echo', args: { text: 'x' } })).toMatchObject({
      __typename: 'BackgroundNotSupportedError',
      code: 'NOT_BACKGROUND_CAPABLE',
      message: 'Tool `echo` does not support background execution',
    });
    expect(await refusal({ tool: 'sleep', args: [1, 2] })).toMatchObject({ __typename: 'InvalidArgumentsError', code: 'INVALID_ARGUMENTS', toolName: 'sleep' });
    expect(await refusal({ tool: 'sleep', args: 'ms=5' })).toMatchObject({ __typename: 'InvalidArgumentsError' });
    expect(await refusal({ tool: 'sleep', args: { ms: -1 } })).toMatchObject({ __typename: 'InvalidArgumentsError', message: expect.stringContaining('Invalid arguments for `sleep`') });
    const schedule = (value: SpawnBackgroundMutationVariables['schedule']) => refusal({ tool: 'sleep', args: { ms: 1 }, schedule: value });
    expect(await schedule({})).toMatchObject({ __typename: 'InvalidScheduleError', code: 'INVALID_SCHEDULE', field: 'schedule' });
    expect(await schedule({ cronExpression: '* * * * *', scheduledAt: '2030-01-01T00:00:00Z' })).toMatchObject({
      __typename: 'InvalidScheduleError',
      field: 'schedule',
      message: expect.stringContaining('provide exactly one'),
    });
    expect(await schedule({ scheduledAt: 'tomorrow at noon' })).toMatchObject({ __typename: 'InvalidScheduleError', field: 'schedule.scheduledAt' });
    expect(await schedule({ scheduledAt: '2030-02-30T10:00:00Z' })).toMatchObject({ __typename: 'InvalidScheduleError', field: 'schedule.scheduledAt' });
    expect(await schedule({ cronExpression: '61 * * * *' })).toMatchObject({ __typename: 'InvalidScheduleError', field: 'schedule.cronExpression' });
    expect(await schedule({ cronExpression: '* * * *' })).toMatchObject({ __typename: 'InvalidScheduleError', field: 'schedule.cronExpression', message: expect.stringContaining('5 fields') });
    expect(await schedule({ cronExpression: '*/5 * * * *', timezone: 'Mars/Olympus_Mons' })).toMatchObject({ __typename: 'InvalidScheduleError', field: 'schedule.timezone' });
    expect(await refusal({ tool: 'sleep', args: { ms: 1 } }, '00000000-0000-4000-8000-000000000000')).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    // A session of another tenant is not found either.
    const other = await app.newKey();
    const foreign = await app.query(SpawnBackgroundDocument, { sessionId, tool: 'sleep', args: { ms: 1 } }, other);
    expect(foreign.spawnBackground).toMatchObject({ __typename: 'NotFoundError' });
    expect(await app.services.db.task.count({ where: { sessionId: session.rowId } })).toBe(0);
  });

  it('starts exactly 5 of 20 concurrent spawns for one session from several clients and processes', async () => {
    const session = await newSession(app);
    const { name: tenantName } = (await app.services.db.tenant.findUnique({ where: { id: app.tenantId } }))!;
    const keys = [app.apiKey, await app.newKey(tenantName), await app.newKey(tenantName)];
    // A second, independent set of services (its own event log and connection pool) stands in
    // for another API process: its transactions race this process's ones in PostgreSQL.
    const second = createServices({ ...app.services.config }, createLogger({ LOG_LEVEL: 'silent' }));
    try {
      const viaHttp = Array.from({ length: 12 }, (_, index) =>
        app.query(SpawnBackgroundDocument, { sessionId: session.id, tool: 'sleep', args: { ms: 20_000 }, title: `http ${index}` }, keys[index % keys.length]).then(
          (result) => result.spawnBackground,
        ),
      );
      const viaProcess = Array.from({ length: 8 }, (_, index) =>
        second.background
          .spawn({ tenantId: app.tenantId, sessionId: session.rowId, tool: 'sleep', args: { ms: 20_000 }, title: `direct ${index}` })
          .then(
            (outcome) => ({ __typename: 'BackgroundRun', taskId: outcome.task.id }),
            (error: { name: string; limit?: string; max?: number }) => ({ __typename: error.name, limit: error.limit, max: error.max }),
          ),
      );
      const results = (await Promise.all([...viaHttp, ...viaProcess])) as Array<{ __typename: string; limit?: string; max?: number; taskId?: string }>;
      const started = results.filter((result) => result.__typename === 'BackgroundRun');
      const refused = results.filter((result) => result.__typename === 'LimitExceededError');
      expect(started).toHaveLength(MAX_ACTIVE_BACKGROUND_RUNS_PER_SESSION);
      expect(refused).toHaveLength(15);
      for (const refusal of refused) expect(refusal).toMatchObject({ limit: LIMITS.perSession, max: 5 });
      expect(await app.services.db.task.count({ where: { sessionId: session.rowId, state: { in: ['QUEUED', 'RUNNING'] } } })).toBe(5);

      // A finished run frees its slot.
      await app.query(CancelTaskDocument, { id: started[0]!.taskId! });
      await waitForTask(app, started[0]!.taskId!, finished);
      await spawnRun(app, { sessionId: session.id, tool: 'sleep', args: { ms: 20_000 } });
    } finally {
      await closeServices(second);
    }
    const { tasks } = await app.query(ListTasksDocument, { sessionId: session.id, state: 'RUNNING', first: 50 });
    const { tasks: queued } = await app.query(ListTasksDocument, { sessionId: session.id, state: 'QUEUED', first: 50 });
    for (const task of [...tasks.nodes, ...queued.nodes]) await app.query(CancelTaskDocument, { id: task.id });
    await eventually(async () => (await app.services.db.task.count({ where: { sessionId: session.rowId, state: { in: ['QUEUED', 'RUNNING'] } } })) === 0);
  });

  // 64 spawns one after another, then their cancels: slow on a loaded machine.
  it('refuses a spawn beyond the per-worker limit (64 slots of the one live worker)', { timeout: 120_000 }, async () => {
    const capacity = await app.services.background.workerCapacity();
    expect(capacity).toBe(64);
    const baseline = await activeRuns(app);
    const sessions = await Promise.all(Array.from({ length: 14 }, () => newSession(app)));
    const taskIds: string[] = [];
    let refusal: unknown = null;
    outer: for (const session of sessions) {
      for (let index = 0; index < MAX_ACTIVE_BACKGROUND_RUNS_PER_SESSION; index++) {
        // Longer than the slowest spawn loop: no run may end (and free its slot) before the 65th spawn.
        // Progress at the longest interval: 64 runs reporting every second would load a busy machine
        // with writes that this limit does not need.
        const result = await spawn(app, { sessionId: session.id, tool: 'sleep', args: { ms: 600_000, progressIntervalMs: 60_000 }, signalOnCompletion: false });
        if (result.__typename !== 'BackgroundRun') {
          refusal = result;
          break outer;
        }
        taskIds.push(result.taskId);
      }
    }
    expect(refusal).toMatchObject({ __typename: 'LimitExceededError', limit: LIMITS.perWorker, max: 64 });
    expect(taskIds.length + baseline).toBe(64);
    await Promise.all(taskIds.map((id) => app.query(CancelTaskDocument, { id })));
    await eventually(async () => (await activeRuns(app)) === baseline, 15_000);
  });

  it('spawn_background inside a batch shares the implementation: the seed\'s run handle, or a typed failure', async () => {
    const session = await newSession(app);
    const { executeToolBatch: batch } = await app.query(ExecuteToolBatchDocument, {
      sessionId: session.id,
      waitMs: 10_000,
      calls: [
        { id: 'spawn', tool: 'spawn_background', args: { tool: 'report_progress', args: { steps: 2, intervalMs: 10 }, title: 'from a batch' } },
        { id: 'bad', tool: 'spawn_background', args: { tool: 'echo', args: { message: 'x' } } },
        { id: 'self', tool: 'spawn_background', args: { tool: 'spawn_background', args: {} } },
        // A run's args hold any text, as a call's do (kept losslessly); its title is shown as it is.
        { id: 'nul', tool: 'spawn_background', args: { tool: 'report_progress', args: { steps: 1, label: 'a\u0000b' } } },
        { id: 'lone', tool: 'spawn_background', args: { tool: 'report_progress', args: { steps: 1, label: 'x \ud800 y' }, title: 't' } },
        { id: 'title', tool: 'spawn_background', args: { tool: 'report_progress', args: { steps: 1 }, title: 't\u0000t' } },
      ],
    });
    if (batch.__typename !== 'ToolBatch') throw new Error(JSON.stringify(batch));
    const [spawned, bad, self, nul, lone, title] = batch.calls.nodes;
    for (const [call, label] of [[nul!, 'a\u0000b'], [lone!, 'x \ud800 y']] as const) {
      expect(call.output).toMatchObject({ __typename: 'ToolSuccess', value: { status: 'running', tool: 'report_progress' } });
      const run = await waitForTask(app, (call.output as { value: { task_id: string } }).value.task_id, finished);
      expect(run).toMatchObject({ state: 'SUCCEEDED', args: { steps: 1, label } });
    }
    expect(title!.output).toMatchObject({ __typename: 'ToolFailure', class: 'INVALID_REQUEST', message: expect.stringContaining('title contains U+0000') });
    expect(spawned!.output).toMatchObject({ __typename: 'ToolSuccess', value: { status: 'running', title: 'from a batch', tool: 'report_progress', signal_on_completion: true } });
    const value = (spawned!.output as { value: { task_id: string; run_id: string; result_path: string } }).value;
    expect(value.run_id).toMatch(/^bg_/);
    expect(bad!.output).toMatchObject({ __typename: 'ToolFailure', class: 'INVALID_REQUEST', code: 'not_background_capable', message: 'Tool does not support background execution: echo' });
    expect(self!.output).toMatchObject({ __typename: 'ToolFailure', class: 'INVALID_REQUEST', code: 'spawn_itself', message: 'spawn_background cannot target itself recursively' });
    const task = await waitForTask(app, value.task_id, finished);
    expect(task).toMatchObject({ state: 'SUCCEEDED', title: 'from a batch', summary: 'Completed 2 steps' });
    expect(JSON.parse((await fileContent(app, session.id, value.result_path))!)).toEqual({ steps: 2, summary: 'Completed 2 steps' });
  });

  it('fires a cron schedule (seconds allowed in tests) under a monitor task, and stops once cancelled', async () => {
    const session = await newSession(app);
    const sent = Date.now();
    const created = await spawn(app, {
      sessionId: session.id,
      tool: 'report_progress',
      args: { steps: 1, intervalMs: 0 },
      title: 'every second',
      schedule: { cronExpression: '* * * * * *', timezone: 'Europe/Paris' },
    });
    if (created.__typename !== 'ScheduledMonitor') throw new Error(JSON.stringify(created));
    expect(created).toMatchObject({ type: 'CRON', cronExpression: '* * * * * *', timezone: 'Europe/Paris', enabled: true, title: 'every second', tool: 'report_progress', scheduledAt: null });
    expect(new Date(created.nextTriggerAt!).getTime()).toBeGreaterThan(sent - 1000);
    const monitor = await getTask(app, created.taskId);
    expect(monitor).toMatchObject({ kind: 'monitor', state: 'RUNNING', schedule: { scheduleId: created.scheduleId } });

    const fired = await eventually(async () => {
      const [schedule] = (await app.query(ListSchedulesDocument, { sessionId: session.id })).schedules.nodes;
      return schedule && schedule.runs.filter((run) => run.state === 'SUCCEEDED').length >= 2 ? schedule : null;
    }, 15_000);
    expect(fired.lastTriggerAt).not.toBeNull();
    expect(fired.task!.stateDetail).toMatch(/^Fired at .*: started bg_.*; next trigger at /);

    const canceled = await app.query(CancelScheduleDocument, { id: created.scheduleId });
    expect(canceled.cancelSchedule).toMatchObject({ __typename: 'Schedule', enabled: false, nextTriggerAt: null, task: { state: 'CANCELED', summary: 'Schedule canceled.' } });
    // Nothing fires it any more: its job scheduler is gone, and the firings already queued run out.
    const { tasks } = app.services.queues;
    await eventually(async () => !(await tasks.getJobScheduler(`schedule-${created.scheduleId}`)));
    await eventually(async () => {
      const pending = await tasks.getJobs(['waiting', 'active', 'delayed', 'prioritized']);
      return !pending.some((job) => job.name === 'fire-schedule' && job.data.scheduleId === created.scheduleId);
    });
    const runs = () => app.services.db.task.count({ where: { scheduleId: created.scheduleId, kind: 'background_tool' } });
    const runsAfterCancel = await runs();
    // And a firing that still arrived would start nothing.
    expect(await app.services.background.fireSchedule(created.scheduleId, `${created.scheduleId}:late`)).toBeNull();
    expect(await runs()).toBe(runsAfterCancel);
    const again = await app.query(CancelScheduleDocument, { id: created.scheduleId });
    expect(again.cancelSchedule).toMatchObject({ __typename: 'Schedule', enabled: false });
    expect((await app.query(ListSchedulesDocument, { sessionId: session.id, enabled: true })).schedules.nodes).toEqual([]);
    const scheduler = await app.services.queues.tasks.getJobScheduler(`schedule-${created.scheduleId}`);
    expect(scheduler).toBeFalsy();
  });

  it('fires a one-shot schedule once; its monitor then succeeds', async () => {
    const session = await newSession(app);
    const at = new Date(Date.now() + 800).toISOString();
    // The run it starts gets the schedule's args exactly, text PostgreSQL cannot hold as it is included.
    const args = { steps: 1, intervalMs: 0, label: 'a\u0000b \udc00' };
    const created = await spawn(app, { sessionId: session.id, tool: 'report_progress', args, schedule: { scheduledAt: at } });
    if (created.__typename !== 'ScheduledMonitor') throw new Error(JSON.stringify(created));
    expect(created).toMatchObject({ type: 'ONCE', scheduledAt: at, timezone: 'UTC', cronExpression: null });
    const monitor = await waitForTask(app, created.taskId, finished);
    expect(monitor.state).toBe('SUCCEEDED');
    expect(monitor.summary).toMatch(/^Fired at .*: started bg_/);
    const [schedule] = (await app.query(ListSchedulesDocument, { sessionId: session.id })).schedules.nodes;
    expect(schedule).toMatchObject({ enabled: false, runs: [{ state: expect.any(String) }] });
    expect(await waitForTask(app, schedule!.runs[0]!.taskId, finished)).toMatchObject({ state: 'SUCCEEDED', args });
  });

  it('refuses an 11th active schedule in a session', async () => {
    const session = await newSession(app);
    const ids: string[] = [];
    for (let index = 0; index < 10; index++) {
      const created = await spawn(app, { sessionId: session.id, tool: 'sleep', args: { ms: 1 }, schedule: { cronExpression: '0 3 * * *' } });
      if (created.__typename !== 'ScheduledMonitor') throw new Error(JSON.stringify(created));
      ids.push(created.scheduleId);
    }
    expect(await spawn(app, { sessionId: session.id, tool: 'sleep', args: { ms: 1 }, schedule: { cronExpression: '0 3 * * *' } })).toMatchObject({
      __typename: 'LimitExceededError',
      limit: LIMITS.schedules,
      max: 10,
    });
    // Cancelling a monitor task cancels its schedule.
    const [first] = (await app.query(ListSchedulesDocument, { sessionId: session.id })).schedules.nodes;
    const monitor = await app.query(CancelTaskDocument, { id: first!.taskId! });
    expect(monitor.cancelTask).toMatchObject({ __typename: 'Task', kind: 'monitor', state: 'CANCELED' });
    expect((await app.query(ListSchedulesDocument, { sessionId: session.id, enabled: false })).schedules.nodes.map((schedule) => schedule.scheduleId)).toEqual([ids[0]]);
    const eleventh = await spawn(app, { sessionId: session.id, tool: 'sleep', args: { ms: 1 }, schedule: { cronExpression: '0 3 * * *' } });
    expect(eleventh.__typename).toBe('ScheduledMonitor');
    if (eleventh.__typename === 'ScheduledMonitor') ids.push(eleventh.scheduleId);
    for (const id of ids) await app.query(CancelScheduleDocument, { id });
  });

  it('stops a superseded attempt: once re-attached, the old attempt writes nothing and the new one completes', async () => {
    const session = await newSession(app);
    const run = await spawnRun(app, { sessionId: session.id, tool: 'sleep', args: { ms: 1500, progressIntervalMs: 50 } });
    const first = await waitForTask(app, run.taskId, (task) => task.state === 'RUNNING');
    // Attempt 1 is declared lost while this process's worker still runs it.
    const lostAt = Date.now();
    expect(await app.services.taskRecovery.recover(run.taskId, 1, 'test: declared lost', { requireStale: false })).toBe('reattached');
    const seqAfterReattach = (await app.services.db.session.findUniqueOrThrow({ where: { id: session.rowId } })).eventSeq;

    const done = await waitForTask(app, run.taskId, finished);
    expect(done).toMatchObject({ state: 'SUCCEEDED', attempt: 2 });
    expect(done.runId).not.toBe(run.runId);
    // `startedAt` is when the current attempt started: attempt 2's start, not attempt 1's.
    expect(Date.parse(done.startedAt!)).toBeGreaterThanOrEqual(lostAt);
    expect(Date.parse(done.startedAt!)).toBeGreaterThan(Date.parse(first.startedAt!));
    // Attempt 1 kept sleeping for a while, but none of its progress, heartbeats or its finish got through.
    const fromOld = await app.services.db.event.count({
      where: { sessionId: session.rowId, seq: { gt: seqAfterReattach }, taskId: run.taskId, payload: { path: ['attempt'], equals: 1 } },
    });
    expect(fromOld).toBe(0);
    expect(await app.services.db.event.count({ where: { taskId: run.taskId, type: 'TaskFinished' } })).toBe(1);
    expect(await fileContent(app, session.id, run.logPath)).toContain(`re-attached as ${done.runId} (attempt 2)`);
    expect(await fileContent(app, session.id, run.resultPath)).toBeNull();
    expect(JSON.parse((await fileContent(app, session.id, done.resultPath!))!)).toEqual({ sleptMs: 1500 });
  });
});
