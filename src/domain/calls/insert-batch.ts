// A batch, its calls and the jobs that run them, written by one statement: row ids are made here (uuid
// v7), so the statement needs nothing back to go on. It also checks that the session is the tenant's
// (nothing is written otherwise), so a submission needs no query before it — and, when it emits no
// event, no transaction either. A batch id already used in the session inserts nothing (the same batch
// submitted again); a call id already used in the session fails the whole statement (a unique
// violation), which the caller turns into a CallIdConflictError.
import type { ToolCallOutput } from '../../model/outcome.js';
import type { CommittedJob, OutboxJob } from '../outbox.js';
import { toStorableJson } from '../../model/storable-json.js';
import type { Queryable } from '../../sql.js';
import { statement } from '../../sql.js';
import { uuidv7 } from '../../model/ids.js';
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
  /** The jobs that run the calls, written to the outbox of `deployment`. */
  jobs: OutboxJob[];
  deployment: string;
  /** The batch's creation time, and the completion time of whatever completes at submission. */
  submittedAt: Date;
}

export const newRowId = (): string => uuidv7();

const INSERT = statement(
  'batch_insert',
  `WITH b AS (
     INSERT INTO tool_batch (id, session_id, batch_id, idempotency_key, request_hash, call_count, pending_count, submitted_by,
                             succeeded_count, failed_count, cancelled_count, status, created_at, completed_at)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,
            CASE WHEN $7 = 0 THEN 'COMPLETED'::batch_status ELSE 'RUNNING'::batch_status END, $16::timestamptz, CASE WHEN $7 = 0 THEN $16::timestamptz END
      WHERE EXISTS (SELECT 1 FROM session WHERE id = $2 AND tenant_id = $12)
     ON CONFLICT (session_id, batch_id) DO NOTHING
     RETURNING id),
   c AS (
     INSERT INTO tool_call (id, tenant_id, session_id, batch_row_id, call_id, position, tool, args, scheduling, status, output,
                            max_attempts, timeout_ms, submitted_by, queued_at, completed_at, duration_ms)
     SELECT u.id, $12, $2, b.id, u.call_id, u.position - 1, u.tool, u.args, u.scheduling, u.status::call_status, u.output,
            u.max_attempts, u.timeout_ms, $8, $16::timestamptz, CASE WHEN u.output IS NULL THEN NULL ELSE $16::timestamptz END, CASE WHEN u.output IS NULL THEN NULL ELSE 0 END
       FROM b, json_to_recordset($13::json)
            AS u(id uuid, call_id text, tool text, scheduling text, status text, max_attempts int, timeout_ms int, position int, args jsonb, output jsonb)
     RETURNING 1),
   o AS (
     INSERT INTO job_outbox (deployment, job_id, queue, name, data, run_at)
     SELECT $15, j.job_id, j.queue, j.name, j.data, now() + j.delay_ms * interval '1 millisecond'
       FROM b, json_to_recordset($14::json) AS j(job_id text, queue text, name text, data jsonb, delay_ms int)
     ON CONFLICT (deployment, job_id) DO NOTHING
     RETURNING id::text AS id, job_id)
   SELECT (SELECT count(*) FROM b)::int AS batches, (SELECT count(*) FROM c)::int AS calls,
          ARRAY(SELECT id FROM o) AS "outboxIds", ARRAY(SELECT job_id FROM o) AS "jobIds",
          EXISTS (SELECT 1 FROM session WHERE id = $2 AND tenant_id = $12) AS "sessionFound"`,
);

const TAKEN = statement(
  'batch_taken_call_ids',
  `SELECT call_id AS "callId" FROM tool_call WHERE session_id = $1 AND call_id = ANY($2::text[]) AND batch_row_id <> $3 ORDER BY call_id`,
);

export type InsertResult = { kind: 'inserted'; jobs: CommittedJob[] } | { kind: 'existing' } | { kind: 'no-session' };

/** A call id of the batch is already used in its session (the statement wrote nothing). */
export class CallIdsTaken extends Error {
  constructor() {
    super('a call id of the batch is already used in the session');
  }
}

function isCallIdConflict(error: unknown): boolean {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === '23505' && constraint === 'tool_call_session_id_call_id_key';
}

/** The call ids of `callIds` already used in the session (by another batch). */
export async function takenCallIds(sql: Queryable, sessionId: string, batchRowId: string, callIds: string[]): Promise<string[]> {
  const rows = await sql.query<{ callId: string }>(TAKEN, [sessionId, callIds, batchRowId]);
  return rows.map((row) => row.callId);
}

function jobRecords(jobs: OutboxJob[]): string {
  return `[${jobs
    .map(
      (job) =>
        `{"job_id":${JSON.stringify(job.jobId)},"queue":"${job.queue}","name":${JSON.stringify(job.name)},"delay_ms":${Math.max(0, Math.round(job.delayMs ?? 0))},"data":${toStorableJson(job.data)}}`,
    )
    .join(',')}]`;
}

/** The calls as one JSON array for json_to_recordset, args and outputs embedded as the JSON they are. */
function callRecords(calls: NewCall[]): string {
  return `[${calls
    .map(
      (call, index) =>
        `{"id":"${call.id}","call_id":${JSON.stringify(call.callId)},"tool":${JSON.stringify(call.tool)},"scheduling":"${call.scheduling}","status":"${call.status}","max_attempts":${call.maxAttempts},"timeout_ms":${call.timeoutMs},"position":${index + 1},"args":${toStorableJson(call.args)},"output":${call.output ? toStorableJson(call.output) : 'null'}}`,
    )
    .join(',')}]`;
}

export async function insertBatch(sql: Queryable, batch: NewBatch): Promise<InsertResult> {
  const { calls } = batch;
  const tally = { pending: 0, SUCCEEDED: 0, FAILED: 0, CANCELLED: 0 };
  for (const call of calls) {
    if (call.output) tally[statusOf(call.output)]++;
    else tally.pending++;
  }
  let row: { batches: number; calls: number; sessionFound: boolean; outboxIds: string[]; jobIds: string[] } | undefined;
  try {
    [row] = await sql.query<NonNullable<typeof row>>(INSERT, [
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
      jobRecords(batch.jobs),
      batch.deployment,
      batch.submittedAt,
    ]);
  } catch (error) {
    if (isCallIdConflict(error)) throw new CallIdsTaken();
    throw error;
  }
  if (!row!.sessionFound) return { kind: 'no-session' };
  if (row!.batches === 0) return { kind: 'existing' };
  const written = new Map(row!.jobIds.map((jobId, index) => [jobId, row!.outboxIds[index]!]));
  return {
    kind: 'inserted',
    jobs: batch.jobs.flatMap((job) => {
      const outboxId = written.get(job.jobId);
      return outboxId ? [{ ...job, outboxId }] : [];
    }),
  };
}
