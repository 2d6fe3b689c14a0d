// The session event log. Every durable state change is written in a transaction that also
// appends the events announcing it; the session row lock orders writers, and the session's
// counter hands out a dense sequence, so commit order equals sequence order.
//
// Writes are group-committed: units that arrive while a flush is running are run together in
// the next transaction (one lock per session, one sequence range, one INSERT, one publish per
// session), which is what keeps a busy session from being bound by one transaction per event.
import type { Db, Prisma } from '../db.js';
import type { Logger } from '../logger.js';
import type { EventDraft, SessionEvent } from '../model/events.js';
import type { EventBus } from '../realtime/event-bus.js';
import { type PublishedEvents, sessionEventsChannel } from '../realtime/session-event-stream.js';

export type Tx = Prisma.TransactionClient;

export interface WriteScope {
  tx: Tx;
  emit(sessionId: string, draft: EventDraft): void;
  /** Runs after the transaction committed (e.g. to enqueue jobs or signal workers). */
  afterCommit(fn: () => Promise<unknown> | unknown): void;
  /**
   * A value shared by every unit of this transaction under `key`, handed to `finish` once after
   * the last unit ran (before the events are appended): lets units of a group commit fold their
   * writes into one statement.
   */
  atEnd<T>(key: string, init: () => T, finish: (value: T) => Promise<void>): T;
}

interface Unit {
  sessionIds: string[];
  run: (scope: WriteScope) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const MAX_GROUP = 256;

export class EventLog {
  private queue: Unit[] = [];
  private flushing = false;

  constructor(
    private readonly db: Db,
    private readonly bus: EventBus,
    private readonly logger: Logger,
  ) {}

  /**
   * Runs `run` in a transaction holding the row locks of `sessionIds`, appends the events it
   * emits, commits, then publishes them. `run` may be executed more than once (it is retried
   * alone when its group's transaction fails), so it must only touch the database.
   */
  write<T>(sessionIds: string | string[], run: (scope: WriteScope) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        sessionIds: Array.isArray(sessionIds) ? sessionIds : [sessionIds],
        run,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      if (!this.flushing) void this.drain();
    });
  }

  /** Deletes events older than the retention (a bounded slice per call). */
  async prune(retentionHours: number): Promise<void> {
    await this.db.$executeRawUnsafe(
      `DELETE FROM event WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM event WHERE created_at < now() - ($1::int * interval '1 hour') LIMIT 10000))`,
      retentionHours,
    );
  }

  private async drain(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0, MAX_GROUP);
        try {
          await this.commit(group);
        } catch (error) {
          if (group.length === 1) group[0]!.reject(error);
          else {
            // One unit may be at fault: give each its own transaction.
            for (const unit of group) await this.commit([unit]).catch((err: unknown) => unit.reject(err));
          }
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  private async commit(group: Unit[]): Promise<void> {
    const drafts = new Map<string, EventDraft[]>();
    const afterCommit: Array<() => Promise<unknown> | unknown> = [];
    const results: unknown[] = [];
    const createdAt = new Date();
    const committed = await this.db.$transaction(
      async (tx) => {
        drafts.clear();
        afterCommit.length = 0;
        results.length = 0;
        const atEnd = new Map<string, { value: unknown; finish: (value: unknown) => Promise<void> }>();
        const sessionIds = [...new Set(group.flatMap((unit) => unit.sessionIds))].sort();
        await tx.$queryRawUnsafe(`SELECT id FROM session WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`, sessionIds);
        for (const unit of group) {
          const scope: WriteScope = {
            tx,
            emit: (sessionId, draft) => {
              const list = drafts.get(sessionId) ?? [];
              list.push(draft);
              drafts.set(sessionId, list);
            },
            afterCommit: (fn) => afterCommit.push(fn),
            atEnd: <T>(key: string, init: () => T, finish: (value: T) => Promise<void>): T => {
              let entry = atEnd.get(key);
              if (!entry) {
                entry = { value: init(), finish: finish as (value: unknown) => Promise<void> };
                atEnd.set(key, entry);
              }
              return entry.value as T;
            },
          };
          results.push(await unit.run(scope));
        }
        for (const { value, finish } of atEnd.values()) await finish(value);
        return this.append(tx, drafts, createdAt);
      },
      { timeout: 30_000, maxWait: 30_000 },
    );
    group.forEach((unit, index) => unit.resolve(results[index]));
    for (const [sessionId, events] of committed) {
      this.bus
        .publish(sessionEventsChannel(sessionId), { sessionId, events } satisfies PublishedEvents)
        .catch((error: unknown) => this.logger.warn({ err: error, sessionId }, 'event publish failed; subscribers will catch up'));
    }
    for (const fn of afterCommit) {
      try {
        await fn();
      } catch (error) {
        this.logger.warn({ err: error }, 'after-commit action failed');
      }
    }
  }

  private async append(tx: Tx, drafts: Map<string, EventDraft[]>, createdAt: Date): Promise<Map<string, SessionEvent[]>> {
    const committed = new Map<string, SessionEvent[]>();
    if (drafts.size === 0) return committed;
    const sessionIds: string[] = [];
    const counts: number[] = [];
    for (const [sessionId, list] of drafts) {
      sessionIds.push(sessionId);
      counts.push(list.length);
    }
    const ranges = await tx.$queryRawUnsafe<Array<{ id: string; last: bigint }>>(
      `UPDATE session s SET event_seq = s.event_seq + d.n
         FROM unnest($1::uuid[], $2::int[]) AS d(id, n)
        WHERE s.id = d.id
      RETURNING s.id::text AS id, s.event_seq AS last`,
      sessionIds,
      counts,
    );
    const columns = { session: [] as string[], seq: [] as string[], type: [] as string[], batch: [] as (string | null)[], call: [] as (string | null)[], task: [] as (string | null)[], payload: [] as string[] };
    for (const { id, last } of ranges) {
      const list = drafts.get(id)!;
      const first = Number(last) - list.length + 1;
      const events = list.map((draft, index) => ({
        sessionId: id,
        seq: first + index,
        type: draft.type,
        batchId: draft.batchId ?? null,
        callId: draft.callId ?? null,
        taskId: draft.taskId ?? null,
        payload: draft.payload,
        createdAt: createdAt.toISOString(),
      }) as SessionEvent);
      committed.set(id, events);
      for (const event of events) {
        columns.session.push(event.sessionId);
        columns.seq.push(String(event.seq));
        columns.type.push(event.type);
        columns.batch.push(event.batchId);
        columns.call.push(event.callId);
        columns.task.push(event.taskId);
        columns.payload.push(JSON.stringify(event.payload));
      }
    }
    if (committed.size !== drafts.size) throw new Error('event append: a session row vanished inside its own lock');
    await tx.$executeRawUnsafe(
      `INSERT INTO event (session_id, seq, type, batch_id, call_id, task_id, payload, created_at)
       SELECT s, q, t, b, c, k, p::jsonb, $8::timestamptz
         FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::uuid[], $7::text[]) AS u(s, q, t, b, c, k, p)`,
      columns.session,
      columns.seq,
      columns.type,
      columns.batch,
      columns.call,
      columns.task,
      columns.payload,
      createdAt,
    );
    return committed;
  }
}
