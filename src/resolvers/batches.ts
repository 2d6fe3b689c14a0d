// Root fields of batches and calls: submitting, cancelling and looking them up.
import { CallIdConflictError, IdempotencyKeyReusedError, NotFoundError, orNull } from '../model/errors.js';
import { checkTimeWindow, EARLIEST_STORABLE_TIME, pageRequest } from '../model/keyset.js';
import { CallStatusCountsRef, ToolBatchRef, ToolCallConnectionRef, ToolCallFilterInput, ToolCallInput, ToolCallRef, ToolStatsRef } from '../schema/batch.js';
import { builder } from '../schema/builder.js';
import { byTime, keysetConnection } from '../schema/connections.js';
import { BatchService } from '../domain/calls/batches.js';
import type { CallFilter } from '../domain/calls/store.js';
import { ValidationError } from '../model/errors.js';
import { localId, optionalLocalId } from './global-ids.js';
import { MAX_IDENTIFIER_LENGTH } from '../model/text.js';

/** The store's filter of the GraphQL one. */
function callFilter(filter: typeof ToolCallFilterInput.$inferInput | null | undefined): CallFilter {
  if (!filter) return {};
  return { ...filter, sessionId: optionalLocalId(filter.sessionId, 'Session') };
}

const DAY_MS = 86_400_000;

builder.queryFields((t) => ({
  toolCalls: t.connection(
    {
      type: ToolCallRef,
      authScopes: { reader: true },
      description: 'The tenant’s calls across sessions, newest first (by queue time) unless `oldestFirst`, filtered; pages of up to 100 with stable cursors',
      args: {
        filter: t.arg({ type: ToolCallFilterInput, description: 'Only calls matching this' }),
        oldestFirst: t.arg.boolean({ defaultValue: false, description: 'Oldest first (by queue time), as an approvals inbox lists what has waited longest; a cursor holds to the order it came from' }),
      },
      resolve: async (_root, args, { services, viewer }) => {
        const oldestFirst = args.oldestFirst === true;
        const request = pageRequest(args, oldestFirst ? 'tool-calls-oldest-first' : 'tool-calls');
        const { page, count } = await services.calls.listCalls(viewer.tenantId, callFilter(args.filter), request, oldestFirst);
        return keysetConnection(page, request, byTime((call) => call.queuedAt), count);
      },
    },
    ToolCallConnectionRef,
  ),
  toolCallCounts: t.field({
    type: CallStatusCountsRef,
    authScopes: { reader: true },
    description: 'How many of the tenant’s calls (matching the filter) are in each status',
    args: { filter: t.arg({ type: ToolCallFilterInput, description: 'Only calls matching this' }) },
    resolve: (_root, args, { services, viewer }) => services.calls.statusCounts(viewer.tenantId, callFilter(args.filter)),
  }),
  toolStats: t.field({
    type: [ToolStatsRef],
    authScopes: { reader: true },
    description: 'Per tool: calls queued in [since, until) with failures and duration percentiles (window at most 31 days; default the last 24 hours)',
    args: {
      since: t.arg({ type: 'DateTime', description: 'Start of the window (default: 24 hours before `until`); it must be before `until` (an empty or inverted window is a VALIDATION_FAILED error naming `since`)' }),
      until: t.arg({ type: 'DateTime', description: 'End of the window (default: now)' }),
    },
    resolve: (_root, args, { services, viewer }) => {
      const until = args.until ?? new Date();
      // The default start of a window ending in year 1 would be no storable time: nothing is older anyway.
      const since = args.since ?? new Date(Math.max(until.getTime() - DAY_MS, EARLIEST_STORABLE_TIME));
      // Without a `since`, only `until` can leave the window empty: at the earliest storable time.
      if (!args.since && until.getTime() <= EARLIEST_STORABLE_TIME) throw new ValidationError('`until` must be after 0001-01-01T00:00:00Z, the earliest time stored', 'until');
      checkTimeWindow(since, until, 'since', 'until');
      if (until.getTime() - since.getTime() > 31 * DAY_MS) throw new ValidationError('The window is at most 31 days', 'since');
      return services.calls.toolStats(viewer.tenantId, since, until);
    },
  }),
  toolBatch: t.field({
    description: 'A batch of a session by its public batch id; null when there is none',
    type: ToolBatchRef,
    nullable: true,
    authScopes: { reader: true },
    args: { sessionId: t.arg.id({ description: 'The session (its Relay id or raw id)', required: true }), batchId: t.arg.string({ description: 'The public batch id (`tool-batch:…`)', required: true }) },
    resolve: (_root, args, { services, viewer }) => orNull(() => services.calls.findBatch(viewer.tenantId, localId(args.sessionId, 'Session'), args.batchId)),
  }),
  toolCall: t.field({
    description: 'A call by its call id; null when there is none. A call id used in several sessions needs `sessionId`: without it the answer is a VALIDATION_FAILED error (field `sessionId`)',
    type: ToolCallRef,
    nullable: true,
    authScopes: { reader: true },
    args: { callId: t.arg.string({ description: 'The call id, as submitted', required: true }), sessionId: t.arg.id({ description: 'The call’s session (Relay or raw id); needed only when the call id is used in several sessions' }) },
    resolve: (_root, args, { services, viewer }) => orNull(() => services.calls.findCall(viewer.tenantId, args.callId, optionalLocalId(args.sessionId, 'Session'))),
  }),
}));

builder.mutationFields((t) => ({
  executeToolBatch: t.field({
    type: ToolBatchRef,
    authScopes: { submitter: true },
    description:
      'Submits a batch of tool calls. Resubmitting the same batch returns it and runs nothing twice. An empty batch runs nothing and is not stored: it comes back COMPLETED with no calls.',
    errors: { types: [CallIdConflictError, IdempotencyKeyReusedError, NotFoundError, ValidationError] },
    args: {
      sessionId: t.arg.id({ description: 'The session (its Relay id or raw id)', required: true }),
      calls: t.arg({ description: 'The calls, run in this order where scheduling says so (at most MAX_CALLS_PER_BATCH)', type: [ToolCallInput], required: true }),
      idempotencyKey: t.arg.string({ description: `Resubmitting with the same key returns the first batch; with other calls it is an IdempotencyKeyReusedError (1 to ${MAX_IDENTIFIER_LENGTH} characters)` }),
      timeoutMs: t.arg.int({ description: 'Default deadline of every call of the batch' }),
      waitMs: t.arg.int({ description: 'Wait up to this many ms for the batch to complete before answering (at most MAX_BATCH_WAIT_MS, 60 s by default; a longer wait is cut to it). The answer says the batch status either way.' }),
    },
    resolve: async (_root, args, { services, viewer }) => {
      const waitMs = BatchService.checkedWait(args.waitMs);
      const { batch } = await services.batches.submit({
        tenantId: viewer.tenantId,
        apiKeyId: viewer.apiKeyId,
        sessionId: localId(args.sessionId, 'Session'),
        calls: args.calls,
        idempotencyKey: args.idempotencyKey ?? null,
        timeoutMs: args.timeoutMs ?? null,
      });
      return services.batches.waitForBatch(viewer.tenantId, batch, waitMs);
    },
  }),
  cancelToolBatch: t.field({
    description: 'Cancels every call of a batch that is not final: waiting calls end CANCELLED at once, running ones are signalled (idempotent)',
    type: ToolBatchRef,
    authScopes: { submitter: true },
    errors: { types: [NotFoundError] },
    args: { sessionId: t.arg.id({ description: 'The session (its Relay id or raw id)', required: true }), batchId: t.arg.string({ description: 'The public batch id (`tool-batch:…`)', required: true }) },
    resolve: (_root, args, { services, viewer }) => services.batches.cancelBatch(viewer.tenantId, localId(args.sessionId, 'Session'), args.batchId),
  }),
  cancelToolCall: t.field({
    description: 'Cancels a call (idempotent): a waiting call ends CANCELLED at once, a running one is signalled and ends within the cancel grace',
    type: ToolCallRef,
    authScopes: { submitter: true },
    // ValidationError: a call id used in several sessions without sessionId.
    errors: { types: [NotFoundError, ValidationError] },
    args: { callId: t.arg.string({ description: 'The call id, as submitted', required: true }), sessionId: t.arg.id({ description: 'The call’s session (Relay or raw id); needed only when the call id is used in several sessions' }) },
    resolve: (_root, args, { services, viewer }) => services.batches.cancelCall(viewer.tenantId, args.callId, optionalLocalId(args.sessionId, 'Session')),
  }),
}));
