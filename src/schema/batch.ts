import { resolveOffsetConnection } from '@pothos/plugin-relay';
import { CallIdConflictError, IdempotencyKeyReusedError } from '../domain/errors.js';
import { parseOutput, seedOutcome, seedToolResult } from '../domain/outcome.js';
import type { ToolBatch, ToolCall } from '../generated/prisma/client.js';
import {
  cancelToolBatch,
  cancelToolCall,
  executeToolBatch,
  findBatch,
  findCall,
  listBatchesOfSession,
  loadBatches,
  loadCalls,
  loadCallsOfBatches,
} from '../resolvers/batches.js';
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
  load: (ids, context) => loadBatches(context, ids),
});

export const ToolCallRef = builder.loadableNodeRef<ToolCall | Error, string, string>('ToolCall', {
  id: { resolve: (call) => call.id },
  load: (ids, context) => loadCalls(context, ids),
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
      load: (batchRowIds: string[], context) => loadCallsOfBatches(context, batchRowIds),
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
    batch: t.field({ type: ToolBatchRef, resolve: (call) => call.batchRowId }),
    session: t.field({ type: SessionRef, resolve: (call) => call.sessionId }),
  }),
});

builder.objectField(SessionRef, 'batches', (t) =>
  t.connection({
    type: ToolBatchRef,
    description: 'Batches of this session, newest first',
    resolve: (session, args, context) => resolveOffsetConnection({ args }, ({ offset, limit }) => listBatchesOfSession(context, session.id, offset, limit)),
  }),
);

const ToolCallInput = builder.inputType('ToolCallInput', {
  fields: (t) => ({
    id: t.string({ description: 'Client call id, unique in the session; assigned by the server when absent' }),
    tool: t.string({ required: true }),
    args: t.field({ type: 'JSON', description: 'Arguments object, validated against the tool’s JSON Schema' }),
    timeoutMs: t.int({ description: 'Deadline of this call, up to the configured maximum' }),
  }),
});

builder.queryFields((t) => ({
  toolBatch: t.field({
    type: ToolBatchRef,
    nullable: true,
    authScopes: { authenticated: true },
    args: { sessionId: t.arg.id({ required: true }), batchId: t.arg.string({ required: true }) },
    resolve: (_root, args, context) => findBatch(context, { sessionId: String(args.sessionId), batchId: args.batchId }).catch(() => null),
  }),
  toolCall: t.field({
    type: ToolCallRef,
    nullable: true,
    authScopes: { authenticated: true },
    args: { callId: t.arg.string({ required: true }), sessionId: t.arg.id() },
    resolve: (_root, args, context) => findCall(context, { callId: args.callId, sessionId: args.sessionId ? String(args.sessionId) : null }).catch(() => null),
  }),
}));

builder.mutationFields((t) => ({
  executeToolBatch: t.field({
    type: ToolBatchRef,
    authScopes: { authenticated: true },
    description:
      'Submits a batch of tool calls. Resubmitting the same batch returns it and runs nothing twice. An empty batch runs nothing and is not stored: it comes back COMPLETED with no calls.',
    errors: { types: [CallIdConflictError, IdempotencyKeyReusedError] },
    args: {
      sessionId: t.arg.id({ required: true }),
      calls: t.arg({ type: [ToolCallInput], required: true }),
      idempotencyKey: t.arg.string(),
      timeoutMs: t.arg.int({ description: 'Default deadline of every call of the batch' }),
      waitMs: t.arg.int({ description: 'Wait up to this long for the batch to complete before answering' }),
    },
    resolve: (_root, args, context) =>
      executeToolBatch(context, {
        sessionId: String(args.sessionId),
        calls: args.calls,
        idempotencyKey: args.idempotencyKey,
        timeoutMs: args.timeoutMs,
        waitMs: args.waitMs,
      }),
  }),
  cancelToolBatch: t.field({
    type: ToolBatchRef,
    authScopes: { authenticated: true },
    errors: {},
    args: { sessionId: t.arg.id({ required: true }), batchId: t.arg.string({ required: true }) },
    resolve: (_root, args, context) => cancelToolBatch(context, { sessionId: String(args.sessionId), batchId: args.batchId }),
  }),
  cancelToolCall: t.field({
    type: ToolCallRef,
    authScopes: { authenticated: true },
    errors: {},
    args: { callId: t.arg.string({ required: true }), sessionId: t.arg.id() },
    resolve: (_root, args, context) => cancelToolCall(context, { callId: args.callId, sessionId: args.sessionId ? String(args.sessionId) : null }),
  }),
}));
