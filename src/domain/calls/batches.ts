// Submitting and cancelling batches of tool calls (the API side of DESIGN.md §3).
import type { Config } from '../../config.js';
import type { Db } from '../../db.js';
import type { Sql } from '../../sql.js';
import type { ToolBatch } from '../../generated/prisma/client.js';
import type { EventDraft, SessionEvent } from '../../model/events.js';
import type { ResolvedTool, ToolRegistry } from '../../tools/registry.js';
import type { PatternBudget } from '../../tools/linear-regexp.js';
import { overlongToolName } from '../../tools/types.js';
import { patternBudget, validateArgs } from '../../tools/validate-args.js';
import { CallIdConflictError, IdempotencyKeyReusedError, NotFoundError, ValidationError } from '../../model/errors.js';
import { type Broadcast, publishCancel } from '../broadcast.js';
import type { EventLog } from '../event-log.js';
import { newCallId, sha256Hex, stableJson } from '../../model/ids.js';
import { failure, outputs, type ToolCallOutput } from '../../model/outcome.js';
import { jsonText } from '../../model/tool-value.js';
import { inSpan, tracingEnabled } from '../../telemetry/tracing.js';
import type { Dispatcher } from '../outbox.js';
import type { SessionService } from '../sessions/sessions.js';
import type { WorkerRegistry } from '../workers.js';
import { statusOf } from './call-folds.js';
import { type BatchScope, describeCall, runCallsJobs, runLaneJob } from './call-jobs.js';
import { type CallRecord, type CancelRequested, cancelCalls, cancelOrphaned, TERMINAL_STATUSES } from './call-transitions.js';
import { completedEvent } from './call-writes.js';
import { CallIdsTaken, type InsertResult, insertBatch, type NewBatch, type NewCall, newRowId, takenCallIds } from './insert-batch.js';
import type { CallStore } from './store.js';
import { longerThan, MAX_IDENTIFIER_LENGTH } from '../../model/text.js';

export interface CallInput {
  id?: string | null;
  tool: string;
  args?: unknown;
  timeoutMs?: number | null;
}

export interface SubmitBatchInput {
  tenantId: string;
  apiKeyId: string | null;
  sessionId: string;
  calls: CallInput[];
  idempotencyKey?: string | null;
  timeoutMs?: number | null;
}

/** The row id an empty (unstored) batch answers with. */
export const EMPTY_BATCH_ROW_ID = '00000000-0000-0000-0000-000000000000';

/**
 * The batch id of calls that all carry a client id, exactly as seed 001 computes it:
 * `tool-batch:` + sha256 of serde_json's text of `[{"id", "tool_id", "args"}, …]` (keys sorted).
 */
export function deterministicBatchId(calls: Array<{ id: string; tool: string; args: unknown }>): string {
  return `tool-batch:${sha256Hex(jsonText(calls.map(({ id, tool, args }) => ({ id, tool_id: tool, args }))))}`;
}

/** The public id of an empty batch: every empty batch of a session is the same one. */
export const EMPTY_BATCH_ID = deterministicBatchId([]);

/**
 * The empty batch of a session: never stored, it answers (completed, with no calls) wherever a
 * batch is looked up by its public id, as `executeToolBatch` answered it.
 */
export function emptyBatch(sessionId: string, submitted: { idempotencyKey: string | null; submittedBy: string | null } = { idempotencyKey: null, submittedBy: null }): ToolBatch {
  const now = new Date();
  return {
    id: EMPTY_BATCH_ROW_ID,
    sessionId,
    batchId: EMPTY_BATCH_ID,
    idempotencyKey: submitted.idempotencyKey,
    requestHash: sha256Hex(stableJson([])),
    status: 'COMPLETED',
    callCount: 0,
    pendingCount: 0,
    succeededCount: 0,
    failedCount: 0,
    cancelledCount: 0,
    laneGen: 0,
    submittedBy: submitted.submittedBy,
    createdAt: now,
    completedAt: now,
  };
}

const CALL_ID_PATTERN = new RegExp(`^[\\x21-\\x7e]{1,${MAX_IDENTIFIER_LENGTH}}$`);

export interface BatchServiceDeps {
  config: Config;
  db: Db;
  sql: Sql;
  eventLog: EventLog;
  registry: ToolRegistry;
  dispatcher: Dispatcher;
  bus: Broadcast;
  sessions: SessionService;
  calls: CallStore;
  workers: WorkerRegistry;
  /**
   * Waits (bounded) for an event of a session that `matches`; null when it did not come. `start`
   * reads in one snapshot the session's event head, or null when the wait is over already.
   */
  waitForEvent(tenantId: string, sessionId: string, matches: (event: SessionEvent) => boolean, timeoutMs: number, start: () => Promise<number | null>): Promise<SessionEvent | null>;
}

/** The batch as written, and the events its submission announced (to watch from). */
export interface Submitted {
  batch: ToolBatch;
  events: SessionEvent[];
}

export class BatchService {
  constructor(private readonly deps: BatchServiceDeps) {}

  submit(input: SubmitBatchInput): Promise<Submitted> {
    if (!tracingEnabled) return this.submitBatch(input);
    // The batch's jobs carry this span's context to the worker.
    return inSpan('toolrun.batch.submit', { attributes: { 'toolrun.session.id': input.sessionId, 'toolrun.batch.calls': input.calls.length } }, async (span) => {
      const submitted = await this.submitBatch(input);
      span.setAttribute('toolrun.batch.id', submitted.batch.batchId);
      return submitted;
    });
  }

  private async submitBatch(input: SubmitBatchInput): Promise<Submitted> {
    const { config, db, eventLog, registry, dispatcher } = this.deps;
    if (input.calls.length === 0) return this.emptyBatch(input);
    const calls = this.normalizeCalls(input);
    const idempotencyKey = input.idempotencyKey ?? null;
    if (idempotencyKey !== null && (idempotencyKey.length === 0 || longerThan(idempotencyKey, MAX_IDENTIFIER_LENGTH))) {
      throw new ValidationError(`idempotencyKey must be 1 to ${MAX_IDENTIFIER_LENGTH} characters`, 'idempotencyKey');
    }
    const requestHash = sha256Hex(stableJson(calls.map(({ id, clientId, tool, args, timeoutMs }) => ({ id: clientId ? id : null, tool, args, timeoutMs }))));
    const everyCallHasId = calls.every((call) => call.clientId);
    const batchId =
      idempotencyKey !== null
        ? `tool-batch:${sha256Hex(`idempotency-key:${idempotencyKey}`)}`
        : everyCallHasId
          ? deterministicBatchId(calls.map(({ id, tool, args }) => ({ id, tool, args })))
          : `tool-batch:${newCallId().slice(5)}`;

    const tenantId = input.tenantId;
    const tools = await registry.resolveMany(tenantId, calls.map((call) => call.tool));
    const scope: BatchScope = { tenantId, sessionId: input.sessionId, batchRowId: newRowId(), batchId };
    const patterns = patternBudget();
    const planned: NewCall[] = calls.map((call) => {
      const plan = planCall(call, tools.get(call.tool), config, patterns);
      return {
        id: newRowId(),
        callId: call.id,
        tool: call.tool,
        args: call.args,
        scheduling: plan.scheduling,
        status: plan.initialOutput ? statusOf(plan.initialOutput) : plan.initialStatus,
        output: plan.initialOutput,
        maxAttempts: plan.maxAttempts,
        timeoutMs: plan.timeoutMs,
      };
    });

    // One time for the batch's row, the answer and whatever completes now (the rows' and the events').
    const now = new Date();
    const drafts: EventDraft[] = [];
    const queued: NewCall[] = [];
    let lane = false;
    for (const call of planned) {
      const ref = { sessionId: scope.sessionId, batchId, callId: call.callId, tool: call.tool, attempt: 0 };
      if (call.output) drafts.push(completedEvent(ref, call.output, 0, now));
      else if (call.status === 'AWAITING_APPROVAL') {
        drafts.push({ sessionId: scope.sessionId, type: 'ToolCallAwaitingApproval', batchId, callId: call.callId, payload: { tool: call.tool, args: call.args } });
      } else if (call.scheduling === 'SERIAL') lane = true;
      else queued.push(call);
    }
    const pending = planned.filter((call) => !call.output).length;
    const tally = { SUCCEEDED: 0, FAILED: 0, CANCELLED: 0 };
    for (const call of planned) if (call.output) tally[statusOf(call.output)]++;
    if (pending === 0) {
      drafts.push({
        sessionId: scope.sessionId,
        type: 'ToolBatchCompleted',
        batchId,
        payload: { total: planned.length, succeeded: tally.SUCCEEDED, failed: tally.FAILED, cancelled: tally.CANCELLED, completedAt: now.toISOString() },
      });
    }
    const jobs = runCallsJobs(scope, queued.map((call) => describeCall({ ...call, attempt: 1 })), config.CALLS_PER_JOB);
    if (lane) jobs.push(runLaneJob(scope, 0));
    const newBatch: NewBatch = {
      ...scope,
      id: scope.batchRowId,
      idempotencyKey,
      requestHash,
      submittedBy: input.apiKeyId,
      calls: planned,
      jobs,
      deployment: dispatcher.deployment,
      submittedAt: now,
    };

    let written: { result: InsertResult; events: SessionEvent[] };
    try {
      written =
        drafts.length === 0
          ? // Nothing to announce: one statement, no transaction, no session lock.
            { result: await this.deps.sql.retryingTransient(() => insertBatch(this.deps.sql, newBatch)), events: [] }
          : await eventLog.writeWithEvents(input.sessionId, async (write) => {
              const inserted = await insertBatch(write.sql, newBatch);
              if (inserted.kind === 'inserted') {
                for (const draft of drafts) write.emit(draft);
                write.afterCommit(() => dispatcher.dispatch(inserted.jobs));
              }
              return inserted;
            });
    } catch (error) {
      if (error instanceof CallIdsTaken) {
        throw new CallIdConflictError(await takenCallIds(this.deps.sql, input.sessionId, scope.batchRowId, planned.map((call) => call.callId)));
      }
      throw error;
    }
    const { result } = written;
    if (result.kind === 'no-session') throw new NotFoundError('Session', input.sessionId);
    if (result.kind === 'inserted' && drafts.length === 0) dispatcher.dispatch(result.jobs);
    if (result.kind === 'existing') {
      const existing = await db.toolBatch.findUnique({ where: { sessionId_batchId: { sessionId: input.sessionId, batchId } } });
      if (!existing) throw new Error(`batch ${batchId} reported as existing was not found`);
      return { batch: this.sameBatch(existing, idempotencyKey, requestHash), events: [] };
    }
    const batch: ToolBatch = {
      id: scope.batchRowId,
      sessionId: scope.sessionId,
      batchId,
      idempotencyKey,
      requestHash,
      status: pending === 0 ? 'COMPLETED' : 'RUNNING',
      callCount: planned.length,
      pendingCount: pending,
      succeededCount: tally.SUCCEEDED,
      failedCount: tally.FAILED,
      cancelledCount: tally.CANCELLED,
      laneGen: 0,
      submittedBy: input.apiKeyId,
      createdAt: now,
      completedAt: pending === 0 ? now : null,
    };
    return { batch, events: written.events };
  }

  /**
   * An empty batch runs nothing and is not stored (seed 001 answers an empty batch with an empty
   * result): it comes back completed, with no calls; its `id` names no stored batch.
   */
  private async emptyBatch(input: SubmitBatchInput): Promise<Submitted> {
    await this.deps.sessions.assertExists(input.tenantId, input.sessionId);
    return { batch: emptyBatch(input.sessionId, { idempotencyKey: input.idempotencyKey ?? null, submittedBy: input.apiKeyId }), events: [] };
  }

  private sameBatch(existing: ToolBatch, idempotencyKey: string | null, requestHash: string): ToolBatch {
    if (idempotencyKey !== null && existing.requestHash !== requestHash) throw new IdempotencyKeyReusedError(idempotencyKey);
    return existing;
  }

  private normalizeCalls(input: SubmitBatchInput) {
    const { config } = this.deps;
    if (input.calls.length > config.MAX_CALLS_PER_BATCH) {
      throw new ValidationError(`A batch holds at most ${config.MAX_CALLS_PER_BATCH} calls`, 'calls');
    }
    const batchTimeout = this.checkTimeout(input.timeoutMs, 'timeoutMs');
    const seen = new Set<string>();
    return input.calls.map((call, index) => {
      if (call.id !== undefined && call.id !== null && !CALL_ID_PATTERN.test(call.id)) {
        throw new ValidationError(`calls[${index}].id must be 1 to ${MAX_IDENTIFIER_LENGTH} printable ASCII characters without spaces`, `calls.${index}.id`);
      }
      const overlongTool = overlongToolName(call.tool);
      if (overlongTool) throw new ValidationError(`calls[${index}].tool ${overlongTool}`, `calls.${index}.tool`);
      const id = call.id ?? newCallId();
      if (seen.has(id)) throw new ValidationError(`Call id \`${id}\` appears more than once in the batch`, `calls.${index}.id`);
      seen.add(id);
      return {
        id,
        clientId: call.id !== undefined && call.id !== null,
        tool: call.tool,
        args: call.args ?? {},
        timeoutMs: this.checkTimeout(call.timeoutMs, `calls.${index}.timeoutMs`) ?? batchTimeout,
      };
    });
  }

  private checkTimeout(value: number | null | undefined, field: string): number | null {
    if (value === undefined || value === null) return null;
    const max = this.deps.config.MAX_CALL_TIMEOUT_MS;
    if (!Number.isInteger(value) || value < 1 || value > max) throw new ValidationError(`${field} must be an integer from 1 to ${max}`, field);
    return value;
  }

  async cancelBatch(tenantId: string, sessionId: string, batchId: string): Promise<ToolBatch> {
    const batch = await this.deps.calls.findBatch(tenantId, sessionId, batchId);
    const calls = await this.deps.db.toolCall.findMany({
      where: { batchRowId: batch.id, status: { notIn: [...TERMINAL_STATUSES] } },
      select: { id: true },
    });
    await this.cancelCalls(sessionId, calls.map((call) => call.id));
    return (await this.deps.db.toolBatch.findUnique({ where: { id: batch.id } })) ?? batch;
  }

  async cancelCall(tenantId: string, callId: string, sessionId?: string | null): Promise<CallRecord> {
    const call = await this.deps.calls.findCall(tenantId, callId, sessionId);
    if (!TERMINAL_STATUSES.includes(call.status)) await this.cancelCalls(call.sessionId, [call.id]);
    return this.deps.calls.findCall(tenantId, callId, call.sessionId);
  }

  /**
   * Waiting calls are cancelled at once; running ones are signalled and recorded by their worker —
   * or here, when their worker is gone (dead, or silent for two heartbeats): at once if known now,
   * else when the grace period ends.
   */
  private async cancelCalls(sessionId: string, callRowIds: string[]): Promise<void> {
    if (callRowIds.length === 0) return;
    const { eventLog, dispatcher, bus, config } = this.deps;
    const running = await eventLog.write(sessionId, (scope) => cancelCalls(scope, dispatcher, callRowIds));
    // Queued calls may already run on a worker (a readonly tool starts before its claim is written).
    // Not awaited: with Redis away the request still answers at once (workers find the durable mark).
    publishCancel(bus, { callRowIds }).catch(() => undefined);
    if (running.length === 0) return;
    await this.endOrphaned(sessionId, running);
    const timer = setTimeout(() => void this.endOrphaned(sessionId, running).catch(() => undefined), config.CANCEL_GRACE_MS);
    timer.unref();
  }

  private async endOrphaned(sessionId: string, requested: CancelRequested[]): Promise<void> {
    const alive = await this.deps.workers.alive(requested.map((entry) => entry.workerId).filter((id): id is string => id !== null), 2 * this.deps.config.HEARTBEAT_INTERVAL_MS);
    const orphaned = requested.filter((entry) => entry.workerId === null || !alive.has(entry.workerId));
    if (orphaned.length > 0) await this.deps.eventLog.write(sessionId, (scope) => cancelOrphaned(scope, this.deps.dispatcher, orphaned));
  }

  /** How long a submission may wait for its batch (refused before anything is submitted when negative). */
  static checkedWait(waitMs: number | null | undefined): number {
    if (waitMs != null && waitMs < 0) throw new ValidationError(`waitMs must be 0 or more, got ${waitMs}`, 'waitMs');
    return waitMs ?? 0;
  }

  /** Waits (bounded) until the batch completes; returns the batch as it is then. */
  async waitForBatch(tenantId: string, batch: ToolBatch, waitMs: number): Promise<ToolBatch> {
    if (batch.status === 'COMPLETED' || waitMs <= 0) return batch;
    const event = await this.deps.waitForEvent(
      tenantId,
      batch.sessionId,
      (event) => event.type === 'ToolBatchCompleted' && event.batchId === batch.batchId,
      Math.min(waitMs, this.deps.config.MAX_BATCH_WAIT_MS),
      () => this.deps.calls.waitStart(batch.id),
    );
    if (event?.type === 'ToolBatchCompleted') {
      // The event was written with the batch's last change: the row as it now is, without reading it.
      const { succeeded, failed, cancelled, completedAt } = event.payload;
      return { ...batch, status: 'COMPLETED', pendingCount: 0, succeededCount: succeeded, failedCount: failed, cancelledCount: cancelled, completedAt: new Date(completedAt) };
    }
    return (await this.deps.db.toolBatch.findUnique({ where: { id: batch.id } })) ?? batch;
  }
}

interface CallPlan {
  scheduling: 'PARALLEL' | 'SERIAL';
  initialStatus: 'QUEUED' | 'AWAITING_APPROVAL';
  maxAttempts: number;
  timeoutMs: number;
  /** Set when the call completes at submission (unknown tool, invalid arguments). */
  initialOutput: ToolCallOutput | null;
}

/**
 * A call that ends at submission (unknown tool, invalid arguments) never runs: it has no attempt and
 * so no deadline, and its `timeoutMs` is 0 whatever the client asked for (NO_DEADLINE).
 */
const NO_DEADLINE = 0;

function planCall(call: { tool: string; args: unknown; timeoutMs: number | null }, tool: ResolvedTool | undefined, config: Config, patterns: PatternBudget): CallPlan {
  if (!tool) {
    return { scheduling: 'PARALLEL', initialStatus: 'QUEUED', maxAttempts: 1, timeoutMs: NO_DEADLINE, initialOutput: outputs.unavailable(call.tool) };
  }
  const { definition } = tool;
  const plan: CallPlan = {
    scheduling: definition.scheduling,
    initialStatus: definition.policy === 'REQUIRES_APPROVAL' ? 'AWAITING_APPROVAL' : 'QUEUED',
    maxAttempts: Math.max(1, definition.retry.maxAttempts),
    timeoutMs: Math.min(call.timeoutMs ?? definition.timeoutMs, config.MAX_CALL_TIMEOUT_MS),
    initialOutput: null,
  };
  const verdict = definition.checksOwnArguments ? { ok: true as const } : validateArgs(definition, call.args, patterns);
  if (!verdict.ok) {
    plan.initialOutput = outputs.failure(failure('INVALID_REQUEST', 'invalid_arguments', `Invalid arguments for \`${call.tool}\`: ${verdict.message}`));
    plan.timeoutMs = NO_DEADLINE;
  }
  return plan;
}
