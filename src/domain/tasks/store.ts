// Reads of tasks (background runs, schedule monitors) and schedules: tenant-scoped for the API,
// by id and state for workers (the runner, the reaper, recovery).
import type { Db } from '../../db.js';
import type { Schedule, Task } from '../../generated/prisma/client.js';
import { NotFoundError } from '../../model/errors.js';
import { inIdOrder } from '../in-id-order.js';
import type { RunnableTask } from '../work.js';
import { TASK_KINDS, type TaskState } from './task-transitions.js';

/** How many runs of each schedule `Schedule.runs` lists. */
const RUNS_PER_SCHEDULE = 50;

export interface TaskFilter {
  state?: TaskState | null;
  kind?: string | null;
}

export class TaskStore {
  constructor(private readonly db: Db) {}

  async loadTasks(tenantId: string, ids: readonly string[]): Promise<Array<Task | NotFoundError>> {
    const rows = await this.db.task.findMany({ where: { id: { in: [...ids] }, session: { tenantId } } });
    return inIdOrder(ids, rows, 'Task');
  }

  async loadSchedules(tenantId: string, ids: readonly string[]): Promise<Array<Schedule | NotFoundError>> {
    const rows = await this.db.schedule.findMany({ where: { id: { in: [...ids] }, session: { tenantId } } });
    return inIdOrder(ids, rows, 'Schedule');
  }

  /** The latest runs of each schedule, newest first: two queries for any number of schedules. */
  async runsOfSchedules(scheduleIds: readonly string[]): Promise<Task[]> {
    const latest = await this.db.$queryRawUnsafe<Array<{ id: string }>>(
      `SELECT r.id::text AS id FROM unnest($1::uuid[]) AS s(id)
         CROSS JOIN LATERAL (SELECT id FROM task WHERE schedule_id = s.id AND kind = $2 ORDER BY created_at DESC, id DESC LIMIT ${RUNS_PER_SCHEDULE}) r`,
      [...scheduleIds],
      TASK_KINDS.background,
    );
    if (latest.length === 0) return [];
    return this.db.task.findMany({ where: { id: { in: latest.map((row) => row.id) } }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  }

  /** Tasks of a session, newest first; a session of another tenant (or none) has none. */
  listTasks(tenantId: string, sessionId: string, filter: TaskFilter, offset: number, limit: number): Promise<Task[]> {
    return this.db.task.findMany({
      where: {
        sessionId,
        session: { tenantId },
        ...(filter.state ? { state: filter.state } : {}),
        ...(filter.kind ? { kind: filter.kind } : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: offset,
      take: limit,
    });
  }

  /** Schedules of a session, oldest first; NotFoundError for a session of another tenant (or none). */
  async listSchedules(tenantId: string, sessionId: string, enabled?: boolean | null): Promise<Schedule[]> {
    const [session, schedules] = await Promise.all([
      this.db.session.findFirst({ where: { id: sessionId, tenantId }, select: { id: true } }),
      this.db.schedule.findMany({
        where: { sessionId, session: { tenantId }, ...(typeof enabled === 'boolean' ? { enabled } : {}) },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      }),
    ]);
    if (!session) throw new NotFoundError('Session', sessionId);
    return schedules;
  }

  async findTask(tenantId: string, taskId: string): Promise<Task> {
    const task = await this.db.task.findFirst({ where: { id: taskId, session: { tenantId } } });
    if (!task) throw new NotFoundError('Task', taskId);
    return task;
  }

  async findSchedule(tenantId: string, scheduleId: string): Promise<Schedule> {
    const schedule = await this.db.schedule.findFirst({ where: { id: scheduleId, session: { tenantId } } });
    if (!schedule) throw new NotFoundError('Schedule', scheduleId);
    return schedule;
  }

  /** A task with its tenant, as a worker picks it up. */
  withTenant(taskId: string): Promise<(Task & { session: { tenantId: string } }) | null> {
    return this.db.task.findUnique({ where: { id: taskId }, include: { session: { select: { tenantId: true } } } });
  }

  /** A schedule with its tenant, as it fires. */
  scheduleWithTenant(scheduleId: string): Promise<(Schedule & { session: { tenantId: string } }) | null> {
    return this.db.schedule.findUnique({ where: { id: scheduleId }, include: { session: { select: { tenantId: true } } } });
  }

  /** Running background runs whose heartbeat is older than `staleMs` (database clock). */
  staleRuns(staleMs: number, limit: number): Promise<Array<{ id: string; attempt: number }>> {
    return this.db.$queryRawUnsafe<Array<{ id: string; attempt: number }>>(
      `SELECT id::text AS id, attempt FROM task
        WHERE kind = $1 AND state = 'RUNNING' AND COALESCE(heartbeat_at, started_at, created_at) < now() - ($2::int * interval '1 millisecond')
        ORDER BY heartbeat_at NULLS FIRST LIMIT ${Number(limit)}`,
      TASK_KINDS.background,
      staleMs,
    );
  }

  /** Background runs queued for over 5 s (their job may have been lost). */
  queuedRuns(limit: number): Promise<RunnableTask[]> {
    return this.db.$queryRawUnsafe<RunnableTask[]>(
      `SELECT id::text AS "taskId", session_id::text AS "sessionId", attempt FROM task
        WHERE kind = $1 AND state = 'QUEUED' AND created_at < now() - interval '5 seconds'
        ORDER BY created_at LIMIT ${Number(limit)}`,
      TASK_KINDS.background,
    );
  }

  /** Enabled one-shot schedules whose time passed over 30 s ago without firing. */
  missedOneShots(limit: number): Promise<Schedule[]> {
    return this.db.schedule.findMany({ where: { enabled: true, type: 'ONCE', scheduledAt: { lt: new Date(Date.now() - 30_000) } }, take: limit });
  }

  enabledCronSchedules(): Promise<number> {
    return this.db.schedule.count({ where: { enabled: true, type: 'CRON' } });
  }

  /** A page of the enabled schedules, in id order after `afterId`. */
  enabledSchedules(afterId: string | undefined, limit: number): Promise<Schedule[]> {
    return this.db.schedule.findMany({
      where: { enabled: true },
      orderBy: { id: 'asc' },
      take: limit,
      ...(afterId ? { cursor: { id: afterId }, skip: 1 } : {}),
    });
  }
}
