// The BullMQ worker for tool calls: parallel calls run as one job each, the serial calls of a
// batch as one lane job that runs them in batch order. Retries re-delay the same job, which
// frees the worker slot during the backoff.
import { DelayedError, type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Db } from '../db.js';
import type { Logger } from '../logger.js';
import { withLogContext } from '../logging/context.js';
import type { CallRunner, RunVerdict } from './call-runner.js';
import type { CancelRegistry } from './cancel-registry.js';
import { type JobCatalogue, QUEUES } from './queues.js';
import { logWorkerProblems, workerOptions } from './worker-options.js';

export interface CallWorkerDeps {
  config: Config;
  db: Db;
  connection: Redis;
  runner: CallRunner;
  cancels: CancelRegistry;
  logger: Logger;
  workerId: string;
}

export class CallWorker {
  readonly worker: Worker;
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(private readonly deps: CallWorkerDeps) {
    const { config, connection } = deps;
    this.worker = new Worker(
      QUEUES.calls,
      (job, token, signal) =>
        withLogContext({ jobId: job.id, sessionId: (job.data as { sessionId?: string }).sessionId }, async () => {
          await this.process(job, token, signal);
          deps.logger.debug({ job: job.name }, 'job done');
        }),
      workerOptions(config, connection, deps.workerId, config.WORKER_CONCURRENCY),
    );
    logWorkerProblems(this.worker, deps.logger, 'call');
  }

  start(): void {
    void this.worker.run();
    this.heartbeat = setInterval(() => void this.beat(), this.deps.config.HEARTBEAT_INTERVAL_MS);
  }

  private async process(job: Job, token: string | undefined, signal?: AbortSignal): Promise<void> {
    let verdict: RunVerdict;
    if (job.name === 'run-call') {
      const data = job.data as JobCatalogue['run-call'];
      verdict = await this.deps.runner.run(data.sessionId, data.callRowId, signal);
    } else if (job.name === 'run-serial-lane') {
      verdict = await this.runLane(job.data as JobCatalogue['run-serial-lane'], signal);
    } else {
      throw new Error(`unknown job ${job.name}`);
    }
    if (verdict.kind === 'retry' && token) {
      await job.moveToDelayed(Date.now() + verdict.delayMs, token);
      throw new DelayedError();
    }
  }

  /** Runs the batch's serial calls one at a time, in order, until one must wait or all are done. */
  private async runLane(data: JobCatalogue['run-serial-lane'], signal?: AbortSignal): Promise<RunVerdict> {
    for (;;) {
      const next = await this.deps.db.toolCall.findFirst({
        where: { batchRowId: data.batchRowId, scheduling: 'SERIAL', status: { in: ['QUEUED', 'RUNNING', 'AWAITING_APPROVAL', 'PENDING_EXTERNAL'] } },
        orderBy: { position: 'asc' },
        select: { id: true, status: true },
      });
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
      const rows = await this.deps.db.$queryRawUnsafe<Array<{ id: string; cancel: boolean }>>(
        `UPDATE tool_call SET heartbeat_at = now() WHERE id = ANY($1::uuid[]) AND status = 'RUNNING'
         RETURNING id::text AS id, cancel_requested_at IS NOT NULL AS cancel`,
        ids,
      );
      for (const row of rows) if (row.cancel) this.deps.cancels.cancel(row.id);
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'call heartbeat failed');
    }
  }

  /** Stops taking jobs; running calls get `graceMs` to finish, then are handed back to the queue. */
  async close(graceMs: number): Promise<void> {
    const closing = this.worker.close();
    const timer = setTimeout(() => this.worker.cancelAllJobs('worker shutting down'), graceMs);
    try {
      await closing;
    } finally {
      clearTimeout(timer);
      // Calls still finishing during the grace period keep their heartbeat until they are done.
      if (this.heartbeat) clearInterval(this.heartbeat);
    }
  }
}
