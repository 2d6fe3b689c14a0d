// The writes of a call's life on a worker, each with the events that announce it: a unit body for
// EventLog.write. `done` receives whether the fenced transition took effect (false: the attempt was
// superseded, nothing was written or announced).
import type { EventDraft } from '../../model/events.js';
import type { ToolCallOutput, ToolFailure } from '../../model/outcome.js';
import type { AloneForm, WriteScope } from '../event-log.js';
import { addJob, type Dispatcher } from '../outbox.js';
import {
  type CallRef,
  type CompletedBatch,
  claimCalls,
  enterPendingExternal,
  finishAndAppend,
  type FinishAppendItem,
  finishCalls,
  type Finished,
  type FinishItem,
  liveCalls,
  requeueCalls,
  settleBatches,
  statusOf,
  type TerminalStatus,
  wakeLanes,
} from './call-folds.js';
import { type CallDescriptor, runCallJob, runLaneJob } from './call-jobs.js';

type Done = (ok: boolean) => void;

export function startedEvent(call: CallRef, startedAt: Date): EventDraft<'ToolCallStarted'> {
  return {
    sessionId: call.sessionId,
    type: 'ToolCallStarted',
    batchId: call.batchId,
    callId: call.callId,
    payload: { tool: call.tool, attempt: call.attempt, maxAttempts: call.maxAttempts, startedAt: startedAt.toISOString() },
  };
}

export function completedEvent(call: Pick<CallRef, 'sessionId' | 'batchId' | 'callId' | 'tool' | 'attempt'>, output: ToolCallOutput, durationMs: number, completedAt = new Date()): EventDraft<'ToolCallCompleted'> {
  return {
    sessionId: call.sessionId,
    type: 'ToolCallCompleted',
    batchId: call.batchId,
    callId: call.callId,
    payload: { tool: call.tool, status: statusOf(output), output, attempt: call.attempt, durationMs: Math.round(durationMs), completedAt: completedAt.toISOString() },
  };
}

function batchCompletedEvent(sessionId: string, batch: CompletedBatch): EventDraft<'ToolBatchCompleted'> {
  return {
    sessionId,
    type: 'ToolBatchCompleted',
    batchId: batch.batchId,
    payload: batch.payload,
  };
}

/** Accounts a call that became terminal; announces its batch's completion when it was the last. */
export function settle(scope: WriteScope, call: Pick<CallRef, 'batchRowId' | 'sessionId'>, status: TerminalStatus): void {
  scope.fold(settleBatches, { batchRowId: call.batchRowId, status }, (batch) => {
    if (batch) scope.emit(batchCompletedEvent(call.sessionId, batch));
  });
}

/** Wakes a batch's serial lane (a new generation, so a new job) after `delayMs`. */
export function wakeLane(scope: WriteScope, dispatcher: Dispatcher, batch: Pick<CallRef, 'tenantId' | 'sessionId' | 'batchRowId' | 'batchId'>, delayMs = 0): void {
  scope.fold(wakeLanes, batch.batchRowId, (gen) => {
    if (gen !== null) addJob(scope, dispatcher, runLaneJob(batch, gen, delayMs));
  });
}

/** QUEUED(attempt − 1) → RUNNING(attempt) on `workerId`, with ToolCallStarted. */
export function writeClaim(scope: WriteScope, call: CallRef, workerId: string, startedAt: Date, done: Done): void {
  scope.fold(claimCalls, { call, workerId, startedAt }, (ok) => {
    if (ok) scope.emit(startedEvent(call, startedAt));
    done(ok);
  });
}

/** ToolCallProgress, when the attempt is still the call's. */
export function writeProgress(scope: WriteScope, call: CallRef, workerId: string, progress: Record<string, unknown>, done: Done): void {
  scope.fold(liveCalls, { call, workerId }, (ok) => {
    if (ok) scope.emit({ sessionId: call.sessionId, type: 'ToolCallProgress', batchId: call.batchId, callId: call.callId, payload: { tool: call.tool, attempt: call.attempt, progress } });
    done(ok);
  });
}

export interface FinishWrite {
  call: CallRef;
  workerId: string;
  /** Whether this attempt's claim was written; if not, claim and outcome are one transition. */
  claimed: boolean;
  /** false: the call ends without having run (its tool vanished): no ToolCallStarted, no startedAt. */
  ran: boolean;
  output: ToolCallOutput;
  startedAt: Date;
  durationMs: number;
  /** Serial calls run by their lane need no wake-up of it. */
  inLane: boolean;
}

/** The events of a finish that takes effect: ToolCallStarted first when unclaimed, then ToolCallCompleted. */
function finishEvents(write: FinishWrite): EventDraft[] {
  const { call } = write;
  const events: EventDraft[] = [];
  if (!write.claimed && write.ran) events.push(startedEvent(call, write.startedAt));
  // One that ends without having run ends in the attempt before (0 when none ran), as its record does.
  events.push(completedEvent(write.ran ? call : { ...call, attempt: call.attempt - 1 }, write.output, write.durationMs));
  return events;
}

/** The attempt's outcome: terminal, ToolCallCompleted (after ToolCallStarted when unclaimed), batch settled. */
export function writeFinish(scope: WriteScope, dispatcher: Dispatcher, write: FinishWrite, done: Done): void {
  const { call } = write;
  // The finish settles the batch too (one statement).
  scope.fold(finishCalls, finishItemOf(write), ({ ok, completedBatch }) => {
    if (ok) {
      for (const event of finishEvents(write)) scope.emit(event);
      if (completedBatch) scope.emit(batchCompletedEvent(call.sessionId, completedBatch));
      if (call.scheduling === 'SERIAL' && !write.inLane) wakeLane(scope, dispatcher, call);
    }
    done(ok);
  });
}

/**
 * writeFinish as one statement with its events (finishAndAppend), for a call whose finish wakes no
 * lane; null for the others.
 */
export function finishAlone(write: FinishWrite, done: Done): AloneForm<FinishAppendItem, Finished> | null {
  if (write.call.scheduling === 'SERIAL' && !write.inLane) return null;
  return { statement: finishAndAppend, item: { ...finishItemOf(write), events: () => finishEvents(write) }, then: ({ ok }) => done(ok) };
}

/** The finish fold's item: a call that ends without having run keeps no start. */
function finishItemOf(write: FinishWrite): FinishItem {
  return { ...write, startedAt: write.ran ? write.startedAt : null };
}

export interface RequeueWrite {
  call: CallRef;
  descriptor: CallDescriptor;
  workerId: string;
  claimed: boolean;
  startedAt: Date;
  failure: ToolFailure;
  delayMs: number;
}

/** QUEUED again to run as the next attempt after `delayMs`, with ToolCallRetrying and the job that runs it. */
export function writeRequeue(scope: WriteScope, dispatcher: Dispatcher, write: RequeueWrite, done: Done): void {
  const { call, failure, delayMs } = write;
  scope.fold(requeueCalls, write, (ok) => {
    if (ok) {
      if (!write.claimed) scope.emit(startedEvent(call, write.startedAt));
      scope.emit({
        sessionId: call.sessionId,
        type: 'ToolCallRetrying',
        batchId: call.batchId,
        callId: call.callId,
        payload: { tool: call.tool, attempt: call.attempt, failure, delayMs, nextAttempt: call.attempt + 1 },
      });
      if (call.scheduling === 'SERIAL') wakeLane(scope, dispatcher, call, delayMs);
      else addJob(scope, dispatcher, runCallJob(call, { ...write.descriptor, attempt: call.attempt + 1, maxAttempts: Math.max(write.descriptor.maxAttempts, call.attempt + 1) }, delayMs));
    }
    done(ok);
  });
}

/** QUEUED → PENDING_EXTERNAL: ToolCallStarted, then ToolCallAwaitingCompletion with what to do. */
export function writePendingExternal(scope: WriteScope, call: CallRef, done: Done): void {
  scope.fold(enterPendingExternal, call, (pending) => {
    if (pending) {
      scope.emit(startedEvent(call, pending.startedAt));
      scope.emit({
        sessionId: call.sessionId,
        type: 'ToolCallAwaitingCompletion',
        batchId: call.batchId,
        callId: call.callId,
        payload: { tool: call.tool, args: pending.args, attempt: call.attempt, maxAttempts: call.maxAttempts, timeoutMs: call.timeoutMs, deadline: pending.deadlineAt.toISOString() },
      });
    }
    done(pending !== null);
  });
}
