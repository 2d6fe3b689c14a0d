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
import type { TaskState } from '../domain/tasks/task-transitions.js';
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
  return context.services.tasks.findTask(context.viewer.tenantId, localId(id, 'Task'));
}

export function loadTasks(context: GraphQLContext, ids: readonly string[]) {
  return context.services.tasks.loadTasks(context.viewer.tenantId, ids);
}

export function loadSchedules(context: GraphQLContext, ids: readonly string[]) {
  return context.services.tasks.loadSchedules(context.viewer.tenantId, ids);
}

export function loadRunsOfSchedules(context: GraphQLContext, scheduleIds: readonly string[]) {
  return context.services.tasks.runsOfSchedules(scheduleIds);
}

export function listTasks(context: GraphQLContext, args: { sessionId: string; state?: TaskState | null; kind?: string | null }, offset: number, limit: number) {
  return context.services.tasks.listTasks(context.viewer.tenantId, localId(args.sessionId, 'Session'), args, offset, limit);
}

export function listSchedules(context: GraphQLContext, args: { sessionId: string; enabled?: boolean | null }) {
  return context.services.tasks.listSchedules(context.viewer.tenantId, localId(args.sessionId, 'Session'), args.enabled);
}

export function listSessionFiles(context: GraphQLContext, args: { sessionId: string; path?: string | null }) {
  return context.services.sessions.listFiles(context.viewer.tenantId, localId(args.sessionId, 'Session'), args.path);
}

export function listSessionMessages(context: GraphQLContext, args: { sessionId: string; kind?: string | null }) {
  return context.services.sessions.listMessages(context.viewer.tenantId, localId(args.sessionId, 'Session'), args.kind);
}

/** Task events of a session, or of one task (its session is looked up), after `after`, then live. */
export function subscribeTaskEvents(context: GraphQLContext, args: { sessionId?: string | null; taskId?: string | null; after?: string | null }): Promise<AsyncIterable<SessionEvent>> {
  let taskId: string | null = null;
  return subscribeSessionEvents(context, {
    session: async () => {
      if (!args.sessionId && !args.taskId) throw new ValidationError('taskEvents needs sessionId or taskId', 'sessionId');
      const { tenantId } = context.viewer;
      if (args.taskId) {
        const task = await context.services.tasks.findTask(tenantId, localId(args.taskId, 'Task'));
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
