// A batch and its calls, written by one statement: row ids are made here (uuid v7), so the statement
// needs nothing back to go on. It also checks that the session is the tenant's (nothing is written
// otherwise), so a submission needs no query before its transaction. A batch id already used in the session inserts nothing (the same batch
// submitted again); a call id already used in the session inserts fewer calls than asked, which the
// caller turns into a CallIdConflictError (rolling the transaction back).
import { v7 as uuidv7 } from 'uuid';
import type { ToolCallOutput } from '../../model/outcome.js';
import { toStorableJson } from '../../model/storable-json.js';
import { type SqlConnection, statement } from '../../sql.js';
import { type CallStatus, statusOf } from './call-folds.js';

export interface NewCall {
  id: string;
  callId: string;
  tool: string;
  args: unknown;
  scheduling: 'PARALLEL' | 'SERIAL';
  /** QUEUED, AWAITING_APPROVAL, or terminal when `output` is given (refused before running). */
  status: CallStatus;
  output: ToolCallOutput | null;
  maxAttempts: number;
  timeoutMs: number;
}

export interface NewBatch {
  id: string;
  tenantId: string;
  sessionId: string;
  batchId: string;
  idempotencyKey: string | null;
  requestHash: string;
  submittedBy: string | null;
  calls: NewCall[];
}

export const newRowId = (): string => uuidv7();

const INSERT = statement(
  'batch_insert',
  `WITH b AS (
     INSERT INTO tool_batch (id, session_id, batch_id, idempotency_key, request_hash, call_count, pending_count, submitted_by,
                             succeeded_count, failed_count, cancelled_count, status, completed_at)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,
            CASE WHEN $7 = 0 THEN 'COMPLETED'::batch_status ELSE 'RUNNING'::batch_status END, CASE WHEN $7 = 0 THEN now() END
      WHERE EXISTS (SELECT 1 FROM session WHERE id = $2 AND tenant_id = $12)
     ON CONFLICT (session_id, batch_id) DO NOTHING
     RETURNING id),
   c AS (
     INSERT INTO tool_call (id, tenant_id, session_id, batch_row_id, call_id, position, tool, args, scheduling, status, output,
                            max_attempts, timeout_ms, submitted_by, completed_at, duration_ms)
     SELECT u.id, $12, $2, b.id, u.call_id, u.position - 1, u.tool, u.args, u.scheduling, u.status::call_status, u.output,
            u.max_attempts, u.timeout_ms, $8, CASE WHEN u.output IS NULL THEN NULL ELSE now() END, CASE WHEN u.output IS NULL THEN NULL ELSE 0 END
       FROM b, json_to_recordset($13::json)
            AS u(id uuid, call_id text, tool text, scheduling text, status text, max_attempts int, timeout_ms int, position int, args jsonb, output jsonb)
     ON CONFLICT (session_id, call_id) DO NOTHING
     RETURNING 1)
   SELECT (SELECT count(*) FROM b)::int AS batches, (SELECT count(*) FROM c)::int AS calls,
          EXISTS (SELECT 1 FROM session WHERE id = $2 AND tenant_id = $12) AS "sessionFound"`,
);

const TAKEN = statement(
  'batch_taken_call_ids',
  `SELECT call_id AS "callId" FROM tool_call WHERE session_id = $1 AND call_id = ANY($2::text[]) AND batch_row_id <> $3 ORDER BY call_id`,
);

export type InsertResult = { kind: 'inserted' } | { kind: 'existing' } | { kind: 'no-session' } | { kind: 'conflict'; callIds: string[] };

/** The calls as one JSON array for json_to_recordset, args and outputs embedded as the JSON they are. */
function callRecords(calls: NewCall[]): string {
  return `[${calls
    .map(
      (call, index) =>
        `{"id":"${call.id}","call_id":${JSON.stringify(call.callId)},"tool":${JSON.stringify(call.tool)},"scheduling":"${call.scheduling}","status":"${call.status}","max_attempts":${call.maxAttempts},"timeout_ms":${call.timeoutMs},"position":${index + 1},"args":${toStorableJson(call.args)},"output":${call.output ? toStorableJson(call.output) : 'null'}}`,
    )
    .join(',')}]`;
}

export async function insertBatch(sql: SqlConnection, batch: NewBatch): Promise<InsertResult> {
  const { calls } = batch;
  const tally = { pending: 0, SUCCEEDED: 0, FAILED: 0, CANCELLED: 0 };
  for (const call of calls) {
    if (call.output) tally[statusOf(call.output)]++;
    else tally.pending++;
  }
  const [row] = await sql.query<{ batches: number; calls: number; sessionFound: boolean }>(INSERT, [
    batch.id,
    batch.sessionId,
    batch.batchId,
    batch.idempotencyKey,
    batch.requestHash,
    calls.length,
    tally.pending,
    batch.submittedBy,
    tally.SUCCEEDED,
    tally.FAILED,
    tally.CANCELLED,
    batch.tenantId,
    callRecords(calls),
  ]);
  if (!row!.sessionFound) return { kind: 'no-session' };
  if (row!.batches === 0) return { kind: 'existing' };
  if (row!.calls === calls.length) return { kind: 'inserted' };
  const taken = await sql.query<{ callId: string }>(TAKEN, [batch.sessionId, calls.map((call) => call.callId), batch.id]);
  return { kind: 'conflict', callIds: taken.map((entry) => entry.callId) };
}
