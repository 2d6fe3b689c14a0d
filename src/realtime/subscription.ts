// Session events as subscribers and waiters consume them: a filtered, gap-free stream (from the
// process's shared hub for the session) that ends on unsubscribe, shutdown or the watched work's
// end, and turns an expired cursor into a CursorExpired event; the same stream a few events at a
// time; and a bounded wait for one event.
import type { SessionEvent } from '../model/events.js';
import { encodeEventCursor, encodeTenantEventCursor } from './cursors.js';
import type { EventFeed } from './event-feed.js';
import { forwardSides, type StreamItem, TAKE_READY, type TakesReady } from './hub.js';
import { KeyStopped } from './open-streams.js';

export interface SessionEventsOptions {
  tenantId: string;
  sessionId: string;
  /** Deliver events with seq > afterSeq; undefined means "from now". */
  afterSeq?: number;
  matches: (event: SessionEvent) => boolean;
  /** The stream completes right after an event this accepts (the watched batch or task finished). */
  until?: (event: SessionEvent) => boolean;
  /** Ends the stream (the consumer sees it complete), e.g. when the server shuts down. */
  signal?: AbortSignal;
}

/**
 * The events of a session that `matches`, after the cursor, then live: in order, each once. A
 * cursor older than the retention yields one CursorExpired event (carrying the oldest cursor
 * still valid) and ends the stream.
 */
export function sessionEvents(feed: EventFeed, options: SessionEventsOptions): AsyncIterableIterator<SessionEvent> {
  const { tenantId, sessionId } = options;
  const stream = feed.session(tenantId, sessionId, { after: options.afterSeq, matches: options.matches, until: options.until, signal: options.signal });
  return withExpiredEvents(stream, tenantId, (oldest) => ({
    sessionId,
    seq: Math.max(0, oldest - 1),
    tenantSeq: 0,
    oldestCursor: encodeEventCursor(sessionId, Math.max(0, oldest - 1)),
  }));
}

export interface TenantEventsOptions extends Omit<SessionEventsOptions, 'sessionId' | 'afterSeq'> {
  /** Deliver events with tenant seq > afterTenantSeq; undefined means "from now". */
  afterTenantSeq?: number;
}

/** The events of all sessions of a tenant that `matches`, in tenant order, with the same guarantees as `sessionEvents`. */
export function tenantEvents(feed: EventFeed, options: TenantEventsOptions): AsyncIterableIterator<SessionEvent> {
  const { tenantId } = options;
  const stream = feed.tenant(tenantId, { after: options.afterTenantSeq, matches: options.matches, until: options.until, signal: options.signal });
  return withExpiredEvents(stream, tenantId, (oldest) => ({
    sessionId: '',
    seq: 0,
    tenantSeq: Math.max(0, oldest - 1),
    oldestCursor: encodeTenantEventCursor(tenantId, Math.max(0, oldest - 1)),
  }));
}

/**
 * The stream's events, with an expired cursor turned into a CursorExpired event. Its position is
 * just before the oldest event retained (its `cursor` is its `oldestCursor`): a client that resumes
 * after it, as after any event, misses none of the events still kept.
 */
function withExpiredEvents(
  stream: AsyncIterableIterator<StreamItem>,
  tenantId: string,
  expired: (oldest: number) => { sessionId: string; seq: number; tenantSeq: number; oldestCursor: string },
): AsyncIterableIterator<SessionEvent> {
  const toEvent = (item: StreamItem): SessionEvent => {
    if (!('expired' in item)) return item;
    const { oldestCursor, ...position } = expired(item.oldest);
    return {
      ...position,
      tenantId,
      type: 'CursorExpired',
      batchId: null,
      callId: null,
      taskId: null,
      payload: { message: 'The cursor is older than the event retention; resync from current state and subscribe without a cursor', oldestCursor },
      createdAt: new Date().toISOString(),
    };
  };
  return forwardSides({
    [Symbol.asyncIterator]() {
      return this;
    },
    next: async () => {
      const item = await stream.next();
      return item.done ? { value: undefined, done: true } : { value: toEvent(item.value), done: false };
    },
    ...endingWrapped(stream),
  } as AsyncIterableIterator<SessionEvent>, stream);
}

/** `return` and `throw` of a wrapper of `stream`: both end the wrapped stream. */
function endingWrapped(stream: AsyncIterator<unknown>) {
  return {
    return: async (): Promise<IteratorReturnResult<undefined>> => {
      await stream.return?.();
      return { value: undefined, done: true };
    },
    throw: async (error?: unknown): Promise<never> => {
      await stream.return?.();
      throw error;
    },
  };
}

/** Events of one stream delivered together, in order. */
export interface EventBatch {
  events: SessionEvent[];
  /** The stream: its events' cursors are positions in it. */
  stream: 'session' | 'tenant';
}

/** The most events one `EventBatch` carries (`maxEvents` of a batched stream). */
export const MAX_EVENTS_PER_BATCH = 1000;

/**
 * The stream's events a few at a time: each batch holds the next event and whatever else the
 * stream already holds ready behind it, up to `max`, so a batch never waits for events to come
 * (one event at low load, many when the stream is busy or behind). A `KeyStopped` passes alone.
 */
export function inBatches(stream: AsyncIterableIterator<SessionEvent | KeyStopped>, max: number, kind: EventBatch['stream']): AsyncIterableIterator<EventBatch | KeyStopped> {
  const take = (stream as TakesReady)[TAKE_READY];
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next: async () => {
      const item = await stream.next();
      if (item.done || item.value instanceof KeyStopped) return item as IteratorResult<KeyStopped>;
      const ready = max > 1 && take ? take.call(stream, max - 1) : [];
      return { value: sharedBatch(ready.length === 0 ? [item.value] : [item.value, ...ready], kind), done: false };
    },
    ...endingWrapped(stream),
  };
}

/**
 * The batches made in this turn of the event loop, by the positions of their events: the
 * subscribers of a stream that get the same events in the same turn share one batch object, so
 * the server executes and serialises it once per selection (`server/graphql-ws.ts`).
 */
const batchesThisTurn = new Map<string, EventBatch>();

function sharedBatch(events: SessionEvent[], stream: EventBatch['stream']): EventBatch {
  const first = events[0]!;
  // A CursorExpired is made for its subscriber alone.
  if (first.type === 'CursorExpired') return { events, stream };
  let key = stream === 'tenant' ? `${first.tenantId}/` : `${first.tenantId}/${first.sessionId}`;
  for (const event of events) key += `,${stream === 'tenant' ? event.tenantSeq : event.seq}`;
  let batch = batchesThisTurn.get(key);
  if (!batch) {
    if (batchesThisTurn.size === 0) setImmediate(() => batchesThisTurn.clear());
    batch = { events, stream };
    batchesThisTurn.set(key, batch);
  }
  return batch;
}

/**
 * Resolves with the first event of the session that `matches`, or with null when the wait is over
 * already or after `timeoutMs`. `start` reads, in one snapshot, whether the wait is over (null) and
 * otherwise the session's head: race free, since whatever committed after that snapshot comes after
 * that head and is delivered.
 */
export async function waitForSessionEvent(
  feed: EventFeed,
  tenantId: string,
  sessionId: string,
  matches: (event: SessionEvent) => boolean,
  timeoutMs: number,
  start: () => Promise<number | null>,
): Promise<SessionEvent | null> {
  const head = await start();
  if (head === null) return null;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const stream = feed.session(tenantId, sessionId, { after: head, matches, until: matches, signal: controller.signal });
  try {
    const { value, done } = await stream.next();
    return done || 'expired' in value ? null : value;
  } finally {
    clearTimeout(timer);
    await stream.return?.();
  }
}
