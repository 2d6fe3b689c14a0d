// The periodic backstop for background runs, in every worker: a RUNNING run whose heartbeat is
// stale is recovered (re-attached or failed as orphaned) even if BullMQ never hands its job
// back; a QUEUED run gets its job again (job ids are per attempt, so an existing job makes that
// a no-op); a one-shot schedule whose time passed without firing gets its job again; and when
// Redis has fewer job schedulers than there are enabled cron schedules (Redis lost its data),
// they are registered again.
// With these and BullMQ's stalled-job handling, no run stays RUNNING without a live worker.
import type { Config } from '../config.js';
import type { BackgroundService } from '../domain/tasks/background.js';
import type { Db } from '../db.js';
import { TASK_KINDS } from '../domain/tasks/task-transitions.js';
import type { Logger } from '../logger.js';
import type { JobQueues, JobRequest } from './catalogue.js';
import { staleAfterMs, type TaskRecovery } from '../domain/tasks/recovery.js';

export interface TaskReaperDeps {
  config: Config;
  db: Db;
  queues: JobQueues;
  recovery: TaskRecovery;
  background: BackgroundService;
  logger: Logger;
  /** Runs of this process, never reaped here. */
  isRunningHere(taskId: string): boolean;
}

const BATCH = 200;

export class TaskReaper {
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(private readonly deps: TaskReaperDeps) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.deps.config.TASK_REAPER_INTERVAL_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.recoverStale();
      await this.requeueQueued();
      await this.requeueMissedOneShots();
      await this.restoreCronSchedulers();
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'task reaper pass failed');
    } finally {
      this.running = false;
    }
  }

  async recoverStale(): Promise<number> {
    const { db, recovery } = this.deps;
    const rows = await db.$queryRawUnsafe<Array<{ id: string; attempt: number }>>(
      `SELECT id::text AS id, attempt FROM task
        WHERE kind = $1 AND state = 'RUNNING' AND COALESCE(heartbeat_at, started_at, created_at) < now() - ($2::int * interval '1 millisecond')
        ORDER BY heartbeat_at NULLS FIRST LIMIT ${BATCH}`,
      TASK_KINDS.background,
      staleAfterMs(this.deps.config),
    );
    let recovered = 0;
    for (const row of rows) {
      if (this.deps.isRunningHere(row.id)) continue;
      const outcome = await recovery.recover(row.id, row.attempt, 'the worker running it stopped sending heartbeats', { requireStale: true });
      if (outcome !== 'skipped') recovered++;
    }
    return recovered;
  }

  private async requeueQueued(): Promise<void> {
    const rows = await this.deps.db.$queryRawUnsafe<Array<{ id: string; sessionId: string; attempt: number }>>(
      `SELECT id::text AS id, session_id::text AS "sessionId", attempt FROM task
        WHERE kind = $1 AND state = 'QUEUED' AND created_at < now() - interval '5 seconds'
        ORDER BY created_at LIMIT ${BATCH}`,
      TASK_KINDS.background,
    );
    const jobs: JobRequest[] = rows.map((row) => ({ name: 'run-task', data: { sessionId: row.sessionId, taskId: row.id, attempt: row.attempt } }));
    await this.deps.queues.enqueue(jobs);
  }

  private async requeueMissedOneShots(): Promise<void> {
    const rows = await this.deps.db.schedule.findMany({
      where: { enabled: true, type: 'ONCE', scheduledAt: { lt: new Date(Date.now() - 30_000) } },
      take: BATCH,
    });
    for (const schedule of rows) await this.deps.background.registerSchedule(schedule);
  }

  private async restoreCronSchedulers(): Promise<void> {
    const expected = await this.deps.db.schedule.count({ where: { enabled: true, type: 'CRON' } });
    if (expected === 0) return;
    if ((await this.deps.queues.tasks.getJobSchedulersCount()) < expected) await this.registerSchedules();
  }

  /** Registers the job schedulers of every enabled schedule (after a Redis loss, they are gone). */
  async registerSchedules(): Promise<void> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.deps.db.schedule.findMany({
        where: { enabled: true },
        orderBy: { id: 'asc' },
        take: BATCH,
        ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
      });
      for (const schedule of page) await this.deps.background.registerSchedule(schedule);
      if (page.length < BATCH) return;
      cursor = page.at(-1)!.id;
    }
  }
}
