// The BullMQ worker of the `tasks` queue: background-run attempts and schedule firings. Its
// concurrency is the per-worker limit of background runs (BACKGROUND_RUNS_PER_WORKER, 64); the
// deployment's capacity is that times the live workers of the worker registry. Stalled jobs (their
// worker died) are handed back by BullMQ and resolved by the runner against the database.
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { BackgroundService } from '../domain/tasks/background.js';
import type { Logger } from '../logger.js';
import { closeWithGrace, createQueueWorker } from './queue-worker.js';
import type { TaskRunner } from './task-runner.js';

export interface TaskWorkerDeps {
  config: Config;
  connection: Redis;
  runner: TaskRunner;
  background: BackgroundService;
  logger: Logger;
  workerId: string;
}

export class TaskWorker {
  readonly worker: Worker;

  constructor(private readonly deps: TaskWorkerDeps) {
    const { config, runner, background } = deps;
    this.worker = createQueueWorker(
      'tasks',
      {
        'run-task': async (data, _job, { signal, log }) => {
          const verdict = await runner.run(data, log, signal);
          return verdict.kind === 'recheck' ? { delayMs: verdict.delayMs } : undefined;
        },
        'fire-schedule': async (data, job) => {
          // A job scheduler's jobs are `repeat:<scheduler>:<time>`; a one-shot's job is the schedule's own id.
          await background.fireSchedule(data.scheduleId, `${data.scheduleId}:${job.id}`);
          return undefined;
        },
      },
      { ...deps, concurrency: config.BACKGROUND_RUNS_PER_WORKER },
    );
  }

  async start(): Promise<void> {
    void this.worker.run();
  }

  /** Stops taking jobs; running runs get `graceMs` to finish, then are recovered (re-attached or failed). */
  async close(graceMs: number): Promise<void> {
    await closeWithGrace(this.worker, graceMs);
  }
}
