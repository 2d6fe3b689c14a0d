import type { CompletionInput } from '../domain/calls/call-decisions.js';
import type { GraphQLContext } from '../schema/context.js';
import { localId } from './global-ids.js';

const sessionOf = (sessionId?: string | null) => (sessionId ? localId(sessionId, 'Session') : null);

export function approveToolCall(context: GraphQLContext, args: { callId: string; sessionId?: string | null }) {
  return context.services.callDecisions.approve(context.viewer, args.callId, sessionOf(args.sessionId));
}

export function rejectToolCall(context: GraphQLContext, args: { callId: string; sessionId?: string | null; reason: string }) {
  return context.services.callDecisions.reject(context.viewer, args.callId, args.reason, sessionOf(args.sessionId));
}

export function completeToolCall(context: GraphQLContext, args: { callId: string; sessionId?: string | null; result: CompletionInput }) {
  return context.services.callDecisions.complete(context.viewer, args.callId, args.result, sessionOf(args.sessionId));
}
