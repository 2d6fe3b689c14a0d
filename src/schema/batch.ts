// Batches of tool calls and the calls themselves.
import { resolveOffsetConnection } from '@pothos/plugin-relay';
import { parseOutput, seedOutcome, seedToolResult } from '../model/outcome.js';
import type { ToolBatch, ToolCall } from '../generated/prisma/client.js';
import { builder } from './builder.js';
import { ModelReturnRef, outputMember, ToolCallOutputUnion } from './outcome.js';
import { SessionRef } from './session.js';
import { ToolSchedulingEnum } from './tool.js';

export const CallStatusEnum = builder.enumType('ToolCallStatus', {
  values: ['QUEUED', 'AWAITING_APPROVAL', 'RUNNING', 'PENDING_EXTERNAL', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const,
});
export const BatchStatusEnum = builder.enumType('ToolBatchStatus', { values: ['RUNNING', 'COMPLETED'] as const });

export const ToolBatchRef = builder.loadableNodeRef<ToolBatch | Error, string, string>('ToolBatch', {
  id: { resolve: (batch) => batch.id },
  load: (ids, { services, viewer }) => services.calls.loadBatches(viewer.tenantId, ids),
});

export const ToolCallRef = builder.loadableNodeRef<ToolCall | Error, string, string>('ToolCall', {
  id: { resolve: (call) => call.id },
  load: (ids, { services, viewer }) => services.calls.loadCalls(viewer.tenantId, ids),
});

ToolBatchRef.implement({
  description: 'A batch of tool calls submitted together; its calls keep input order.',
  fields: (t) => ({
    batchId: t.exposeString('batchId'),
    status: t.expose('status', { type: BatchStatusEnum }),
    idempotencyKey: t.exposeString('idempotencyKey', { nullable: true }),
    callCount: t.exposeInt('callCount'),
    pendingCount: t.exposeInt('pendingCount'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
    session: t.field({ type: SessionRef, resolve: (batch) => batch.sessionId }),
    calls: t.loadableGroup({
      type: ToolCallRef,
      load: (batchRowIds: string[], { services }) => services.calls.callsOfBatches(batchRowIds),
      group: (call) => (typeof call === 'string' ? call : call.batchRowId),
      resolve: (batch) => batch.id,
    }),
  }),
});

ToolCallRef.implement({
  description: 'One tool call and, once finished, its outcome.',
  fields: (t) => ({
    callId: t.exposeString('callId'),
    tool: t.exposeString('tool'),
    args: t.expose('args', { type: 'JSON' }),
    status: t.expose('status', { type: CallStatusEnum }),
    scheduling: t.field({ type: ToolSchedulingEnum, resolve: (call) => call.scheduling as 'PARALLEL' | 'SERIAL' }),
    output: t.field({
      type: ToolCallOutputUnion,
      nullable: true,
      resolve: (call) => {
        const output = parseOutput(call.output);
        return output ? outputMember(output) : null;
      },
    }),
    outcome: t.field({
      type: 'JSON',
      nullable: true,
      description:
        'The outcome in the seeds’ JSON form (ToolCallOutcome), null until the call is finished: {"status": "success", "payload": <tool value>} | {"status": "failure", "payload": {"class", "code", "message", "source", "retry": {"type": "never" | "safe" | "exhausted", "after_ms"?, "attempts"?}, "raw"?}} | {"status": "cancelled", "payload": {"message", "source", "raw"?}}; classes and sources in snake_case, tool values in the wire form.',
      resolve: (call) => {
        const output = parseOutput(call.output);
        return output ? seedOutcome(output) : null;
      },
    }),
    toolResult: t.field({
      type: 'JSON',
      nullable: true,
      description:
        'The result as the tool registry of seed 002 reports it (ToolResult), null until the call is finished: {"tool_call_id", "result", "error", "raw_output", "images", "connection_required"}; a failure or cancellation is {"error": message} in `result` and its message in `error`.',
      resolve: (call) => {
        const output = parseOutput(call.output);
        return output ? seedToolResult(call.callId, output) : null;
      },
    }),
    rawOutput: t.string({
      nullable: true,
      description: 'The raw output a tool put beside its result (the `_raw_output` sidecar key, taken out of the value)',
      resolve: (call) => {
        const output = parseOutput(call.output);
        return output?.status === 'SUCCESS' ? (output.rawOutput ?? null) : null;
      },
    }),
    modelReturn: t.field({
      type: ModelReturnRef,
      nullable: true,
      resolve: (call) => {
        const output = parseOutput(call.output);
        return output ? { callId: call.callId, tool: call.tool, output } : null;
      },
    }),
    position: t.exposeInt('position'),
    attempt: t.exposeInt('attempt'),
    maxAttempts: t.exposeInt('maxAttempts'),
    timeoutMs: t.exposeInt('timeoutMs'),
    durationMs: t.exposeInt('durationMs', { nullable: true }),
    queuedAt: t.expose('queuedAt', { type: 'DateTime' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
    cancelRequestedAt: t.expose('cancelRequestedAt', { type: 'DateTime', nullable: true }),
    deadlineAt: t.expose('deadlineAt', {
      type: 'DateTime',
      nullable: true,
      description: 'PENDING_EXTERNAL: completions are accepted until then; afterwards the call fails TIMEOUT',
    }),
    decidedAt: t.expose('decidedAt', { type: 'DateTime', nullable: true, description: 'When an approver approved or rejected the call' }),
    batch: t.field({ type: ToolBatchRef, resolve: (call) => call.batchRowId }),
    session: t.field({ type: SessionRef, resolve: (call) => call.sessionId }),
  }),
});

// A parent's connection to a child type is declared with the child type (session.ts cannot import
// this file back).
builder.objectField(SessionRef, 'batches', (t) =>
  t.connection({
    type: ToolBatchRef,
    description: 'Batches of this session, newest first',
    resolve: (session, args, { services }) => resolveOffsetConnection({ args }, ({ offset, limit }) => services.calls.batchesOfSession(session.id, offset, limit)),
  }),
);

export const ToolCallInput = builder.inputType('ToolCallInput', {
  fields: (t) => ({
    id: t.string({ description: 'Client call id, unique in the session; assigned by the server when absent' }),
    tool: t.string({ required: true }),
    args: t.field({ type: 'JSON', description: 'Arguments object, validated against the tool’s JSON Schema' }),
    timeoutMs: t.int({ description: 'Deadline of this call, up to the configured maximum' }),
  }),
});
