// The BullMQ worker for tool calls. A `run-calls` job carries up to CALLS_PER_JOB parallel calls of a
// batch, run at once (each in a fair call slot); a `run-lane` job runs a batch's serial calls in
// order until one must wait. The job's concurrency is sized so that the calls in hand roughly fill
// the worker's call slots: enough to stay busy, not so many that one worker hoards a backlog.
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { callRefOf, type RunCallsJob, type RunLaneJob, runCallJob } from '../domain/calls/call-jobs.js';
import { nextSerialCall } from '../domain/calls/lane.js';
import type { EventLog } from '../domain/event-log.js';
import { addJob, type Dispatcher } from '../domain/outbox.js';
import { wakeLane } from '../domain/calls/call-writes.js';
import type { Logger } from '../logger.js';
import { withLogContext } from '../logging/context.js';
import type { Queryable } from '../sql.js';
import type { CallRunner } from './call-runner.js';
import type { JobDispatcher } from './job-dispatcher.js';
import { createQueueWorker } from './queue-worker.js';

export interface CallWorkerDeps {
  config: Config;
  sql: Queryable;
  eventLog: EventLog;
  dispatcher: JobDispatcher & Dispatcher;
  connection: Redis;
  runner: CallRunner;
  logger: Logger;
  workerId: string;
}

export class CallWorker {
  readonly worker: Worker;
  private active = 0;
  private onIdle: (() => void) | null = null;

  constructor(private readonly deps: CallWorkerDeps) {
    const { config } = deps;
    this.worker = createQueueWorker(
      'calls',
      {
        'run-calls': (data) => this.tracked(() => this.runCalls(data)),
        'run-lane': (data) => this.tracked(() => this.runLane(data)),
      },
      { ...deps, concurrency: Math.ceil(config.WORKER_CONCURRENCY / config.CALLS_PER_JOB) + 1 },
    );
  }

  start(): void {
    void this.worker.run();
  }

  private async tracked(run: () => Promise<void>): Promise<undefined> {
    this.active++;
    try {
      await run();
    } finally {
      if (--this.active === 0) this.onIdle?.();
    }
    return undefined;
  }

  private async runCalls(job: RunCallsJob): Promise<void> {
    this.deps.dispatcher.started(job.tenantId, job.weight);
    const results = await Promise.all(job.calls.map((call) => this.deps.runner.run(callRefOf(job, call), call, { inLane: false })));
    // Calls this worker did not start before shutting down go back to the queue, untouched.
    const stopped = job.calls.filter((_, index) => results[index] === 'stopped');
    if (stopped.length > 0) {
      await this.deps.eventLog.write(job.sessionId, async (scope) => {
        for (const call of stopped) addJob(scope, this.deps.dispatcher, runCallJob(job, call, 0, `handback-${this.deps.workerId}`));
      });
    }
  }

  /** Runs the batch's serial calls one at a time, in order, until one must wait or all are done. */
  private async runLane(job: RunLaneJob): Promise<void> {
    this.deps.dispatcher.started(job.tenantId, job.weight);
    for (;;) {
      const turn = await nextSerialCall(this.deps.sql, job.batchRowId);
      // A call that waits (for a person, a client, a retry's backoff, another worker) holds the lane;
      // whoever ends the wait wakes the lane again.
      if (!turn || turn.status !== 'QUEUED') return;
      const result = await this.deps.runner.run(callRefOf(job, turn.descriptor), turn.descriptor, { inLane: true });
      if (result === 'stopped') {
        await this.deps.eventLog.write(job.sessionId, async (scope) => wakeLane(scope, this.deps.dispatcher, job));
        return;
      }
      if (result === 'requeued' || result === 'waiting') return;
    }
  }

  /**
   * Stops taking jobs, waits (at most `maxWaitMs`) for those in hand — their calls drain, or are
   * handed back when the runtime's shutdown signal fires — then closes, without waiting on a Redis
   * that may be away.
   */
  async close(maxWaitMs: number): Promise<void> {
    const within = (promise: Promise<unknown>, ms: number) =>
      Promise.race([promise.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, ms).unref())]);
    await within(this.worker.pause(true), 1000);
    if (this.active > 0) await within(new Promise<void>((resolve) => (this.onIdle = resolve)), maxWaitMs);
    await within(this.worker.close(true), 2000);
  }
}
