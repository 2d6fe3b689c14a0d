// Reads of tasks (background runs, schedule monitors) and schedules: tenant-scoped for the API,
// by id and state for workers (the runner, the reaper, recovery).
import type { Db } from '../../db.js';
import type { Prisma, Schedule, Task } from '../../generated/prisma/client.js';
import { NotFoundError, ValidationError } from '../../model/errors.js';
import { keysetTime, type Page, type PageRequest, toPage } from '../../model/keyset.js';
import { type FinishedEvents, readFinishedEvents } from '../finished-events.js';
import { inIdOrder } from '../in-id-order.js';
import type { RunnableTask } from '../work.js';
import { TASK_KINDS, type TaskState } from './task-transitions.js';

// The task reaper's reads of live schedules (enabled, not paused), through schedule_live_idx (type,
// scheduled_at) WHERE enabled AND paused_at IS NULL rather than every schedule ever made (fired one-shots
// and cancelled schedules stay, disabled). The predicate is written as literals: Prisma sends
// `enabled = $1`, a parameter the planner cannot match against the index's predicate.
const MISSED_ONE_SHOTS = `SELECT id::text AS id FROM schedule
  WHERE type = 'ONCE' AND enabled AND paused_at IS NULL AND scheduled_at < $1::timestamptz LIMIT $2`;
const ENABLED_CRON_SCHEDULES = `SELECT count(*)::int AS n FROM schedule WHERE type = 'CRON' AND enabled AND paused_at IS NULL`;

/** How many runs of each schedule `Schedule.runs` lists. */
const RUNS_PER_SCHEDULE = 50;

export interface TaskFilter {
  sessionId?: string | null;
  state?: TaskState | null;
  kind?: string | null;
  scheduleId?: string | null;
}

export interface ScheduleFilter {
  sessionId?: string | null;
  enabled?: boolean | null;
  paused?: boolean | null;
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

  /** A page of the tenant's tasks that match, newest first; `count` counts them all. */
  async listTasks(tenantId: string, filter: TaskFilter, page: PageRequest): Promise<{ page: Page<Task>; count: () => Promise<number> }> {
    const kinds: readonly string[] = Object.values(TASK_KINDS);
    if (filter.kind != null && !kinds.includes(filter.kind)) throw new ValidationError(`kind must be one of ${kinds.join(', ')}`, 'kind');
    const where: Prisma.TaskWhereInput = {
      session: { tenantId },
      ...(filter.sessionId ? { sessionId: filter.sessionId } : {}),
      ...(filter.state ? { state: filter.state } : {}),
      ...(filter.kind != null ? { kind: filter.kind } : {}),
      ...(filter.scheduleId ? { scheduleId: filter.scheduleId } : {}),
    };
    const after = page.after ? keysetTime(page.after) : null;
    const keyset: Prisma.TaskWhereInput = after ? { OR: [{ createdAt: { lt: after.key } }, { createdAt: after.key, id: { lt: after.id } }] } : {};
    // A session or schedule that is not the tenant's is not found, as in schedules (not an empty list).
    const [session, schedule, rows] = await Promise.all([
      filter.sessionId ? this.db.session.findFirst({ where: { id: filter.sessionId, tenantId }, select: { id: true } }) : true,
      filter.scheduleId ? this.db.schedule.findFirst({ where: { id: filter.scheduleId, session: { tenantId } }, select: { id: true } }) : true,
      this.db.task.findMany({ where: { AND: [where, keyset] }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: page.first + 1 }),
    ]);
    if (!session) throw new NotFoundError('Session', filter.sessionId!);
    if (!schedule) throw new NotFoundError('Schedule', filter.scheduleId!);
    return { page: toPage(rows, page), count: () => this.db.task.count({ where }) };
  }

  /** A page of the tenant's schedules that match, oldest first; `count` counts them all. */
  async listSchedules(tenantId: string, filter: ScheduleFilter, page: PageRequest): Promise<{ page: Page<Schedule>; count: () => Promise<number> }> {
    const where: Prisma.ScheduleWhereInput = {
      session: { tenantId },
      ...(filter.sessionId ? { sessionId: filter.sessionId } : {}),
      ...(typeof filter.enabled === 'boolean' ? { enabled: filter.enabled } : {}),
      // Paused: enabled with pausedAt set (a canceled schedule that was paused is not paused any more).
      ...(typeof filter.paused === 'boolean' ? { AND: [filter.paused ? { enabled: true, pausedAt: { not: null } } : { OR: [{ enabled: false }, { pausedAt: null }] }] } : {}),
    };
    const after = page.after ? keysetTime(page.after) : null;
    const keyset: Prisma.ScheduleWhereInput = after ? { OR: [{ createdAt: { gt: after.key } }, { createdAt: after.key, id: { gt: after.id } }] } : {};
    const [session, rows] = await Promise.all([
      filter.sessionId ? this.db.session.findFirst({ where: { id: filter.sessionId, tenantId }, select: { id: true } }) : true,
      this.db.schedule.findMany({ where: { AND: [where, keyset] }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: page.first + 1 }),
    ]);
    if (!session) throw new NotFoundError('Session', filter.sessionId!);
    return { page: toPage(rows, page), count: () => this.db.schedule.count({ where }) };
  }

  /**
   * For each task, the session position its events follow (just before its first event, or the
   * session's head when it has none yet); null for a finished task whose events are no longer retained.
   * When its first events (from its TaskCreated) are past the retention but later ones are not, the
   * session's start: a stream from there begins with CursorExpired rather than silently mid-run.
   */
  async eventStarts(taskIds: readonly string[]): Promise<Array<{ sessionId: string; seq: number } | null>> {
    const rows = await this.db.$queryRawUnsafe<Array<{ id: string; sessionId: string; seq: string | null }>>(
      `SELECT t.id::text AS id, t.session_id::text AS "sessionId",
              (CASE WHEN f.type = 'TaskCreated' THEN f.seq - 1 WHEN f.seq IS NOT NULL THEN 0 WHEN t.finished_at IS NULL THEN s.event_seq END)::text AS seq
         FROM task t JOIN session s ON s.id = t.session_id
         LEFT JOIN LATERAL (SELECT seq, type FROM event e WHERE e.session_id = t.session_id AND e.task_id = t.id ORDER BY seq LIMIT 1) f ON true
        WHERE t.id = ANY($1::uuid[])`,
      [...taskIds],
    );
    const byId = new Map(rows.map((row) => [row.id, row.seq === null ? null : { sessionId: row.sessionId, seq: Number(row.seq) }]));
    return taskIds.map((id) => byId.get(id) ?? null);
  }

  /** Where a finished task's retained events lie (see FinishedEvents). */
  finishedEvents(task: Pick<Task, 'id' | 'sessionId'>): Promise<FinishedEvents> {
    return readFinishedEvents(this.db, task.sessionId, { taskId: task.id });
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

  /**
   * Enabled one-shot schedules, not paused, whose time passed over 30 s ago without firing (the task
   * reaper's read, every pass of every worker): their ids through schedule_live_idx, then the rows as
   * Prisma reads them (spec restored), only when there are any.
   */
  async missedOneShots(limit: number): Promise<Schedule[]> {
    const before = new Date(Date.now() - 30_000);
    const missed = await this.db.$queryRawUnsafe<Array<{ id: string }>>(MISSED_ONE_SHOTS, before, limit);
    if (missed.length === 0) return [];
    return this.db.schedule.findMany({ where: { id: { in: missed.map((row) => row.id) }, enabled: true, pausedAt: null, type: 'ONCE', scheduledAt: { lt: before } }, take: limit });
  }

  /** How many schedules are enabled cron schedules, not paused (the task reaper's read, every pass of every worker). */
  async enabledCronSchedules(): Promise<number> {
    return (await this.db.$queryRawUnsafe<Array<{ n: number }>>(ENABLED_CRON_SCHEDULES))[0]?.n ?? 0;
  }

  /** A page of the enabled schedules that are not paused, in id order after `afterId`. */
  enabledSchedules(afterId: string | undefined, limit: number): Promise<Schedule[]> {
    return this.db.schedule.findMany({
      where: { enabled: true, pausedAt: null },
      orderBy: { id: 'asc' },
      take: limit,
      ...(afterId ? { cursor: { id: afterId }, skip: 1 } : {}),
    });
  }
}

