// People and clients in the loop of a call: approving or rejecting a call that waits in
// AWAITING_APPROVAL, completing (or expiring) a call of an external tool that waits in
// PENDING_EXTERNAL. Every decision is one conditional transition in an EventLog write, so two
// racing decisions (or a decision racing the deadline, a cancel or another process) cannot both
// take effect; the loser gets a typed error and changes nothing.
import type { Db } from '../../db.js';
import type { Logger } from '../../logger.js';
import { decideRetry } from '../../model/retry.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { Viewer } from '../tenants/api-keys.js';
import {
  approveCall,
  type CallRecord,
  completeExternal,
  DEADLINE_EXCEEDED_CODE,
  expirePendingExternal,
  loadCall,
  rejectCall,
  scheduleExternalRetry,
  TERMINAL_STATUSES,
} from './call-transitions.js';
import type { Dispatcher } from '../outbox.js';
import type { CallStore } from './store.js';
import { CallAlreadyCompletedError, DeadlinePassedError, ForbiddenError, InvalidStateError, ValidationError } from '../../model/errors.js';
import type { EventLog } from '../event-log.js';
import { checkReportedFailure, FAILURE_CLASSES, type FailureClass, failure, outputs, parseOutput, parseSeedOutcome, type ToolCallOutput } from '../../model/outcome.js';
import { decodeToolValue, MalformedToolValueError } from '../../model/tool-value.js';
import { longerThan } from '../../model/text.js';

/**
 * What a client reports for a call of an external tool: exactly one of `value` (a tool value in
 * the seeds' wire form), `failure`, and `outcome` (the whole outcome in the seeds' JSON form).
 */
export interface CompletionInput {
  value?: unknown;
  failure?: {
    class: FailureClass;
    code: string;
    message: string;
    retry?: { kind: 'NEVER' | 'SAFE'; afterMs?: number | null } | null;
  } | null;
  outcome?: unknown;
}

const MAX_REASON_CHARS = 2000;

export interface CallDecisionServiceDeps {
  db: Db;
  eventLog: EventLog;
  calls: CallStore;
  registry: ToolRegistry;
  dispatcher: Dispatcher;
  logger: Logger;
}

type CompletionVerdict = { kind: 'completed' } | { kind: 'retry' } | { kind: 'late'; deadline: Date } | { kind: 'refused'; call: CallRecord } | { kind: 'other-attempt'; attempt: number };

/** PENDING_EXTERNAL calls past their deadline, oldest first ($1: how many); read through tool_call_external_deadline_idx. */
export const OVERDUE_EXTERNAL_CALLS = `SELECT id::text AS id, session_id::text AS "sessionId" FROM tool_call
  WHERE status = 'PENDING_EXTERNAL' AND deadline_at <= now() ORDER BY deadline_at LIMIT $1`;

export class CallDecisionService {
  constructor(private readonly deps: CallDecisionServiceDeps) {}

  /** Lets a call that waits for approval run. */
  async approve(viewer: Viewer, callId: string, sessionId?: string | null): Promise<CallRecord> {
    const call = await this.decidable(viewer, callId, sessionId);
    const approved = await this.deps.eventLog.write(call.sessionId, (scope) => approveCall(scope, this.deps.dispatcher, call.id, viewer.apiKeyId));
    if (!approved) throw await this.notAwaitingApproval(call);
    return approved;
  }

  /** Fails a call that waits for approval: PERMISSION_DENIED from source POLICY, with the reason. */
  async reject(viewer: Viewer, callId: string, reason: string, sessionId?: string | null): Promise<CallRecord> {
    const text = reason.trim();
    if (longerThan(text, MAX_REASON_CHARS)) throw new ValidationError(`reason must be at most ${MAX_REASON_CHARS} characters`, 'reason');
    const call = await this.decidable(viewer, callId, sessionId);
    const output = outputs.failure(
      failure('PERMISSION_DENIED', 'approval_rejected', text ? `The call was rejected: ${text}` : 'The call was rejected', { source: 'POLICY' }),
    );
    const rejected = await this.deps.eventLog.write(call.sessionId, (scope) => rejectCall(scope, this.deps.dispatcher, call.id, viewer.apiKeyId, output));
    if (!rejected) throw await this.notAwaitingApproval(call);
    return rejected;
  }

  /** Reports the outcome of one call of an external tool. */
  /**
   * Completes a PENDING_EXTERNAL call with a client's result. With `attempt` (from its
   * ToolCallAwaitingCompletion), only that attempt: a late result of an attempt that was retried is
   * refused instead of becoming the next attempt's.
   */
  async complete(viewer: Viewer, callId: string, result: CompletionInput, sessionId?: string | null, expectedAttempt?: number | null): Promise<CallRecord> {
    if (expectedAttempt != null && (!Number.isInteger(expectedAttempt) || expectedAttempt < 1)) throw new ValidationError('attempt must be an integer from 1', 'attempt');
    const output = completionOutput(result);
    const call = await this.deps.calls.findCall(viewer.tenantId, callId, sessionId);
    const retryable = output.status === 'FAILURE' && output.failure.retry.kind === 'SAFE';
    const tool = retryable ? await this.deps.registry.resolve(call.tenantId, call.tool) : null;
    const { dispatcher } = this.deps;
    const verdict = await this.deps.eventLog.write(call.sessionId, async (scope): Promise<CompletionVerdict> => {
      const current = (await loadCall(scope.sql, call.id))!;
      if (current.status !== 'PENDING_EXTERNAL') return { kind: 'refused', call: current };
      const attempt = current.attempt;
      if (expectedAttempt != null && expectedAttempt !== attempt) return { kind: 'other-attempt', attempt };
      const decision = decideRetry(output, attempt, current.maxAttempts, tool?.definition.retry ?? null);
      if (decision.kind === 'retry' && (await scheduleExternalRetry(scope, dispatcher, current, attempt, decision.failure, decision.delayMs))) {
        return { kind: 'retry' };
      }
      // A retry the deadline overtook is completed (or expired) as reported.
      const final = decision.kind === 'final' ? decision.output : output;
      if (await completeExternal(scope, dispatcher, current, attempt, final)) return { kind: 'completed' };
      // Still pending, so its deadline has passed: expire it now rather than waiting for the reaper.
      await expirePendingExternal(scope, dispatcher, [current.id]);
      return { kind: 'late', deadline: current.deadlineAt ?? new Date() };
    });
    if (verdict.kind === 'refused') throw refusal(verdict.call);
    if (verdict.kind === 'other-attempt') {
      const when = expectedAttempt! > verdict.attempt ? 'has not started' : 'is over';
      throw new InvalidStateError(`Attempt ${expectedAttempt} of call \`${call.callId}\` ${when}: the call waits for the completion of attempt ${verdict.attempt}`, 'PENDING_EXTERNAL');
    }
    if (verdict.kind === 'late') throw new DeadlinePassedError(call.callId, verdict.deadline);
    const internal = reportedInternal(result);
    if (internal) {
      // Clients see it masked (internal_error); what was reported is for operators only.
      this.deps.logger.error({ ...internal, callId: call.callId, sessionId: call.sessionId, tool: call.tool }, 'a client reported an internal error');
    }
    return this.deps.calls.findCall(viewer.tenantId, call.callId, call.sessionId);
  }

  /**
   * Fails every PENDING_EXTERNAL call whose deadline has passed with TIMEOUT (the reconciler's
   * pass; safe on any number of processes at once: each expiry is conditional on the state).
   */
  async expireOverdue(limit = 500): Promise<number> {
    const { db, eventLog, dispatcher } = this.deps;
    const rows = await db.$queryRawUnsafe<Array<{ id: string; sessionId: string }>>(OVERDUE_EXTERNAL_CALLS, limit);
    const bySession = new Map<string, string[]>();
    for (const row of rows) bySession.set(row.sessionId, [...(bySession.get(row.sessionId) ?? []), row.id]);
    let expired = 0;
    for (const [sessionId, ids] of bySession) {
      const calls = await eventLog.write(sessionId, (scope) => expirePendingExternal(scope, dispatcher, ids));
      expired += calls.length;
    }
    return expired;
  }

  /** Finds a call the viewer may decide (its approver role is checked by the mutation's scope), or says why not. */
  private async decidable(viewer: Viewer, callId: string, sessionId?: string | null): Promise<CallRecord> {
    const call = await this.deps.calls.findCall(viewer.tenantId, callId, sessionId);
    if (call.status !== 'AWAITING_APPROVAL') throw await this.notAwaitingApproval(call);
    if (call.submittedBy === viewer.apiKeyId) {
      const tenant = await this.deps.db.tenant.findUnique({ where: { id: viewer.tenantId }, select: { allowSelfApproval: true } });
      if (!tenant?.allowSelfApproval) {
        throw new ForbiddenError('The API key that submitted a call cannot approve or reject it (this tenant does not allow self-approval)');
      }
    }
    return call;
  }

  private async notAwaitingApproval(call: CallRecord): Promise<Error> {
    const current = await this.deps.calls.findCall(call.tenantId, call.callId, call.sessionId);
    return new InvalidStateError(`Call \`${call.callId}\` is not awaiting approval (it is ${current.status})`, current.status);
  }
}

/** The typed error for a completion of a call that is not PENDING_EXTERNAL. */
function refusal(call: CallRecord): Error {
  if (TERMINAL_STATUSES.includes(call.status)) {
    const output = parseOutput(call.output);
    const expired = output?.status === 'FAILURE' && output.failure.code === DEADLINE_EXCEEDED_CODE && output.failure.source === 'RUNTIME';
    if (expired && call.deadlineAt) return new DeadlinePassedError(call.callId, call.deadlineAt);
    return new CallAlreadyCompletedError(call.callId, call.status);
  }
  return new InvalidStateError(`Call \`${call.callId}\` is not waiting for a completion (it is ${call.status})`, call.status);
}

/** Validates a client's completion and turns it into the call's output. */
/** The code and message of a reported INTERNAL failure (either form), which the call shows masked. */
function reportedInternal(result: CompletionInput): { code: unknown; details: unknown } | null {
  const outcome = result.outcome as { status?: unknown; payload?: unknown } | null | undefined;
  const reported = (result.failure ?? (outcome?.status === 'failure' ? outcome.payload : null)) as { class?: unknown; code?: unknown; message?: unknown } | null;
  return reported?.class === 'INTERNAL' ? { code: reported.code, details: reported.message } : null;
}

export function completionOutput(result: CompletionInput): ToolCallOutput {
  const given = [
    'value' in result && result.value !== undefined,
    result.failure !== undefined && result.failure !== null,
    result.outcome !== undefined && result.outcome !== null,
  ].filter(Boolean).length;
  if (given !== 1) throw new ValidationError('result needs exactly one of `value`, `failure` and `outcome`', 'result');
  if (result.outcome !== undefined && result.outcome !== null) return parseSeedOutcome(result.outcome, 'result.outcome');
  if ('value' in result && result.value !== undefined) {
    try {
      return outputs.successValue(decodeToolValue(result.value));
    } catch (error) {
      if (error instanceof MalformedToolValueError) throw new ValidationError(`result.value is not a valid tool value: ${error.message}`, 'result.value');
      throw error;
    }
  }
  const input = result.failure!;
  if (!FAILURE_CLASSES.includes(input.class)) throw new ValidationError(`result.failure.class must be one of ${FAILURE_CLASSES.join(', ')}`, 'result.failure.class');
  const retry = input.retry ?? { kind: 'NEVER' };
  const afterMs = retry.afterMs ?? undefined;
  const reported = failure(input.class, input.code, input.message, {
    source: 'TOOL',
    retry: retry.kind === 'SAFE' ? (afterMs === undefined ? { kind: 'SAFE' } : { kind: 'SAFE', afterMs }) : { kind: 'NEVER' },
  });
  return outputs.failure(checkReportedFailure(reported, 'result.failure'));
}
