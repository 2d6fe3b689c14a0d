import type { CallInput } from '../domain/calls/batches.js';
import type { GraphQLContext } from '../schema/context.js';
import { localId } from './global-ids.js';

export async function executeToolBatch(
  context: GraphQLContext,
  args: { sessionId: string; calls: CallInput[]; idempotencyKey?: string | null; timeoutMs?: number | null; waitMs?: number | null },
) {
  const { batches } = context.services;
  const batch = await batches.submit({
    tenantId: context.viewer.tenantId,
    apiKeyId: context.viewer.apiKeyId,
    sessionId: localId(args.sessionId, 'Session'),
    calls: args.calls,
    idempotencyKey: args.idempotencyKey ?? null,
    timeoutMs: args.timeoutMs ?? null,
  });
  return args.waitMs && args.waitMs > 0 ? batches.waitForBatch(batch, args.waitMs) : batch;
}

export function cancelToolBatch(context: GraphQLContext, args: { sessionId: string; batchId: string }) {
  return context.services.batches.cancelBatch(context.viewer.tenantId, localId(args.sessionId, 'Session'), args.batchId);
}

export function cancelToolCall(context: GraphQLContext, args: { callId: string; sessionId?: string | null }) {
  const sessionId = args.sessionId ? localId(args.sessionId, 'Session') : null;
  return context.services.batches.cancelCall(context.viewer.tenantId, args.callId, sessionId);
}

export async function findBatch(context: GraphQLContext, args: { sessionId: string; batchId: string }) {
  return context.services.calls.findBatch(context.viewer.tenantId, localId(args.sessionId, 'Session'), args.batchId);
}

export async function findCall(context: GraphQLContext, args: { callId: string; sessionId?: string | null }) {
  const sessionId = args.sessionId ? localId(args.sessionId, 'Session') : null;
  return context.services.calls.findCall(context.viewer.tenantId, args.callId, sessionId);
}

export function loadBatches(context: GraphQLContext, ids: readonly string[]) {
  return context.services.calls.loadBatches(context.viewer.tenantId, ids);
}

export function loadCalls(context: GraphQLContext, ids: readonly string[]) {
  return context.services.calls.loadCalls(context.viewer.tenantId, ids);
}

/** Calls of many batches in one query, in input order. */
export function loadCallsOfBatches(context: GraphQLContext, batchRowIds: readonly string[]) {
  return context.services.calls.callsOfBatches(batchRowIds);
}

export function listBatchesOfSession(context: GraphQLContext, sessionId: string, offset: number, limit: number) {
  return context.services.calls.batchesOfSession(sessionId, offset, limit);
}
