// Submitting and cancelling batches of tool calls (the API side of DESIGN.md §3).
import type { Config } from '../../config.js';
import type { Db } from '../../db.js';
import type { ToolBatch } from '../../generated/prisma/client.js';
import { publishCancel } from '../../realtime/cancel-channel.js';
import type { EventBus } from '../../realtime/event-bus.js';
import { waitForSessionEvent } from '../../realtime/subscription.js';
import type { ResolvedTool, ToolRegistry } from '../../tools/registry.js';
import { validateArgs } from '../../tools/validate-args.js';
import {
  type CallRecord,
  callEvent,
  completedEventPayload,
  completeWaiting,
  requestCancel,
  settleBatches,
  startedWithoutRunning,
  TERMINAL_STATUSES,
} from './call-transitions.js';
import { CallIdConflictError, IdempotencyKeyReusedError, ValidationError } from '../../model/errors.js';
import type { EventLog, Tx } from '../event-log.js';
import { newCallId, sha256Hex, stableJson } from '../../model/ids.js';
import { callStatusOf, failure, outputs, type ToolCallOutput } from '../../model/outcome.js';
import { jsonText } from '../../model/tool-value.js';
import type { SessionService } from '../sessions/sessions.js';
import type { RunnableCall, WorkQueue } from '../work.js';
import type { CallStore } from './store.js';

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

const CALL_ID_PATTERN = /^[\x21-\x7e]{1,256}$/;

export interface BatchServiceDeps {
  config: Config;
  db: Db;
  eventLog: EventLog;
  registry: ToolRegistry;
  work: WorkQueue;
  bus: EventBus;
  sessions: SessionService;
  calls: CallStore;
}

export class BatchService {
  constructor(private readonly deps: BatchServiceDeps) {}

  async submit(input: SubmitBatchInput): Promise<ToolBatch> {
    const { config, db, eventLog, registry } = this.deps;
    if (input.calls.length === 0) return this.emptyBatch(input);
    const calls = this.normalizeCalls(input);
    const idempotencyKey = input.idempotencyKey ?? null;
    if (idempotencyKey !== null && (idempotencyKey.length === 0 || idempotencyKey.length > 256)) {
      throw new ValidationError('idempotencyKey must be 1 to 256 characters', 'idempotencyKey');
    }
    const requestHash = sha256Hex(stableJson(calls.map(({ id, clientId, tool, args, timeoutMs }) => ({ id: clientId ? id : null, tool, args, timeoutMs }))));
    const everyCallHasId = calls.every((call) => call.clientId);
    const batchId =
      idempotencyKey !== null
        ? `tool-batch:${sha256Hex(`idempotency-key:${idempotencyKey}`)}`
        : everyCallHasId
          ? deterministicBatchId(calls.map(({ id, tool, args }) => ({ id, tool, args })))
          : `tool-batch:${newCallId().slice(5)}`;

    await this.deps.sessions.assertExists(input.tenantId, input.sessionId);
    const existing = await db.toolBatch.findUnique({ where: { sessionId_batchId: { sessionId: input.sessionId, batchId } } });
    if (existing) return this.sameBatch(existing, idempotencyKey, requestHash);

    const tools = await registry.resolveMany(input.tenantId, calls.map((call) => call.tool));
    const planned = calls.map((call) => ({ ...call, plan: planCall(call, tools.get(call.tool), config) }));

    const result = await eventLog.write(input.sessionId, async (scope) => {
      const raced = await scope.tx.toolBatch.findUnique({ where: { sessionId_batchId: { sessionId: input.sessionId, batchId } } });
      if (raced) return { batch: raced, toRun: [] as RunnableCall[], existing: true };
      const taken = await scope.tx.toolCall.findMany({
        where: { sessionId: input.sessionId, callId: { in: calls.map((call) => call.id) } },
        select: { callId: true },
      });
      if (taken.length > 0) throw new CallIdConflictError(taken.map((row) => row.callId));

      const batch = await scope.tx.toolBatch.create({
        data: {
          sessionId: input.sessionId,
          batchId,
          idempotencyKey,
          requestHash,
          callCount: calls.length,
          pendingCount: calls.length,
          submittedBy: input.apiKeyId,
        },
      });
      const now = new Date();
      const inserted = await insertCalls(scope.tx, {
        sessionId: input.sessionId,
        batchRowId: batch.id,
        submittedBy: input.apiKeyId,
        now,
        calls: planned.map((call) => ({
          callId: call.id,
          tool: call.tool,
          args: call.args,
          scheduling: call.plan.scheduling,
          status: call.plan.initialOutput ? callStatusOf(call.plan.initialOutput) : call.plan.initialStatus,
          output: call.plan.initialOutput,
          maxAttempts: call.plan.maxAttempts,
          timeoutMs: call.plan.timeoutMs,
        })),
      });
      const idOf = new Map(inserted.map((row) => [row.position, row.id]));

      const toRun: RunnableCall[] = [];
      const immediate: string[] = [];
      planned.forEach((call, position) => {
        const callRowId = idOf.get(position)!;
        const record = { batchId, callId: call.id, tool: call.tool, attempt: 0, maxAttempts: call.plan.maxAttempts };
        if (call.plan.initialOutput) {
          immediate.push(callRowId);
          return;
        }
        if (call.plan.initialStatus === 'AWAITING_APPROVAL') {
          scope.emit(input.sessionId, callEvent('ToolCallAwaitingApproval', record, { args: call.args }));
        } else toRun.push({ id: callRowId, sessionId: input.sessionId, batchRowId: batch.id, scheduling: call.plan.scheduling });
      });

      if (immediate.length > 0) {
        // Unknown tools and invalid arguments complete at once, without running anything.
        planned.forEach((call) => {
          const output = call.plan.initialOutput;
          if (!output) return;
          const record = { batchId, callId: call.id, tool: call.tool, attempt: 0, maxAttempts: call.plan.maxAttempts, durationMs: 0, completedAt: now };
          scope.emit(input.sessionId, startedWithoutRunning(record));
          scope.emit(input.sessionId, callEvent('ToolCallCompleted', record, completedEventPayload(record, output)));
        });
        await settleBatches(scope, immediate.map(() => batch.id));
      }
      return { batch, toRun, existing: false };
    });
    if (result.existing) return this.sameBatch(result.batch, idempotencyKey, requestHash);
    await this.deps.work.runCalls(result.toRun);
    return (await db.toolBatch.findUnique({ where: { id: result.batch.id } })) ?? result.batch;
  }

  /**
   * An empty batch runs nothing and is not stored (seed 001 answers an empty batch with an empty
   * result): it comes back completed, with no calls; its `id` names no stored batch.
   */
  private async emptyBatch(input: SubmitBatchInput): Promise<ToolBatch> {
    await this.deps.sessions.assertExists(input.tenantId, input.sessionId);
    const now = new Date();
    return {
      id: EMPTY_BATCH_ROW_ID,
      sessionId: input.sessionId,
      batchId: deterministicBatchId([]),
      idempotencyKey: input.idempotencyKey ?? null,
      requestHash: sha256Hex(stableJson([])),
      status: 'COMPLETED',
      callCount: 0,
      pendingCount: 0,
      submittedBy: input.apiKeyId,
      createdAt: now,
      completedAt: now,
    };
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
        throw new ValidationError(`calls[${index}].id must be 1 to 256 printable characters without spaces`, `calls.${index}.id`);
      }
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
    return (await this.deps.db.toolBatch.findUnique({ where: { id: batch.id } }))!;
  }

  async cancelCall(tenantId: string, callId: string, sessionId?: string | null): Promise<CallRecord> {
    const call = await this.deps.calls.findCall(tenantId, callId, sessionId);
    if (!TERMINAL_STATUSES.includes(call.status)) await this.cancelCalls(call.sessionId, [call.id]);
    return this.deps.calls.findCall(tenantId, callId, call.sessionId);
  }

  /** Waiting calls are cancelled at once; running ones are signalled and recorded by their worker. */
  private async cancelCalls(sessionId: string, callRowIds: string[]): Promise<void> {
    if (callRowIds.length === 0) return;
    await this.deps.eventLog.write(sessionId, async (scope) => {
      const cancelled = await completeWaiting(scope, callRowIds, outputs.cancelled());
      // A serial call waiting for approval or a completion holds its lane: let the lane go on.
      const lanes = new Set(cancelled.filter((call) => call.scheduling === 'SERIAL').map((call) => call.batchRowId));
      if (lanes.size > 0) {
        scope.afterCommit(() => this.deps.work.resumeLanes([...lanes].map((batchRowId) => ({ sessionId, batchRowId }))));
      }
      const running = await requestCancel(scope, callRowIds);
      if (running.length > 0) {
        scope.afterCommit(() => publishCancel(this.deps.bus, { callRowIds: running }));
      }
    });
  }

  /** Waits (bounded) until the batch completes; returns the batch as it is then. */
  async waitForBatch(batch: ToolBatch, waitMs: number): Promise<ToolBatch> {
    if (batch.status === 'COMPLETED' || waitMs <= 0) return batch;
    const { db, bus } = this.deps;
    await waitForSessionEvent(bus, batch.sessionId, (event) => event.type === 'ToolBatchCompleted' && event.batchId === batch.batchId, {
      timeoutMs: Math.min(waitMs, this.deps.config.MAX_BATCH_WAIT_MS),
      check: async () => (await db.toolBatch.findUnique({ where: { id: batch.id }, select: { status: true } }))?.status === 'COMPLETED',
    });
    return (await db.toolBatch.findUnique({ where: { id: batch.id } })) ?? batch;
  }
}

interface NewCall {
  callId: string;
  tool: string;
  args: unknown;
  scheduling: string;
  status: string;
  output: ToolCallOutput | null;
  maxAttempts: number;
  timeoutMs: number;
}

/** Inserts a batch's calls in one statement, whatever their number; positions follow input order. */
async function insertCalls(
  tx: Tx,
  batch: { sessionId: string; batchRowId: string; submittedBy: string | null; now: Date; calls: NewCall[] },
): Promise<Array<{ id: string; position: number }>> {
  const { calls } = batch;
  return tx.$queryRawUnsafe<Array<{ id: string; position: number }>>(
    `INSERT INTO tool_call (id, session_id, batch_row_id, call_id, position, tool, args, scheduling, status, output,
                            completed_at, duration_ms, attempt, max_attempts, timeout_ms, submitted_by, queued_at)
     SELECT gen_random_uuid(), $1::uuid, $2::uuid, c.call_id, c.position, c.tool, c.args::jsonb, c.scheduling, c.status::call_status,
            c.output::jsonb, CASE WHEN c.output IS NULL THEN NULL ELSE $4::timestamptz END,
            CASE WHEN c.output IS NULL THEN NULL ELSE 0 END, 0, c.max_attempts, c.timeout_ms, $3::uuid, $4::timestamptz
       FROM unnest($5::text[], $6::int[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::int[], $13::int[])
            AS c(call_id, position, tool, args, scheduling, status, output, max_attempts, timeout_ms)
     RETURNING id::text AS id, position`,
    batch.sessionId,
    batch.batchRowId,
    batch.submittedBy,
    batch.now,
    calls.map((call) => call.callId),
    calls.map((_, position) => position),
    calls.map((call) => call.tool),
    calls.map((call) => JSON.stringify(call.args)),
    calls.map((call) => call.scheduling),
    calls.map((call) => call.status),
    calls.map((call) => (call.output ? JSON.stringify(call.output) : null)),
    calls.map((call) => call.maxAttempts),
    calls.map((call) => call.timeoutMs),
  );
}

interface CallPlan {
  scheduling: 'PARALLEL' | 'SERIAL';
  initialStatus: 'QUEUED' | 'AWAITING_APPROVAL';
  maxAttempts: number;
  timeoutMs: number;
  /** Set when the call completes at submission (unknown tool, invalid arguments). */
  initialOutput: ToolCallOutput | null;
}

function planCall(call: { tool: string; args: unknown; timeoutMs: number | null }, tool: ResolvedTool | undefined, config: Config): CallPlan {
  if (!tool) {
    return { scheduling: 'PARALLEL', initialStatus: 'QUEUED', maxAttempts: 1, timeoutMs: call.timeoutMs ?? 0, initialOutput: outputs.unavailable(call.tool) };
  }
  const { definition } = tool;
  const plan: CallPlan = {
    scheduling: definition.scheduling,
    initialStatus: definition.policy === 'REQUIRES_APPROVAL' ? 'AWAITING_APPROVAL' : 'QUEUED',
    maxAttempts: Math.max(1, definition.retry.maxAttempts),
    timeoutMs: Math.min(call.timeoutMs ?? definition.timeoutMs, config.MAX_CALL_TIMEOUT_MS),
    initialOutput: null,
  };
  const verdict = definition.checksOwnArguments ? { ok: true as const } : validateArgs(definition, call.args);
  if (!verdict.ok) {
    plan.initialOutput = outputs.failure(failure('INVALID_REQUEST', 'invalid_arguments', `Invalid arguments for \`${call.tool}\`: ${verdict.message}`));
  }
  return plan;
}
