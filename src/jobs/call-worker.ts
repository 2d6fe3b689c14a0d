// The BullMQ worker for tool calls: parallel calls run as one job each, the serial calls of a
// batch as one lane job that runs them in batch order. Retries re-delay the same job, which
// frees the worker slot during the backoff.
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { CallStore } from '../domain/calls/store.js';
import type { Logger } from '../logger.js';
import { withLogContext } from '../logging/context.js';
import type { JobCatalogue } from './catalogue.js';
import type { CallRunner, RunVerdict } from './call-runner.js';
import type { CancelRegistry } from './cancel-registry.js';
import { closeWithGrace, createQueueWorker, type JobResult } from './queue-worker.js';

export interface CallWorkerDeps {
  config: Config;
  calls: CallStore;
  connection: Redis;
  runner: CallRunner;
  cancels: CancelRegistry;
  logger: Logger;
  workerId: string;
}

const asResult = (verdict: RunVerdict): JobResult => (verdict.kind === 'retry' ? { delayMs: verdict.delayMs } : undefined);

export class CallWorker {
  readonly worker: Worker;
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(private readonly deps: CallWorkerDeps) {
    const { config, runner } = deps;
    this.worker = createQueueWorker(
      'calls',
      {
        'run-call': async (data, _job, signal) => asResult(await runner.run(data.sessionId, data.callRowId, signal)),
        'run-serial-lane': async (data, _job, signal) => asResult(await this.runLane(data, signal)),
      },
      { ...deps, concurrency: config.WORKER_CONCURRENCY },
    );
  }

  start(): void {
    void this.worker.run();
    this.heartbeat = setInterval(() => void this.beat(), this.deps.config.HEARTBEAT_INTERVAL_MS);
  }

  /** Runs the batch's serial calls one at a time, in order, until one must wait or all are done. */
  private async runLane(data: JobCatalogue['run-serial-lane'], signal?: AbortSignal): Promise<RunVerdict> {
    for (;;) {
      const next = await this.deps.calls.nextSerial(data.batchRowId);
      // A call waiting for a person or an external completion holds the lane; whoever ends
      // the wait enqueues the lane again.
      if (!next || next.status === 'AWAITING_APPROVAL' || next.status === 'PENDING_EXTERNAL') return { kind: 'done' };
      // Each call of the lane logs with its own call id.
      const verdict = await withLogContext({}, () => this.deps.runner.run(data.sessionId, next.id, signal));
      if (verdict.kind === 'retry') return verdict;
      if (signal?.aborted) return { kind: 'retry', delayMs: 0 };
    }
  }

  /** Records liveness of the calls running here, and picks up cancels whose signal was missed. */
  private async beat(): Promise<void> {
    const ids = this.deps.cancels.ids();
    if (ids.length === 0) return;
    try {
      for (const id of await this.deps.calls.heartbeat(ids)) this.deps.cancels.cancel(id);
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'call heartbeat failed');
    }
  }

  /** Stops taking jobs; running calls get `graceMs` to finish, then are handed back to the queue. */
  async close(graceMs: number): Promise<void> {
    try {
      await closeWithGrace(this.worker, graceMs);
    } finally {
      // Calls still finishing during the grace period keep their heartbeat until they are done.
      if (this.heartbeat) clearInterval(this.heartbeat);
    }
  }
}
