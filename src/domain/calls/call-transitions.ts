// State transitions of tool calls. Each runs inside an EventLog write (session row locked) and
// emits the event that announces it. Transitions are conditional on the state (and attempt) the
// caller saw, which fences out stale workers: a write from a superseded attempt changes nothing.
import type { ToolCall } from '../../generated/prisma/client.js';
import type { CallEventType, EventDraft, EventPayloads, ToolProgress } from '../../model/events.js';
import type { WriteScope } from '../event-log.js';
import { callStatusOf, failure, outputs, type ToolCallOutput, type ToolFailure } from '../../model/outcome.js';

export type CallStatus = ToolCall['status'];
export const TERMINAL_STATUSES: readonly CallStatus[] = ['SUCCEEDED', 'FAILED', 'CANCELLED'];
export const WAITING_STATUSES: readonly CallStatus[] = ['QUEUED', 'AWAITING_APPROVAL', 'PENDING_EXTERNAL'];

/** A call row with the public id of its batch and its tenant. */
export type CallRecord = ToolCall & { batchId: string; tenantId: string };

export const CALL_COLUMNS = `c.id::text AS id, c.session_id::text AS "sessionId", c.batch_row_id::text AS "batchRowId",
  c.call_id AS "callId", c.position, c.tool, c.args, c.scheduling, c.status::text AS status, c.output, c.attempt,
  c.max_attempts AS "maxAttempts", c.timeout_ms AS "timeoutMs", c.duration_ms AS "durationMs", c.worker_id AS "workerId",
  c.submitted_by::text AS "submittedBy", c.queued_at AS "queuedAt", c.started_at AS "startedAt",
  c.completed_at AS "completedAt", c.heartbeat_at AS "heartbeatAt", c.cancel_requested_at AS "cancelRequestedAt",
  c.deadline_at AS "deadlineAt", c.decided_by::text AS "decidedBy", c.decided_at AS "decidedAt",
  b.batch_id AS "batchId", s.tenant_id::text AS "tenantId"`;

const CALL_JOINS = `JOIN tool_batch b ON b.id = c.batch_row_id JOIN session s ON s.id = c.session_id`;

export function callEvent<T extends CallEventType>(type: T, call: Pick<CallRecord, 'batchId' | 'callId' | 'tool'>, payload: Omit<EventPayloads[T], 'tool'>): EventDraft<T> {
  return { type, batchId: call.batchId, callId: call.callId, payload: { tool: call.tool, ...payload } } as EventDraft<T>;
}

export function completedEventPayload(call: Pick<CallRecord, 'attempt' | 'durationMs' | 'completedAt'>, output: ToolCallOutput): Omit<EventPayloads['ToolCallCompleted'], 'tool'> {
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

/**
 * QUEUED → RUNNING, or (with `expectedAttempt`) an interrupted RUNNING attempt re-run as the next
 * one. A lost worker is not the tool's failure, so that re-run may go past the retry policy's
 * attempts: max_attempts then grows to match, and the record never shows attempt 2 of 1.
 */
export async function startAttempt(scope: WriteScope, callRowId: string, workerId: string, expectedAttempt?: number): Promise<CallRecord | null> {
  const condition =
    expectedAttempt === undefined ? `c.status = 'QUEUED'` : `c.status = 'RUNNING' AND c.attempt = ${Number(expectedAttempt)}`;
  const raise = expectedAttempt === undefined ? '' : ', max_attempts = GREATEST(c.max_attempts, c.attempt + 1)';
  const call = await updateCall(
    scope,
    `status = 'RUNNING', attempt = c.attempt + 1, started_at = COALESCE(c.started_at, now()), heartbeat_at = now(), worker_id = $2${raise}`,
    `c.id = $1::uuid AND ${condition}`,
    [callRowId, workerId],
  );
  if (call) scope.emit(call.sessionId, callEvent('ToolCallStarted', call, { attempt: call.attempt, maxAttempts: call.maxAttempts, startedAt: new Date().toISOString() }));
  return call;
}

/** QUEUED → RUNNING for many calls in one statement; returns the calls that were started, by id. */
export async function startAttempts(scope: WriteScope, callRowIds: string[], workerId: string): Promise<Map<string, CallRecord>> {
  const rows = await scope.tx.$queryRawUnsafe<CallRecord[]>(
    `WITH updated AS (
       UPDATE tool_call c SET status = 'RUNNING', attempt = c.attempt + 1, started_at = COALESCE(c.started_at, now()),
              heartbeat_at = now(), worker_id = $2
        WHERE c.id = ANY($1::uuid[]) AND c.status = 'QUEUED'
       RETURNING c.*)
     SELECT ${CALL_COLUMNS} FROM updated c ${CALL_JOINS}`,
    callRowIds,
    workerId,
  );
  const started = new Map(rows.map((call) => [call.id, call]));
  const startedAt = new Date().toISOString();
  for (const id of callRowIds) {
    const call = started.get(id);
    if (call) scope.emit(call.sessionId, callEvent('ToolCallStarted', call, { attempt: call.attempt, maxAttempts: call.maxAttempts, startedAt }));
  }
  return started;
}

/** RUNNING(attempt) → terminal for many calls in one statement; returns the completed calls, by id. */
export async function completeAttempts(
  scope: WriteScope,
  items: Array<{ callRowId: string; attempt: number; output: ToolCallOutput }>,
): Promise<Map<string, CallRecord>> {
  const rows = await scope.tx.$queryRawUnsafe<CallRecord[]>(
    `WITH d AS (SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[]) AS d(id, attempt, status, output)),
     updated AS (
       UPDATE tool_call c SET status = d.status::call_status, output = d.output::jsonb, completed_at = now(), worker_id = NULL,
              duration_ms = GREATEST(0, round(extract(epoch FROM (now() - COALESCE(c.started_at, now()))) * 1000))::int
         FROM d
        WHERE c.id = d.id AND c.status = 'RUNNING' AND c.attempt = d.attempt
       RETURNING c.*)
     SELECT ${CALL_COLUMNS} FROM updated c ${CALL_JOINS}`,
    items.map((item) => item.callRowId),
    items.map((item) => item.attempt),
    items.map((item) => callStatusOf(item.output)),
    items.map((item) => JSON.stringify(item.output)),
  );
  const completed = new Map(rows.map((call) => [call.id, call]));
  for (const item of items) {
    const call = completed.get(item.callRowId);
    if (call) scope.emit(call.sessionId, callEvent('ToolCallCompleted', call, completedEventPayload(call, item.output)));
  }
  await settleBatches(scope, rows.map((call) => call.batchRowId));
  return completed;
}

export async function recordProgress(scope: WriteScope, call: CallRecord, attempt: number, progress: ToolProgress): Promise<boolean> {
  const updated = await scope.tx.$executeRawUnsafe(
    `UPDATE tool_call SET heartbeat_at = now() WHERE id = $1::uuid AND status = 'RUNNING' AND attempt = $2`,
    call.id,
    attempt,
  );
  if (updated === 0) return false;
  scope.emit(call.sessionId, callEvent('ToolCallProgress', call, { attempt, progress }));
  return true;
}

/** RUNNING(attempt) → QUEUED, to run again after `delayMs`. */
export async function scheduleRetry(scope: WriteScope, call: CallRecord, attempt: number, failure: ToolFailure, delayMs: number): Promise<boolean> {
  const updated = await updateCall(scope, `status = 'QUEUED', worker_id = NULL`, `c.id = $1::uuid AND c.status = 'RUNNING' AND c.attempt = $2`, [call.id, attempt]);
  if (!updated) return false;
  scope.emit(call.sessionId, callEvent('ToolCallRetrying', call, { attempt, failure, delayMs, nextAttempt: attempt + 1 }));
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
  scope.emit(completed.sessionId, callEvent('ToolCallCompleted', completed, completedEventPayload(completed, output)));
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
    scope.emit(call.sessionId, callEvent('ToolCallCompleted', call, completedEventPayload(call, output)));
  }
  await settleBatches(scope, rows.map((call) => call.batchRowId));
  return rows;
}

/** A call that ends without ever running still announces a start first, so every Completed has one. */
export function startedWithoutRunning(call: Pick<CallRecord, 'batchId' | 'callId' | 'tool' | 'attempt' | 'maxAttempts'>): EventDraft<'ToolCallStarted'> {
  return callEvent('ToolCallStarted', call, { attempt: call.attempt, maxAttempts: call.maxAttempts, startedAt: new Date().toISOString(), ran: false });
}

/**
 * Accounts calls that just became terminal; emits ToolBatchCompleted for batches that finished.
 * The accounting of a whole group commit is folded into one statement at its end.
 */
export function settleBatches(scope: WriteScope, batchRowIds: string[]): Promise<void> {
  const counts = scope.atEnd('settle-batches', () => new Map<string, number>(), (pending) => settleNow(scope, pending));
  for (const id of batchRowIds) counts.set(id, (counts.get(id) ?? 0) + 1);
  return Promise.resolve();
}

async function settleNow(scope: WriteScope, counts: Map<string, number>): Promise<void> {
  if (counts.size === 0) return;
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
      type: 'ToolBatchCompleted',
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

/** AWAITING_APPROVAL → QUEUED, recording who approved. The caller enqueues the call (or its lane). */
export async function approveCall(scope: WriteScope, callRowId: string, apiKeyId: string): Promise<CallRecord | null> {
  const call = await updateCall(
    scope,
    `status = 'QUEUED', decided_by = $2::uuid, decided_at = now()`,
    `c.id = $1::uuid AND c.status = 'AWAITING_APPROVAL'`,
    [callRowId, apiKeyId],
  );
  if (call) scope.emit(call.sessionId, callEvent('ToolCallApproved', call, { decidedAt: call.decidedAt?.toISOString() ?? new Date().toISOString() }));
  return call;
}

/** AWAITING_APPROVAL → FAILED (the rejection `output`), recording who rejected. */
export async function rejectCall(scope: WriteScope, callRowId: string, apiKeyId: string, output: ToolCallOutput): Promise<CallRecord | null> {
  const [rejected] = await completeWaiting(scope, [callRowId], output, ['AWAITING_APPROVAL']);
  if (!rejected) return null;
  await scope.tx.$executeRawUnsafe(`UPDATE tool_call SET decided_by = $2::uuid, decided_at = now() WHERE id = $1::uuid`, callRowId, apiKeyId);
  return { ...rejected, decidedBy: apiKeyId, decidedAt: new Date() };
}

/**
 * QUEUED → PENDING_EXTERNAL (the next attempt of an external tool's call): the call now waits for
 * a client to complete it until `deadline_at`, its timeout from now.
 */
export async function enterPendingExternal(scope: WriteScope, callRowId: string): Promise<CallRecord | null> {
  const call = await updateCall(
    scope,
    `status = 'PENDING_EXTERNAL', attempt = c.attempt + 1, started_at = COALESCE(c.started_at, now()), worker_id = NULL,
     heartbeat_at = NULL, deadline_at = now() + c.timeout_ms * interval '1 millisecond'`,
    `c.id = $1::uuid AND c.status = 'QUEUED'`,
    [callRowId],
  );
  if (!call) return null;
  const startedAt = (call.startedAt ?? new Date()).toISOString();
  scope.emit(call.sessionId, callEvent('ToolCallStarted', call, { attempt: call.attempt, maxAttempts: call.maxAttempts, startedAt }));
  scope.emit(
    call.sessionId,
    callEvent('ToolCallAwaitingCompletion', call, {
      args: call.args,
      attempt: call.attempt,
      maxAttempts: call.maxAttempts,
      timeoutMs: call.timeoutMs,
      deadline: call.deadlineAt!.toISOString(),
    }),
  );
  return call;
}

/**
 * Completes PENDING_EXTERNAL calls with `output`, on the extra condition `where` (on alias `c`,
 * parameters from $4). Returns the calls that were completed.
 */
async function finishPendingExternal(scope: WriteScope, callRowIds: string[], output: ToolCallOutput, where: string, params: unknown[]): Promise<CallRecord[]> {
  if (callRowIds.length === 0) return [];
  const rows = await scope.tx.$queryRawUnsafe<CallRecord[]>(
    `WITH updated AS (
       UPDATE tool_call c SET status = $2::call_status, output = $3::jsonb, completed_at = now(), worker_id = NULL,
              duration_ms = GREATEST(0, round(extract(epoch FROM (now() - COALESCE(c.started_at, now()))) * 1000))::int
        WHERE c.id = ANY($1::uuid[]) AND c.status = 'PENDING_EXTERNAL' AND ${where}
       RETURNING c.*)
     SELECT ${CALL_COLUMNS} FROM updated c ${CALL_JOINS} ORDER BY c.position`,
    callRowIds,
    callStatusOf(output),
    JSON.stringify(output),
    ...params,
  );
  for (const call of rows) scope.emit(call.sessionId, callEvent('ToolCallCompleted', call, completedEventPayload(call, output)));
  await settleBatches(scope, rows.map((call) => call.batchRowId));
  return rows;
}

/** PENDING_EXTERNAL(attempt) → terminal, only while its deadline has not passed (database clock). */
export async function completeExternal(scope: WriteScope, call: CallRecord, attempt: number, output: ToolCallOutput): Promise<CallRecord | null> {
  const [completed] = await finishPendingExternal(scope, [call.id], output, `c.attempt = $4 AND (c.deadline_at IS NULL OR c.deadline_at > now())`, [attempt]);
  return completed ?? null;
}

/** PENDING_EXTERNAL(attempt) → QUEUED, to wait for a completion again as the next attempt after `delayMs`. */
export async function scheduleExternalRetry(scope: WriteScope, call: CallRecord, attempt: number, failure: ToolFailure, delayMs: number): Promise<boolean> {
  const updated = await updateCall(
    scope,
    `status = 'QUEUED', deadline_at = NULL`,
    `c.id = $1::uuid AND c.status = 'PENDING_EXTERNAL' AND c.attempt = $2 AND (c.deadline_at IS NULL OR c.deadline_at > now())`,
    [call.id, attempt],
  );
  if (!updated) return false;
  scope.emit(call.sessionId, callEvent('ToolCallRetrying', call, { attempt, failure, delayMs, nextAttempt: attempt + 1 }));
  return true;
}

export const DEADLINE_EXCEEDED_CODE = 'deadline_exceeded';

/** The failure of an external call whose deadline passed without a completion. */
export function deadlineExceeded(call: Pick<CallRecord, 'tool' | 'timeoutMs'>): ToolCallOutput {
  return outputs.failure(
    failure('TIMEOUT', DEADLINE_EXCEEDED_CODE, `No completion for \`${call.tool}\` arrived within its deadline (${call.timeoutMs} ms)`),
  );
}

/** Fails PENDING_EXTERNAL calls whose deadline has passed (database clock) with TIMEOUT; others are left alone. */
export async function expirePendingExternal(scope: WriteScope, callRowIds: string[]): Promise<CallRecord[]> {
  const expired: CallRecord[] = [];
  // The output names the tool and timeout, so it is written call by call.
  const calls = await scope.tx.$queryRawUnsafe<CallRecord[]>(
    `SELECT ${CALL_COLUMNS} FROM tool_call c ${CALL_JOINS} WHERE c.id = ANY($1::uuid[]) AND c.status = 'PENDING_EXTERNAL' AND c.deadline_at <= now()`,
    callRowIds,
  );
  for (const call of calls) expired.push(...(await finishPendingExternal(scope, [call.id], deadlineExceeded(call), `c.deadline_at <= now()`, [])));
  return expired;
}
