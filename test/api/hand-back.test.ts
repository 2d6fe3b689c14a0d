// A worker told to stop hands back what it holds: a running rerunnable call as its next attempt, the
// calls of a job it had not started yet (waiting for a call slot) as they came, several to a job, so
// the next worker runs them side by side, not one job slot each. And single-call jobs, as agents
// send them, run as many at once as the worker has call slots, not as many as it has job slots.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunCallsJob } from '../../src/domain/calls/call-jobs.js';
import { QUEUED } from '../../src/domain/calls/redispatch.js';
import { genericPlanOf } from '../support/plans.js';
import { newSession, submitBatch } from '../support/fixtures.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';
import { eventually } from '../support/wait.js';

describe('a stopping worker', () => {
  let app: Toolrun;
  beforeAll(async () => {
    // One job of 8 calls, call slots for 4 of them.
    app = await startToolrun({ WORKER_CONCURRENCY: 4, CALLS_PER_JOB: 8, CALLS_EXPRESS_CONCURRENCY: 1, WORKER_NEWCOMER_SLOTS: 0 });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('hands back the calls of a job it had not started as one job', async () => {
    const { id: sessionId, rowId } = await newSession(app);
    await submitBatch(app, { sessionId, calls: Array.from({ length: 8 }, (_, i) => ({ id: `s${i}`, tool: 'sleep', args: { ms: 60_000 } })) });
    const count = (status: 'RUNNING' | 'QUEUED') => app.services.db.toolCall.count({ where: { sessionId: rowId, status } });
    await eventually(async () => (await count('RUNNING')) === 4, 15_000, 50, '4 calls running, 4 waiting for a call slot');
    await app.worker!.stop(100);
    expect(await count('QUEUED')).toBe(8);
    const jobs = await eventually(async () => {
      const all = [...(await app.services.queues.calls.getJobs(['waiting', 'prioritized', 'delayed'])), ...(await app.services.queues.express.getJobs(['waiting', 'prioritized', 'delayed']))];
      return all.length >= 5 ? all : null;
    }, 10_000, 50, 'the jobs handed back');
    // The 4 calls it never started (attempt 1) come back together. (A running call, requeued as its
    // next attempt, may be taken and handed back again by the stopping worker: that job is apart.)
    const notStarted = jobs.filter((job) => (job.data as RunCallsJob).calls.some((call) => call.attempt === 1));
    expect(notStarted.map((job) => (job.data as RunCallsJob).calls.map((call) => call.callId).sort())).toEqual([['s4', 's5', 's6', 's7']]);
  });
});

describe('single-call jobs', () => {
  let app: Toolrun;
  beforeAll(async () => {
    app = await startToolrun();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('of a light tenant run as many at once as there are call slots', async () => {
    const { id: sessionId, rowId } = await newSession(app);
    for (let i = 0; i < 12; i++) await submitBatch(app, { sessionId, calls: [{ id: `one-${i}`, tool: 'sleep', args: { ms: 60_000 } }] });
    await eventually(async () => (await app.services.db.toolCall.count({ where: { sessionId: rowId, status: 'RUNNING' } })) === 12, 15_000, 50, 'all 12 running at once');
  });
});

describe('the queued calls given new jobs after Redis lost its data', () => {
  let app: Toolrun;
  beforeAll(async () => {
    app = await startToolrun({}, { worker: false });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('are read through the index of unfinished calls, not by reading every call ever made', async () => {
    // No tenant: the whole index of unfinished calls (every tenant's), never the finished ones.
    expect(await genericPlanOf(app, QUEUED.text, 'tool_call_unfinished_idx')).toContain('"Index Name":"tool_call_unfinished_idx"');
  });
});
