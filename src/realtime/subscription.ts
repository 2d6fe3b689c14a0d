// Session events as subscribers and waiters consume them: a filtered, gap-free stream that ends on
// unsubscribe or shutdown and turns an expired cursor into a CursorExpired event, and a bounded
// wait for one event.
import type { Db } from '../db.js';
import type { SessionEvent } from '../model/events.js';
import { encodeEventCursor } from './cursors.js';
import type { EventBus } from './event-bus.js';
import { CursorExpiredError, type PublishedEvents, sessionEventStream, sessionEventsChannel } from './session-event-stream.js';

export interface SubscriptionDeps {
  db: Db;
  bus: EventBus;
}

export interface SessionEventsOptions {
  sessionId: string;
  /** Deliver events with seq > afterSeq; undefined means "from now". */
  afterSeq?: number;
  matches: (event: SessionEvent) => boolean;
  /** Ends the stream (the consumer sees it complete), e.g. when the server shuts down. */
  signal?: AbortSignal;
}

/**
 * The events of a session that `matches`, after the cursor, then live: in order, each once. A
 * cursor older than the retention yields one CursorExpired event (carrying the oldest cursor
 * still valid) and ends the stream.
 */
export function sessionEvents(deps: SubscriptionDeps, options: SessionEventsOptions): AsyncIterable<SessionEvent> {
  const { sessionId, afterSeq, matches } = options;
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([controller.signal, options.signal]) : controller.signal;
  async function* run(): AsyncGenerator<SessionEvent> {
    try {
      for await (const event of sessionEventStream(deps.db, deps.bus, { sessionId, afterSeq, signal })) {
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

/**
 * Resolves once an event of the session that `matches` is published, once `check` (run now and
 * every `pollMs`, for announcements that never arrive) says the wait is over, or after `timeoutMs`.
 */
export async function waitForSessionEvent(
  bus: EventBus,
  sessionId: string,
  matches: (event: SessionEvent) => boolean,
  options: { timeoutMs: number; check: () => Promise<boolean>; pollMs?: number },
): Promise<void> {
  let done: () => void = () => undefined;
  const over = new Promise<void>((resolve) => (done = resolve));
  const unsubscribe = await bus.subscribe(sessionEventsChannel(sessionId), (message) => {
    if ((message as PublishedEvents).events.some(matches)) done();
  });
  const poll = setInterval(() => void options.check().then((yes) => yes && done(), () => undefined), options.pollMs ?? 1000);
  const timer = setTimeout(done, options.timeoutMs);
  try {
    if (!(await options.check())) await over;
  } finally {
    clearTimeout(timer);
    clearInterval(poll);
    await unsubscribe();
  }
}
