// Reads of calls and batches — tenant-scoped for the API, by row id for workers — and the one
// write that announces nothing: the liveness heartbeat of running calls.
import type { Db } from '../../db.js';
import type { ToolBatch, ToolCall } from '../../generated/prisma/client.js';
import { NotFoundError, ValidationError } from '../../model/errors.js';
import { inIdOrder } from '../in-id-order.js';
import type { RunnableCall } from '../work.js';
import { CALL_COLUMNS, type CallRecord, loadCall } from './call-transitions.js';

export class CallStore {
  constructor(private readonly db: Db) {}

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

  /** Batches of a session, newest first. */
  batchesOfSession(sessionId: string, offset: number, limit: number): Promise<ToolBatch[]> {
    return this.db.toolBatch.findMany({ where: { sessionId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: offset, take: limit });
  }

  async findBatch(tenantId: string, sessionId: string, batchId: string): Promise<ToolBatch> {
    const batch = await this.db.toolBatch.findFirst({ where: { sessionId, batchId, session: { tenantId } } });
    if (!batch) throw new NotFoundError('Batch', batchId);
    return batch;
  }

  /** Finds a call by its call id; without a session id the id must be unique among the tenant's sessions. */
  async findCall(tenantId: string, callId: string, sessionId?: string | null): Promise<CallRecord> {
    const rows = await this.db.$queryRawUnsafe<CallRecord[]>(
      `SELECT ${CALL_COLUMNS} FROM tool_call c JOIN tool_batch b ON b.id = c.batch_row_id JOIN session s ON s.id = c.session_id
        WHERE c.call_id = $1 AND s.tenant_id = $2::uuid AND ($3::uuid IS NULL OR c.session_id = $3::uuid) LIMIT 2`,
      callId,
      tenantId,
      sessionId ?? null,
    );
    if (rows.length === 0) throw new NotFoundError('Call', callId);
    if (rows.length > 1) throw new ValidationError(`Call id \`${callId}\` is used in several sessions; pass sessionId`, 'sessionId');
    return rows[0]!;
  }

  /** A call by row id, as a worker picks it up. */
  load(callRowId: string): Promise<CallRecord | null> {
    return loadCall({ tx: this.db }, callRowId);
  }

  /** The serial call of a batch whose turn it is (running, waiting or queued), if any. */
  nextSerial(batchRowId: string): Promise<Pick<ToolCall, 'id' | 'status'> | null> {
    return this.db.toolCall.findFirst({
      where: { batchRowId, scheduling: 'SERIAL', status: { in: ['QUEUED', 'RUNNING', 'AWAITING_APPROVAL', 'PENDING_EXTERNAL'] } },
      orderBy: { position: 'asc' },
      select: { id: true, status: true },
    });
  }

  /**
   * Calls that should have a job but may not: queued for over 5 s, or running without a
   * heartbeat for `staleMs` (their worker died, or Redis lost their job).
   */
  orphaned(staleMs: number): Promise<RunnableCall[]> {
    return this.db.$queryRawUnsafe<RunnableCall[]>(
      `SELECT id::text AS id, session_id::text AS "sessionId", batch_row_id::text AS "batchRowId", scheduling
         FROM tool_call
        WHERE (status = 'QUEUED' AND queued_at < now() - interval '5 seconds')
           OR (status = 'RUNNING' AND COALESCE(heartbeat_at, started_at) < now() - ($1::int * interval '1 millisecond'))
        ORDER BY queued_at
        LIMIT 2000`,
      staleMs,
    );
  }

  /** Records that these calls still run; returns those whose cancellation was requested meanwhile. */
  async heartbeat(callRowIds: string[]): Promise<string[]> {
    const rows = await this.db.$queryRawUnsafe<Array<{ id: string; cancel: boolean }>>(
      `UPDATE tool_call SET heartbeat_at = now() WHERE id = ANY($1::uuid[]) AND status = 'RUNNING'
       RETURNING id::text AS id, cancel_requested_at IS NOT NULL AS cancel`,
      callRowIds,
    );
    return rows.filter((row) => row.cancel).map((row) => row.id);
  }
}
