// The transitions of calls that people and clients cause (the API's side: cancel, approve, reject,
// complete or expire an external call), each inside an EventLog write with the events announcing
// it. The worker's own transitions are the folds of call-folds.ts. Every transition is conditional
// on the state (and attempt) the caller saw, so two racing decisions cannot both take effect.
import type { ToolCall } from '../../generated/prisma/client.js';
import type { EventDraft, EventPayloads } from '../../model/events.js';
import { failure, outputs, type ToolCallOutput, type ToolFailure } from '../../model/outcome.js';
import { toStorableJson } from '../../model/storable-json.js';
import { type Queryable, statement } from '../../sql.js';
import type { WriteScope } from '../event-log.js';
import { addJob, type Dispatcher, withdrawJobs } from '../outbox.js';
import { type CallRef, statusOf } from './call-folds.js';
import { callJobId, describeCall, runCallJob } from './call-jobs.js';
import { completedEvent, settle, wakeLane } from './call-writes.js';

export type CallStatus = ToolCall['status'];
export const TERMINAL_STATUSES: readonly CallStatus[] = ['SUCCEEDED', 'FAILED', 'CANCELLED'];
export const WAITING_STATUSES: readonly CallStatus[] = ['QUEUED', 'AWAITING_APPROVAL', 'PENDING_EXTERNAL'];

/** A call row with the public id of its batch. */
export type CallRecord = ToolCall & { batchId: string };

export const CALL_COLUMNS = `c.id::text AS id, c.tenant_id::text AS "tenantId", c.session_id::text AS "sessionId", c.batch_row_id::text AS "batchRowId",
  c.call_id AS "callId", c.position, c.tool, c.args, c.scheduling, c.status::text AS status, c.output, c.attempt,
  c.max_attempts AS "maxAttempts", c.timeout_ms AS "timeoutMs", c.duration_ms AS "durationMs", c.worker_id AS "workerId",
  c.submitted_by::text AS "submittedBy", c.queued_at AS "queuedAt", c.started_at AS "startedAt",
  c.completed_at AS "completedAt", c.heartbeat_at AS "heartbeatAt", c.cancel_requested_at AS "cancelRequestedAt",
  c.deadline_at AS "deadlineAt", c.decided_by::text AS "decidedBy", c.decided_at AS "decidedAt",
  b.batch_id AS "batchId"`;

const LOAD = statement('call_load', `SELECT ${CALL_COLUMNS} FROM tool_call c JOIN tool_batch b ON b.id = c.batch_row_id WHERE c.id = $1::uuid`);

export async function loadCall(sql: Queryable, callRowId: string): Promise<CallRecord | null> {
  return (await sql.query<CallRecord>(LOAD, [callRowId]))[0] ?? null;
}

/** The worker's view of a call record: what a job carries. */
export function refOf(call: CallRecord, attempt = call.attempt): CallRef {
  return {
    id: call.id,
    tenantId: call.tenantId,
    sessionId: call.sessionId,
    batchRowId: call.batchRowId,
    batchId: call.batchId,
    callId: call.callId,
    tool: call.tool,
    attempt,
    maxAttempts: call.maxAttempts,
    timeoutMs: call.timeoutMs,
    scheduling: call.scheduling as CallRef['scheduling'],
  };
}

function callEvent<T extends 'ToolCallApproved' | 'ToolCallRetrying'>(type: T, call: CallRecord, payload: Omit<EventPayloads[T], 'tool'>): EventDraft<T> {
  return { sessionId: call.sessionId, type, batchId: call.batchId, callId: call.callId, payload: { tool: call.tool, ...payload } } as EventDraft<T>;
}

/** Runs `update` (a statement updating `tool_call c` … RETURNING c.*) and reads the changed rows as records. */
function updating(name: string, update: string) {
  return statement(name, `WITH updated AS (${update}) SELECT ${CALL_COLUMNS} FROM updated c JOIN tool_batch b ON b.id = c.batch_row_id ORDER BY c.position`);
}

/**
 * How long a PENDING_EXTERNAL call's current attempt has waited: since it entered PENDING_EXTERNAL,
 * which set its deadline that far ahead (`started_at` is the call's first attempt's start).
 */
const EXTERNAL_ATTEMPT_MS = `GREATEST(0, round(extract(epoch FROM (now() - COALESCE(c.deadline_at - c.timeout_ms * interval '1 millisecond', c.started_at, now()))) * 1000))::int`;

/**
 * A call that ended while waiting (refused, cancelled, expired): Completed. Only a call waiting for
 * an external completion had started its attempt (and ran for its duration).
 */
function endedWaiting(scope: WriteScope, dispatcher: Dispatcher, call: CallRecord, output: ToolCallOutput): void {
  scope.emit(completedEvent(call, output, call.durationMs ?? 0));
  settle(scope, call, statusOf(output));
  // A serial call that waited held its lane: let the lane go on.
  if (call.scheduling === 'SERIAL') wakeLane(scope, dispatcher, call);
}

const CANCEL_WAITING = updating(
  'calls_cancel_waiting',
  `UPDATE tool_call c SET status = 'CANCELLED', output = $2::jsonb, completed_at = now(), worker_id = NULL,
          duration_ms = CASE WHEN c.status = 'PENDING_EXTERNAL' THEN ${EXTERNAL_ATTEMPT_MS} ELSE 0 END
    WHERE c.id IN (SELECT id FROM tool_call WHERE id = ANY($1::uuid[]) AND status IN ('QUEUED', 'AWAITING_APPROVAL', 'PENDING_EXTERNAL') ORDER BY id FOR UPDATE)
   RETURNING c.*`,
);

const REQUEST_CANCEL = statement(
  'calls_request_cancel',
  `UPDATE tool_call SET cancel_requested_at = COALESCE(cancel_requested_at, now())
    WHERE id IN (SELECT id FROM tool_call WHERE id = ANY($1::uuid[]) AND status = 'RUNNING' ORDER BY id FOR UPDATE)
   RETURNING id::text AS id, worker_id AS "workerId", attempt`,
);

export interface CancelRequested {
  id: string;
  workerId: string | null;
  attempt: number;
}

/**
 * Cancels calls: waiting ones end CANCELLED at once (they never ran, so no ToolCallStarted);
 * running ones are marked (idempotent), and their worker records the outcome. Returns the running ones.
 */
export async function cancelCalls(scope: WriteScope, dispatcher: Dispatcher, callRowIds: string[]): Promise<CancelRequested[]> {
  if (callRowIds.length === 0) return [];
  const cancelled = await scope.sql.query<CallRecord>(CANCEL_WAITING, [callRowIds, toStorableJson(outputs.cancelled())]);
  for (const call of cancelled) endedWaiting(scope, dispatcher, call, outputs.cancelled());
  // A parallel call that already ran waits out a retry's backoff in a delayed job of its own: the job
  // goes too, so that the queues and the tenant's backlog show only work that remains.
  const retries = cancelled.filter((call) => call.scheduling === 'PARALLEL' && call.attempt >= 1);
  await withdrawJobs(scope, dispatcher, retries.map((call) => ({ jobId: callJobId(call.id, call.attempt + 1), tenantId: call.tenantId })));
  return scope.sql.query<CancelRequested>(REQUEST_CANCEL, [callRowIds]);
}

const RUNNING_ATTEMPT = statement(
  'calls_running_attempt',
  `SELECT ${CALL_COLUMNS} FROM tool_call c JOIN tool_batch b ON b.id = c.batch_row_id
    WHERE c.id = ANY($1::uuid[]) AND c.status = 'RUNNING' ORDER BY c.id FOR UPDATE OF c`,
);

/**
 * Ends running calls whose worker is gone (known dead or stale) as CANCELLED, fenced by the attempt
 * and worker the caller saw: their worker can record nothing any more.
 */
export async function cancelOrphaned(scope: WriteScope, dispatcher: Dispatcher, requested: CancelRequested[]): Promise<number> {
  if (requested.length === 0) return 0;
  const rows = await scope.sql.query<CallRecord>(RUNNING_ATTEMPT, [requested.map((entry) => entry.id)]);
  const expected = new Map(requested.map((entry) => [entry.id, entry]));
  let ended = 0;
  for (const call of rows) {
    const seen = expected.get(call.id);
    if (!seen || seen.attempt !== call.attempt || seen.workerId !== call.workerId) continue;
    const output = outputs.cancelled();
    const [updated] = await scope.sql.query<CallRecord>(FINISH_RUNNING, [call.id, call.attempt, call.workerId, statusOf(output), toStorableJson(output)]);
    if (!updated) continue;
    ended++;
    // The duration the record keeps (measured by the database, as the row's is).
    scope.emit(completedEvent(call, output, updated.durationMs ?? 0));
    settle(scope, call, 'CANCELLED');
    if (call.scheduling === 'SERIAL') wakeLane(scope, dispatcher, call);
  }
  return ended;
}

const FINISH_RUNNING = updating(
  'calls_finish_running',
  `UPDATE tool_call c SET status = $4::call_status, output = $5::jsonb, completed_at = now(), worker_id = NULL,
          duration_ms = GREATEST(0, round(extract(epoch FROM (now() - COALESCE(c.started_at, now()))) * 1000))::int
    WHERE c.id = $1::uuid AND c.status = 'RUNNING' AND c.attempt = $2 AND c.worker_id IS NOT DISTINCT FROM $3
   RETURNING c.*`,
);

const APPROVE = updating(
  'calls_approve',
  `UPDATE tool_call c SET status = 'QUEUED', decided_by = $2::uuid, decided_at = now()
    WHERE c.id = $1::uuid AND c.status = 'AWAITING_APPROVAL' RETURNING c.*`,
);

/** AWAITING_APPROVAL → QUEUED, recording who approved, with the job that runs it (its lane's, if serial). */
export async function approveCall(scope: WriteScope, dispatcher: Dispatcher, callRowId: string, apiKeyId: string): Promise<CallRecord | null> {
  const [call] = await scope.sql.query<CallRecord>(APPROVE, [callRowId, apiKeyId]);
  if (!call) return null;
  scope.emit(callEvent('ToolCallApproved', call, { decidedAt: (call.decidedAt ?? new Date()).toISOString() }));
  if (call.scheduling === 'SERIAL') wakeLane(scope, dispatcher, call);
  else addJob(scope, dispatcher, runCallJob(call, describeCall({ ...refOf(call, call.attempt + 1), args: call.args })));
  return call;
}

const REJECT = updating(
  'calls_reject',
  `UPDATE tool_call c SET status = 'FAILED', output = $3::jsonb, completed_at = now(), duration_ms = 0, decided_by = $2::uuid, decided_at = now()
    WHERE c.id = $1::uuid AND c.status = 'AWAITING_APPROVAL' RETURNING c.*`,
);

/** AWAITING_APPROVAL → FAILED (the rejection `output`), recording who rejected. */
export async function rejectCall(scope: WriteScope, dispatcher: Dispatcher, callRowId: string, apiKeyId: string, output: ToolCallOutput): Promise<CallRecord | null> {
  const [call] = await scope.sql.query<CallRecord>(REJECT, [callRowId, apiKeyId, toStorableJson(output)]);
  if (!call) return null;
  endedWaiting(scope, dispatcher, call, output);
  return call;
}

const COMPLETE_EXTERNAL = updating(
  'calls_complete_external',
  `UPDATE tool_call c SET status = $3::call_status, output = $4::jsonb, completed_at = now(), worker_id = NULL,
          duration_ms = ${EXTERNAL_ATTEMPT_MS}
    WHERE c.id = $1::uuid AND c.status = 'PENDING_EXTERNAL' AND c.attempt = $2 AND (c.deadline_at IS NULL OR c.deadline_at > now())
   RETURNING c.*`,
);

/** PENDING_EXTERNAL(attempt) → terminal, only while its deadline has not passed (database clock). */
export async function completeExternal(scope: WriteScope, dispatcher: Dispatcher, call: CallRecord, attempt: number, output: ToolCallOutput): Promise<CallRecord | null> {
  const [completed] = await scope.sql.query<CallRecord>(COMPLETE_EXTERNAL, [call.id, attempt, statusOf(output), toStorableJson(output)]);
  if (!completed) return null;
  scope.emit(completedEvent(completed, output, completed.durationMs ?? 0));
  settle(scope, completed, statusOf(output));
  if (completed.scheduling === 'SERIAL') wakeLane(scope, dispatcher, completed);
  return completed;
}

const EXTERNAL_RETRY = updating(
  'calls_external_retry',
  `UPDATE tool_call c SET status = 'QUEUED', deadline_at = NULL
    WHERE c.id = $1::uuid AND c.status = 'PENDING_EXTERNAL' AND c.attempt = $2 AND (c.deadline_at IS NULL OR c.deadline_at > now())
   RETURNING c.*`,
);

/** PENDING_EXTERNAL(attempt) → QUEUED: it waits for a completion again, as the next attempt, after `delayMs`. */
export async function scheduleExternalRetry(scope: WriteScope, dispatcher: Dispatcher, call: CallRecord, attempt: number, retryFailure: ToolFailure, delayMs: number): Promise<boolean> {
  const [updated] = await scope.sql.query<CallRecord>(EXTERNAL_RETRY, [call.id, attempt]);
  if (!updated) return false;
  scope.emit(callEvent('ToolCallRetrying', updated, { attempt, failure: retryFailure, delayMs, nextAttempt: attempt + 1 }));
  if (updated.scheduling === 'SERIAL') wakeLane(scope, dispatcher, updated, delayMs);
  else addJob(scope, dispatcher, runCallJob(updated, describeCall({ ...refOf(updated, attempt + 1), args: updated.args }), delayMs));
  return true;
}

export const DEADLINE_EXCEEDED_CODE = 'deadline_exceeded';

/** The failure of an external call whose deadline passed without a completion. */
export function deadlineExceeded(call: Pick<CallRecord, 'tool' | 'timeoutMs'>): ToolCallOutput {
  return outputs.failure(failure('TIMEOUT', DEADLINE_EXCEEDED_CODE, `No completion for \`${call.tool}\` arrived within its deadline (${call.timeoutMs} ms)`));
}

const EXPIRE = updating(
  'calls_expire_external',
  `UPDATE tool_call c SET status = 'FAILED', output = d.output::jsonb, completed_at = now(), worker_id = NULL,
          duration_ms = ${EXTERNAL_ATTEMPT_MS}
     FROM unnest($1::uuid[], $2::text[]) AS d(id, output)
    WHERE c.id = d.id AND c.status = 'PENDING_EXTERNAL' AND c.deadline_at <= now()
   RETURNING c.*`,
);
const OVERDUE = statement(
  'calls_overdue_external',
  `SELECT id::text AS id, tool, timeout_ms AS "timeoutMs" FROM tool_call
    WHERE id = ANY($1::uuid[]) AND status = 'PENDING_EXTERNAL' AND deadline_at <= now() ORDER BY id FOR UPDATE`,
);

/** Fails PENDING_EXTERNAL calls whose deadline has passed (database clock) with TIMEOUT; others are left alone. */
export async function expirePendingExternal(scope: WriteScope, dispatcher: Dispatcher, callRowIds: string[]): Promise<CallRecord[]> {
  if (callRowIds.length === 0) return [];
  const overdue = await scope.sql.query<{ id: string; tool: string; timeoutMs: number }>(OVERDUE, [callRowIds]);
  if (overdue.length === 0) return [];
  const expired = await scope.sql.query<CallRecord>(EXPIRE, [overdue.map((call) => call.id), overdue.map((call) => toStorableJson(deadlineExceeded(call)))]);
  for (const call of expired) {
    const output = deadlineExceeded(call);
    scope.emit(completedEvent(call, output, call.durationMs ?? 0));
    settle(scope, call, 'FAILED');
    if (call.scheduling === 'SERIAL') wakeLane(scope, dispatcher, call);
  }
  return expired;
}
