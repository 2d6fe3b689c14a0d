// The hot path's state transitions of tool calls, each one statement for all the calls of a
// transaction (see Fold in event-log). Every transition is conditional on the state and attempt the
// writer saw, which fences out superseded attempts: a write from an attempt that was recovered,
// cancelled or finished elsewhere changes nothing, and its events are never emitted.
//
// Lock order (no deadlocks): call rows in id order, then batch rows in id order; the event append
// takes session and tenant rows last.
import { toStorableJson } from '../../model/storable-json.js';
import type { EventDraft, EventPayloads } from '../../model/events.js';
import type { ToolCallOutput } from '../../model/outcome.js';
import { type SqlConnection, statement } from '../../sql.js';
import { type AppendingStatement, type CommittedEvent, committedEvent, type Fold } from '../event-log.js';

export type CallStatus = 'QUEUED' | 'AWAITING_APPROVAL' | 'RUNNING' | 'PENDING_EXTERNAL' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
export type TerminalStatus = 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
/**
 * The statuses of a call that is not final yet: exactly the calls whose completed_at is null (every
 * transition to a final status sets it, nothing else does; a CHECK constraint saying so made
 * Prisma 7.10's schema engine fail in `migrate:check`), which is what the partial index of unfinished calls
 * (tool_call_unfinished_idx) keys on.
 */
export const UNFINISHED_CALL_STATUSES = ['QUEUED', 'AWAITING_APPROVAL', 'RUNNING', 'PENDING_EXTERNAL'] as const satisfies readonly CallStatus[];

/** What a worker knows of a call it runs: everything comes with the job, nothing is read back. */
export interface CallRef {
  id: string;
  tenantId: string;
  sessionId: string;
  batchRowId: string;
  batchId: string;
  callId: string;
  tool: string;
  /** The attempt this run is (1-based); the row shows attempt − 1 while the call is QUEUED. */
  attempt: number;
  maxAttempts: number;
  timeoutMs: number;
  scheduling: 'PARALLEL' | 'SERIAL';
}

export function statusOf(output: ToolCallOutput): TerminalStatus {
  return output.status === 'SUCCESS' ? 'SUCCEEDED' : output.status === 'FAILURE' ? 'FAILED' : 'CANCELLED';
}

function sortedBy<T>(items: T[], key: (item: T) => string): Array<{ item: T; index: number }> {
  return items.map((item, index) => ({ item, index })).sort((a, b) => (key(a.item) < key(b.item) ? -1 : key(a.item) > key(b.item) ? 1 : 0));
}

/**
 * Maps the rows a fenced statement changed (id and the attempt they now show) back to its items
 * (`callOf` names an item's call). One row changes once: when a transaction holds two items of one
 * call (two runs of it on one worker, from a job delivered twice), only the first item of the
 * attempt that took effect gets the row; the other learns it was superseded.
 */
function rowsOfItems<I, R extends { id: string; attempt: number }>(items: I[], callOf: (item: I) => { id: string; attempt: number }, rows: R[]): Array<R | undefined> {
  const changed = new Map(rows.map((row) => [`${row.id}:${row.attempt}`, row]));
  return items.map((item) => {
    const { id, attempt } = callOf(item);
    const key = `${id}:${attempt}`;
    const row = changed.get(key);
    changed.delete(key);
    return row;
  });
}

/** Runs `query` with the items sorted by row id (lock order); tells each item whether its transition took effect. */
async function fenced<I extends { call: CallRef }>(sql: SqlConnection, items: I[], run: (sorted: I[]) => Promise<Array<{ id: string; attempt: number }>>): Promise<boolean[]> {
  const rows = await run(sortedBy(items, (item) => item.call.id).map((entry) => entry.item));
  return rowsOfItems(items, (item) => item.call, rows).map((row) => row !== undefined);
}

// ---------------------------------------------------------------------------------------------
// QUEUED(attempt − 1) → RUNNING(attempt) on a worker that is live: a worker declared dead (frozen
// past its staleness limit, its calls recovered) claims nothing more until it registers again.

export interface ClaimItem {
  call: CallRef;
  workerId: string;
  startedAt: Date;
}

const CLAIM = statement(
  'calls_claim',
  `UPDATE tool_call c SET status = 'RUNNING', attempt = d.attempt, worker_id = d.worker_id, started_at = COALESCE(c.started_at, d.started_at)
     FROM unnest($1::uuid[], $2::int[], $3::text[], $4::timestamptz[]) AS d(id, attempt, worker_id, started_at)
    WHERE c.id = d.id AND c.status = 'QUEUED' AND c.attempt = d.attempt - 1
      AND EXISTS (SELECT 1 FROM worker w WHERE w.id = d.worker_id AND w.state = 'live')
   RETURNING c.id::text AS id, c.attempt`,
);

export const claimCalls: Fold<ClaimItem, boolean> = {
  name: 'claim',
  order: 10,
  run: (sql, items) =>
    fenced(sql, items, (sorted) =>
      sql.query(CLAIM, [sorted.map((item) => item.call.id), sorted.map((item) => item.call.attempt), sorted.map((item) => item.workerId), sorted.map((item) => item.startedAt)]),
    ),
};

// ---------------------------------------------------------------------------------------------
// Whether a running attempt is still the call's (before its progress is announced).

export interface LiveItem {
  call: CallRef;
  workerId: string;
}

const LIVE = statement(
  'calls_live',
  `SELECT c.id::text AS id, c.attempt FROM tool_call c
     JOIN unnest($1::uuid[], $2::int[], $3::text[]) AS d(id, attempt, worker_id) ON c.id = d.id
    WHERE c.status = 'RUNNING' AND c.attempt = d.attempt AND c.worker_id = d.worker_id
    ORDER BY c.id FOR SHARE OF c`,
);

export const liveCalls: Fold<LiveItem, boolean> = {
  name: 'live',
  order: 20,
  run: (sql, items) =>
    fenced(sql, items, (sorted) => sql.query(LIVE, [sorted.map((item) => item.call.id), sorted.map((item) => item.call.attempt), sorted.map((item) => item.workerId)])),
};

// ---------------------------------------------------------------------------------------------
// RUNNING(attempt) on this worker — or, for a call whose claim was never written (it ran at once),
// QUEUED(attempt − 1) — → terminal, its batch settled in the same statement (one round trip less on
// the path every call takes).

export interface FinishItem {
  call: CallRef;
  workerId: string;
  /** Whether this worker's claim of the attempt was written. */
  claimed: boolean;
  output: ToolCallOutput;
  /** null: the call ends without having run (its tool vanished), so its record keeps no start. */
  startedAt: Date | null;
  durationMs: number;
}

export interface Finished {
  /** Whether the transition took effect (false: the attempt was superseded; nothing changed). */
  ok: boolean;
  /** The call's batch, when this call was its last pending one (told to one item per batch). */
  completedBatch: CompletedBatch | null;
}

/**
 * The CTEs `f` (the fenced finish of the items of $1, a JSON array of finishRecords, whose ids $2
 * repeats as an array; each row with the item's attempt) and `t` (what `f` ended, tallied per batch
 * for settleUpdate). A call that ends without having run (no start) keeps the attempt it had.
 */
const FINISHED_CALLS = `f AS (
     UPDATE tool_call c SET status = d.status::call_status, attempt = CASE WHEN d.started_at IS NULL THEN c.attempt ELSE d.attempt END,
            output = d.output, worker_id = NULL,
            started_at = COALESCE(c.started_at, d.started_at), completed_at = now(), duration_ms = d.duration_ms
       FROM json_to_recordset($1::json)
            AS d(id uuid, item int, attempt int, status text, output jsonb, claimed bool, started_at timestamptz, duration_ms int, worker_id text)
      WHERE c.id = ANY($2::uuid[]) AND c.id = d.id
        AND ((d.claimed AND c.status = 'RUNNING' AND c.attempt = d.attempt AND c.worker_id = d.worker_id)
          OR (NOT d.claimed AND c.status = 'QUEUED' AND c.attempt = d.attempt - 1))
     RETURNING c.id, d.attempt, c.batch_row_id, c.status, d.item),
   t AS (
     SELECT batch_row_id AS id, count(*)::int AS n, (count(*) FILTER (WHERE status = 'SUCCEEDED'))::int AS s,
            (count(*) FILTER (WHERE status = 'FAILED'))::int AS f, (count(*) FILTER (WHERE status = 'CANCELLED'))::int AS c
       FROM f GROUP BY batch_row_id ORDER BY batch_row_id)`;

/**
 * The finish statements' parameters $1 and $2 for `items` in lock order (by call row id), each with
 * its position in `items`. The outputs are embedded as they are (see eventRecords in event-log.ts);
 * the ids go again as an array: the planner knows an array's length, not a JSON document's, and
 * with the JSON's default estimate it may choose to scan the whole table.
 */
function finishRecords(items: FinishItem[]): [string, string[]] {
  const order = sortedBy(items, (item) => item.call.id);
  return [
    `[${order
      .map(
        ({ item, index }) =>
          `{"id":${JSON.stringify(item.call.id)},"item":${index},"attempt":${item.call.attempt},"status":"${statusOf(item.output)}","claimed":${item.claimed},"started_at":${item.startedAt ? JSON.stringify(item.startedAt.toISOString()) : 'null'},"duration_ms":${Math.max(0, Math.round(item.durationMs))},"worker_id":${JSON.stringify(item.workerId)},"output":${toStorableJson(item.output)}}`,
      )
      .join(',')}]`,
    order.map(({ item }) => item.call.id),
  ];
}

const FINISH = statement(
  'calls_finish',
  `WITH ${FINISHED_CALLS},
   b AS (${settleUpdate('t AS d')})
   SELECT f.id::text AS id, f.attempt, f.batch_row_id::text AS "batchRowId", b.id AS "completedBatch", b."sessionId", b."batchId",
          b."completedPayload"
     FROM f LEFT JOIN b ON b.id = f.batch_row_id::text AND b.pending <= 0`,
);

type FinishRow = { id: string; attempt: number; batchRowId: string; completedBatch: string | null; sessionId: string; batchId: string; completedPayload: CompletedBatch['payload'] };

export const finishCalls: Fold<FinishItem, Finished> = {
  name: 'finish',
  order: 30,
  run: async (sql, items) => {
    const rows = await sql.query<FinishRow>(FINISH, finishRecords(items));
    const rowOf = rowsOfItems(items, (item) => item.call, rows);
    // A completed batch is told to its last item here, so its completion follows every call's.
    const lastOfBatch = new Map<string, number>();
    rowOf.forEach((row, index) => row?.completedBatch && lastOfBatch.set(row.batchRowId, index));
    return rowOf.map((row, index) => ({
      ok: row !== undefined,
      completedBatch:
        row?.completedBatch && lastOfBatch.get(row.batchRowId) === index
          ? { id: row.completedBatch, sessionId: row.sessionId, batchId: row.batchId, payload: row.completedPayload }
          : null,
    }));
  },
};

/** A batch's completion comes after every event of the call that completed it. */
const BATCH_EVENT_ORDER = 1_000_000;

/**
 * The finish of calls of one session with the append of their events, in one statement (see
 * AppendingStatement): the items' candidate events go in only for the calls whose fenced transition
 * took effect, followed by their batch's ToolBatchCompleted when it was the batch's last call (the
 * payload from settleUpdate), numbered from the session's and tenant's counters as event-log.ts'
 * append does. Lock order as in a finish transaction: calls, batches, then the session and its tenant.
 */
const FINISH_APPEND = statement(
  'calls_finish_append',
  `WITH ${FINISHED_CALLS},
   b AS (${settleUpdate('t AS d')}),
   done AS (
     SELECT f.id, f.attempt, f.item, b.id AS "batchRowId", b."batchId", b."completedPayload",
            COALESCE(b.pending <= 0 AND f.item = max(f.item) OVER (PARTITION BY f.batch_row_id), false) AS completes
       FROM f LEFT JOIN b ON b.id = f.batch_row_id::text),
   ev AS (
     SELECT e.item, e.k, e.type, e.batch_id, e.call_id, e.payload
       FROM json_to_recordset($3::json) AS e(row_id uuid, attempt int, item int, k int, type text, batch_id text, call_id text, payload jsonb)
       JOIN f ON f.id = e.row_id AND f.attempt = e.attempt
     UNION ALL
     SELECT item, ${BATCH_EVENT_ORDER}, 'ToolBatchCompleted', "batchId", NULL, "completedPayload" FROM done WHERE completes),
   x AS (SELECT ev.*, row_number() OVER (ORDER BY item, k)::int AS sidx, count(*) OVER ()::int AS n FROM ev),
   s AS (UPDATE session s SET event_seq = s.event_seq + (SELECT count(*)::int FROM ev), last_activity_at = $4
          WHERE s.id = $5 AND EXISTS (SELECT 1 FROM ev)
      RETURNING s.tenant_id, s.event_seq AS last),
   tn AS (UPDATE tenant t SET event_seq = t.event_seq + (SELECT count(*)::int FROM ev) FROM s WHERE t.id = s.tenant_id
      RETURNING t.event_seq AS last),
   ins AS (INSERT INTO event (session_id, seq, tenant_id, tenant_seq, type, batch_id, call_id, task_id, payload, created_at)
           SELECT $5, s.last - x.n + x.sidx, s.tenant_id, tn.last - x.n + x.sidx, x.type, x.batch_id, x.call_id, NULL, x.payload, $4
             FROM x, s, tn)
   SELECT done.id::text AS id, done.attempt, done.item, done.completes, done."batchRowId", done."batchId", done."completedPayload",
          s.tenant_id::text AS "tenantId", s.last::text AS "sessionLast", tn.last::text AS "tenantLast"
     FROM done LEFT JOIN s ON true LEFT JOIN tn ON true`,
);

/** A finish with the events that announce it when it takes effect (ToolBatchCompleted is the statement's). */
export interface FinishAppendItem extends FinishItem {
  /** Built when the statement runs (their times are the write's, not the queueing's). */
  events(): EventDraft[];
}

type FinishAppendRow = {
  id: string;
  attempt: number;
  item: number;
  completes: boolean;
  batchRowId: string | null;
  batchId: string | null;
  completedPayload: CompletedBatch['payload'] | null;
  tenantId: string | null;
  sessionLast: string | null;
  tenantLast: string | null;
};

export const finishAndAppend: AppendingStatement<FinishAppendItem, Finished> = {
  name: 'finish-append',
  // One row changes once per statement: two items of one call (a job delivered twice) take the general path.
  accepts: (items) => new Set(items.map((item) => item.call.id)).size === items.length,
  run: async (sql, sessionId, items, createdAt) => {
    const eventsOf = items.map((item) => item.events());
    const rows = await sql.query<FinishAppendRow>(FINISH_APPEND, [
      ...finishRecords(items),
      `[${items
        .flatMap((item, index) =>
          eventsOf[index]!.map(
            (draft, k) =>
              `{"row_id":${JSON.stringify(item.call.id)},"attempt":${item.call.attempt},"item":${index},"k":${k},"type":${JSON.stringify(draft.type)},"batch_id":${JSON.stringify(draft.batchId ?? null)},"call_id":${JSON.stringify(draft.callId ?? null)},"payload":${toStorableJson(draft.payload)}}`,
          ),
        )
        .join(',')}]`,
      createdAt,
      sessionId,
    ]);
    const byItem = new Map(rows.map((row) => [row.item, row]));
    const first = rows.find((row) => row.sessionLast !== null);
    // The events as the statement numbered them: by item, then in each item's order.
    const drafts: Array<{ item: number; draft: EventDraft }> = [];
    eventsOf.forEach((itemEvents, index) => {
      const row = byItem.get(index);
      if (!row) return;
      for (const draft of itemEvents) drafts.push({ item: index, draft });
      if (row.completes) drafts.push({ item: index, draft: { sessionId, type: 'ToolBatchCompleted', batchId: row.batchId!, payload: row.completedPayload! } });
    });
    const at = createdAt.toISOString();
    const events: CommittedEvent[][] = items.map(() => []);
    drafts.forEach(({ item, draft }, position) => {
      events[item]!.push(
        committedEvent(draft, {
          tenantId: first!.tenantId!,
          seq: Number(first!.sessionLast) - drafts.length + position + 1,
          tenantSeq: Number(first!.tenantLast) - drafts.length + position + 1,
          createdAt: at,
        }),
      );
    });
    return items.map((_, index) => {
      const row = byItem.get(index);
      return {
        result: {
          ok: row !== undefined,
          completedBatch: row?.completes ? { id: row.batchRowId!, sessionId, batchId: row.batchId!, payload: row.completedPayload! } : null,
        },
        events: events[index]!,
      };
    });
  },
};

// ---------------------------------------------------------------------------------------------
// RUNNING(attempt) (or unclaimed QUEUED(attempt − 1)) → QUEUED(attempt): the call runs again as the
// next attempt (a retry, handed back by a worker that shuts down, or re-run after its worker was lost:
// then it may go past the retry policy's attempts, and max_attempts grows so the record never shows
// attempt 2 of 1).

export interface RequeueItem {
  call: CallRef;
  workerId: string;
  claimed: boolean;
  startedAt: Date;
}

const REQUEUE = statement(
  'calls_requeue',
  `UPDATE tool_call c SET status = 'QUEUED', attempt = d.attempt, worker_id = NULL, started_at = COALESCE(c.started_at, d.started_at),
          max_attempts = GREATEST(c.max_attempts, d.attempt + 1)
     FROM unnest($1::uuid[], $2::int[], $3::bool[], $4::timestamptz[], $5::text[]) AS d(id, attempt, claimed, started_at, worker_id)
    WHERE c.id = d.id
      AND ((d.claimed AND c.status = 'RUNNING' AND c.attempt = d.attempt AND c.worker_id = d.worker_id)
        OR (NOT d.claimed AND c.status = 'QUEUED' AND c.attempt = d.attempt - 1))
   RETURNING c.id::text AS id, c.attempt`,
);

export const requeueCalls: Fold<RequeueItem, boolean> = {
  name: 'requeue',
  order: 30,
  run: (sql, items) =>
    fenced(sql, items, (sorted) =>
      sql.query(REQUEUE, [
        sorted.map((item) => item.call.id),
        sorted.map((item) => item.call.attempt),
        sorted.map((item) => item.claimed),
        sorted.map((item) => item.startedAt),
        sorted.map((item) => item.workerId),
      ]),
    ),
};

// ---------------------------------------------------------------------------------------------
// QUEUED(attempt − 1) → PENDING_EXTERNAL(attempt): an external tool's call waits for a client.

const PENDING_EXTERNAL = statement(
  'calls_pending_external',
  `UPDATE tool_call c SET status = 'PENDING_EXTERNAL', attempt = d.attempt, worker_id = NULL, started_at = COALESCE(c.started_at, now()),
          deadline_at = now() + c.timeout_ms * interval '1 millisecond'
     FROM unnest($1::uuid[], $2::int[]) AS d(id, attempt)
    WHERE c.id = d.id AND c.status = 'QUEUED' AND c.attempt = d.attempt - 1
   RETURNING c.id::text AS id, c.attempt, now() AS "startedAt", c.deadline_at AS "deadlineAt", c.args`,
);

export interface PendingExternal {
  /** When this attempt started waiting (the call's `started_at` stays its first attempt's). */
  startedAt: Date;
  deadlineAt: Date;
  args: unknown;
}

export const enterPendingExternal: Fold<CallRef, PendingExternal | null> = {
  name: 'pending-external',
  order: 30,
  run: async (sql, items) => {
    const sorted = sortedBy(items, (item) => item.id).map((entry) => entry.item);
    const rows = await sql.query<PendingExternal & { id: string; attempt: number }>(PENDING_EXTERNAL, [sorted.map((item) => item.id), sorted.map((item) => item.attempt)]);
    return rowsOfItems(items, (item) => item, rows).map((row) => (row ? { startedAt: row.startedAt, deadlineAt: row.deadlineAt, args: row.args } : null));
  },
};

// ---------------------------------------------------------------------------------------------
// Batch accounting: calls that just became terminal; the batch completes when none is pending.

export interface SettleItem {
  batchRowId: string;
  status: TerminalStatus;
}

export interface CompletedBatch {
  id: string;
  sessionId: string;
  batchId: string;
  /** Its ToolBatchCompleted payload (settleUpdate). */
  payload: EventPayloads['ToolBatchCompleted'];
}

/**
 * Subtracts the tally `d` (id, n, s, f, c) from its batches' pending calls; completes those left with
 * none. A completed batch comes back with its ToolBatchCompleted payload (`completedPayload`), written
 * here once for every statement that settles batches, in JS form (completedAt in ms, ISO, UTC).
 */
function settleUpdate(tally: string): string {
  return `UPDATE tool_batch b
      SET pending_count = b.pending_count - d.n, succeeded_count = b.succeeded_count + d.s,
          failed_count = b.failed_count + d.f, cancelled_count = b.cancelled_count + d.c,
          status = CASE WHEN b.pending_count - d.n <= 0 THEN 'COMPLETED'::batch_status ELSE b.status END,
          completed_at = CASE WHEN b.pending_count - d.n <= 0 THEN now() ELSE b.completed_at END
     FROM ${tally}
    WHERE b.id = d.id AND b.status = 'RUNNING'
   RETURNING b.id::text AS id, b.session_id::text AS "sessionId", b.batch_id AS "batchId", b.pending_count AS pending,
             CASE WHEN b.pending_count <= 0 THEN jsonb_build_object('total', b.call_count, 'succeeded', b.succeeded_count,
               'failed', b.failed_count, 'cancelled', b.cancelled_count,
               'completedAt', to_char(b.completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) END AS "completedPayload"`;
}

const SETTLE = statement(
  'batches_settle',
  settleUpdate('unnest($1::uuid[], $2::int[], $3::int[], $4::int[], $5::int[]) AS d(id, n, s, f, c)'),
);

/** Each batch that completed in this transaction is reported once, to its first item. */
export const settleBatches: Fold<SettleItem, CompletedBatch | null> = {
  name: 'settle',
  order: 40,
  run: async (sql, items) => {
    const tally = new Map<string, { n: number; s: number; f: number; c: number }>();
    for (const item of items) {
      const entry = tally.get(item.batchRowId) ?? { n: 0, s: 0, f: 0, c: 0 };
      entry.n++;
      if (item.status === 'SUCCEEDED') entry.s++;
      else if (item.status === 'FAILED') entry.f++;
      else entry.c++;
      tally.set(item.batchRowId, entry);
    }
    const ids = [...tally.keys()].sort();
    const rows = await sql.query<{ id: string; sessionId: string; batchId: string; pending: number; completedPayload: CompletedBatch['payload'] }>(SETTLE, [
      ids,
      ids.map((id) => tally.get(id)!.n),
      ids.map((id) => tally.get(id)!.s),
      ids.map((id) => tally.get(id)!.f),
      ids.map((id) => tally.get(id)!.c),
    ]);
    const completed = new Map(rows.filter((row) => row.pending <= 0).map((row) => [row.id, row]));
    return items.map((item) => {
      const batch = completed.get(item.batchRowId);
      if (!batch) return null;
      completed.delete(item.batchRowId);
      return { id: batch.id, sessionId: batch.sessionId, batchId: batch.batchId, payload: batch.completedPayload };
    });
  },
};

// ---------------------------------------------------------------------------------------------
// A batch's serial lane wakes up (its waiting call was decided, completed, retried or recovered):
// each wake-up is a new generation, so its job is a new job even while the last one still runs.

const WAKE_LANES = statement(
  'batches_wake_lanes',
  `UPDATE tool_batch b SET lane_gen = b.lane_gen + 1 FROM unnest($1::uuid[]) AS d(id)
    WHERE b.id = d.id RETURNING b.id::text AS id, b.lane_gen AS gen`,
);

/** Each item gets its batch's new lane generation (items of one batch share one wake-up). */
export const wakeLanes: Fold<string, number | null> = {
  name: 'wake-lanes',
  order: 45,
  run: async (sql, batchRowIds) => {
    const ids = [...new Set(batchRowIds)].sort();
    const rows = await sql.query<{ id: string; gen: number }>(WAKE_LANES, [ids]);
    const gens = new Map(rows.map((row) => [row.id, row.gen]));
    const seen = new Set<string>();
    return batchRowIds.map((id) => {
      if (seen.has(id)) return null;
      seen.add(id);
      return gens.get(id) ?? null;
    });
  },
};
