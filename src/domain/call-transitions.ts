// State transitions of tool calls. Each runs inside an EventLog write (session row locked) and
// emits the event that announces it. Transitions are conditional on the state (and attempt) the
// caller saw, which fences out stale workers: a write from a superseded attempt changes nothing.
import type { ToolCall } from '../generated/prisma/client.js';
import type { EventDraft, WriteScope } from './event-log.js';
import { callStatusOf, type ToolCallOutput, type ToolFailure } from './outcome.js';

export type CallStatus = ToolCall['status'];
export const TERMINAL_STATUSES: readonly CallStatus[] = ['SUCCEEDED', 'FAILED', 'CANCELLED'];
export const WAITING_STATUSES: readonly CallStatus[] = ['QUEUED', 'AWAITING_APPROVAL', 'PENDING_EXTERNAL'];

/** A call row with the public id of its batch and its tenant. */
export type CallRecord = ToolCall & { batchId: string; tenantId: string };

export const EVENT_TYPES = {
  callStarted: 'ToolCallStarted',
  callProgress: 'ToolCallProgress',
  callRetrying: 'ToolCallRetrying',
  callCompleted: 'ToolCallCompleted',
  callAwaitingApproval: 'ToolCallAwaitingApproval',
  callAwaitingCompletion: 'ToolCallAwaitingCompletion',
  batchCompleted: 'ToolBatchCompleted',
} as const;

export const CALL_COLUMNS = `c.id::text AS id, c.session_id::text AS "sessionId", c.batch_row_id::text AS "batchRowId",
  c.call_id AS "callId", c.position, c.tool, c.args, c.scheduling, c.status::text AS status, c.output, c.attempt,
  c.max_attempts AS "maxAttempts", c.timeout_ms AS "timeoutMs", c.duration_ms AS "durationMs", c.worker_id AS "workerId",
  c.submitted_by::text AS "submittedBy", c.queued_at AS "queuedAt", c.started_at AS "startedAt",
  c.completed_at AS "completedAt", c.heartbeat_at AS "heartbeatAt", c.cancel_requested_at AS "cancelRequestedAt",
  c.deadline_at AS "deadlineAt", c.decided_by::text AS "decidedBy", c.decided_at AS "decidedAt",
  b.batch_id AS "batchId", s.tenant_id::text AS "tenantId"`;

const CALL_JOINS = `JOIN tool_batch b ON b.id = c.batch_row_id JOIN session s ON s.id = c.session_id`;

export function callEvent(type: string, call: Pick<CallRecord, 'batchId' | 'callId' | 'tool'>, payload: Record<string, unknown>): EventDraft {
  return { type, batchId: call.batchId, callId: call.callId, payload: { tool: call.tool, ...payload } };
}

export function completedEventPayload(call: Pick<CallRecord, 'attempt' | 'durationMs' | 'completedAt'>, output: ToolCallOutput) {
  return {
    status: callStatusOf(output),
    output,
    attempt: call.attempt,
    durationMs: call.durationMs ?? 0,
    completedAt: call.completedAt?.toISOString() ?? new Date().toISOString(),
  };
}

export async function loadCall(scope: Pick<WriteScope, 'tx'>, callRowId: string): Promise<CallRecord | null> {
  const rows = await scope.tx.$queryRawUnsafe<CallRecord[]>(`SELECT ${CALL_COLUMNS} FROM tool_call c ${CALL_JOINS} WHERE c.id = $1::uuid`, callRowId);
  return rows[0] ?? null;
}

async function updateCall(scope: WriteScope, set: string, where: string, params: unknown[]): Promise<CallRecord | null> {
  const rows = await scope.tx.$queryRawUnsafe<CallRecord[]>(
    `WITH updated AS (UPDATE tool_call c SET ${set} WHERE ${where} RETURNING c.*)
     SELECT ${CALL_COLUMNS} FROM updated c ${CALL_JOINS}`,
    ...params,
  );
  return rows[0] ?? null;
}

/** QUEUED → RUNNING, or (with `expectedAttempt`) an interrupted RUNNING attempt re-run as the next one. */
export async function startAttempt(scope: WriteScope, callRowId: string, workerId: string, expectedAttempt?: number): Promise<CallRecord | null> {
  const condition =
    expectedAttempt === undefined ? `c.status = 'QUEUED'` : `c.status = 'RUNNING' AND c.attempt = ${Number(expectedAttempt)}`;
  const call = await updateCall(
    scope,
    `status = 'RUNNING', attempt = c.attempt + 1, started_at = COALESCE(c.started_at, now()), heartbeat_at = now(), worker_id = $2`,
    `c.id = $1::uuid AND ${condition}`,
    [callRowId, workerId],
  );
  if (call) scope.emit(call.sessionId, callEvent(EVENT_TYPES.callStarted, call, { attempt: call.attempt, maxAttempts: call.maxAttempts, startedAt: new Date().toISOString() }));
  return call;
}

export async function recordProgress(scope: WriteScope, call: CallRecord, attempt: number, progress: Record<string, unknown>): Promise<boolean> {
  const updated = await scope.tx.$executeRawUnsafe(
    `UPDATE tool_call SET heartbeat_at = now() WHERE id = $1::uuid AND status = 'RUNNING' AND attempt = $2`,
    call.id,
    attempt,
  );
  if (updated === 0) return false;
  scope.emit(call.sessionId, callEvent(EVENT_TYPES.callProgress, call, { attempt, progress }));
  return true;
}

/** RUNNING(attempt) → QUEUED, to run again after `delayMs`. */
export async function scheduleRetry(scope: WriteScope, call: CallRecord, attempt: number, failure: ToolFailure, delayMs: number): Promise<boolean> {
  const updated = await updateCall(scope, `status = 'QUEUED', worker_id = NULL`, `c.id = $1::uuid AND c.status = 'RUNNING' AND c.attempt = $2`, [call.id, attempt]);
  if (!updated) return false;
  scope.emit(call.sessionId, callEvent(EVENT_TYPES.callRetrying, call, { attempt, failure, delayMs, nextAttempt: attempt + 1 }));
  return true;
}

/** RUNNING(attempt) → terminal. */
export async function completeAttempt(scope: WriteScope, call: CallRecord, attempt: number, output: ToolCallOutput): Promise<CallRecord | null> {
  const completed = await updateCall(
    scope,
    `status = $3::call_status, output = $4::jsonb, completed_at = now(), worker_id = NULL,
     duration_ms = GREATEST(0, round(extract(epoch FROM (now() - COALESCE(c.started_at, now()))) * 1000))::int`,
    `c.id = $1::uuid AND c.status = 'RUNNING' AND c.attempt = $2`,
    [call.id, attempt, callStatusOf(output), JSON.stringify(output)],
  );
  if (!completed) return null;
  scope.emit(completed.sessionId, callEvent(EVENT_TYPES.callCompleted, completed, completedEventPayload(completed, output)));
  await settleBatches(scope, [completed.batchRowId]);
  return completed;
}

/** Completes calls that are waiting (not running) — cancellation, rejection, expiry. */
export async function completeWaiting(
  scope: WriteScope,
  callRowIds: string[],
  output: ToolCallOutput,
  fromStatuses: readonly CallStatus[] = WAITING_STATUSES,
): Promise<CallRecord[]> {
  if (callRowIds.length === 0) return [];
  const rows = await scope.tx.$queryRawUnsafe<CallRecord[]>(
    `WITH updated AS (
       UPDATE tool_call c SET status = $2::call_status, output = $3::jsonb, completed_at = now(), duration_ms = 0
        WHERE c.id = ANY($1::uuid[]) AND c.status::text = ANY($4::text[])
       RETURNING c.*)
     SELECT ${CALL_COLUMNS} FROM updated c ${CALL_JOINS} ORDER BY c.position`,
    callRowIds,
    callStatusOf(output),
    JSON.stringify(output),
    [...fromStatuses],
  );
  for (const call of rows) {
    if (call.attempt === 0) scope.emit(call.sessionId, startedWithoutRunning(call));
    scope.emit(call.sessionId, callEvent(EVENT_TYPES.callCompleted, call, completedEventPayload(call, output)));
  }
  await settleBatches(scope, rows.map((call) => call.batchRowId));
  return rows;
}

/** A call that ends without ever running still announces a start first, so every Completed has one. */
export function startedWithoutRunning(call: Pick<CallRecord, 'batchId' | 'callId' | 'tool' | 'attempt' | 'maxAttempts'>): EventDraft {
  return callEvent(EVENT_TYPES.callStarted, call, { attempt: call.attempt, maxAttempts: call.maxAttempts, startedAt: new Date().toISOString(), ran: false });
}

/** Accounts calls that just became terminal; emits ToolBatchCompleted for batches that finished. */
export async function settleBatches(scope: WriteScope, batchRowIds: string[]): Promise<void> {
  if (batchRowIds.length === 0) return;
  const counts = new Map<string, number>();
  for (const id of batchRowIds) counts.set(id, (counts.get(id) ?? 0) + 1);
  const finished = await scope.tx.$queryRawUnsafe<Array<{ id: string; sessionId: string; batchId: string; callCount: number }>>(
    `UPDATE tool_batch b
        SET pending_count = b.pending_count - d.n,
            status = CASE WHEN b.pending_count - d.n <= 0 THEN 'COMPLETED'::batch_status ELSE b.status END,
            completed_at = CASE WHEN b.pending_count - d.n <= 0 THEN now() ELSE b.completed_at END
       FROM unnest($1::uuid[], $2::int[]) AS d(id, n)
      WHERE b.id = d.id AND b.status = 'RUNNING'
      RETURNING b.id::text AS id, b.session_id::text AS "sessionId", b.batch_id AS "batchId", b.call_count AS "callCount", b.pending_count AS pending`,
    [...counts.keys()],
    [...counts.values()],
  );
  const done = finished.filter((row) => Number((row as unknown as { pending: number }).pending) <= 0);
  if (done.length === 0) return;
  const statusRows = await scope.tx.$queryRawUnsafe<Array<{ batchRowId: string; status: string; n: bigint }>>(
    `SELECT batch_row_id::text AS "batchRowId", status::text AS status, count(*) AS n FROM tool_call WHERE batch_row_id = ANY($1::uuid[]) GROUP BY 1, 2`,
    done.map((row) => row.id),
  );
  for (const batch of done) {
    const tally = { SUCCEEDED: 0, FAILED: 0, CANCELLED: 0 } as Record<string, number>;
    for (const row of statusRows) if (row.batchRowId === batch.id) tally[row.status] = Number(row.n);
    scope.emit(batch.sessionId, {
      type: EVENT_TYPES.batchCompleted,
      batchId: batch.batchId,
      payload: {
        total: batch.callCount,
        succeeded: tally.SUCCEEDED ?? 0,
        failed: tally.FAILED ?? 0,
        cancelled: tally.CANCELLED ?? 0,
        completedAt: new Date().toISOString(),
      },
    });
  }
}

/** Marks running calls for cancellation (idempotent); the worker running each records the outcome. */
export async function requestCancel(scope: WriteScope, callRowIds: string[]): Promise<string[]> {
  if (callRowIds.length === 0) return [];
  const rows = await scope.tx.$queryRawUnsafe<Array<{ id: string }>>(
    `UPDATE tool_call SET cancel_requested_at = COALESCE(cancel_requested_at, now())
      WHERE id = ANY($1::uuid[]) AND status = 'RUNNING' RETURNING id::text AS id`,
    callRowIds,
  );
  return rows.map((row) => row.id);
}
