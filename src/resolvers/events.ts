import { GraphQLError } from 'graphql';
import { EVENT_TYPES } from '../domain/call-transitions.js';
import { DomainError } from '../domain/errors.js';
import type { SessionEvent } from '../domain/event-log.js';
import { CursorExpiredError, sessionEventStream } from '../realtime/session-event-stream.js';
import type { GraphQLContext } from '../schema/context.js';
import { decodeEventCursor, encodeEventCursor } from './cursors.js';
import { localId } from './ids.js';

export const CURSOR_EXPIRED = 'CursorExpired';
const TOOL_CALL_EVENT_TYPES = new Set<string>(Object.values(EVENT_TYPES));

/**
 * Subscribes to a session's events after an optional cursor. Argument problems are GraphQL
 * errors with a code (the stream has not started); an expired cursor is an event of its own.
 */
export async function subscribeToolCallEvents(
  context: GraphQLContext,
  args: { sessionId: string; batchId?: string | null; after?: string | null },
): Promise<AsyncIterable<SessionEvent>> {
  let sessionId: string;
  let afterSeq: number | undefined;
  try {
    sessionId = localId(args.sessionId, 'Session');
    await context.services.sessions.get(context.viewer.tenantId, sessionId);
    afterSeq = args.after ? decodeEventCursor(args.after, sessionId) : undefined;
  } catch (error) {
    if (error instanceof DomainError) throw new GraphQLError(error.message, { extensions: { code: error.code } });
    throw error;
  }
  const matches = (event: SessionEvent) => TOOL_CALL_EVENT_TYPES.has(event.type) && (!args.batchId || event.batchId === args.batchId);
  return filteredStream(context, sessionId, afterSeq, matches);
}

function filteredStream(context: GraphQLContext, sessionId: string, afterSeq: number | undefined, matches: (event: SessionEvent) => boolean): AsyncIterable<SessionEvent> {
  const controller = new AbortController();
  const { db, bus } = context.services;
  async function* run(): AsyncGenerator<SessionEvent> {
    try {
      for await (const event of sessionEventStream(db, bus, { sessionId, afterSeq, signal: controller.signal })) {
        if (matches(event)) yield event;
      }
    } catch (error) {
      if (!(error instanceof CursorExpiredError)) throw error;
      yield {
        sessionId,
        seq: error.oldestSeq,
        type: CURSOR_EXPIRED,
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
