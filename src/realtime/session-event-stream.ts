// A live, gap-free view of a session's event log: listen on pub/sub first, replay from the
// database after the cursor, then deliver live events in sequence order. A jump in `seq` (a lost
// or reordered pub/sub message) is filled from the table; a periodic check and a Redis reconnect
// catch up on anything whose announcement never arrived. Each event is yielded exactly once.
// A failed read (a dropped connection, a restarting server) is retried with backoff, so a
// stream outlasts a short database outage instead of ending.
import type { Db } from '../db.js';
import type { SessionEvent } from '../model/events.js';
import type { EventBus } from './event-bus.js';

/** The pub/sub channel a session's committed events are announced on. */
export const sessionEventsChannel = (sessionId: string) => `events:${sessionId}`;

export interface PublishedEvents {
  sessionId: string;
  events: SessionEvent[];
}

export class CursorExpiredError extends Error {
  override name = 'CursorExpiredError';
  constructor(readonly oldestSeq: number) {
    super('The cursor is older than the event retention; resync from current state and subscribe without a cursor');
  }
}

export interface StreamOptions {
  sessionId: string;
  /** Deliver events with seq > afterSeq; undefined means "from now". */
  afterSeq?: number;
  signal?: AbortSignal;
  catchUpIntervalMs?: number;
}

export async function* sessionEventStream(db: Db, bus: EventBus, options: StreamOptions): AsyncGenerator<SessionEvent> {
  const { sessionId } = options;
  let wake: (() => void) | null = null;
  let dirty = true;
  const live: SessionEvent[] = [];
  const notify = () => {
    dirty = true;
    wake?.();
  };
  const unsubscribe = await bus.subscribe(sessionEventsChannel(sessionId), (message) => {
    live.push(...(message as PublishedEvents).events);
    notify();
  });
  const offReconnect = bus.onReconnect(notify);
  const timer = setInterval(notify, options.catchUpIntervalMs ?? 2000);
  const onAbort = () => wake?.();
  options.signal?.addEventListener('abort', onAbort);
  try {
    const read = <T>(query: () => Promise<T>) => retrying(query, options.signal);
    let last = options.afterSeq ?? (await read(() => currentSeq(db, sessionId)));
    if (options.afterSeq !== undefined) await read(() => assertCursorRetained(db, sessionId, options.afterSeq!));
    while (!options.signal?.aborted) {
      if (live.length > 0) {
        const batch = live.splice(0).sort((a, b) => a.seq - b.seq);
        for (const event of batch) {
          if (event.seq <= last) continue;
          if (event.seq > last + 1) {
            for (const missed of await read(() => readAll(db, sessionId, last, event.seq))) {
              yield missed;
              last = missed.seq;
            }
          }
          if (event.seq === last + 1) {
            yield event;
            last = event.seq;
          }
        }
        continue;
      }
      if (dirty) {
        dirty = false;
        for (const event of await read(() => readAll(db, sessionId, last))) {
          yield event;
          last = event.seq;
        }
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (live.length > 0 || dirty || options.signal?.aborted) resolve();
      });
      wake = null;
    }
  } finally {
    clearInterval(timer);
    offReconnect();
    options.signal?.removeEventListener('abort', onAbort);
    await unsubscribe();
  }
}

const READ_ATTEMPTS = 8;

/** Runs a read, retrying failures with backoff (about 10 s in all); an expired cursor is an answer, not a failure. */
async function retrying<T>(query: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await query();
    } catch (error) {
      if (error instanceof CursorExpiredError || attempt >= READ_ATTEMPTS || signal?.aborted) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 2000)));
    }
  }
}

async function readAll(db: Db, sessionId: string, afterSeq: number, beforeSeq?: number): Promise<SessionEvent[]> {
  const all: SessionEvent[] = [];
  let cursor = afterSeq;
  for (;;) {
    const page = await readEvents(db, sessionId, cursor, 1000, beforeSeq);
    all.push(...page);
    if (page.length < 1000) return all;
    cursor = page.at(-1)!.seq;
  }
}

async function currentSeq(db: Db, sessionId: string): Promise<number> {
  const session = await db.session.findUnique({ where: { id: sessionId }, select: { eventSeq: true } });
  return Number(session?.eventSeq ?? 0);
}

/** A cursor is retained when the event right after it still exists (or nothing came after it). */
async function assertCursorRetained(db: Db, sessionId: string, afterSeq: number): Promise<void> {
  const [row] = await db.$queryRawUnsafe<Array<{ oldest: bigint | null; latest: bigint }>>(
    `SELECT (SELECT min(seq) FROM event WHERE session_id = $1::uuid) AS oldest, s.event_seq AS latest
       FROM session s WHERE s.id = $1::uuid`,
    sessionId,
  );
  if (!row) return;
  const latest = Number(row.latest);
  if (afterSeq >= latest) return;
  const oldest = row.oldest === null ? latest + 1 : Number(row.oldest);
  if (afterSeq + 1 < oldest) throw new CursorExpiredError(oldest);
}

/** Reads events of a session after `afterSeq`, oldest first. */
export async function readEvents(db: Db, sessionId: string, afterSeq: number, limit = 500, beforeSeq?: number): Promise<SessionEvent[]> {
  const rows = await db.$queryRawUnsafe<
    Array<{ seq: bigint; type: string; batch_id: string | null; call_id: string | null; task_id: string | null; payload: Record<string, unknown>; created_at: Date }>
  >(
    `SELECT seq, type, batch_id, call_id, task_id::text AS task_id, payload, created_at
       FROM event
      WHERE session_id = $1::uuid AND seq > $2::bigint AND ($3::bigint IS NULL OR seq < $3::bigint)
      ORDER BY seq
      LIMIT $4`,
    sessionId,
    String(afterSeq),
    beforeSeq === undefined ? null : String(beforeSeq),
    limit,
  );
  return rows.map((row) => ({
    sessionId,
    seq: Number(row.seq),
    type: row.type,
    batchId: row.batch_id,
    callId: row.call_id,
    taskId: row.task_id,
    payload: row.payload,
    createdAt: row.created_at.toISOString(),
  }) as SessionEvent);
}
