// The jobs that run calls, as the domain writes them to the outbox. A `run-calls` job carries all a
// worker needs for up to CALLS_PER_JOB parallel calls of one batch (args included when small), so a
// worker reads nothing back before running them; a `run-lane` job runs a batch's serial calls in
// order. Job ids are deterministic: resubmitting or relaying the same work adds nothing twice.
import { currentTraceCarrier, type TraceCarrier } from '../../telemetry/tracing.js';
import type { OutboxJob } from '../outbox.js';
import type { CallRef } from './call-folds.js';

/** Args larger than this (as JSON) are read from the database by the worker instead. */
export const INLINE_ARGS_LIMIT = 8 * 1024;

export interface CallDescriptor {
  id: string;
  callId: string;
  tool: string;
  /** Absent when too large to carry: the worker reads it. */
  args?: unknown;
  attempt: number;
  maxAttempts: number;
  timeoutMs: number;
  scheduling: 'PARALLEL' | 'SERIAL';
}

export interface BatchScope {
  tenantId: string;
  sessionId: string;
  batchRowId: string;
  batchId: string;
}

export interface RunCallsJob extends BatchScope {
  weight: number;
  calls: CallDescriptor[];
  /** The trace of the work that wrote the job, when tracing is on. */
  trace?: TraceCarrier;
}

export interface RunLaneJob extends BatchScope {
  weight: number;
  gen: number;
  trace?: TraceCarrier;
}

/** The active trace (when there is one) for a job's data, in place of any its scope came with. */
function activeTrace(): { trace: TraceCarrier } | undefined {
  const trace = currentTraceCarrier();
  return trace && { trace };
}

/** What a job carries of a call: its descriptor fields only (not whatever else the caller's object holds). */
export function describeCall(call: Omit<CallDescriptor, 'args'> & { args: unknown }): CallDescriptor {
  const { id, callId, tool, attempt, maxAttempts, timeoutMs, scheduling, args } = call;
  const descriptor: CallDescriptor = { id, callId, tool, attempt, maxAttempts, timeoutMs, scheduling };
  if (JSON.stringify(args ?? null).length <= INLINE_ARGS_LIMIT) descriptor.args = args;
  return descriptor;
}

export function callRefOf(scope: BatchScope, call: CallDescriptor): CallRef {
  return {
    id: call.id,
    tenantId: scope.tenantId,
    sessionId: scope.sessionId,
    batchRowId: scope.batchRowId,
    batchId: scope.batchId,
    callId: call.callId,
    tool: call.tool,
    attempt: call.attempt,
    maxAttempts: call.maxAttempts,
    timeoutMs: call.timeoutMs,
    scheduling: call.scheduling,
  };
}

/** The jobs that first run a batch's queued parallel calls: chunks of `perJob`, in batch order. */
export function runCallsJobs(scope: BatchScope, calls: CallDescriptor[], perJob: number): OutboxJob[] {
  const jobs: OutboxJob[] = [];
  for (let start = 0; start < calls.length; start += perJob) {
    const chunk = calls.slice(start, start + perJob);
    jobs.push({
      jobId: `run:${scope.batchRowId}:${start / perJob}`,
      queue: 'calls',
      name: 'run-calls',
      data: { ...scope, weight: chunk.length, calls: chunk, ...activeTrace() } satisfies RunCallsJob,
    });
  }
  return jobs;
}

/**
 * A job id that differs from `jobId` by `tag` (another dispatch of the same work). BullMQ takes ids
 * of exactly three colon-separated parts, so the tag goes into the last part.
 */
export function tagged(jobId: string, tag: string): string {
  return `${jobId}-${tag.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** The id of the job that runs call row `callRowId` alone as `attempt` (runCallJob, untagged). */
export function callJobId(callRowId: string, attempt: number): string {
  return `run:${callRowId}:${attempt}`;
}

/** The job that runs one call as `call.attempt` (a retry, an approved call, a recovered one); `tag` dispatches it anew. */
export function runCallJob(scope: BatchScope, call: CallDescriptor, delayMs = 0, tag?: string): OutboxJob {
  const jobId = callJobId(call.id, call.attempt);
  return {
    jobId: tag ? tagged(jobId, tag) : jobId,
    queue: 'calls',
    name: 'run-calls',
    data: { ...scope, weight: 1, calls: [call], ...activeTrace() } satisfies RunCallsJob,
    delayMs,
  };
}

/**
 * One job for calls of one batch that run again together (handed back by a stopping worker, rescued
 * from a lost one): as many calls as they were in one job before, so they run side by side again
 * rather than one job slot each.
 */
export function runCallsAgainJob(scope: BatchScope, calls: CallDescriptor[], tag: string): OutboxJob {
  const first = calls[0]!;
  return {
    jobId: tagged(callJobId(first.id, first.attempt), tag),
    queue: 'calls',
    name: 'run-calls',
    data: { ...scope, weight: calls.length, calls, ...activeTrace() } satisfies RunCallsJob,
  };
}

/** The job that runs a batch's serial calls from where they stand; `gen` makes each wake-up a new job. */
export function runLaneJob(scope: BatchScope, gen: number, delayMs = 0): OutboxJob {
  return {
    jobId: `lane:${scope.batchRowId}:${gen}`,
    queue: 'calls',
    name: 'run-lane',
    data: { ...scope, weight: 1, gen, ...activeTrace() } satisfies RunLaneJob,
    delayMs,
  };
}
