// Background runs on real worker processes (DESIGN.md §4): an API in this process without a
// worker, and workers as child processes joining it (same database, same Redis prefix), killed
// or stopped mid-run: re-attachment of idempotent runs, orphaned non-idempotent ones,
// cross-process cancellation and heartbeat fencing.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CANCELED_LINE } from '../../src/domain/tasks/background-output.js';
import { claimTask, finishTask, recordActivity, recordHeartbeat } from '../../src/domain/tasks/task-transitions.js';
import { CancelTaskDocument } from '../gql/graphql.js';
import { fileContent, finished, getTask, messages, spawnRun, waitForTask } from '../support/background.js';
import { newSession } from '../support/fixtures.js';
import { WorkerProcesses } from '../support/processes.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';
import { eventually, sleep } from '../support/wait.js';

// Each test starts worker processes, which takes seconds on a loaded machine.
describe('background runs on worker processes', { timeout: 120_000 }, () => {
  let app: Toolrun;
  let workers: WorkerProcesses;
  beforeAll(async () => {
    // The API runs here without a worker; workers are real child processes (with this configuration).
    // A short drain: a worker told to stop hands back a run at once (the run takes seconds more).
    app = await startToolrun({ ENABLE_TEST_TOOLS: true, CANCEL_GRACE_MS: 300, WORKER_DRAIN_MS: 300, HEARTBEAT_INTERVAL_MS: 400, JOB_LOCK_MS: 2000, TASK_REAPER_INTERVAL_MS: 500 }, { worker: false });
    workers = new WorkerProcesses(app.services.config);
  });
  // Every test stops the workers it started, whatever happened (a leftover worker would take the next test's runs).
  afterEach(async () => workers?.stopAll());
  afterAll(async () => app?.close());

  it('cancels a queued run at once, with its artifacts', async () => {
    const session = await newSession(app);
    const run = await spawnRun(app, { sessionId: session.id, tool: 'sleep', args: { ms: 10_000 } });
    const canceled = await app.query(CancelTaskDocument, { id: run.taskId });
    expect(canceled.cancelTask).toMatchObject({ __typename: 'Task', state: 'CANCELED', summary: 'Canceled by request.' });
    expect(await fileContent(app, session.id, run.logPath)).toBe(`\n${CANCELED_LINE}\n`);
    expect(JSON.parse((await fileContent(app, session.id, run.resultPath))!)).toEqual({ status: 'canceled' });
    expect((await messages(app, session.id))[0]!.text.split('\n')[0]).toBe('Background run canceled.');
  });

  it('rejects a heartbeat (and every other write) from a superseded attempt: nothing changes', async () => {
    const session = await newSession(app);
    const run = await spawnRun(app, { sessionId: session.id, tool: 'sleep', args: { ms: 10_000 } });
    const { eventLog, db, taskRecovery: recovery } = app.services;
    const write = <T>(fn: Parameters<typeof eventLog.writeWithPrisma<T>>[1]) => eventLog.writeWithPrisma(session.rowId, fn);
    // No worker runs here: the test plays two workers, attempt 1 and (after re-attach) attempt 2.
    expect(await write((scope) => claimTask(scope, run.taskId, 1, 'test-worker-1'))).toMatchObject({ state: 'RUNNING', attempt: 1 });
    expect(await write((scope) => recordHeartbeat(scope, run.taskId, 1, true))).toEqual({ cancelRequested: false });
    expect(await recovery.recover(run.taskId, 1, 'test: lost', { requireStale: false })).toBe('reattached');
    expect(await write((scope) => claimTask(scope, run.taskId, 2, 'test-worker-2'))).toMatchObject({ state: 'RUNNING', attempt: 2, workerId: 'test-worker-2' });
    await sleep(20);
    const before = await db.task.findUniqueOrThrow({ where: { id: run.taskId } });
    const seqBefore = (await db.session.findUniqueOrThrow({ where: { id: session.rowId } })).eventSeq;

    expect(await write((scope) => recordHeartbeat(scope, run.taskId, 1, true))).toBeNull();
    expect(await write((scope) => recordActivity(scope, run.taskId, 1, { stateDetail: 'stale', progress: { current: 99 } }))).toBe(false);
    expect(await write((scope) => finishTask(scope, run.taskId, { attempt: 1 }, { state: 'SUCCEEDED', summary: 'stale' }))).toBeNull();
    expect(await write((scope) => claimTask(scope, run.taskId, 1, 'test-worker-1'))).toBeNull();
    // Compared field by field (the client keeps private, symbol-keyed state on each row it returns).
    const fields = (row: object) => Object.fromEntries(Object.entries(row));
    expect(fields(await db.task.findUniqueOrThrow({ where: { id: run.taskId } }))).toEqual(fields(before));
    expect((await db.session.findUniqueOrThrow({ where: { id: session.rowId } })).eventSeq).toBe(seqBefore);

    // The current attempt's heartbeat is accepted.
    expect(await write((scope) => recordHeartbeat(scope, run.taskId, 2, true))).toEqual({ cancelRequested: false });
    expect((await db.task.findUniqueOrThrow({ where: { id: run.taskId } })).heartbeatAt!.getTime()).toBeGreaterThan(before.heartbeatAt!.getTime());
    await write((scope) => finishTask(scope, run.taskId, { attempt: 2 }, { state: 'CANCELED', summary: 'Canceled by request.' }));
  });

  it('delivers a cancel to the worker process running the run, without waiting for its heartbeat', async () => {
    // This worker heartbeats every 10 s, so only the cancel channel can stop the run quickly.
    const slow = await workers.start('slow-heartbeat', { HEARTBEAT_INTERVAL_MS: '10000' });
    try {
      const session = await newSession(app);
      const run = await spawnRun(app, { sessionId: session.id, tool: 'sleep', args: { ms: 30_000, progressIntervalMs: 100 } });
      await waitForTask(app, run.taskId, (task) => task.state === 'RUNNING' && (task.progress?.current ?? 0) > 0);
      expect((await getTask(app, run.taskId)).workerId).toBe(slow.workerId);
      const asked = Date.now();
      await app.query(CancelTaskDocument, { id: run.taskId });
      const task = await waitForTask(app, run.taskId, finished, 8000);
      expect(task.state).toBe('CANCELED');
      expect(Date.now() - asked).toBeLessThan(3000);
    } finally {
      await slow.stop();
    }
  });

  it('re-attaches an idempotent run whose worker is SIGKILLed, and it completes on another worker', async () => {
    const [a, b] = await Promise.all([workers.start('a'), workers.start('b')]);
    // Both announced themselves (64 slots each).
    await eventually(async () => (await app.services.background.workerCapacity()) === 128, 10_000);
    const session = await newSession(app);
    const run = await spawnRun(app, { sessionId: session.id, tool: 'report_progress', args: { steps: 15, intervalMs: 100, summary: 'survived' } });
    const running = await waitForTask(app, run.taskId, (task) => task.state === 'RUNNING' && (task.progress?.current ?? 0) >= 3);
    const victim = running.workerId === a.workerId ? a : b;
    const survivor = victim === a ? b : a;
    await victim.kill();

    const task = await waitForTask(app, run.taskId, finished, 20_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${workers.output()}`);
    });
    expect(task).toMatchObject({ state: 'SUCCEEDED', attempt: 2, summary: 'survived', workerId: survivor.workerId });
    expect(task.runId).not.toBe(run.runId);
    expect(task.logPath).toBe(`/.background/${task.runId}/output.log`);
    const oldLog = (await fileContent(app, session.id, run.logPath))!;
    expect(oldLog).toContain('[stdout] step 3/15');
    expect(oldLog).toMatch(/\[system\] the worker running it (was lost|stopped sending heartbeats) \(last heartbeat .*\); re-attached as bg_\w+ \(attempt 2\)/);
    expect(await fileContent(app, session.id, task.logPath!)).toContain('[stdout] step 15/15');
    expect(JSON.parse((await fileContent(app, session.id, task.resultPath!))!)).toEqual({ steps: 15, summary: 'survived' });
    const reattached = await app.services.db.event.findFirst({ where: { taskId: run.taskId, type: 'TaskReattached' } });
    expect(reattached?.payload).toMatchObject({ attempt: 2, previousRunId: run.runId, runId: task.runId });
    const [message, ...more] = await messages(app, session.id);
    expect(more).toHaveLength(0);
    expect(message!.text).toContain(`- run_id: ${task.runId}`);
    await survivor.stop();
  });

  it('hands a run back when its worker shuts down (SIGTERM): re-attached at once, it completes elsewhere', async () => {
    const [a, b] = await Promise.all([workers.start('e'), workers.start('f')]);
    const session = await newSession(app);
    // Far longer than the worker's drain time (WORKER_DRAIN_MS = 0.3 s), even with the
    // stop delayed on a loaded machine, so it is handed back rather than finished.
    const run = await spawnRun(app, { sessionId: session.id, tool: 'report_progress', args: { steps: 60, intervalMs: 50 } });
    const running = await waitForTask(app, run.taskId, (task) => task.state === 'RUNNING' && (task.progress?.current ?? 0) >= 2);
    const leaving = running.workerId === a.workerId ? a : b;
    const staying = leaving === a ? b : a;
    expect(await leaving.stop()).toMatchObject({ code: 0 });
    const task = await waitForTask(app, run.taskId, finished, 20_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${workers.output()}`);
    });
    expect(task).toMatchObject({ state: 'SUCCEEDED', attempt: 2, workerId: staying.workerId });
    const reattached = await app.services.db.event.findFirst({ where: { taskId: run.taskId, type: 'TaskReattached' } });
    expect(reattached?.payload).toMatchObject({ attempt: 2, reason: expect.stringContaining('the worker running it shut down') });
    await staying.stop();
  });

  it('fails a non-idempotent run whose worker is SIGKILLed as orphaned', async () => {
    const [c, d] = await Promise.all([workers.start('c'), workers.start('d')]);
    const session = await newSession(app);
    const run = await spawnRun(app, { sessionId: session.id, tool: 'test_ticker', args: { ticks: 100, intervalMs: 100 } });
    const running = await waitForTask(app, run.taskId, (task) => task.state === 'RUNNING' && (task.progress?.current ?? 0) >= 2);
    const worker = running.workerId === c.workerId ? c : d;
    const rescuer = worker === c ? d : c;
    await worker.kill();
    // The other worker finds the stale heartbeat (its reaper, or BullMQ handing back the stalled job).
    const task = await waitForTask(app, run.taskId, finished, 20_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${workers.output()}`);
    });
    expect(task.state).toBe('FAILED');
    expect(task.attempt).toBe(1);
    expect(task.error).toMatch(/^Background run orphaned: the worker running it .*; `test_ticker` is not idempotent or readonly, so it was not run again\.$/);
    expect(JSON.parse((await fileContent(app, session.id, run.resultPath))!)).toEqual({ status: 'failed', error: task.error });
    expect(await fileContent(app, session.id, run.logPath)).toContain('[stdout] tick 2');
    const [message] = await messages(app, session.id);
    expect(message!.text.split('\n')[0]).toBe('Background run failed.');
    // The ticks written before the kill stay; nothing ran it again.
    const ticks = (await fileContent(app, session.id, '/ticks.log'))!;
    expect(ticks).not.toContain('attempt 2');
    await rescuer.stop();
  });
});
