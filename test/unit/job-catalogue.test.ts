import { describe, expect, it } from 'vitest';
import { callJob, jobIdOf, laneJob } from '../../src/jobs/catalogue.js';

const call = { id: 'c0ffee00-0000-4000-8000-000000000001', sessionId: 's', batchRowId: 'b0000000-0000-4000-8000-000000000002' };

describe('the job catalogue', () => {
  it('runs a parallel call as a job of its own and a serial one in its batch lane', () => {
    expect(callJob({ ...call, scheduling: 'PARALLEL' })).toEqual({ name: 'run-call', data: { sessionId: 's', callRowId: call.id } });
    expect(callJob({ ...call, scheduling: 'SERIAL' })).toEqual(laneJob(call));
    expect(laneJob(call)).toEqual({ name: 'run-serial-lane', data: { sessionId: 's', batchRowId: call.batchRowId } });
  });

  it('derives job ids from the rows they act on, so the same work is enqueued once', () => {
    expect(jobIdOf(callJob({ ...call, scheduling: 'PARALLEL' }))).toBe(`call-${call.id}`);
    expect(jobIdOf(callJob({ ...call, id: 'other', scheduling: 'SERIAL' }))).toBe(jobIdOf(laneJob(call)));
    expect(jobIdOf({ name: 'run-task', data: { sessionId: 's', taskId: 't', attempt: 2 } })).toBe('task-t-2');
    expect(jobIdOf({ name: 'fire-schedule', data: { sessionId: 's', scheduleId: 'x' } })).toBe('schedule-x');
  });
});
