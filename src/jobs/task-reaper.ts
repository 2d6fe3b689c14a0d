// The periodic backstop for background runs, in every worker: a RUNNING run whose heartbeat is
// stale is recovered (re-attached or failed as orphaned) even if BullMQ never hands its job
// back; a QUEUED run gets its job again (job ids are per attempt, so an existing job makes that
// a no-op); a one-shot schedule whose time passed without firing gets its job again; and when
// Redis has fewer job schedulers than there are enabled cron schedules (Redis lost its data),
// they are registered again.
// With these and BullMQ's stalled-job handling, no run stays RUNNING without a live worker.
import type { Config } from '../config.js';
import { staleAfterMs, type TaskRecovery } from '../domain/tasks/recovery.js';
import type { TaskStore } from '../domain/tasks/store.js';
import type { Logger } from '../logger.js';
import type { JobQueues } from './catalogue.js';
import { PeriodicPass } from './periodic-pass.js';

export interface TaskReaperDeps {
  config: Config;
  tasks: TaskStore;
  queues: JobQueues;
  recovery: TaskRecovery;
  logger: Logger;
  /** Runs of this process, never reaped here. */
  isRunningHere(taskId: string): boolean;
  /** false while this worker's own heartbeats do not land steadily: every heartbeat may be old then (see own-heartbeat.ts). */
  mayJudgeHeartbeats(): boolean;
}

const BATCH = 200;

export class TaskReaper extends PeriodicPass {
  constructor(private readonly deps: TaskReaperDeps) {
    super();
  }

  start(): void {
    this.every(this.deps.config.TASK_REAPER_INTERVAL_MS, false);
  }

  protected async pass(): Promise<void> {
    try {
      await this.recoverStale();
      await this.requeueQueued();
      await this.requeueMissedOneShots();
      await this.restoreCronSchedulers();
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'task reaper pass failed');
    }
  }

  async recoverStale(): Promise<number> {
    const { tasks, recovery } = this.deps;
    let recovered = 0;
    if (!this.deps.mayJudgeHeartbeats()) return recovered;
    for (const row of await tasks.staleRuns(staleAfterMs(this.deps.config), BATCH)) {
      if (this.deps.isRunningHere(row.id)) continue;
      const outcome = await recovery.recover(row.id, row.attempt, 'the worker running it stopped sending heartbeats', { requireStale: true });
      if (outcome !== 'skipped') recovered++;
    }
    return recovered;
  }

  private async requeueQueued(): Promise<void> {
    await this.deps.queues.runTasks(await this.deps.tasks.queuedRuns(BATCH));
  }

  private async requeueMissedOneShots(): Promise<void> {
    for (const schedule of await this.deps.tasks.missedOneShots(BATCH)) await this.deps.queues.armSchedule(schedule);
  }

  private async restoreCronSchedulers(): Promise<void> {
    const expected = await this.deps.tasks.enabledCronSchedules();
    if (expected === 0) return;
    if ((await this.deps.queues.tasks.getJobSchedulersCount()) < expected) await this.registerSchedules();
  }

  /** Registers the job schedulers of every enabled schedule (after a Redis loss, they are gone). */
  async registerSchedules(): Promise<void> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.deps.tasks.enabledSchedules(cursor, BATCH);
      for (const schedule of page) await this.deps.queues.armSchedule(schedule);
      if (page.length < BATCH) return;
      cursor = page.at(-1)!.id;
    }
  }
}
