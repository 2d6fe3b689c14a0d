// The one retry rule of tool calls (DESIGN.md §3): a failure marked SAFE runs again while attempts
// remain, after the failure's own `afterMs` or else the tool's backoff; after the last attempt its
// retry becomes EXHAUSTED. The worker applies it to a tool's failure, the external-completion
// path to a client's.
import { outputs, type ToolCallOutput, type ToolFailure } from './outcome.js';

export interface RetryPolicy {
  maxAttempts: number;
  backoff: { type: 'FIXED' | 'EXPONENTIAL'; delayMs: number; maxDelayMs: number };
}

/** A source of uniform numbers in [0, 1): `Math.random` in service, a fixed one in tests. */
export type RandomSource = () => number;

/**
 * The wait before attempt `attempt + 1` under a policy's backoff, with equal jitter: the nominal
 * delay (`delayMs`, doubled per attempt for EXPONENTIAL, capped at `maxDelayMs`) is halved and a
 * uniform random share of the other half added, so the wait lies in [nominal / 2, nominal]. Calls
 * that failed together (one endpoint down) then retry spread out instead of all at once, and
 * never sooner than half the configured delay.
 */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: RandomSource = Math.random): number {
  const { type, delayMs, maxDelayMs } = policy.backoff;
  const nominal = Math.min(type === 'FIXED' ? delayMs : delayMs * 2 ** Math.max(0, attempt - 1), maxDelayMs);
  const half = nominal / 2;
  return Math.round(half + random() * half);
}

export type RetryDecision = { kind: 'retry'; failure: ToolFailure; delayMs: number } | { kind: 'final'; output: ToolCallOutput };

/**
 * What becomes of the output of attempt `attempt` (1-based) of a call allowed `maxAttempts`: run
 * again after `delayMs`, or end with `output`. The failure's own `afterMs` (an endpoint's
 * Retry-After) is kept exact; only the tool's backoff is jittered. Without a policy (the tool is
 * gone) a retry waits only for the failure's own `afterMs`.
 */
export function decideRetry(
  output: ToolCallOutput,
  attempt: number,
  maxAttempts: number,
  policy: RetryPolicy | null,
  random: RandomSource = Math.random,
): RetryDecision {
  if (output.status !== 'FAILURE' || output.failure.retry.kind !== 'SAFE') return { kind: 'final', output };
  if (attempt < maxAttempts) {
    const delayMs = output.failure.retry.afterMs ?? (policy ? backoffDelay(policy, attempt, random) : 0);
    return { kind: 'retry', failure: output.failure, delayMs };
  }
  return { kind: 'final', output: outputs.failure({ ...output.failure, retry: { kind: 'EXHAUSTED', attempts: attempt } }) };
}
