// Resolvers of background runs, schedules, session files and messages: thin calls into
// BackgroundService and tenant-scoped reads.
import { wrapErrorIfMatches } from '@pothos/plugin-errors';
import type { SpawnOutcome } from '../domain/tasks/background.js';
import {
  BackgroundNotSupportedError,
  InvalidArgumentsError,
  InvalidScheduleError,
  LimitExceededError,
  NotFoundError,
  UnknownToolError,
  ValidationError,
} from '../model/errors.js';
import { normalizePath } from '../tools/session-files.js';
import { TASK_KINDS, type TaskState } from '../domain/tasks/task-transitions.js';
import { isEventOf, type SessionEvent, TASK_EVENT_TYPES } from '../model/events.js';
import type { GraphQLContext } from '../schema/context.js';
import { subscribeSessionEvents } from './events.js';
import { localId } from './global-ids.js';

/** The typed refusals of spawnBackground, most specific first. */
export const SPAWN_REFUSALS = [
  LimitExceededError,
  InvalidScheduleError,
  InvalidArgumentsError,
  BackgroundNotSupportedError,
  UnknownToolError,
  NotFoundError,
  ValidationError,
] as const;
export type SpawnRefusal = InstanceType<(typeof SPAWN_REFUSALS)[number]>;

export async function spawnBackground(
  context: GraphQLContext,
  args: { sessionId: string; tool: string; args: unknown; title?: string | null; signalOnCompletion?: boolean | null; schedule?: unknown },
): Promise<SpawnOutcome | SpawnRefusal> {
  try {
    return await context.services.background.spawn({
      tenantId: context.viewer.tenantId,
      sessionId: localId(args.sessionId, 'Session'),
      tool: args.tool,
      args: args.args,
      title: args.title,
      signalOnCompletion: args.signalOnCompletion,
      schedule: args.schedule,
    });
  } catch (error) {
    const type = SPAWN_REFUSALS.find((candidate) => error instanceof candidate);
    // Wrapped the way the errors plugin wraps typed errors, so GraphQL resolves it as a union member, not a field error.
    if (type) return wrapErrorIfMatches(error, [type]) as SpawnRefusal;
    throw error;
  }
}

export function cancelTask(context: GraphQLContext, id: string) {
  return context.services.background.cancelTask(context.viewer.tenantId, localId(id, 'Task'));
}

export function cancelSchedule(context: GraphQLContext, id: string) {
  return context.services.background.cancelSchedule(context.viewer.tenantId, localId(id, 'Schedule'));
}

export async function findTask(context: GraphQLContext, id: string) {
  return context.services.background.findTask(context.viewer.tenantId, localId(id, 'Task'));
}

export async function loadTasks(context: GraphQLContext, ids: readonly string[]) {
  const rows = await context.services.db.task.findMany({ where: { id: { in: [...ids] }, session: { tenantId: context.viewer.tenantId } } });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id) ?? new NotFoundError('Task', id));
}

export async function loadSchedules(context: GraphQLContext, ids: readonly string[]) {
  const rows = await context.services.db.schedule.findMany({ where: { id: { in: [...ids] }, session: { tenantId: context.viewer.tenantId } } });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id) ?? new NotFoundError('Schedule', id));
}

/** The latest 50 runs of each schedule, newest first: two queries for any number of schedules. */
export async function loadRunsOfSchedules(context: GraphQLContext, scheduleIds: readonly string[]) {
  const { db } = context.services;
  const latest = await db.$queryRawUnsafe<Array<{ id: string }>>(
    `SELECT r.id::text AS id FROM unnest($1::uuid[]) AS s(id)
       CROSS JOIN LATERAL (SELECT id FROM task WHERE schedule_id = s.id AND kind = $2 ORDER BY created_at DESC, id DESC LIMIT 50) r`,
    [...scheduleIds],
    TASK_KINDS.background,
  );
  if (latest.length === 0) return [];
  return db.task.findMany({ where: { id: { in: latest.map((row) => row.id) } }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

/** Tasks of a session, newest first; a session of another tenant (or none) has none. */
export function listTasks(context: GraphQLContext, args: { sessionId: string; state?: TaskState | null; kind?: string | null }, offset: number, limit: number) {
  return context.services.db.task.findMany({
    where: {
      sessionId: localId(args.sessionId, 'Session'),
      session: { tenantId: context.viewer.tenantId },
      ...(args.state ? { state: args.state } : {}),
      ...(args.kind ? { kind: args.kind } : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    skip: offset,
    take: limit,
  });
}

export function listSchedules(context: GraphQLContext, args: { sessionId: string; enabled?: boolean | null }) {
  return context.services.db.schedule.findMany({
    where: {
      sessionId: localId(args.sessionId, 'Session'),
      session: { tenantId: context.viewer.tenantId },
      ...(typeof args.enabled === 'boolean' ? { enabled: args.enabled } : {}),
    },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

const MAX_LISTED_FILES = 1000;

/** The file or directory at `path` and everything below it, with contents, sorted by path. */
export async function listSessionFiles(context: GraphQLContext, args: { sessionId: string; path?: string | null }) {
  let path: string;
  try {
    path = normalizePath(args.path ?? '/');
  } catch (error) {
    throw new ValidationError((error as Error).message, 'path');
  }
  const prefix = path === '/' ? '/' : `${path}/`;
  const rows = await context.services.db.sessionFile.findMany({
    where: {
      sessionId: localId(args.sessionId, 'Session'),
      session: { tenantId: context.viewer.tenantId },
      OR: [{ path }, { path: { startsWith: prefix } }],
    },
    orderBy: { path: 'asc' },
    take: MAX_LISTED_FILES,
  });
  // LIKE wildcards in the prefix (`_` is common in paths) may match more; keep exact descendants only.
  return rows.filter((row) => row.path === path || row.path.startsWith(prefix));
}

export function listSessionMessages(context: GraphQLContext, args: { sessionId: string; kind?: string | null }) {
  return context.services.db.sessionMessage.findMany({
    where: {
      sessionId: localId(args.sessionId, 'Session'),
      session: { tenantId: context.viewer.tenantId },
      ...(args.kind ? { kind: args.kind } : {}),
    },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

/** Task events of a session, or of one task (its session is looked up), after `after`, then live. */
export function subscribeTaskEvents(context: GraphQLContext, args: { sessionId?: string | null; taskId?: string | null; after?: string | null }): Promise<AsyncIterable<SessionEvent>> {
  let taskId: string | null = null;
  return subscribeSessionEvents(context, {
    session: async () => {
      if (!args.sessionId && !args.taskId) throw new ValidationError('taskEvents needs sessionId or taskId', 'sessionId');
      const { tenantId } = context.viewer;
      if (args.taskId) {
        const task = await context.services.background.findTask(tenantId, localId(args.taskId, 'Task'));
        if (args.sessionId && localId(args.sessionId, 'Session') !== task.sessionId) throw new NotFoundError('Task', args.taskId);
        taskId = task.id;
        return task.sessionId;
      }
      const sessionId = localId(args.sessionId!, 'Session');
      await context.services.sessions.get(tenantId, sessionId);
      return sessionId;
    },
    after: args.after,
    matches: (event) => isEventOf(TASK_EVENT_TYPES, event) && (taskId === null || event.taskId === taskId),
  });
}
