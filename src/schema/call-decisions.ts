// Decisions on waiting calls: approving or rejecting a call of a REQUIRES_APPROVAL tool, and
// completing a call of an external tool. The ToolCall type itself lives in batch.ts.
import { CallAlreadyCompletedError, DeadlinePassedError } from '../domain/errors.js';
import { approveToolCall, completeToolCall, rejectToolCall } from '../resolvers/call-decisions.js';
import { ToolCallRef } from './batch.js';
import { builder } from './builder.js';
import { FailureClassEnum } from './outcome.js';

builder.objectFields(ToolCallRef, (t) => ({
  deadlineAt: t.expose('deadlineAt', {
    type: 'DateTime',
    nullable: true,
    description: 'PENDING_EXTERNAL: completions are accepted until then; afterwards the call fails TIMEOUT',
  }),
  decidedAt: t.expose('decidedAt', { type: 'DateTime', nullable: true, description: 'When an approver approved or rejected the call' }),
}));

const CompletionRetryKindEnum = builder.enumType('CompletionRetryKind', { values: ['NEVER', 'SAFE'] as const });

const CompletionRetryInput = builder.inputType('CompletionRetryInput', {
  fields: (t) => ({
    kind: t.field({ type: CompletionRetryKindEnum, required: true }),
    afterMs: t.int({ description: 'SAFE: run the next attempt after this long (else the tool’s backoff)' }),
  }),
});

const CompletionFailureInput = builder.inputType('CompletionFailureInput', {
  fields: (t) => ({
    class: t.field({ type: FailureClassEnum, required: true }),
    code: t.string({ required: true, description: 'Machine-readable, ^[a-z][a-z0-9_]{0,99}$' }),
    message: t.string({ required: true }),
    retry: t.field({
      type: CompletionRetryInput,
      description: 'Default NEVER. SAFE with attempts left: the call waits for a completion again as its next attempt.',
    }),
  }),
});

const ToolCallResultInput = builder.inputType('ToolCallResultInput', {
  description: 'Exactly one of `value`, `failure` and `outcome`.',
  fields: (t) => ({
    value: t.field({ type: 'JSON', description: 'Success: the tool value in the seeds’ wire form (attachments tagged `$lash_tool_value`)' }),
    failure: t.field({ type: CompletionFailureInput }),
    outcome: t.field({
      type: 'JSON',
      description: 'The whole outcome in the seeds’ JSON form, as ToolCall.outcome gives it: {"status": "success" | "failure" | "cancelled", "payload": …}',
    }),
  }),
});

builder.mutationFields((t) => ({
  approveToolCall: t.field({
    type: ToolCallRef,
    authScopes: { authenticated: true },
    description:
      'Approves a call waiting in AWAITING_APPROVAL; it then runs (serial calls in their turn). Needs the approver role, and a key other than the one that submitted the call unless the tenant allows self-approval.',
    errors: {},
    args: { callId: t.arg.string({ required: true }), sessionId: t.arg.id() },
    resolve: (_root, args, context) => approveToolCall(context, { callId: args.callId, sessionId: args.sessionId ? String(args.sessionId) : null }),
  }),
  rejectToolCall: t.field({
    type: ToolCallRef,
    authScopes: { authenticated: true },
    description: 'Rejects a call waiting in AWAITING_APPROVAL: it fails PERMISSION_DENIED (source POLICY) with the reason. Same rules as approveToolCall.',
    errors: {},
    args: { callId: t.arg.string({ required: true }), sessionId: t.arg.id(), reason: t.arg.string({ required: true }) },
    resolve: (_root, args, context) =>
      rejectToolCall(context, { callId: args.callId, sessionId: args.sessionId ? String(args.sessionId) : null, reason: args.reason }),
  }),
  completeToolCall: t.field({
    type: ToolCallRef,
    authScopes: { authenticated: true },
    description:
      'Completes one call of an external tool waiting in PENDING_EXTERNAL. A second completion, or one after the deadline, is a typed error and changes nothing.',
    errors: { types: [CallAlreadyCompletedError, DeadlinePassedError] },
    args: {
      callId: t.arg.string({ required: true }),
      sessionId: t.arg.id(),
      result: t.arg({ type: ToolCallResultInput, required: true }),
    },
    resolve: (_root, args, context) =>
      completeToolCall(context, { callId: args.callId, sessionId: args.sessionId ? String(args.sessionId) : null, result: args.result }),
  }),
}));
