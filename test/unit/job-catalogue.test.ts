import { describe, expect, it } from 'vitest';
import { type CallDescriptor, describeCall, INLINE_ARGS_LIMIT, runCallJob, runCallsJobs, runLaneJob, tagged } from '../../src/domain/calls/call-jobs.js';
import { jobIdOf } from '../../src/jobs/catalogue.js';

const scope = { tenantId: 't', sessionId: 's', batchRowId: 'b0000000-0000-4000-8000-000000000002', batchId: 'tool-batch:x' };
const call = (index: number): CallDescriptor => ({ id: `c${index}`, callId: `call-${index}`, tool: 'add', args: { a: index }, attempt: 1, maxAttempts: 1, timeoutMs: 1000, scheduling: 'PARALLEL' });

describe('the job catalogue', () => {
  it('carries a batch’s parallel calls in chunks, in batch order, with ids derived from the batch', () => {
    const jobs = runCallsJobs(scope, Array.from({ length: 5 }, (_, index) => call(index)), 2);
    expect(jobs.map((job) => job.jobId)).toEqual([`run:${scope.batchRowId}:0`, `run:${scope.batchRowId}:1`, `run:${scope.batchRowId}:2`]);
    expect(jobs.map((job) => (job.data.calls as CallDescriptor[]).map((each) => each.callId))).toEqual([['call-0', 'call-1'], ['call-2', 'call-3'], ['call-4']]);
    expect(jobs[0]!.data).toMatchObject({ tenantId: 't', weight: 2 });
  });

  it('gives one call’s later attempt, and each wake-up of a lane, ids of their own', () => {
    expect(runCallJob(scope, { ...call(7), attempt: 3 }, 500)).toMatchObject({ jobId: 'run:c7:3', delayMs: 500, data: { weight: 1 } });
    expect(runLaneJob(scope, 4).jobId).toBe(`lane:${scope.batchRowId}:4`);
    expect(jobIdOf({ name: 'run-task', data: { sessionId: 's', taskId: 't', attempt: 2 } })).toBe('task-t-2');
    expect(jobIdOf({ name: 'fire-schedule', data: { sessionId: 's', scheduleId: 'x' } })).toBe('schedule-x');
  });

  it('carries args inline only while they are small', () => {
    expect(describeCall({ ...call(1), args: { a: 1 } }).args).toEqual({ a: 1 });
    expect('args' in describeCall({ ...call(1), args: { big: 'x'.repeat(INLINE_ARGS_LIMIT) } })).toBe(false);
  });
});

describe('job ids', () => {
  it('always have the three colon-separated parts BullMQ accepts, tags included', () => {
    const ids = [
      runCallsJobs(scope, [call(1)], 1)[0]!.jobId,
      runCallJob(scope, call(1), 0, 'handback-host:1234').jobId,
      runLaneJob(scope, 2).jobId,
      tagged(runLaneJob(scope, 2).jobId, 'r:1'),
    ];
    for (const id of ids) expect(id.split(':'), id).toHaveLength(3);
  });
});
