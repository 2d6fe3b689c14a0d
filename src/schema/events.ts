import type { SessionEvent } from '../domain/event-log.js';
import { EVENT_TYPES } from '../domain/call-transitions.js';
import { seedOutcome, type ToolCallOutput, type ToolFailure } from '../domain/outcome.js';
import { encodeEventCursor } from '../resolvers/cursors.js';
import { CURSOR_EXPIRED, subscribeToolCallEvents } from '../resolvers/events.js';
import { builder } from './builder.js';
import { CallStatusEnum, ToolBatchRef } from './batch.js';
import { outputMember, ToolCallOutputUnion, ToolFailureRef } from './outcome.js';

const payload = <T>(event: SessionEvent, key: string) => event.payload[key] as T;

export const SessionEventRef = builder.interfaceRef<SessionEvent>('SessionEvent').implement({
  description: 'An event of a session. Events of a session are totally ordered by `seq`.',
  fields: (t) => ({
    cursor: t.string({ description: 'Resume after this event with `after: cursor`', resolve: (event) => encodeEventCursor(event.sessionId, event.seq) }),
    seq: t.int({ resolve: (event) => event.seq }),
    sessionId: t.id({ resolve: (event) => event.sessionId }),
    type: t.exposeString('type'),
    at: t.field({ type: 'DateTime', resolve: (event) => event.createdAt }),
  }),
});

const ToolCallEventRef = builder.interfaceRef<SessionEvent>('ToolCallEvent').implement({
  interfaces: [SessionEventRef],
  fields: (t) => ({
    batchId: t.string({ resolve: (event) => event.batchId ?? '' }),
    callId: t.string({ resolve: (event) => event.callId ?? '' }),
    tool: t.string({ resolve: (event) => payload<string>(event, 'tool') }),
  }),
});

export const ProgressRef = builder.objectRef<Record<string, unknown>>('ToolProgress').implement({
  fields: (t) => ({
    current: t.float({ nullable: true, resolve: (p) => (typeof p.current === 'number' ? p.current : null) }),
    total: t.float({ nullable: true, resolve: (p) => (typeof p.total === 'number' ? p.total : null) }),
    unit: t.string({ nullable: true, resolve: (p) => (typeof p.unit === 'string' ? p.unit : null) }),
    label: t.string({ nullable: true, resolve: (p) => (typeof p.label === 'string' ? p.label : null) }),
    message: t.string({ nullable: true, resolve: (p) => (typeof p.message === 'string' ? p.message : null) }),
  }),
});

const isType = (type: string) => (event: SessionEvent) => event.type === type;

builder.objectRef<SessionEvent>('ToolCallStarted').implement({
  interfaces: [SessionEventRef, ToolCallEventRef],
  isTypeOf: (event) => isType(EVENT_TYPES.callStarted)(event as SessionEvent),
  fields: (t) => ({
    attempt: t.int({ resolve: (event) => payload<number>(event, 'attempt') }),
    maxAttempts: t.int({ resolve: (event) => payload<number>(event, 'maxAttempts') }),
  }),
});

builder.objectRef<SessionEvent>('ToolCallProgress').implement({
  interfaces: [SessionEventRef, ToolCallEventRef],
  isTypeOf: (event) => isType(EVENT_TYPES.callProgress)(event as SessionEvent),
  fields: (t) => ({
    attempt: t.int({ resolve: (event) => payload<number>(event, 'attempt') }),
    progress: t.field({ type: ProgressRef, resolve: (event) => payload<Record<string, unknown>>(event, 'progress') }),
  }),
});

builder.objectRef<SessionEvent>('ToolCallRetrying').implement({
  interfaces: [SessionEventRef, ToolCallEventRef],
  description: 'An attempt failed with a retryable failure; the call runs again after `delayMs`.',
  isTypeOf: (event) => isType(EVENT_TYPES.callRetrying)(event as SessionEvent),
  fields: (t) => ({
    attempt: t.int({ resolve: (event) => payload<number>(event, 'attempt') }),
    nextAttempt: t.int({ resolve: (event) => payload<number>(event, 'nextAttempt') }),
    delayMs: t.int({ resolve: (event) => payload<number>(event, 'delayMs') }),
    failure: t.field({ type: ToolFailureRef, resolve: (event) => payload<ToolFailure>(event, 'failure') }),
  }),
});

builder.objectRef<SessionEvent>('ToolCallCompleted').implement({
  interfaces: [SessionEventRef, ToolCallEventRef],
  isTypeOf: (event) => isType(EVENT_TYPES.callCompleted)(event as SessionEvent),
  fields: (t) => ({
    status: t.field({ type: CallStatusEnum, resolve: (event) => payload<'SUCCEEDED' | 'FAILED' | 'CANCELLED'>(event, 'status') }),
    output: t.field({ type: ToolCallOutputUnion, resolve: (event) => outputMember(payload<ToolCallOutput>(event, 'output')) }),
    outcome: t.field({
      type: 'JSON',
      description: 'The outcome in the seeds’ JSON form (see ToolCall.outcome)',
      resolve: (event) => seedOutcome(payload<ToolCallOutput>(event, 'output')),
    }),
    attempt: t.int({ resolve: (event) => payload<number>(event, 'attempt') }),
    durationMs: t.int({ resolve: (event) => payload<number>(event, 'durationMs') }),
  }),
});

builder.objectRef<SessionEvent>('ToolCallAwaitingApproval').implement({
  interfaces: [SessionEventRef, ToolCallEventRef],
  isTypeOf: (event) => isType(EVENT_TYPES.callAwaitingApproval)(event as SessionEvent),
  fields: (t) => ({
    args: t.field({ type: 'JSON', resolve: (event) => payload<unknown>(event, 'args') }),
  }),
});

builder.objectRef<SessionEvent>('ToolCallApproved').implement({
  interfaces: [SessionEventRef, ToolCallEventRef],
  description: 'An approver approved the call; it runs next (a serial call in its turn).',
  isTypeOf: (event) => isType(EVENT_TYPES.callApproved)(event as SessionEvent),
  fields: (t) => ({
    decidedAt: t.field({ type: 'DateTime', resolve: (event) => payload<string>(event, 'decidedAt') }),
  }),
});

builder.objectRef<SessionEvent>('ToolCallAwaitingCompletion').implement({
  interfaces: [SessionEventRef, ToolCallEventRef],
  description: 'A call of an external tool waits for `completeToolCall` until `deadline`; past it the call fails TIMEOUT.',
  isTypeOf: (event) => isType(EVENT_TYPES.callAwaitingCompletion)(event as SessionEvent),
  fields: (t) => ({
    args: t.field({ type: 'JSON', resolve: (event) => payload<unknown>(event, 'args') }),
    attempt: t.int({ resolve: (event) => payload<number>(event, 'attempt') }),
    maxAttempts: t.int({ resolve: (event) => payload<number>(event, 'maxAttempts') }),
    timeoutMs: t.int({ resolve: (event) => payload<number>(event, 'timeoutMs') }),
    deadline: t.field({ type: 'DateTime', resolve: (event) => payload<string>(event, 'deadline') }),
  }),
});

builder.objectRef<SessionEvent>('ToolBatchCompleted').implement({
  interfaces: [SessionEventRef],
  isTypeOf: (event) => isType(EVENT_TYPES.batchCompleted)(event as SessionEvent),
  fields: (t) => ({
    batchId: t.string({ resolve: (event) => event.batchId ?? '' }),
    total: t.int({ resolve: (event) => payload<number>(event, 'total') }),
    succeeded: t.int({ resolve: (event) => payload<number>(event, 'succeeded') }),
    failed: t.int({ resolve: (event) => payload<number>(event, 'failed') }),
    cancelled: t.int({ resolve: (event) => payload<number>(event, 'cancelled') }),
    batch: t.field({
      type: ToolBatchRef,
      nullable: true,
      resolve: async (event, _args, context) =>
        context.services.db.toolBatch.findFirst({ where: { sessionId: event.sessionId, batchId: event.batchId ?? '' } }),
    }),
  }),
});

builder.objectRef<SessionEvent>('CursorExpired').implement({
  interfaces: [SessionEventRef],
  description: 'The `after` cursor is older than the event retention: resync from current state, then subscribe again without a cursor.',
  isTypeOf: (event) => isType(CURSOR_EXPIRED)(event as SessionEvent),
  fields: (t) => ({
    message: t.string({ resolve: (event) => payload<string>(event, 'message') }),
    oldestCursor: t.string({ resolve: (event) => payload<string>(event, 'oldestCursor') }),
  }),
});

builder.subscriptionFields((t) => ({
  toolCallEvents: t.field({
    type: SessionEventRef,
    authScopes: { authenticated: true },
    description: 'Tool call events of a session (optionally one batch) after `after`, then live, in order, each once.',
    args: { sessionId: t.arg.id({ required: true }), batchId: t.arg.string(), after: t.arg.string() },
    subscribe: (_root, args, context) =>
      subscribeToolCallEvents(context, { sessionId: String(args.sessionId), batchId: args.batchId, after: args.after }),
    resolve: (event) => event,
  }),
}));
