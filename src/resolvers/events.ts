// Root subscription fields: a session's tool call events and task events, after a cursor, then
// live. Argument problems are GraphQL errors with a code (no stream starts); an expired cursor is
// an event of its own.
import { GraphQLError } from 'graphql';
import { DomainError, NotFoundError, ValidationError } from '../model/errors.js';
import { CALL_EVENT_TYPES, isEventOf, type SessionEvent, TASK_EVENT_TYPES } from '../model/events.js';
import { decodeEventCursor } from '../realtime/cursors.js';
import { endingWith } from '../realtime/open-streams.js';
import { sessionEvents } from '../realtime/subscription.js';
import { builder } from '../schema/builder.js';
import type { GraphQLContext } from '../schema/context.js';
import { SessionEventRef } from '../schema/events.js';
import { localId } from './global-ids.js';

builder.subscriptionFields((t) => ({
  toolCallEvents: t.field({
    type: SessionEventRef,
    authScopes: { reader: true },
    description: 'Tool call events of a session (optionally one batch) after `after`, then live, in order, each once.',
    args: { sessionId: t.arg.id({ required: true }), batchId: t.arg.string(), after: t.arg.string() },
    subscribe: (_root, args, context) =>
      subscribe(context, args.after, async () => {
        const sessionId = localId(args.sessionId, 'Session');
        await context.services.sessions.assertExists(context.viewer.tenantId, sessionId);
        return { sessionId, matches: (event) => isEventOf(CALL_EVENT_TYPES, event) && (!args.batchId || event.batchId === args.batchId) };
      }),
    resolve: (event) => event,
  }),
  taskEvents: t.field({
    type: SessionEventRef,
    authScopes: { reader: true },
    description:
      'Task events of a session, or of one task (give sessionId or taskId), after `after`, then live, in order, each once: TaskCreated, TaskStarted, TaskStatus, TaskProgress, TaskOutput, TaskHeartbeat, TaskCancelRequested, TaskReattached, TaskFinished (and CursorExpired).',
    args: { sessionId: t.arg.id(), taskId: t.arg.id(), after: t.arg.string() },
    subscribe: (_root, args, context) =>
      subscribe(context, args.after, async () => {
        const { services, viewer } = context;
        if (args.taskId) {
          const task = await services.tasks.findTask(viewer.tenantId, localId(args.taskId, 'Task'));
          if (args.sessionId && localId(args.sessionId, 'Session') !== task.sessionId) throw new NotFoundError('Task', String(args.taskId));
          return { sessionId: task.sessionId, matches: (event) => isEventOf(TASK_EVENT_TYPES, event) && event.taskId === task.id };
        }
        if (!args.sessionId) throw new ValidationError('taskEvents needs sessionId or taskId', 'sessionId');
        const sessionId = localId(args.sessionId, 'Session');
        await services.sessions.assertExists(viewer.tenantId, sessionId);
        return { sessionId, matches: (event) => isEventOf(TASK_EVENT_TYPES, event) };
      }),
    resolve: (event) => event,
  }),
}));

interface Scope {
  sessionId: string;
  matches: (event: SessionEvent) => boolean;
}

/** Resolves (and authorizes) what to watch, decodes the cursor, then streams until unsubscribe or shutdown. */
async function subscribe(context: GraphQLContext, after: string | null | undefined, scope: () => Promise<Scope>): Promise<AsyncIterable<SessionEvent>> {
  let watched: Scope;
  let afterSeq: number | undefined;
  try {
    watched = await scope();
    afterSeq = after ? decodeEventCursor(after, watched.sessionId) : undefined;
  } catch (error) {
    if (error instanceof DomainError) throw new GraphQLError(error.message, { extensions: { code: error.code } });
    throw error;
  }
  // On shutdown the client sees the subscription complete, and resumes elsewhere with its last
  // cursor; it also completes when the key is revoked or expires.
  let stream;
  try {
    stream = context.services.streams.open(context.viewer, context.shutdown);
  } catch (error) {
    if (error instanceof DomainError) throw new GraphQLError(error.message, { extensions: { code: error.code } });
    throw error;
  }
  const events = sessionEvents(context.services.feed, { ...watched, tenantId: context.viewer.tenantId, afterSeq, signal: stream.signal });
  return endingWith(events, stream.close);
}
