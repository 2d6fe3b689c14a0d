import { GraphQLError } from 'graphql';
import { DomainError } from '../model/errors.js';
import { CALL_EVENT_TYPES, isEventOf, type SessionEvent } from '../model/events.js';
import { CursorExpiredError, sessionEventStream } from '../realtime/session-event-stream.js';
import type { GraphQLContext } from '../schema/context.js';
import { decodeEventCursor, encodeEventCursor } from '../realtime/cursors.js';
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
  return filteredStream(context, sessionId, afterSeq, args.matches);
}

function filteredStream(context: GraphQLContext, sessionId: string, afterSeq: number | undefined, matches: (event: SessionEvent) => boolean): AsyncIterable<SessionEvent> {
  const controller = new AbortController();
  const { db, bus } = context.services;
  // The stream ends when the client unsubscribes or when the server shuts down (the client then
  // sees the subscription complete, and resumes elsewhere with its last cursor).
  const signal = context.shutdown ? AbortSignal.any([controller.signal, context.shutdown]) : controller.signal;
  async function* run(): AsyncGenerator<SessionEvent> {
    try {
      for await (const event of sessionEventStream(db, bus, { sessionId, afterSeq, signal })) {
        if (matches(event)) yield event;
      }
    } catch (error) {
      if (!(error instanceof CursorExpiredError)) throw error;
      yield {
        sessionId,
        seq: error.oldestSeq,
        type: 'CursorExpired',
        batchId: null,
        callId: null,
        taskId: null,
        payload: { message: error.message, oldestCursor: encodeEventCursor(sessionId, Math.max(0, error.oldestSeq - 1)) },
        createdAt: new Date().toISOString(),
      };
    }
  }
  const iterator = run();
  // An async generator parked on an await only sees return() after that await settles; abort
  // first so an unsubscribe takes effect at once.
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => iterator.next(),
      return: (value?: unknown) => {
        controller.abort();
        return iterator.return(value as SessionEvent);
      },
      throw: (error?: unknown) => {
        controller.abort();
        return iterator.throw(error);
      },
    }),
  };
}
