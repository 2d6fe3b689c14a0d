// The BullMQ worker for tool calls. A `run-calls` job carries up to CALLS_PER_JOB parallel calls of a
// batch, run at once (each in a fair call slot); a `run-lane` job runs a batch's serial calls in
// order until one must wait. The job's concurrency is sized so that the calls in hand roughly fill
// the worker's call slots: enough to stay busy, not so many that one worker hoards a backlog. The
// express queue (a light tenant's jobs: job-dispatcher.ts) is taken by a BullMQ worker of its own,
// with CALLS_EXPRESS_CONCURRENCY job slots, so such a job starts while the main queue's slots are
// all busy with a heavy tenant's jobs. A tenant with a limit on running calls (running-calls.ts)
// runs a job's calls on the permits it got; a job that got none goes back to its queue for a while.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { callRefOf, type RunCallsJob, type RunLaneJob, runCallsAgainJob } from '../domain/calls/call-jobs.js';
import { nextSerialCall } from '../domain/calls/lane.js';
import { rescueCalls } from '../domain/calls/redispatch.js';
import type { EventLog } from '../domain/event-log.js';
import { addJob, type Dispatcher } from '../domain/outbox.js';
import { wakeLane } from '../domain/calls/call-writes.js';
import type { Logger } from '../logger.js';
import type { Queryable } from '../sql.js';
import type { CallRunner, RunResult } from './call-runner.js';
import type { TenantLimitsService } from '../domain/tenants/tenant-limits.js';
import type { JobDispatcher } from './job-dispatcher.js';
import { EXPRESS_QUEUE } from './catalogue.js';
import { createQueueWorker, type JobHandlers, type JobResult } from './queue-worker.js';
import type { Release, RunningCallPermits } from './running-calls.js';

/** Pauses before a failed on-demand check-in is tried again. */
const CHECK_IN_RETRY_PAUSES_MS = [250, 1000];

export interface CallWorkerDeps {
  config: Config;
  sql: Queryable;
  eventLog: EventLog;
  dispatcher: JobDispatcher & Dispatcher;
  connection: Redis;
  runner: CallRunner;
  logger: Logger;
  workerId: string;
  limits: TenantLimitsService;
  permits: RunningCallPermits;
  /** Which incarnation of this worker runs now, and a heartbeat on demand (worker-runtime.ts). */
  identity: WorkerIdentity;
}

export interface WorkerIdentity {
  /** This worker's id now (a new one after it was declared dead and registered again). */
  current(): string;
  /** Beats now; a worker that finds it was declared dead stops what it runs and registers again. */
  checkIn(): Promise<boolean>;
}

/**
 * How long a job of a tenant at its running-call limit waits before it is tried again: longer the
 * further back in the tenant's backlog it is (its priority), so a deep backlog does not spin.
 */
export function atLimitDelayMs(priority: number | undefined, limit: number): number {
  const base = Math.min(10_000, Math.max(250, ((priority ?? 1) / limit) * 100));
  return Math.round(base * (0.75 + Math.random() * 0.5));
}

export class CallWorker {
  /** The BullMQ workers of the main calls queue and of its express twin. */
  readonly workers: readonly Worker[];
  private active = 0;
  private onIdle: (() => void) | null = null;

  constructor(private readonly deps: CallWorkerDeps) {
    const { config } = deps;
    const handlers: JobHandlers<'calls'> = {
      'run-calls': (data, job, { log }) => this.tracked(() => this.runCalls(data, job, log)),
      'run-lane': (data, job, { log }) => this.tracked(() => this.runLane(data, job, log)),
    };
    this.workers = [
      createQueueWorker('calls', handlers, { ...deps, concurrency: Math.ceil(config.WORKER_CONCURRENCY / config.CALLS_PER_JOB) + 1 }),
      createQueueWorker(EXPRESS_QUEUE, handlers, { ...deps, concurrency: config.CALLS_EXPRESS_CONCURRENCY }),
    ];
  }

  start(): void {
    for (const worker of this.workers) void worker.run();
  }

  private async tracked(run: () => Promise<JobResult>): Promise<JobResult> {
    this.active++;
    try {
      return await run();
    } finally {
      if (--this.active === 0) this.onIdle?.();
    }
  }

  /** The permits for `wanted` calls of the tenant: null when it has no limit, [] when it is at it. */
  private async permits(tenantId: string, wanted: number): Promise<{ limit: number; permits: Release[] | null }> {
    const limit = (await this.deps.limits.cached(tenantId)).runningCalls;
    return { limit, permits: limit > 0 ? await this.deps.permits.take(tenantId, wanted, limit) : null };
  }

  private async runCalls(job: RunCallsJob, queued: Job, log: Logger): Promise<JobResult> {
    const { limit, permits } = await this.permits(job.tenantId, job.calls.length);
    if (permits?.length === 0) return { delayMs: atLimitDelayMs(queued.opts.priority, limit) };
    this.deps.dispatcher.started(queued.id, job.tenantId);
    const startedAs = this.deps.identity.current();
    const run = (call: RunCallsJob['calls'][number]) => this.deps.runner.run(callRefOf(job, call), call, { inLane: false, trace: job.trace, log });
    const results = permits ? await inTurns(job.calls, permits, run) : await Promise.all(job.calls.map(run));
    if (await this.declaredDeadSince(startedAs, results)) {
      // Its claims and writes were refused from the moment it was declared dead, and the reaper that
      // declared it may not have seen this job: the calls still queued at their attempt get jobs
      // again (one the reaper did rescue gets a second job, which its attempt fences).
      const rescued = await rescueCalls(this.deps.sql, this.deps.eventLog, this.deps.dispatcher, [job], `abandoned-${randomUUID().slice(0, 8)}`);
      if (rescued > 0) log.warn({ calls: rescued }, 'calls this worker took after it was declared dead were handed back');
      return undefined;
    }
    // Calls this worker did not start (it shuts down, or its slots stayed full) go back to the queue, untouched.
    const stopped = job.calls.filter((_, index) => results[index] === 'stopped');
    if (stopped.length > 0) {
      await this.deps.eventLog.write(job.sessionId, async (scope) => {
        addJob(scope, this.deps.dispatcher, runCallsAgainJob(job, stopped, `handback-${randomUUID().slice(0, 8)}`));
      });
    }
    return undefined;
  }

  /** Runs the batch's serial calls one at a time, in order, until one must wait or all are done. */
  private async runLane(job: RunLaneJob, queued: Job, log: Logger): Promise<JobResult> {
    const { limit, permits } = await this.permits(job.tenantId, 1);
    if (permits?.length === 0) return { delayMs: atLimitDelayMs(queued.opts.priority, limit) };
    try {
      await this.runLaneCalls(job, queued.id, log);
    } finally {
      permits?.[0]?.();
    }
    return undefined;
  }

  private async runLaneCalls(job: RunLaneJob, jobId: string | undefined, log: Logger): Promise<void> {
    this.deps.dispatcher.started(jobId, job.tenantId);
    for (;;) {
      const turn = await nextSerialCall(this.deps.sql, job.batchRowId);
      // A call that waits (for a person, a client, a retry's backoff, another worker) holds the lane;
      // whoever ends the wait wakes the lane again.
      if (!turn || turn.status !== 'QUEUED') return;
      const startedAs = this.deps.identity.current();
      const result = await this.deps.runner.run(callRefOf(job, turn.descriptor), turn.descriptor, { inLane: true, trace: job.trace, log });
      // Stopped here, or declared dead meanwhile (its writes refused): the lane goes on elsewhere.
      if (result === 'stopped' || (await this.declaredDeadSince(startedAs, [result]))) {
        await this.deps.eventLog.write(job.sessionId, async (scope) => wakeLane(scope, this.deps.dispatcher, job));
        return;
      }
      if (result === 'requeued' || result === 'waiting') return;
    }
  }

  /**
   * Whether this worker was declared dead since it was `startedAs`. A call skipped (its claim or
   * write refused) may mean just that: the worker checks in at once rather than at its next beat.
   */
  private async declaredDeadSince(startedAs: string, results: readonly RunResult[]): Promise<boolean> {
    if (this.deps.identity.current() !== startedAs) return true;
    if (!results.includes('skipped')) return false;
    // A beat that fails (a loaded database) says nothing either way: it is tried again, and when it
    // never answers the calls are handed back all the same, since waiting for the next beat would
    // leave them queued without a job until then (a second job for a call is fenced by its attempt).
    for (const pauseMs of [0, ...CHECK_IN_RETRY_PAUSES_MS]) {
      if (pauseMs > 0) await sleep(pauseMs);
      try {
        await this.deps.identity.checkIn();
        return this.deps.identity.current() !== startedAs;
      } catch {
        // tried again below
      }
    }
    return true;
  }

  /**
   * Stops taking jobs, waits (at most `maxWaitMs`) for those in hand — their calls drain, or are
   * handed back when the runtime's shutdown signal fires — then closes, without waiting on a Redis
   * that may be away.
   */
  async close(maxWaitMs: number): Promise<void> {
    const within = (promise: Promise<unknown>, ms: number) =>
      Promise.race([promise.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, ms).unref())]);
    await within(Promise.all(this.workers.map((worker) => worker.pause(true))), 1000);
    if (this.active > 0) await within(new Promise<void>((resolve) => (this.onIdle = resolve)), maxWaitMs);
    await within(Promise.all(this.workers.map((worker) => worker.close(true))), 2000);
  }
}

/** Runs `items` with as many at once as there are permits; each permit is released when no item is left for it. */
async function inTurns<T, R>(items: readonly T[], permits: Release[], run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    permits.map(async (release) => {
      try {
        while (next < items.length) {
          const index = next++;
          results[index] = await run(items[index]!);
        }
      } finally {
        release();
      }
    }),
  );
  return results;
}
