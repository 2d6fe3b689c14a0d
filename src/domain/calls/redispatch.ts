// After Redis lost its data (a restart without persistence), the jobs of queued calls are gone: they
// are written again from PostgreSQL, the source of truth (a retry still in its backoff with what is
// left of its wait, from its ToolCallRetrying). Running calls need none (their workers
// still run them, or the reaper recovers them with their dead workers); calls that wait for a person,
// a client or an external completion get theirs when the wait ends.
import { randomUUID } from 'node:crypto';
import { type Queryable, statement } from '../../sql.js';
import type { EventLog } from '../event-log.js';
import { addJob, type Dispatcher } from '../outbox.js';
import { type BatchScope, type CallDescriptor, describeCall, runCallJob, runCallsAgainJob, runCallsJobs, runLaneJob, tagged } from './call-jobs.js';

/**
 * Every queued call, in batch order. `completed_at IS NULL` (implied by QUEUED) lets the read go
 * through tool_call_unfinished_idx, the calls not final yet, rather than every call ever made: without
 * a tenant it reads the whole index (every tenant's unfinished calls), which is all this read, made only
 * after Redis lost its data, needs.
 */
export const QUEUED = statement(
  'calls_queued_everywhere',
  `SELECT c.id::text AS id, c.tenant_id::text AS "tenantId", c.session_id::text AS "sessionId", c.batch_row_id::text AS "batchRowId",
          b.batch_id AS "batchId", b.lane_gen AS "laneGen", c.call_id AS "callId", c.tool, c.args, c.attempt, c.max_attempts AS "maxAttempts",
          c.timeout_ms AS "timeoutMs", c.scheduling,
          CASE WHEN c.attempt > 0 THEN GREATEST(0, COALESCE((
            SELECT ceil(extract(epoch FROM e.created_at + (e.payload->>'delayMs')::bigint * interval '1 millisecond' - now()) * 1000)::int
              FROM event e
             WHERE e.session_id = c.session_id AND e.call_id = c.call_id AND e.type = 'ToolCallRetrying'
             ORDER BY e.seq DESC LIMIT 1), 0)) ELSE 0 END AS "delayMs"
     FROM tool_call c JOIN tool_batch b ON b.id = c.batch_row_id
    WHERE c.status = 'QUEUED' AND c.completed_at IS NULL
    ORDER BY c.batch_row_id, c.position`,
);

interface QueuedCall extends BatchScope {
  id: string;
  laneGen: number;
  callId: string;
  tool: string;
  args: unknown;
  attempt: number;
  maxAttempts: number;
  timeoutMs: number;
  scheduling: 'PARALLEL' | 'SERIAL';
  /** What is left of the wait before its next attempt (a retry's backoff, from its ToolCallRetrying). */
  delayMs: number;
}

/** Writes new jobs (new ids) for every queued call; returns how many calls. */
export async function redispatchQueuedCalls(sql: Queryable, eventLog: EventLog, dispatcher: Dispatcher, perJob: number): Promise<number> {
  const rows = await sql.query<QueuedCall>(QUEUED);
  const byBatch = new Map<string, QueuedCall[]>();
  for (const row of rows) byBatch.set(row.batchRowId, [...(byBatch.get(row.batchRowId) ?? []), row]);
  const round = randomUUID().slice(0, 8);
  for (const calls of byBatch.values()) {
    const first = calls[0]!;
    const scope: BatchScope = { tenantId: first.tenantId, sessionId: first.sessionId, batchRowId: first.batchRowId, batchId: first.batchId };
    const describe = (call: QueuedCall): CallDescriptor =>
      describeCall({ id: call.id, callId: call.callId, tool: call.tool, args: call.args, attempt: call.attempt + 1, maxAttempts: call.maxAttempts, timeoutMs: call.timeoutMs, scheduling: call.scheduling });
    const parallel = calls.filter((call) => call.scheduling === 'PARALLEL');
    // A retry still in its backoff keeps what is left of it (its delayed job was lost with Redis).
    const now = parallel.filter((call) => call.delayMs <= 0).map(describe);
    const later = parallel.filter((call) => call.delayMs > 0);
    const serial = calls.find((call) => call.scheduling === 'SERIAL');
    await eventLog.write(scope.sessionId, async (write) => {
      for (const job of runCallsJobs(scope, now, perJob)) addJob(write, dispatcher, { ...job, jobId: tagged(job.jobId, `r${round}`) });
      for (const call of later) addJob(write, dispatcher, runCallJob(scope, describe(call), call.delayMs, `r${round}`));
      if (serial) addJob(write, dispatcher, { ...runLaneJob(scope, first.laneGen, serial.delayMs), jobId: tagged(`lane:${scope.batchRowId}:${first.laneGen}`, `r${round}`) });
    });
  }
  return rows.length;
}

const STILL_QUEUED = statement(
  'calls_still_queued',
  `SELECT c.id::text AS id FROM tool_call c JOIN unnest($1::uuid[], $2::int[]) AS d(id, attempt) ON c.id = d.id
    WHERE c.status = 'QUEUED' AND c.attempt = d.attempt - 1`,
);

/**
 * The calls a lost worker held in its jobs without having started them (waiting for a slot, or
 * claimed only in its memory) are QUEUED still, with their jobs stuck on the dead worker until
 * BullMQ's lock expires: they get new jobs now. The old job, when BullMQ hands it back, finds its
 * calls taken (their claims are fenced) and does nothing.
 */
export async function rescueCalls(sql: Queryable, eventLog: EventLog, dispatcher: Dispatcher, jobs: RunCallsJobLike[], tag: string): Promise<number> {
  let rescued = 0;
  for (const job of jobs) {
    const rows = await sql.query<{ id: string }>(STILL_QUEUED, [job.calls.map((call) => call.id), job.calls.map((call) => call.attempt)]);
    const queued = new Set(rows.map((row) => row.id));
    const calls = job.calls.filter((call) => queued.has(call.id));
    if (calls.length === 0) continue;
    rescued += calls.length;
    const scope: BatchScope = { tenantId: job.tenantId, sessionId: job.sessionId, batchRowId: job.batchRowId, batchId: job.batchId };
    await eventLog.write(scope.sessionId, async (write) => {
      addJob(write, dispatcher, runCallsAgainJob(scope, calls, tag));
    });
  }
  return rescued;
}

export type RunCallsJobLike = BatchScope & { calls: CallDescriptor[] };
