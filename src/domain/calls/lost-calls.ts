// Calls whose worker was lost (declared dead: killed, frozen past its staleness limit). A lost attempt
// is not the tool's failure: a call of a rerunnable tool (by its *live* definition) runs again as the
// next attempt — at least LOST_WORKER_ATTEMPTS in all, whatever its retry policy, but no more, so a
// call that brings down every worker it touches cannot go round forever — and any other call fails
// `worker_lost` without running again. A call whose cancellation was requested ends CANCELLED.
import { failure, outputs, type ToolCallOutput } from '../../model/outcome.js';
import { mayRunTwice, type ToolHints } from '../../tools/types.js';
import { type Queryable, statement } from '../../sql.js';
import type { EventLog } from '../event-log.js';
import type { Dispatcher } from '../outbox.js';
import type { CallRef } from './call-folds.js';
import { type CallDescriptor, describeCall } from './call-jobs.js';
import { writeFinish, writeRequeue } from './call-writes.js';

export const LOST_WORKER_ATTEMPTS = 3;

interface LostCall extends CallRef {
  args: unknown;
  workerId: string;
  cancelRequested: boolean;
  startedAt: Date;
}

/** The running calls of `$1` (worker ids), through tool_call_unfinished_worker_idx (`completed_at IS NULL`, its predicate). */
export const RUNNING_ON = statement(
  'calls_running_on_workers',
  `SELECT c.id::text AS id, c.tenant_id::text AS "tenantId", c.session_id::text AS "sessionId", c.batch_row_id::text AS "batchRowId",
          b.batch_id AS "batchId", c.call_id AS "callId", c.tool, c.args, c.attempt, c.max_attempts AS "maxAttempts",
          c.timeout_ms AS "timeoutMs", c.scheduling, c.worker_id AS "workerId", c.cancel_requested_at IS NOT NULL AS "cancelRequested",
          COALESCE(c.started_at, now()) AS "startedAt"
     FROM tool_call c JOIN tool_batch b ON b.id = c.batch_row_id
    WHERE c.status = 'RUNNING' AND c.completed_at IS NULL AND c.worker_id = ANY($1::text[])
    ORDER BY c.session_id, c.position
    LIMIT 5000`,
);

export interface LostCallDeps {
  sql: Queryable;
  eventLog: EventLog;
  dispatcher: Dispatcher;
  /** The live definitions' hints of `tools` for a tenant (a removed tool is absent). */
  hintsOf(tenantId: string, tools: string[]): Promise<Map<string, ToolHints>>;
}

/** Ends or re-runs the running calls of workers that were declared dead; returns how many were handled. */
export async function recoverCallsOfLostWorkers(deps: LostCallDeps, workerIds: string[]): Promise<number> {
  if (workerIds.length === 0) return 0;
  const calls = await deps.sql.query<LostCall>(RUNNING_ON, [workerIds]);
  const bySession = new Map<string, LostCall[]>();
  for (const call of calls) {
    const list = bySession.get(call.sessionId) ?? [];
    list.push(call);
    bySession.set(call.sessionId, list);
  }
  const hints = new Map<string, Map<string, ToolHints>>();
  for (const call of calls) if (!hints.has(call.tenantId)) hints.set(call.tenantId, new Map());
  for (const [tenantId, map] of hints) {
    const tools = [...new Set(calls.filter((call) => call.tenantId === tenantId).map((call) => call.tool))];
    for (const [name, hint] of await deps.hintsOf(tenantId, tools)) map.set(name, hint);
  }
  await Promise.all(
    [...bySession].map(([sessionId, lost]) =>
      deps.eventLog.write(sessionId, async (scope) => {
        for (const call of lost) {
          const hint = hints.get(call.tenantId)?.get(call.tool);
          const rerunnable = mayRunTwice(hint);
          const common = { call, workerId: call.workerId, claimed: true, startedAt: call.startedAt };
          if (call.cancelRequested) {
            writeFinish(scope, deps.dispatcher, { ...common, ran: true, output: outputs.cancelled(), durationMs: Date.now() - call.startedAt.getTime(), inLane: false }, () => undefined);
          } else if (rerunnable && call.attempt < Math.max(call.maxAttempts, LOST_WORKER_ATTEMPTS)) {
            const descriptor: CallDescriptor = describeCall({ ...call, attempt: call.attempt, args: call.args });
            const lostFailure = failure('EXECUTION', 'worker_lost', `The attempt running \`${call.tool}\` was interrupted (its worker was lost); the call runs again`, {
              retry: { kind: 'SAFE', afterMs: 0 },
            });
            writeRequeue(scope, deps.dispatcher, { ...common, descriptor, failure: lostFailure, delayMs: 0 }, () => undefined);
          } else {
            writeFinish(scope, deps.dispatcher, { ...common, ran: true, output: workerLost(call, rerunnable), durationMs: Date.now() - call.startedAt.getTime(), inLane: false }, () => undefined);
          }
        }
      }),
    ),
  );
  return calls.length;
}

function workerLost(call: LostCall, rerunnable: boolean): ToolCallOutput {
  return outputs.failure(
    rerunnable
      ? failure('EXECUTION', 'worker_lost', `The worker running \`${call.tool}\` was lost and no attempts remain`, { retry: { kind: 'EXHAUSTED', attempts: call.attempt } })
      : failure('EXECUTION', 'worker_lost', `The worker running \`${call.tool}\` was lost; the tool is not idempotent, so it was not run again`),
  );
}
