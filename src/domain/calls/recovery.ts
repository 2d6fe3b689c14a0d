// What happens to a call found RUNNING when a worker picks its job up again: its attempt was
// interrupted (its worker died or stalled). A cancel requested meanwhile ends it CANCELLED; an
// idempotent or readonly tool runs again as the next attempt; anything else fails `worker_lost`,
// since running it twice could repeat a side effect.
import { failure, outputs, type ToolCallOutput } from '../../model/outcome.js';
import type { ToolHints } from '../../tools/types.js';
import type { WriteScope } from '../event-log.js';
import { type CallRecord, callEvent, completeAttempt, loadCall, startAttempt } from './call-transitions.js';

/**
 * A lost attempt (its worker died) is not the tool's failure: an idempotent or readonly call gets
 * at least this many attempts in all when its workers are lost, whatever its retry policy. The
 * cap stops a call that brings down every worker it runs on from going round forever.
 */
const LOST_WORKER_ATTEMPTS = 3;

/**
 * Resolves the interrupted attempt the caller observed, under the session lock. Returns the call
 * started again on `workerId`, or null when it ended (or was no longer that attempt).
 */
export async function recoverInterruptedCall(scope: WriteScope, observed: CallRecord, hints: ToolHints | null, workerId: string): Promise<CallRecord | null> {
  const callRowId = observed.id;
  const current = await loadCall(scope, callRowId);
  if (!current || current.status !== 'RUNNING' || current.attempt !== observed.attempt) return null;
  if (current.cancelRequestedAt) {
    await completeAttempt(scope, current, current.attempt, outputs.cancelled());
    return null;
  }
  const rerunnable = hints !== null && (hints.idempotent || hints.readonly);
  if (rerunnable && current.attempt < Math.max(current.maxAttempts, LOST_WORKER_ATTEMPTS)) {
    const lost = failure('EXECUTION', 'worker_lost', `The attempt running \`${current.tool}\` was interrupted (its worker was lost); the call runs again`, { retry: { kind: 'SAFE', afterMs: 0 } });
    scope.emit(current.sessionId, callEvent('ToolCallRetrying', current, { attempt: current.attempt, failure: lost, delayMs: 0, nextAttempt: current.attempt + 1 }));
    return startAttempt(scope, callRowId, workerId, current.attempt);
  }
  await completeAttempt(scope, current, current.attempt, workerLost(current, rerunnable));
  return null;
}

function workerLost(call: CallRecord, rerunnable: boolean): ToolCallOutput {
  return outputs.failure(
    rerunnable
      ? failure('EXECUTION', 'worker_lost', `The worker running \`${call.tool}\` was lost and no attempts remain`, {
          retry: { kind: 'EXHAUSTED', attempts: call.attempt },
        })
      : failure('EXECUTION', 'worker_lost', `The worker running \`${call.tool}\` was lost; the tool is not idempotent, so it was not run again`),
  );
}
