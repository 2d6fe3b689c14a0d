// The one retry rule of tool calls (DESIGN.md §3): a failure marked SAFE runs again while attempts
// remain, after the failure's own `afterMs` or else the tool's backoff; after the last attempt its
// retry becomes EXHAUSTED. The worker applies it to a tool's failure, the external-completion
// path to a client's.
import { outputs, type ToolCallOutput, type ToolFailure } from './outcome.js';

export interface RetryPolicy {
  maxAttempts: number;
  backoff: { type: 'FIXED' | 'EXPONENTIAL'; delayMs: number; maxDelayMs: number };
}

/** The wait before attempt `attempt + 1` under a policy's backoff. */
export function backoffDelay(policy: RetryPolicy, attempt: number): number {
  const { type, delayMs, maxDelayMs } = policy.backoff;
  const delay = type === 'FIXED' ? delayMs : delayMs * 2 ** Math.max(0, attempt - 1);
  return Math.min(delay, maxDelayMs);
}

export type RetryDecision = { kind: 'retry'; failure: ToolFailure; delayMs: number } | { kind: 'final'; output: ToolCallOutput };

/**
 * What becomes of the output of attempt `attempt` (1-based) of a call allowed `maxAttempts`: run
 * again after `delayMs`, or end with `output`. Without a policy (the tool is gone) a retry waits
 * only for the failure's own `afterMs`.
 */
export function decideRetry(output: ToolCallOutput, attempt: number, maxAttempts: number, policy: RetryPolicy | null): RetryDecision {
  if (output.status !== 'FAILURE' || output.failure.retry.kind !== 'SAFE') return { kind: 'final', output };
  if (attempt < maxAttempts) {
    const delayMs = output.failure.retry.afterMs ?? (policy ? backoffDelay(policy, attempt) : 0);
    return { kind: 'retry', failure: output.failure, delayMs };
  }
  return { kind: 'final', output: outputs.failure({ ...output.failure, retry: { kind: 'EXHAUSTED', attempts: attempt } }) };
}
