// A call's attempts as its events tell them: when each started and ended, how long it ran, and how
// it ended (retried after a failure, or the call's outcome). A call that ended without running (an
// unknown tool, refused, cancelled while waiting) has none; one cancelled while waiting to run again
// has only the attempts that ran.
import type { SessionEvent } from './events.js';
import type { ToolFailure } from './outcome.js';

export type AttemptEnd = 'RUNNING' | 'RETRIED' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';

export interface CallAttempt {
  attempt: number;
  startedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
  end: AttemptEnd;
  /** Why it failed (a retried attempt, or a call that FAILED). */
  failure: ToolFailure | null;
}

/** The events an attempt history is read from. */
export const ATTEMPT_EVENT_TYPES = ['ToolCallStarted', 'ToolCallRetrying', 'ToolCallCompleted'] as const;

/** The attempts of one call from its events (in order), oldest first. */
export function attemptsOf(events: readonly SessionEvent[]): CallAttempt[] {
  const byNumber = new Map<number, CallAttempt>();
  const attempt = (number: number) => {
    let found = byNumber.get(number);
    if (!found) byNumber.set(number, (found = { attempt: number, startedAt: null, endedAt: null, durationMs: null, end: 'RUNNING', failure: null }));
    return found;
  };
  const ranFor = (started: string | null, ended: string) => (started === null ? null : Math.max(0, Date.parse(ended) - Date.parse(started)));
  for (const event of events) {
    if (event.type === 'ToolCallStarted') attempt(event.payload.attempt).startedAt = event.payload.startedAt ?? event.createdAt;
    else if (event.type === 'ToolCallRetrying') {
      const retried = attempt(event.payload.attempt);
      Object.assign(retried, { endedAt: event.createdAt, durationMs: ranFor(retried.startedAt, event.createdAt), end: 'RETRIED', failure: event.payload.failure });
    } else if (event.type === 'ToolCallCompleted' && event.payload.attempt > 0) {
      // Ended (cancelled) while waiting to run again: the next attempt never started, and the
      // retried one keeps how it ended.
      if (byNumber.get(event.payload.attempt)?.end === 'RETRIED') continue;
      const final = attempt(event.payload.attempt);
      const { output } = event.payload;
      Object.assign(final, {
        endedAt: event.payload.completedAt ?? event.createdAt,
        durationMs: event.payload.durationMs,
        end: event.payload.status,
        failure: output.status === 'FAILURE' ? output.failure : null,
      });
    }
  }
  return [...byNumber.values()].sort((a, b) => a.attempt - b.attempt);
}
