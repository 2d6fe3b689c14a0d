// Reads of calls and batches, tenant-scoped, for the API.
import type { Db } from '../../db.js';
import type { CallStatus, Prisma, ToolBatch, ToolCall } from '../../generated/prisma/client.js';
import { NotFoundError, ValidationError } from '../../model/errors.js';
import { checkFilterList, checkTimeWindow, keysetTime, type Page, type PageRequest, toPage } from '../../model/keyset.js';
import type { FailureClass } from '../../model/outcome.js';
import { fromStorable } from '../../model/storable-json.js';
import { type FinishedEvents, readFinishedEvents } from '../finished-events.js';
import { inIdOrder } from '../in-id-order.js';
import { type Queryable, statement } from '../../sql.js';
import { EMPTY_BATCH_ID, emptyBatch } from './batches.js';
import { CALL_COLUMNS, type CallRecord } from './call-transitions.js';
import { UNFINISHED_CALL_STATUSES } from './call-folds.js';

/** The final calls of sessions by outcome, from their batches' counters (kept with each transition). */
const SESSION_FINAL_COUNTS = statement(
  'session_final_call_counts',
  `SELECT session_id::text AS "sessionId", sum(succeeded_count)::int AS succeeded, sum(failed_count)::int AS failed, sum(cancelled_count)::int AS cancelled
     FROM tool_batch WHERE session_id = ANY($1::uuid[]) GROUP BY session_id`,
);

const CALL_PAGES = statement(
  'call_pages_of_batches',
  `SELECT ${CALL_COLUMNS} FROM unnest($1::uuid[]) AS o(id)
     CROSS JOIN LATERAL (SELECT * FROM tool_call WHERE batch_row_id = o.id AND position > $2 ORDER BY position LIMIT $3) c
     JOIN tool_batch b ON b.id = c.batch_row_id
    ORDER BY c.batch_row_id, c.position`,
);

const WAIT_START = statement(
  'batch_wait_start',
  `SELECT s.event_seq::text AS head, b.status::text AS status FROM tool_batch b JOIN session s ON s.id = b.session_id WHERE b.id = $1::uuid`,
);

export class CallStore {
  constructor(
    private readonly db: Db,
    private readonly sql: Queryable,
  ) {}

  /** Where a wait for the batch's completion starts: its session's event head, or null when it is complete (or gone). */
  async waitStart(batchRowId: string): Promise<number | null> {
    const [row] = await this.sql.query<{ head: string; status: string }>(WAIT_START, [batchRowId]);
    return row && row.status !== 'COMPLETED' ? Number(row.head) : null;
  }

  async loadBatches(tenantId: string, ids: readonly string[]): Promise<Array<ToolBatch | NotFoundError>> {
    const rows = await this.db.toolBatch.findMany({ where: { id: { in: [...ids] }, session: { tenantId } } });
    return inIdOrder(ids, rows, 'ToolBatch');
  }

  async loadCalls(tenantId: string, ids: readonly string[]): Promise<Array<ToolCall | NotFoundError>> {
    const rows = await this.db.toolCall.findMany({ where: { id: { in: [...ids] }, session: { tenantId } } });
    return inIdOrder(ids, rows, 'ToolCall');
  }

  /** Calls of many batches in one query, each batch's in input order. */
  callsOfBatches(batchRowIds: readonly string[]): Promise<ToolCall[]> {
    return this.db.toolCall.findMany({ where: { batchRowId: { in: [...batchRowIds] } }, orderBy: [{ batchRowId: 'asc' }, { position: 'asc' }] });
  }

  /** A page of the tenant's calls that match, by queue time: newest first, or oldest first; `count` counts them all. */
  async listCalls(tenantId: string, filter: CallFilter, page: PageRequest, oldestFirst = false): Promise<{ page: Page<ToolCall>; count: () => Promise<number> }> {
    const where = callWhere(tenantId, filter);
    const after = page.after ? keysetTime(page.after) : null;
    const beyond = oldestFirst ? 'gt' : 'lt';
    const keyset: Prisma.ToolCallWhereInput = after ? { OR: [{ queuedAt: { [beyond]: after.key } }, { queuedAt: after.key, id: { [beyond]: after.id } }] } : {};
    const direction = oldestFirst ? 'asc' : 'desc';
    const [, rows] = await Promise.all([
      this.assertFilteredSession(tenantId, filter),
      this.db.toolCall.findMany({ where: { AND: [where, keyset] }, orderBy: [{ queuedAt: direction }, { id: direction }], take: page.first + 1 }),
    ]);
    return { page: toPage(rows, page), count: () => this.db.toolCall.count({ where }) };
  }

  /** How many of the tenant's calls that match are in each status. */
  async statusCounts(tenantId: string, filter: CallFilter): Promise<Map<CallStatus, number>> {
    const where = callWhere(tenantId, filter);
    const [, groups] = await Promise.all([this.assertFilteredSession(tenantId, filter), this.db.toolCall.groupBy({ by: ['status'], where, _count: { _all: true } })]);
    return new Map(groups.map((group) => [group.status, group._count._all]));
  }

  /** A filter's session that is not the tenant's is not found, as in tasks and schedules (not an empty list). */
  private async assertFilteredSession(tenantId: string, filter: CallFilter): Promise<void> {
    if (filter.sessionId != null && !(await this.isTenantSession(tenantId, filter.sessionId))) throw new NotFoundError('Session', filter.sessionId);
  }

  private async isTenantSession(tenantId: string, sessionId: string): Promise<boolean> {
    return (await this.db.session.findFirst({ where: { id: sessionId, tenantId }, select: { id: true } })) !== null;
  }

  /** Per-status call counts of many sessions (or batches) in one query. */
  /** How many calls of each batch are in each status, in one query (a batch's calls are few). */
  async batchStatusCountsOf(ids: readonly string[]): Promise<Array<Map<CallStatus, number>>> {
    const groups = await this.db.toolCall.groupBy({ by: ['batchRowId', 'status'], where: { batchRowId: { in: [...ids] } }, _count: { _all: true } });
    const byBatch = new Map(ids.map((id) => [id, new Map<CallStatus, number>()]));
    for (const group of groups) byBatch.get(group.batchRowId)?.set(group.status, group._count._all);
    return ids.map((id) => byBatch.get(id)!);
  }

  /**
   * How many final calls each session has by outcome, from its batches' counters (kept with every
   * transition): its calls themselves, however many, are not read.
   */
  async finalCountsOfSessions(ids: readonly string[]): Promise<Array<Map<CallStatus, number>>> {
    const rows = await this.sql.query<{ sessionId: string; succeeded: number; failed: number; cancelled: number }>(SESSION_FINAL_COUNTS, [[...ids]]);
    const bySession = new Map(ids.map((id) => [id, new Map<CallStatus, number>()]));
    for (const row of rows) {
      const counts = bySession.get(row.sessionId);
      if (!counts) continue;
      for (const [status, n] of [['SUCCEEDED', row.succeeded], ['FAILED', row.failed], ['CANCELLED', row.cancelled]] as const) if (n > 0) counts.set(status, n);
    }
    return ids.map((id) => bySession.get(id)!);
  }

  /**
   * How many calls of each of the tenant's sessions are in each status not final yet, in one query
   * through tool_call_unfinished_idx (the tenant, and `completed_at IS NULL` for its predicate, said
   * beside the status): a session's finished calls, however many, are not read.
   */
  async unfinishedCountsOfSessions(tenantId: string, ids: readonly string[]): Promise<Array<Map<CallStatus, number>>> {
    const groups = await this.db.toolCall.groupBy({
      by: ['sessionId', 'status'],
      where: { tenantId, sessionId: { in: [...ids] }, status: { in: [...UNFINISHED_CALL_STATUSES] }, completedAt: null },
      _count: { _all: true },
    });
    const bySession = new Map(ids.map((id) => [id, new Map<CallStatus, number>()]));
    for (const group of groups) bySession.get(group.sessionId)?.set(group.status, group._count._all);
    return ids.map((id) => bySession.get(id)!);
  }

  /** Per tool: calls queued in the window, failures, and duration percentiles of the finished ones. */
  toolStats(tenantId: string, since: Date, until: Date): Promise<ToolStats[]> {
    return this.db.$queryRawUnsafe<ToolStats[]>(
      `SELECT tool, count(*)::int AS "callCount",
              (count(*) FILTER (WHERE status = 'FAILED'))::int AS "failedCount",
              (count(*) FILTER (WHERE status = 'SUCCEEDED'))::int AS "succeededCount",
              (percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) FILTER (WHERE duration_ms IS NOT NULL))::float8 AS "durationP50Ms",
              (percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) FILTER (WHERE duration_ms IS NOT NULL))::float8 AS "durationP95Ms"
         FROM tool_call WHERE tenant_id = $1::uuid AND queued_at >= $2 AND queued_at < $3
        GROUP BY tool ORDER BY tool`,
      tenantId,
      since,
      until,
    );
  }

  /**
   * A page of the calls of each batch, in input order: one statement for any number of batches
   * (node-postgres, prepared: a submission that waits for its batch answers with this page).
   */
  async callPagesOfBatches(batchRowIds: readonly string[], page: PageRequest): Promise<Array<Page<ToolCall>>> {
    const afterPosition = page.after ? Number(page.after.key) : -1;
    if (!Number.isInteger(afterPosition)) throw new ValidationError('`after` is not a cursor of this list', 'after');
    const rows = await this.sql.query<CallRecord>(CALL_PAGES, [[...batchRowIds], afterPosition, page.first + 1]);
    return batchRowIds.map((id) => toPage(rows.filter((row) => row.batchRowId === id), page));
  }

  /** A page of the batches of each session, newest first: two queries for any number of sessions. */
  async batchPagesOfSessions(sessionIds: readonly string[], page: PageRequest): Promise<Array<Page<ToolBatch>>> {
    const after = page.after ? keysetTime(page.after) : null;
    const ids = await this.db.$queryRawUnsafe<Array<{ id: string }>>(
      `SELECT t.id::text AS id FROM unnest($1::uuid[]) AS s(id)
         CROSS JOIN LATERAL (SELECT id FROM tool_batch WHERE session_id = s.id
                               AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
                             ORDER BY created_at DESC, id DESC LIMIT $4) t`,
      [...sessionIds],
      after?.key ?? null,
      after?.id ?? null,
      page.first + 1,
    );
    const rows = ids.length === 0 ? [] : await this.db.toolBatch.findMany({ where: { id: { in: ids.map((row) => row.id) } }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
    return sessionIds.map((id) => toPage(rows.filter((row) => row.sessionId === id), page));
  }

  /**
   * For each batch, the session position its events follow: just before its first event, or the
   * session's head when it has none yet (its events will come later). Null for a completed batch
   * whose events are no longer retained. One query for any number of batches.
   */
  async eventStarts(batchRowIds: readonly string[]): Promise<Array<{ sessionId: string; seq: number } | null>> {
    const rows = await this.db.$queryRawUnsafe<Array<{ id: string; sessionId: string; seq: string | null }>>(
      `SELECT b.id::text AS id, b.session_id::text AS "sessionId",
              (CASE WHEN f.first IS NOT NULL THEN f.first - 1 WHEN b.status = 'RUNNING' THEN s.event_seq END)::text AS seq
         FROM tool_batch b JOIN session s ON s.id = b.session_id
         CROSS JOIN LATERAL (SELECT min(seq) AS first FROM event e WHERE e.session_id = b.session_id AND e.batch_id = b.batch_id) f
        WHERE b.id = ANY($1::uuid[])`,
      [...batchRowIds],
    );
    const byId = new Map(rows.map((row) => [row.id, row.seq === null ? null : { sessionId: row.sessionId, seq: Number(row.seq) }]));
    return batchRowIds.map((id) => byId.get(id) ?? null);
  }

  /** Where a finished batch's retained events lie (see FinishedEvents). */
  finishedEvents(batch: Pick<ToolBatch, 'sessionId' | 'batchId'>): Promise<FinishedEvents> {
    return readFinishedEvents(this.db, batch.sessionId, { batchId: batch.batchId });
  }

  /** Batches of each session, counted in one query. */
  async batchCountsOf(sessionIds: readonly string[]): Promise<number[]> {
    const groups = await this.db.toolBatch.groupBy({ by: ['sessionId'], where: { sessionId: { in: [...sessionIds] } }, _count: { _all: true } });
    const counts = new Map(groups.map((group) => [group.sessionId, group._count._all]));
    return sessionIds.map((id) => counts.get(id) ?? 0);
  }

  async findBatch(tenantId: string, sessionId: string, batchId: string): Promise<ToolBatch> {
    if (batchId === EMPTY_BATCH_ID) {
      if (!(await this.isTenantSession(tenantId, sessionId))) throw new NotFoundError('Batch', batchId);
      return emptyBatch(sessionId);
    }
    const batch = await this.db.toolBatch.findFirst({ where: { sessionId, batchId, session: { tenantId } } });
    if (!batch) throw new NotFoundError('Batch', batchId);
    return batch;
  }

  /** Finds a call by its call id; without a session id the id must be unique among the tenant's sessions. */
  async findCall(tenantId: string, callId: string, sessionId?: string | null): Promise<CallRecord> {
    const rows = await this.db.$queryRawUnsafe<CallRecord[]>(
      `SELECT ${CALL_COLUMNS} FROM tool_call c JOIN tool_batch b ON b.id = c.batch_row_id
        WHERE c.call_id = $1 AND c.tenant_id = $2::uuid AND ($3::uuid IS NULL OR c.session_id = $3::uuid) LIMIT 2`,
      callId,
      tenantId,
      sessionId ?? null,
    );
    if (rows.length === 0) throw new NotFoundError('Call', callId);
    if (rows.length > 1) throw new ValidationError(`Call id \`${callId}\` is used in several sessions; pass sessionId`, 'sessionId');
    const call = rows[0]!;
    return { ...call, args: fromStorable(call.args), output: fromStorable(call.output) };
  }
}

export interface CallFilter {
  status?: CallStatus[] | null;
  tool?: string[] | null;
  sessionId?: string | null;
  /** A batch's public id (within `sessionId` when given). */
  batchId?: string | null;
  failureClass?: FailureClass[] | null;
  failureCode?: string[] | null;
  queuedAfter?: Date | null;
  queuedBefore?: Date | null;
}

export interface ToolStats {
  tool: string;
  callCount: number;
  failedCount: number;
  succeededCount: number;
  durationP50Ms: number | null;
  durationP95Ms: number | null;
}

function callWhere(tenantId: string, filter: CallFilter): Prisma.ToolCallWhereInput {
  for (const field of ['status', 'tool', 'failureClass', 'failureCode'] as const) checkFilterList(filter[field], field);
  checkTimeWindow(filter.queuedAfter, filter.queuedBefore, 'queuedAfter', 'queuedBefore');
  const and: Prisma.ToolCallWhereInput[] = [{ tenantId }];
  if (filter.status?.length) {
    and.push({ status: { in: filter.status } });
    // Only statuses not final: said once more as `completed_at IS NULL`, the predicate of the index of
    // unfinished calls (tool_call_unfinished_idx), which the status list, sent as casts, cannot prove.
    if (filter.status.every((status) => isUnfinished(status))) and.push({ completedAt: null });
  }
  if (filter.tool?.length) and.push({ tool: { in: filter.tool } });
  if (filter.sessionId) and.push({ sessionId: filter.sessionId });
  if (filter.batchId != null) and.push({ batch: { batchId: filter.batchId } });
  if (filter.failureClass?.length) and.push({ OR: filter.failureClass.map((value) => ({ output: { path: ['failure', 'class'], equals: value } })) });
  if (filter.failureCode?.length) and.push({ OR: filter.failureCode.map((value) => ({ output: { path: ['failure', 'code'], equals: value } })) });
  if (filter.queuedAfter) and.push({ queuedAt: { gte: filter.queuedAfter } });
  if (filter.queuedBefore) and.push({ queuedAt: { lt: filter.queuedBefore } });
  return { AND: and };
}

function isUnfinished(status: CallStatus): boolean {
  return (UNFINISHED_CALL_STATUSES as readonly CallStatus[]).includes(status);
}
