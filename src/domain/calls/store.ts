// Reads of calls and batches, tenant-scoped, for the API.
import type { Db } from '../../db.js';
import type { ToolBatch, ToolCall } from '../../generated/prisma/client.js';
import { NotFoundError, ValidationError } from '../../model/errors.js';
import { fromStorable } from '../../model/storable-json.js';
import { inIdOrder } from '../in-id-order.js';
import { CALL_COLUMNS, type CallRecord } from './call-transitions.js';

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
