// The event log: every durable state change is written in a transaction that also appends the events
// announcing it (or, for a change that has one, in a single statement that does both: AppendingStatement),
// then the events are published.
//
// Ordering: each event gets a dense per-session `seq` and a dense per-tenant `tenantSeq`, both handed
// out by counters on the session and tenant rows in the transaction's last statement (rows locked in
// id order, sessions before tenants). A counter row stays locked until COMMIT, so commit order is
// sequence order for both — and the lock is held only for that last statement and the commit.
//
// Throughput: writes are group-committed. Units queued while transactions are in flight run together
// in the next one; several transactions may be in flight at once, but a session is in at most one of
// them, so a session's writes keep their order. Units can `fold` items into one statement per
// transaction (one UPDATE for many calls), each item's callback emitting its events.
//
// Isolation: in the API a group holds units of one session only, so a write blocked on one session
// (its row held by a frozen process) never delays another session's; workers group across sessions.
// A group that fails is retried unit by unit, so one bad item never affects another's write.
import type { Context } from '@opentelemetry/api';
import type { Db, DbTransaction } from '../db.js';
import type { Logger } from '../logger.js';
import type { EventDraft, SessionEvent } from '../model/events.js';
import { toStorableJson } from '../model/storable-json.js';
import { isLockWaitTimeout, isTransientDatabaseError, type Queryable, type Sql, type SqlConnection, statement } from '../sql.js';
import { activeTraceContext, bindToActiveTrace, inTraceContext, startSharedSpan, tracingEnabled } from '../telemetry/tracing.js';

/** An event as committed: with its session and tenant sequences. */
export type CommittedEvent = SessionEvent;

/** Several items of one kind written by one statement per transaction. */
export interface Fold<I, R> {
  readonly name: string;
  /** Folds run in this order (lowest first), whatever order items were added in. */
  readonly order: number;
  /** Runs once per transaction with every item folded into it; returns one result per item, in order. */
  run(sql: SqlConnection, items: I[]): Promise<R[]>;
}

/**
 * A statement that changes rows and appends the events the change calls for, all at once: no
 * transaction, one round trip. A unit that can be written so (`writeAlone`) is, when its group
 * holds only such units of this statement and of one session; otherwise its general form runs.
 */
export interface AppendingStatement<I, R> {
  readonly name: string;
  /** Whether these items (of one session, in group order) can go in one statement. */
  accepts(items: readonly I[]): boolean;
  /** Applies the items and appends their events; per item its result and its events as committed. */
  run(sql: Queryable, sessionId: string, items: I[], createdAt: Date): Promise<Array<{ result: R; events: CommittedEvent[] }>>;
}

/** A unit's single-statement form: an item of `statement`, whose result goes to `then`. */
export interface AloneForm<I, R> {
  statement: AppendingStatement<I, R>;
  item: I;
  then(result: R): void;
}

export interface WriteScope {
  readonly sql: SqlConnection;
  /** Appends an event to this transaction (in emission order within its session). */
  emit(draft: EventDraft): void;
  /**
   * Adds `item` to the transaction's `fold` statement, which runs after every unit of the group;
   * `then` receives the item's result and may emit events.
   */
  fold<I, R>(fold: Fold<I, R>, item: I, then?: (result: R) => void): void;
  /** Runs after the transaction committed and its events were published (e.g. to enqueue jobs). */
  afterCommit(fn: () => unknown): void;
}

/**
 * A write through Prisma, for the writers off the hot path (background runs, schedules): `tx` is the
 * Prisma transaction. Such writes of one session are serialised by an advisory lock on the session
 * (so a writer may read a row and then update it), without holding the session row itself.
 */
export interface PrismaWriteScope {
  readonly tx: DbTransaction;
  emit(draft: EventDraft): void;
  afterCommit(fn: () => unknown): void;
}

export type Publish = (tenantId: string, events: CommittedEvent[]) => Promise<void>;

export interface EventLogOptions {
  /** 'session': a group holds units of one session (API); 'shared': any sessions (workers). */
  grouping: 'session' | 'shared';
  /** Transactions in flight at once. */
  maxInFlight: number;
  /** Units in one transaction. */
  maxGroup?: number;
}

interface Unit {
  sessionIds: string[];
  alone?: AloneForm<unknown, unknown>;
  /** The writer's trace context (tracing on only): the parent of its events' publish. */
  trace?: Context;
  run: (scope: WriteScope) => Promise<unknown>;
  resolve: (value: unknown, events: CommittedEvent[]) => void;
  reject: (error: unknown) => void;
}

const APPEND = statement(
  'event_log_append',
  `WITH d AS (SELECT * FROM unnest($1::uuid[], $2::int[]) AS d(id, n)),
   s AS (UPDATE session s SET event_seq = s.event_seq + d.n, last_activity_at = $4 FROM d
          WHERE s.id = d.id
      RETURNING s.id, s.tenant_id, s.event_seq AS last, d.n),
   t AS (UPDATE tenant t SET event_seq = t.event_seq + x.n
           FROM (SELECT tenant_id, sum(n)::int AS n FROM s GROUP BY tenant_id) x
          WHERE t.id = x.tenant_id
      RETURNING t.id, t.event_seq AS last, x.n),
   e AS (SELECT * FROM json_to_recordset($3::json)
           AS e(session_id uuid, sidx int, type text, batch_id text, call_id text, task_id uuid, payload jsonb, ord int)),
   numbered AS (SELECT e.*, s.tenant_id, s.last - s.n + e.sidx AS seq,
                       row_number() OVER (PARTITION BY s.tenant_id ORDER BY e.ord) AS tidx
                  FROM e JOIN s ON s.id = e.session_id),
   inserted AS (INSERT INTO event (session_id, seq, tenant_id, tenant_seq, type, batch_id, call_id, task_id, payload, created_at)
                SELECT n.session_id, n.seq, n.tenant_id, t.last - t.n + n.tidx, n.type, n.batch_id, n.call_id, n.task_id, n.payload, $4
                  FROM numbered n JOIN t ON t.id = n.tenant_id)
   SELECT s.id::text AS id, s.tenant_id::text AS "tenantId", s.last::text AS last, NULL::text AS kind FROM s
   UNION ALL SELECT t.id::text, NULL, t.last::text, 'tenant' FROM t`,
);

/**
 * The rows an append of several sessions changes, locked in one order (sessions by id, then their
 * tenants by id) before the append runs, so two appends never wait for each other in a cycle. A
 * statement of its own: an UPDATE in the statement that locked its rows would lock them again from
 * its older snapshot, queueing behind another writer's wait for this transaction (a deadlock).
 */
const LOCK_SEQUENCES = statement(
  'event_log_lock_sequences',
  `WITH ls AS (SELECT id, tenant_id FROM session WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE),
   lt AS (SELECT id FROM tenant WHERE id IN (SELECT tenant_id FROM ls) ORDER BY id FOR NO KEY UPDATE)
   SELECT (SELECT count(*) FROM ls)::int AS sessions, (SELECT count(*) FROM lt)::int AS tenants`,
);

interface AppendRow {
  id: string;
  tenantId: string | null;
  last: string;
  kind: 'tenant' | null;
}

const GROUP_RETRIES = 3;

export class EventLog {
  private readonly queue: Unit[] = [];
  private readonly busySessions = new Set<string>();
  private inFlight = 0;
  private readonly maxGroup: number;

  constructor(
    private readonly sql: Sql,
    private readonly db: Db,
    private readonly publish: Publish,
    private readonly logger: Logger,
    private readonly options: EventLogOptions,
  ) {
    this.maxGroup = options.maxGroup ?? 256;
  }

  /**
   * Runs `run` in a transaction with the events it emits, then publishes them. `run` may be executed
   * more than once (a group that fails is retried unit by unit, a transient failure is retried), so
   * it must only touch the database through its scope.
   */
  async write<T>(sessionIds: string | string[], run: (scope: WriteScope) => Promise<T>): Promise<T> {
    return (await this.writeWithEvents(sessionIds, run)).result;
  }

  /**
   * A write of one session that has a single-statement form (`alone`, see AppendingStatement) beside
   * its general one (`run`, which must write and announce the same); `then` hears the result either way.
   */
  async writeAlone<I, R>(sessionId: string, alone: AloneForm<I, R>, run: (scope: WriteScope) => Promise<void>): Promise<void> {
    await this.writeWithEvents(sessionId, run, alone as AloneForm<unknown, unknown>);
  }

  /** Like `write`, also resolving with the events this unit emitted, as committed (with their sequences). */
  writeWithEvents<T>(sessionIds: string | string[], run: (scope: WriteScope) => Promise<T>, alone?: AloneForm<unknown, unknown>): Promise<{ result: T; events: CommittedEvent[] }> {
    return new Promise((resolve, reject) => {
      const unit: Unit = {
        sessionIds: [...new Set(Array.isArray(sessionIds) ? sessionIds : [sessionIds])],
        ...(alone ? { alone } : {}),
        run,
        resolve: (result, events) => resolve({ result: result as T, events }),
        reject,
      };
      if (tracingEnabled) unit.trace = activeTraceContext();
      this.queue.push(unit);
      this.drain();
    });
  }

  /** Runs `run` in a Prisma transaction with the events it emits, then publishes them (see PrismaWriteScope). */
  async writeWithPrisma<T>(sessionId: string, run: (scope: PrismaWriteScope) => Promise<T>): Promise<T> {
    return (await this.writeWithPrismaEvents(sessionId, run)).result;
  }

  /** Like `writeWithPrisma`, also resolving with the events it emitted, as committed (with their sequences). */
  async writeWithPrismaEvents<T>(sessionId: string, run: (scope: PrismaWriteScope) => Promise<T>): Promise<{ result: T; events: CommittedEvent[] }> {
    for (let attempt = 0; ; attempt++) {
      const afterCommit: Array<() => unknown> = [];
      let committed: CommittedEvent[] = [];
      try {
        const result = await this.db.$transaction(
          async (tx) => {
            afterCommit.length = 0;
            const drafts: EventDraft[] = [];
            await tx.$queryRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext($1))::text AS locked`, `session:${sessionId}`);
            const value = await run({ tx, emit: (draft) => drafts.push(draft), afterCommit: (fn) => afterCommit.push(fn) });
            committed = drafts.length > 0 ? await append(prismaQueryable(tx), drafts) : [];
            return value;
          },
          { timeout: 30_000, maxWait: 30_000 },
        );
        // Like any write: the caller goes on at once; publishing and after-commit actions follow.
        void this.announce(committed, afterCommit, tracingEnabled ? [activeTraceContext()] : undefined);
        return { result, events: committed };
      } catch (error) {
        if (attempt >= GROUP_RETRIES || !(isTransientDatabaseError(error) || isLockWaitTimeout(error))) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(20 * 2 ** attempt, 500)));
      }
    }
  }

  /** Units waiting or in flight (for tests and shutdown). */
  get pending(): number {
    return this.queue.length + this.inFlight;
  }

  private drain(): void {
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      const group = this.takeGroup();
      if (group.length === 0) return;
      const sessions = new Set(group.flatMap((unit) => unit.sessionIds));
      for (const id of sessions) this.busySessions.add(id);
      this.inFlight++;
      void this.runGroup(group).finally(() => {
        this.inFlight--;
        for (const id of sessions) this.busySessions.delete(id);
        this.drain();
      });
    }
  }

  /** The next group: queued units whose sessions are free, keeping each session's units in order. */
  private takeGroup(): Unit[] {
    const group: Unit[] = [];
    const blocked = new Set<string>();
    let onlySession: string | undefined;
    for (let index = 0; index < this.queue.length && group.length < this.maxGroup; ) {
      const unit = this.queue[index]!;
      const free = unit.sessionIds.every((id) => !this.busySessions.has(id) && !blocked.has(id));
      const fits = this.options.grouping === 'shared' || group.length === 0 || (unit.sessionIds.length === 1 && unit.sessionIds[0] === onlySession);
      if (free && fits) {
        this.queue.splice(index, 1);
        group.push(unit);
        if (this.options.grouping === 'session') {
          // A unit spanning several sessions goes alone.
          if (unit.sessionIds.length !== 1) break;
          onlySession = unit.sessionIds[0];
        }
        continue;
      }
      for (const id of unit.sessionIds) blocked.add(id);
      index++;
    }
    return group;
  }

  private async runGroup(group: Unit[]): Promise<void> {
    try {
      await this.commitWithRetries(group);
    } catch (error) {
      if (group.length === 1) {
        group[0]!.reject(error);
        return;
      }
      // One unit may be at fault: give each its own transaction.
      for (const unit of group) await this.commitWithRetries([unit]).catch((unitError: unknown) => unit.reject(unitError));
    }
  }

  private async commitWithRetries(group: Unit[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.commit(group);
        return;
      } catch (error) {
        if (attempt >= GROUP_RETRIES || !isTransientDatabaseError(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(20 * 2 ** attempt, 500)));
      }
    }
  }

  private async commit(group: Unit[]): Promise<void> {
    const statement = group[0]!.alone?.statement;
    const sessionId = group[0]!.sessionIds[0]!;
    if (
      statement &&
      group.every((unit) => unit.alone?.statement === statement && unit.sessionIds.length === 1 && unit.sessionIds[0] === sessionId) &&
      statement.accepts(group.map((unit) => unit.alone!.item))
    ) {
      return this.commitAlone(group, statement, sessionId);
    }
    const afterCommit: Array<() => unknown> = [];
    let committed: CommittedEvent[] = [];
    let emittedBy: number[] = [];
    const results = await this.sql.transaction(
      async (connection) => {
        afterCommit.length = 0;
        const drafts: EventDraft[] = [];
        emittedBy = [];
        type Entry = { item: unknown; then?: (result: unknown) => void };
        const folds = new Map<Fold<unknown, unknown>, Entry[]>();
        // Each unit has a scope of its own, so the events of each (fold callbacks included) are known.
        const scopeOf = (unitIndex: number): WriteScope => ({
          sql: connection,
          emit: (draft) => {
            drafts.push(draft);
            emittedBy.push(unitIndex);
          },
          fold: (fold, item, then) => {
            const entries = folds.get(fold as Fold<unknown, unknown>) ?? [];
            entries.push({ item, then: (tracingEnabled && then ? bindToActiveTrace(then) : then) as ((result: unknown) => void) | undefined });
            folds.set(fold as Fold<unknown, unknown>, entries);
          },
          afterCommit: (fn) => afterCommit.push(fn),
        });
        const unitResults: unknown[] = [];
        // With tracing on, each unit (and its fold callbacks) runs in its writer's trace context, so
        // the jobs it writes carry its writer's trace, whichever unit's caller started the group.
        for (const [index, unit] of group.entries()) {
          unitResults.push(await (unit.trace ? inTraceContext(unit.trace, () => unit.run(scopeOf(index))) : unit.run(scopeOf(index))));
        }
        // Folds run in their order; a fold's callbacks may fold more items (a completion settles its batch).
        while (folds.size > 0) {
          const fold = [...folds.keys()].reduce((first, next) => (next.order < first.order ? next : first));
          const entries = folds.get(fold)!;
          folds.delete(fold);
          const foldResults = await fold.run(connection, entries.map((entry) => entry.item));
          entries.forEach((entry, index) => entry.then?.(foldResults[index]));
        }
        committed = drafts.length > 0 ? await append(connection, drafts) : [];
        return unitResults;
      },
      { retries: 0 },
    );
    const eventsOf: CommittedEvent[][] = group.map(() => []);
    committed.forEach((event, index) => eventsOf[emittedBy[index]!]!.push(event));
    group.forEach((unit, index) => unit.resolve(results[index], eventsOf[index]!));
    // Publishing starts now, in commit order (announce publishes before its first await); the next
    // group of these sessions need not wait for it.
    void this.announce(committed, afterCommit, tracingEnabled ? group.map((unit) => unit.trace) : undefined);
  }

  /** A group written by one AppendingStatement: one statement, no transaction. */
  private async commitAlone(group: Unit[], statement: AppendingStatement<unknown, unknown>, sessionId: string): Promise<void> {
    const outcomes = await statement.run(this.sql, sessionId, group.map((unit) => unit.alone!.item), new Date());
    group.forEach((unit, index) => {
      unit.alone!.then(outcomes[index]!.result);
      unit.resolve(undefined, outcomes[index]!.events);
    });
    void this.announce(outcomes.flatMap((outcome) => outcome.events), [], tracingEnabled ? group.map((unit) => unit.trace) : undefined);
  }

  /**
   * Publishes committed events (one message per tenant), then runs the after-commit actions. With
   * tracing on, `traces` are the writers' contexts: the publish is a span of the first, linked to the others.
   */
  private async announce(committed: CommittedEvent[], afterCommit: Array<() => unknown>, traces?: Array<Context | undefined>): Promise<void> {
    const span = traces && committed.length > 0 ? publishSpan(committed, traces) : undefined;
    const publishing: Array<Promise<void>> | undefined = span ? [] : undefined;
    const byTenant = new Map<string, CommittedEvent[]>();
    for (const event of committed) {
      const list = byTenant.get(event.tenantId) ?? [];
      list.push(event);
      byTenant.set(event.tenantId, list);
    }
    for (const [tenantId, events] of byTenant) {
      const published = this.publish(tenantId, events).catch((error: unknown) => {
        span?.recordException(error as Error);
        this.logger.warn({ err: error, tenantId }, 'event publish failed; subscribers catch up from the database');
      });
      publishing?.push(published);
    }
    if (publishing) void Promise.all(publishing).then(() => span!.end());
    // Started together (a commit's jobs reach the dispatcher in the same tick, so they go in one add).
    const failed = (error: unknown) => this.logger.warn({ err: error }, 'after-commit action failed');
    const running: Array<Promise<unknown>> = [];
    for (const fn of afterCommit) {
      try {
        const result = fn();
        if (result instanceof Promise) running.push(result.catch(failed));
      } catch (error) {
        failed(error);
      }
    }
    await Promise.all(running);
  }
}

function publishSpan(committed: CommittedEvent[], traces: Array<Context | undefined>) {
  return startSharedSpan('toolrun.events.publish', traces, {
    'toolrun.events.count': committed.length,
    'toolrun.events.types': [...new Set(committed.map((event) => event.type))],
  });
}

/** Prisma's transaction client as a Queryable (named statements run unnamed through it). */
function prismaQueryable(tx: DbTransaction): Queryable {
  return {
    query: <R>(query: { text: string } | string, values: readonly unknown[] = []) =>
      tx.$queryRawUnsafe<R[]>(typeof query === 'string' ? query : query.text, ...values),
  };
}

/**
 * The drafts as one JSON array for json_to_recordset: payloads are embedded as the JSON they
 * already are, not escaped again as elements of a text array (pg's array encoding of large JSON
 * texts was the costliest part of a write's client work).
 */
function eventRecords(drafts: EventDraft[], sessionIndex: number[]): string {
  const json = (value: string | null | undefined) => (value == null ? 'null' : JSON.stringify(value));
  return `[${drafts
    .map(
      (draft, index) =>
        `{"session_id":${json(draft.sessionId)},"sidx":${sessionIndex[index]},"type":${json(draft.type)},"batch_id":${json(draft.batchId)},"call_id":${json(draft.callId)},"task_id":${json(draft.taskId)},"ord":${index + 1},"payload":${toStorableJson(draft.payload)}}`,
    )
    .join(',')}]`;
}

/** Allocates the events' session and tenant sequences and inserts them; returns them as committed. */
async function append(connection: Queryable, drafts: EventDraft[]): Promise<CommittedEvent[]> {
  const perSession = new Map<string, number>();
  const sessionIndex: number[] = [];
  for (const draft of drafts) {
    const index = (perSession.get(draft.sessionId) ?? 0) + 1;
    perSession.set(draft.sessionId, index);
    sessionIndex.push(index);
  }
  const createdAt = new Date();
  // One session (and so one tenant): the append's own UPDATEs lock the two rows, session first.
  if (perSession.size > 1) await connection.query(LOCK_SEQUENCES, [[...perSession.keys()]]);
  const rows = await connection.query<AppendRow>(APPEND, [
    [...perSession.keys()],
    [...perSession.values()],
    eventRecords(drafts, sessionIndex),
    createdAt,
  ]);
  const sessions = new Map<string, { tenantId: string; last: number }>();
  const tenants = new Map<string, { last: number; count: number }>();
  for (const row of rows) {
    if (row.kind === 'tenant') tenants.set(row.id, { last: Number(row.last), count: 0 });
    else sessions.set(row.id, { tenantId: row.tenantId!, last: Number(row.last) });
  }
  if (sessions.size !== perSession.size) throw new Error('event append: a session of this write does not exist');
  const tenantCounts = new Map<string, number>();
  for (const draft of drafts) {
    const tenantId = sessions.get(draft.sessionId)!.tenantId;
    tenantCounts.set(tenantId, (tenantCounts.get(tenantId) ?? 0) + 1);
  }
  const at = createdAt.toISOString();
  const tenantIndex = new Map<string, number>();
  return drafts.map((draft, index) => {
    const session = sessions.get(draft.sessionId)!;
    const tenant = tenants.get(session.tenantId)!;
    const tenantOrdinal = (tenantIndex.get(session.tenantId) ?? 0) + 1;
    tenantIndex.set(session.tenantId, tenantOrdinal);
    return committedEvent(draft, {
      tenantId: session.tenantId,
      seq: session.last - perSession.get(draft.sessionId)! + sessionIndex[index]!,
      tenantSeq: tenant.last - tenantCounts.get(session.tenantId)! + tenantOrdinal,
      createdAt: at,
    });
  });
}

/** A draft as committed, at the sequences the append gave it. */
export function committedEvent(draft: EventDraft, at: { tenantId: string; seq: number; tenantSeq: number; createdAt: string }): CommittedEvent {
  return {
    tenantId: at.tenantId,
    sessionId: draft.sessionId,
    seq: at.seq,
    tenantSeq: at.tenantSeq,
    type: draft.type,
    batchId: draft.batchId ?? null,
    callId: draft.callId ?? null,
    taskId: draft.taskId ?? null,
    payload: draft.payload,
    createdAt: at.createdAt,
  } as CommittedEvent;
}

const PRUNE = statement(
  'event_prune',
  `DELETE FROM event WHERE ctid = ANY(ARRAY(SELECT ctid FROM event WHERE created_at < now() - $1 * interval '1 hour' LIMIT 10000))`,
);

/** Deletes events older than the retention (a bounded slice per call). */
export async function pruneEvents(sql: Queryable, retentionHours: number): Promise<void> {
  await sql.query(PRUNE, [retentionHours]);
}
