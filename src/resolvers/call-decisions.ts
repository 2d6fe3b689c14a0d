// Root fields of decisions on waiting calls: approving or rejecting a call of a REQUIRES_APPROVAL
// tool, completing a call of an external tool.
import { CallAlreadyCompletedError, DeadlinePassedError, InvalidStateError, NotFoundError, ValidationError } from '../model/errors.js';
import { ToolCallRef } from '../schema/batch.js';
import { builder } from '../schema/builder.js';
import { ToolCallResultInput } from '../schema/call-decisions.js';
import { optionalLocalId } from './global-ids.js';

builder.mutationFields((t) => ({
  approveToolCall: t.field({
    type: ToolCallRef,
    authScopes: { approver: true },
    description:
      'Approves a call waiting in AWAITING_APPROVAL; it then runs (serial calls in their turn). Needs the approver role, and a key other than the one that submitted the call unless the tenant allows self-approval.',
    errors: { types: [NotFoundError, ValidationError, InvalidStateError] },
    args: { callId: t.arg.string({ description: 'The call id, as submitted', required: true }), sessionId: t.arg.id({ description: 'The call’s session (Relay or raw id); needed only when the call id is used in several sessions' }) },
    resolve: (_root, args, { services, viewer }) => services.callDecisions.approve(viewer, args.callId, optionalLocalId(args.sessionId, 'Session')),
  }),
  rejectToolCall: t.field({
    type: ToolCallRef,
    authScopes: { approver: true },
    description: 'Rejects a call waiting in AWAITING_APPROVAL: it fails PERMISSION_DENIED (source POLICY) with the reason. Same rules as approveToolCall.',
    errors: { types: [NotFoundError, ValidationError, InvalidStateError] },
    args: { callId: t.arg.string({ description: 'The call id, as submitted', required: true }), sessionId: t.arg.id({ description: 'The call’s session (Relay or raw id); needed only when the call id is used in several sessions' }), reason: t.arg.string({ description: 'Why, for the model and people (in the failure’s message; at most 2,000 characters)', required: true }) },
    resolve: (_root, args, { services, viewer }) =>
      services.callDecisions.reject(viewer, args.callId, args.reason, optionalLocalId(args.sessionId, 'Session')),
  }),
  completeToolCall: t.field({
    type: ToolCallRef,
    authScopes: { submitter: true },
    description:
      'Completes one call of an external tool waiting in PENDING_EXTERNAL. A second completion, or one after the deadline, is a typed error and changes nothing.',
    errors: { types: [CallAlreadyCompletedError, DeadlinePassedError, InvalidStateError, NotFoundError, ValidationError] },
    args: {
      callId: t.arg.string({ description: 'The call id, as submitted', required: true }),
      sessionId: t.arg.id({ description: 'The call’s session (Relay or raw id); needed only when the call id is used in several sessions' }),
      result: t.arg({ description: 'The outcome of the call', type: ToolCallResultInput, required: true }),
      attempt: t.arg.int({
        description: 'The attempt this completes (`attempt` of its ToolCallAwaitingCompletion): refused with INVALID_STATE when the call has moved on to another attempt',
      }),
    },
    resolve: (_root, args, { services, viewer }) =>
      services.callDecisions.complete(viewer, args.callId, args.result, optionalLocalId(args.sessionId, 'Session'), args.attempt),
  }),
}));
