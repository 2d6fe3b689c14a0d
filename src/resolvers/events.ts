import { GraphQLError } from 'graphql';
import { DomainError } from '../model/errors.js';
import { CALL_EVENT_TYPES, isEventOf, type SessionEvent } from '../model/events.js';
import { decodeEventCursor } from '../realtime/cursors.js';
import { sessionEvents } from '../realtime/subscription.js';
import type { GraphQLContext } from '../schema/context.js';
import { localId } from './global-ids.js';

/**
 * Subscribes to a session's tool call events (optionally one batch's) after an optional cursor.
 */
export async function subscribeToolCallEvents(
  context: GraphQLContext,
  args: { sessionId: string; batchId?: string | null; after?: string | null },
): Promise<AsyncIterable<SessionEvent>> {
  return subscribeSessionEvents(context, {
    session: async () => {
      const sessionId = localId(args.sessionId, 'Session');
      await context.services.sessions.get(context.viewer.tenantId, sessionId);
      return sessionId;
    },
    after: args.after,
    matches: (event) => isEventOf(CALL_EVENT_TYPES, event) && (!args.batchId || event.batchId === args.batchId),
  });
}

/**
 * Subscribes to the events of a session that `matches` accepts, after an optional cursor, then
 * live. `session` resolves (and authorizes) the session id. Argument problems are GraphQL errors
 * with a code (the stream has not started); an expired cursor is an event of its own.
 */
export async function subscribeSessionEvents(
  context: GraphQLContext,
  args: { session: () => Promise<string>; after?: string | null; matches: (event: SessionEvent) => boolean },
): Promise<AsyncIterable<SessionEvent>> {
  let sessionId: string;
  let afterSeq: number | undefined;
  try {
    sessionId = await args.session();
    afterSeq = args.after ? decodeEventCursor(args.after, sessionId) : undefined;
  } catch (error) {
    if (error instanceof DomainError) throw new GraphQLError(error.message, { extensions: { code: error.code } });
    throw error;
  }
  // The stream also ends when the server shuts down: the client sees the subscription complete and
  // resumes elsewhere with its last cursor.
  return sessionEvents(context.services, { sessionId, afterSeq, matches: args.matches, signal: context.shutdown });
}
