// Root fields of batches and calls: submitting, cancelling and looking them up.
import { CallIdConflictError, IdempotencyKeyReusedError, orNull } from '../model/errors.js';
import { ToolBatchRef, ToolCallInput, ToolCallRef } from '../schema/batch.js';
import { builder } from '../schema/builder.js';
import { localId, optionalLocalId } from './global-ids.js';

builder.queryFields((t) => ({
  toolBatch: t.field({
    type: ToolBatchRef,
    nullable: true,
    authScopes: { reader: true },
    args: { sessionId: t.arg.id({ required: true }), batchId: t.arg.string({ required: true }) },
    resolve: (_root, args, { services, viewer }) => orNull(() => services.calls.findBatch(viewer.tenantId, localId(args.sessionId, 'Session'), args.batchId)),
  }),
  toolCall: t.field({
    type: ToolCallRef,
    nullable: true,
    authScopes: { reader: true },
    args: { callId: t.arg.string({ required: true }), sessionId: t.arg.id() },
    resolve: (_root, args, { services, viewer }) => orNull(() => services.calls.findCall(viewer.tenantId, args.callId, optionalLocalId(args.sessionId, 'Session'))),
  }),
}));

builder.mutationFields((t) => ({
  executeToolBatch: t.field({
    type: ToolBatchRef,
    authScopes: { submitter: true },
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
    resolve: async (_root, args, { services, viewer }) => {
      const { batch } = await services.batches.submit({
        tenantId: viewer.tenantId,
        apiKeyId: viewer.apiKeyId,
        sessionId: localId(args.sessionId, 'Session'),
        calls: args.calls,
        idempotencyKey: args.idempotencyKey ?? null,
        timeoutMs: args.timeoutMs ?? null,
      });
      return services.batches.waitForBatch(viewer.tenantId, batch, args.waitMs ?? 0);
    },
  }),
  cancelToolBatch: t.field({
    type: ToolBatchRef,
    authScopes: { submitter: true },
    errors: {},
    args: { sessionId: t.arg.id({ required: true }), batchId: t.arg.string({ required: true }) },
    resolve: (_root, args, { services, viewer }) => services.batches.cancelBatch(viewer.tenantId, localId(args.sessionId, 'Session'), args.batchId),
  }),
  cancelToolCall: t.field({
    type: ToolCallRef,
    authScopes: { submitter: true },
    errors: {},
    args: { callId: t.arg.string({ required: true }), sessionId: t.arg.id() },
    resolve: (_root, args, { services, viewer }) => services.batches.cancelCall(viewer.tenantId, args.callId, optionalLocalId(args.sessionId, 'Session')),
  }),
}));
