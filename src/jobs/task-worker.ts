// The BullMQ worker of the `tasks` queue: background-run attempts and schedule firings. Its
// concurrency is the per-worker limit of background runs (BACKGROUND_RUNS_PER_WORKER, 64), and
// it announces that capacity in the task worker registry while it is alive. Stalled jobs (their
// worker died) are handed back by BullMQ and resolved by the runner against the database.
import { DelayedError, type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { BackgroundService } from '../domain/background.js';
import type { Logger } from '../logger.js';
import { withLogContext } from '../logging/context.js';
import { type JobCatalogue, QUEUES } from './queues.js';
import { logWorkerProblems, workerOptions } from './worker-options.js';
import type { TaskRunner } from './task-runner.js';
import type { TaskWorkerRegistry } from './task-worker-registry.js';

export interface TaskWorkerDeps {
  config: Config;
  connection: Redis;
  runner: TaskRunner;
  background: BackgroundService;
  registry: TaskWorkerRegistry;
  logger: Logger;
  workerId: string;
}

export class TaskWorker {
  readonly worker: Worker;
  private presence: NodeJS.Timeout | null = null;

  constructor(private readonly deps: TaskWorkerDeps) {
    const { config, connection } = deps;
    this.worker = new Worker(
      QUEUES.tasks,
      (job, token, signal) => {
        const data = job.data as { sessionId?: string; taskId?: string };
        return withLogContext({ jobId: job.id, sessionId: data.sessionId, taskId: data.taskId }, async () => {
          await this.process(job, token, signal);
          deps.logger.debug({ job: job.name }, 'job done');
        });
      },
      workerOptions(config, connection, deps.workerId, config.BACKGROUND_RUNS_PER_WORKER),
    );
    logWorkerProblems(this.worker, deps.logger, 'task');
  }

  async start(): Promise<void> {
    await this.announce();
    this.presence = setInterval(() => void this.announce(), this.deps.config.HEARTBEAT_INTERVAL_MS);
    void this.worker.run();
  }

  private async announce(): Promise<void> {
    const { config, registry, workerId, logger } = this.deps;
    try {
      await registry.announce(workerId, config.BACKGROUND_RUNS_PER_WORKER, 3 * config.HEARTBEAT_INTERVAL_MS);
    } catch (error) {
      logger.warn({ err: error }, 'announcing the task worker failed');
    }
  }

  private async process(job: Job, token: string | undefined, signal?: AbortSignal): Promise<void> {
    if (job.name === 'run-task') {
      const verdict = await this.deps.runner.run(job.data as JobCatalogue['run-task'], signal);
      if (verdict.kind === 'recheck' && token) {
        await job.moveToDelayed(Date.now() + verdict.delayMs, token);
        throw new DelayedError();
      }
      return;
    }
    if (job.name === 'fire-schedule') {
      const data = job.data as JobCatalogue['fire-schedule'];
      // A job scheduler's jobs are `repeat:<scheduler>:<time>`; a one-shot's job is the schedule's own id.
      await this.deps.background.fireSchedule(data.scheduleId, `${data.scheduleId}:${job.id}`);
      return;
    }
    throw new Error(`unknown job ${job.name}`);
  }

  /** Stops taking jobs; running runs get `graceMs` to finish, then are recovered (re-attached or failed). */
  async close(graceMs: number): Promise<void> {
    if (this.presence) clearInterval(this.presence);
    const closing = this.worker.close();
    const timer = setTimeout(() => this.worker.cancelAllJobs('worker shutting down'), graceMs);
    try {
      await closing;
    } finally {
      clearTimeout(timer);
      await this.deps.registry.withdraw(this.deps.workerId, this.deps.config.BACKGROUND_RUNS_PER_WORKER).catch(() => undefined);
    }
  }
}
