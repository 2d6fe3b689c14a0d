// Schedules paused, resumed and triggered by hand (pauseSchedule, resumeSchedule, triggerSchedule),
// and a one-shot time in the past refused. Real PostgreSQL, Redis, API and an in-process worker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelScheduleDocument, ListSchedulesDocument, PauseScheduleDocument, ResumeScheduleDocument, TriggerScheduleDocument } from '../gql/graphql.js';
import { finished, spawn, waitForTask } from '../support/background.js';
import { newSession } from '../support/fixtures.js';
import { genericPlanOf, sentSince } from '../support/plans.js';
import type { Db } from '../../src/db.js';
import { TaskStore } from '../../src/domain/tasks/store.js';
import { toStorable } from '../../src/model/storable-json.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';
import { eventually } from '../support/wait.js';

let app: Toolrun;
beforeAll(async () => {
  app = await startToolrun({ ENABLE_TEST_TOOLS: true, SCHEDULE_ALLOW_SECONDS: true, TENANT_MAX_BACKGROUND_RUNS: 64, TASK_REAPER_INTERVAL_MS: 500 });
});
afterAll(async () => app?.close());

const pause = async (id: string, key?: string) => (await app.query(PauseScheduleDocument, { id }, key)).pauseSchedule;
const resume = async (id: string, key?: string) => (await app.query(ResumeScheduleDocument, { id }, key)).resumeSchedule;
const trigger = async (id: string, key?: string) => (await app.query(TriggerScheduleDocument, { id }, key)).triggerSchedule;
const runsOf = (scheduleId: string) => app.services.db.task.count({ where: { scheduleId, kind: 'background_tool' } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function createSchedule(schedule: { cronExpression?: string; scheduledAt?: string }) {
  const session = await newSession(app);
  const created = await spawn(app, { sessionId: session.id, tool: 'report_progress', args: { steps: 1, intervalMs: 0 }, title: 'scheduled', schedule });
  if (created.__typename !== 'ScheduledMonitor') throw new Error(JSON.stringify(created));
  return { session, created };
}

describe('schedule controls', () => {
  it('the task reaper reads the live schedules through their index, not every schedule ever made', async () => {
    // Every pass of every worker (5 s) looks for missed one-shots and counts the cron schedules;
    // fired one-shots and cancelled schedules stay in the table, disabled, for good.
    const from = app.queries.length;
    await app.services.tasks.missedOneShots(200);
    await app.services.tasks.enabledCronSchedules();
    // The two reads as sent (Prisma's or raw SQL; not a read of the rows of missed ones by id).
    const reads = [...new Set(sentSince(app, from, /FROM ("public"\.)?"?schedule"?\s+WHERE[\s\S]*type/).filter((text) => !text.includes('"id" IN')))];
    expect(reads.length).toBeGreaterThanOrEqual(2);
    for (const text of reads) expect.soft(await genericPlanOf(app, text, 'schedule_live_idx', 'schedule'), text).toContain('"Index Name":"schedule_live_idx"');
  });

  it('the task reaper finds the same missed one-shots and counts the same cron schedules as Prisma’s reads of them', async () => {
    const { rowId } = await newSession(app);
    const past = new Date(Date.now() - 60_000);
    const rolledBack = new Error('rolled back');
    // Rows of a transaction rolled back, so that no reaper sees (and fires) them.
    await app.services.db
      .$transaction(async (tx) => {
        for (const data of [
          { type: 'ONCE', scheduledAt: past, spec: toStorable({ title: 'missed', text: 'a\u0000b' }) },
          { type: 'ONCE', scheduledAt: past, spec: {}, pausedAt: new Date() },
          { type: 'ONCE', scheduledAt: past, spec: {}, enabled: false },
          { type: 'ONCE', scheduledAt: new Date(Date.now() + 60_000), spec: {} },
          { type: 'CRON', cronExpression: '0 0 * * *', spec: {} },
          { type: 'CRON', cronExpression: '0 0 * * *', spec: {}, pausedAt: new Date() },
          { type: 'CRON', cronExpression: '0 0 * * *', spec: {}, enabled: false },
        ]) {
          await tx.schedule.create({ data: { sessionId: rowId, ...data } });
        }
        const store = new TaskStore(tx as unknown as Db);
        // The rows in id order, as JSON (Prisma's rows are proxies that compute the restored spec).
        const byId = (rows: Array<{ id: string }>) => JSON.stringify([...rows].sort((a, b) => a.id.localeCompare(b.id)));
        const missed = await store.missedOneShots(200);
        // The rows as Prisma reads them: the spec restored from its stored form.
        expect(missed.find((schedule) => (schedule.spec as { title?: string }).title === 'missed')?.spec).toEqual({ title: 'missed', text: 'a\u0000b' });
        expect(byId(missed)).toEqual(byId(await tx.schedule.findMany({ where: { enabled: true, pausedAt: null, type: 'ONCE', scheduledAt: { lt: new Date(Date.now() - 30_000) } }, take: 200 })));
        expect(await store.enabledCronSchedules()).toBe(await tx.schedule.count({ where: { enabled: true, pausedAt: null, type: 'CRON' } }));
        throw rolledBack;
      })
      .catch((error: unknown) => {
        if (error !== rolledBack) throw error;
      });
  });

  it('a paused schedule fires nothing; resumed, it fires again from now', async () => {
    const { session, created } = await createSchedule({ cronExpression: '* * * * * *' });
    const id = created.scheduleId;
    await eventually(async () => (await runsOf(id)) >= 1, 10_000);

    const paused = await pause(id);
    expect(paused).toMatchObject({ __typename: 'Schedule', enabled: true, status: 'PAUSED', paused: true, nextTriggerAt: null, task: { state: 'RUNNING' } });
    expect(paused.__typename === 'Schedule' && paused.pausedAt).toBeTruthy();
    expect(paused.__typename === 'Schedule' && paused.task?.stateDetail).toMatch(/^Paused at /);
    // Pausing again is a no-op.
    expect(await pause(id)).toMatchObject({ __typename: 'Schedule', status: 'PAUSED', pausedAt: paused.__typename === 'Schedule' ? paused.pausedAt : null });
    await eventually(async () => !(await app.services.queues.tasks.getJobScheduler(`schedule-${id}`)));
    // Firings already queued run out; after that, nothing fires for a while.
    await sleep(1500);
    const whilePaused = await runsOf(id);
    await sleep(2500);
    expect(await runsOf(id)).toBe(whilePaused);
    // A firing that still arrives starts nothing.
    expect(await app.services.background.fireSchedule(id, `${id}:late`)).toBeNull();

    // Listed as paused, and not among the schedules that are not paused.
    const listed = (paused: boolean) => app.query(ListSchedulesDocument, { sessionId: session.id, paused }).then((result) => result.schedules.nodes.map((node) => node.scheduleId));
    expect(await listed(true)).toEqual([id]);
    expect(await listed(false)).toEqual([]);

    const before = Date.now();
    const resumed = await resume(id);
    expect(resumed).toMatchObject({ __typename: 'Schedule', enabled: true, status: 'ACTIVE', paused: false, pausedAt: null });
    const next = Date.parse((resumed as { nextTriggerAt: string }).nextTriggerAt);
    // Computed from now: the next second, not a trigger time from before the pause.
    expect(next).toBeGreaterThan(before - 1000);
    expect(next).toBeLessThanOrEqual(Date.now() + 1000);
    expect(await resume(id)).toMatchObject({ __typename: 'Schedule', status: 'ACTIVE' });
    await eventually(async () => (await runsOf(id)) >= whilePaused + 2, 10_000);
    expect(await listed(false)).toEqual([id]);
    await app.query(CancelScheduleDocument, { id });
  });

  it('triggerSchedule starts one run now and leaves the cadence alone, paused or not', async () => {
    const { created } = await createSchedule({ cronExpression: '0 3 * * *' });
    const id = created.scheduleId;
    const run = await trigger(id);
    if (run.__typename !== 'Task') throw new Error(JSON.stringify(run));
    expect(run).toMatchObject({ kind: 'background_tool', tool: 'report_progress', schedule: { scheduleId: id } });
    expect(run.runId).toMatch(/^bg_/);
    expect((await waitForTask(app, run.taskId, finished)).state).toBe('SUCCEEDED');
    const [schedule] = (await app.query(ListSchedulesDocument, { sessionId: (await app.services.db.schedule.findUniqueOrThrow({ where: { id } })).sessionId })).schedules.nodes;
    expect(schedule).toMatchObject({ status: 'ACTIVE', nextTriggerAt: created.nextTriggerAt, runs: [{ taskId: run.taskId }] });
    expect(schedule!.lastTriggerAt).not.toBeNull();
    expect(schedule!.task!.stateDetail).toMatch(/^Triggered at .*: started bg_.*; next trigger at /);

    // Paused, a trigger still runs once, and the schedule stays paused.
    await pause(id);
    const second = await trigger(id);
    expect(second).toMatchObject({ __typename: 'Task', kind: 'background_tool' });
    expect(await pause(id)).toMatchObject({ status: 'PAUSED', nextTriggerAt: null });
    expect(await runsOf(id)).toBe(2);
    await app.query(CancelScheduleDocument, { id });
  });

  it('a one-shot paused past its time fires at once when resumed', async () => {
    const { created } = await createSchedule({ scheduledAt: new Date(Date.now() + 1500).toISOString() });
    const id = created.scheduleId;
    expect(await pause(id)).toMatchObject({ status: 'PAUSED' });
    await sleep(2500);
    expect(await runsOf(id)).toBe(0);
    const resumed = await resume(id);
    expect(resumed).toMatchObject({ status: 'ACTIVE' });
    const monitor = await waitForTask(app, created.taskId, finished);
    expect(monitor).toMatchObject({ state: 'SUCCEEDED', summary: expect.stringMatching(/^Fired at .*: started bg_/) });
    expect(await runsOf(id)).toBe(1);
    // Fired: it is FINISHED, and cannot be paused, resumed or triggered.
    expect(await pause(id)).toMatchObject({ __typename: 'InvalidStateError', code: 'INVALID_STATE', state: 'FINISHED' });
  });

  it('answers typed errors: unknown or another tenant’s schedule, a canceled one, a reader key', async () => {
    const { created } = await createSchedule({ cronExpression: '0 3 * * *' });
    const id = created.scheduleId;
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const answer of [await pause(unknown), await resume(unknown), await trigger(unknown)]) {
      expect(answer).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    }
    const otherTenant = await app.newKey(undefined, ['submitter']);
    for (const answer of [await pause(id, otherTenant), await resume(id, otherTenant), await trigger(id, otherTenant)]) {
      expect(answer).toMatchObject({ __typename: 'NotFoundError' });
    }
    const reader = await app.newKey((await app.services.db.tenant.findUniqueOrThrow({ where: { id: app.tenantId } })).name, ['reader']);
    for (const answer of [await pause(id, reader), await resume(id, reader), await trigger(id, reader)]) {
      expect(answer).toMatchObject({ __typename: 'ForbiddenError' });
    }
    expect(await runsOf(id)).toBe(0);
    await app.query(CancelScheduleDocument, { id });
    expect(await pause(id)).toMatchObject({ __typename: 'InvalidStateError', state: 'CANCELED' });
    expect(await resume(id)).toMatchObject({ __typename: 'InvalidStateError', state: 'CANCELED' });
    expect(await trigger(id)).toMatchObject({ __typename: 'InvalidStateError', scheduleState: 'CANCELED' });
    expect(await runsOf(id)).toBe(0);
    const [listed] = (await app.query(ListSchedulesDocument, { sessionId: (await app.services.db.schedule.findUniqueOrThrow({ where: { id } })).sessionId })).schedules.nodes;
    expect(listed).toMatchObject({ status: 'CANCELED', paused: false, enabled: false });
  });

  it('refuses a one-shot time in the past with InvalidScheduleError on schedule.scheduledAt', async () => {
    const session = await newSession(app);
    const refused = await spawn(app, { sessionId: session.id, tool: 'report_progress', args: { steps: 1 }, schedule: { scheduledAt: new Date(Date.now() - 60_000).toISOString() } });
    expect(refused).toMatchObject({ __typename: 'InvalidScheduleError', field: 'schedule.scheduledAt' });
    expect((refused as { message: string }).message).toContain('in the past');
    expect(await app.services.db.schedule.count({ where: { sessionId: session.rowId } })).toBe(0);
  });
});
