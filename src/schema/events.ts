import { orNull, ValidationError } from '../model/errors.js';
import { CALL_EVENT_TYPES, type CallEventType, type EventType, SESSION_EVENT_TYPES, type SessionEvent, TASK_EVENT_TYPES, type ToolProgress } from '../model/events.js';
import { seedOutcome } from '../model/outcome.js';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { encodeEventCursor, encodeTenantEventCursor } from '../realtime/cursors.js';
import type { EventBatch } from '../realtime/subscription.js';
import { builder } from './builder.js';
import { CallStatusEnum, ToolBatchRef } from './batch.js';
import { outputMember, ToolCallOutputUnion, ToolFailureRef } from './outcome.js';
import { requestLoader } from './connections.js';
import { SessionRef } from './session.js';

const STORED_EVENT_TYPES = [...SESSION_EVENT_TYPES, ...CALL_EVENT_TYPES, ...TASK_EVENT_TYPES];

export const EventTypeEnum = builder.enumType('EventType', {
  description: 'The type of an event (its GraphQL type name)',
  values: Object.fromEntries(STORED_EVENT_TYPES.map((type) => [type, { value: type, description: `A ${type} event` }])) as Record<
    (typeof STORED_EVENT_TYPES)[number],
    { value: string; description: string }
  >,
});

/** An event as `tenantEvents` delivers it: its `cursor` is a position in the tenant's stream. */
export type TenantStreamEvent = SessionEvent & { stream: 'tenant' };

export const SessionEventRef = builder.interfaceRef<SessionEvent>('SessionEvent').implement({
  description: 'An event of a session. Events of a session are totally ordered by `seq`, events of a tenant by `tenantSeq`.',
  fields: (t) => ({
    cursor: t.string({
      description: 'Resume the stream this event came from after it with `after: cursor` (a tenant cursor in `tenantEvents`, else a session cursor)',
      resolve: (event) => ('stream' in event && event.stream === 'tenant' ? encodeTenantEventCursor(event.tenantId, event.tenantSeq) : encodeEventCursor(event.sessionId, event.seq)),
    }),
    sessionCursor: t.string({
      nullable: true,
      description: 'Position in the session stream: `toolCallEvents` / `taskEvents` resume after it (null for a tenant stream’s CursorExpired)',
      resolve: (event) => (event.sessionId ? encodeEventCursor(event.sessionId, event.seq) : null),
    }),
    tenantCursor: t.string({
      nullable: true,
      description: 'Position in the tenant stream: `tenantEvents` resumes after it (null for a session stream’s CursorExpired)',
      resolve: (event) => (event.tenantSeq > 0 ? encodeTenantEventCursor(event.tenantId, event.tenantSeq) : null),
    }),
    seq: t.int({ description: 'Dense per session: the session’s commit order', resolve: (event) => event.seq }),
    tenantSeq: t.int({ description: 'Dense per tenant: the tenant-wide commit order', resolve: (event) => event.tenantSeq }),
    sessionId: t.id({
      description: 'The session’s Relay global id, as `Session.id` (empty for a tenant stream’s CursorExpired)',
      resolve: (event) => (event.sessionId ? encodeGlobalID('Session', event.sessionId) : ''),
    }),
    type: t.exposeString('type', { description: 'The event type (the GraphQL type name)' }),
    at: t.field({ type: 'DateTime', description: 'When the event was committed', resolve: (event) => event.createdAt }),
  }),
});

const ToolCallEventRef = builder.interfaceRef<SessionEvent<CallEventType>>('ToolCallEvent').implement({
  description: 'An event of one tool call',
  interfaces: [SessionEventRef],
  fields: (t) => ({
    batchId: t.string({ description: 'Public id of the call’s batch', resolve: (event) => event.batchId ?? '' }),
    callId: t.string({ description: 'The call id', resolve: (event) => event.callId ?? '' }),
    tool: t.string({ description: 'The tool called', resolve: (event) => event.payload.tool }),
  }),
});

export const ProgressRef = builder.objectRef<ToolProgress>('ToolProgress').implement({
  description: 'Progress a tool or run reported; every field is optional',
  fields: (t) => ({
    current: t.float({ description: 'How far the work is, in `unit`s', nullable: true, resolve: (p) => (typeof p.current === 'number' ? p.current : null) }),
    total: t.float({ description: 'How much work there is in all, in `unit`s', nullable: true, resolve: (p) => (typeof p.total === 'number' ? p.total : null) }),
    unit: t.string({ description: 'What `current` and `total` count, e.g. `steps` or `bytes`', nullable: true, resolve: (p) => (typeof p.unit === 'string' ? p.unit : null) }),
    label: t.string({ description: 'A short label of the current step', nullable: true, resolve: (p) => (typeof p.label === 'string' ? p.label : null) }),
    message: t.string({ description: 'A longer message about the current step', nullable: true, resolve: (p) => (typeof p.message === 'string' ? p.message : null) }),
  }),
});

export const SessionEventBatchRef = builder.objectRef<EventBatch>('SessionEventBatch').implement({
  description: 'Events of one stream (a session’s, or the tenant’s for `tenantEventBatches`) delivered in one message, in order',
  fields: (t) => ({
    events: t.field({
      type: [SessionEventRef],
      description: 'The events, oldest first (at least one); each `cursor` is a position in the stream they came from',
      resolve: (batch): SessionEvent[] => (batch.stream === 'tenant' ? batch.events.map((event): TenantStreamEvent => ({ ...event, stream: 'tenant' })) : batch.events),
    }),
    cursor: t.string({
      description: 'The cursor of the last event: resume the stream after this message with `after: cursor`',
      resolve: (batch) => {
        const last = batch.events[batch.events.length - 1]!;
        return batch.stream === 'tenant' ? encodeTenantEventCursor(last.tenantId, last.tenantSeq) : encodeEventCursor(last.sessionId, last.seq);
      },
    }),
  }),
});

/** `isTypeOf` of the GraphQL type of events of `type`. */
export const isType = (type: EventType) => (event: unknown) => (event as SessionEvent).type === type;

builder.objectRef<SessionEvent<'SessionCreated'>>('SessionCreated').implement({
  description: 'The session was created: its first event (seq 1). Sessions created before this event existed have none.',
  interfaces: [SessionEventRef],
  isTypeOf: isType('SessionCreated'),
  fields: (t) => ({
    title: t.string({ description: 'Title given at creation', nullable: true, resolve: (event) => event.payload.title ?? null }),
    metadata: t.field({ description: 'JSON object given at creation', type: 'JSON', nullable: true, resolve: (event) => event.payload.metadata ?? null }),
    createdAt: t.field({ description: 'When the session was created (`Session.createdAt`)', type: 'DateTime', resolve: (event) => event.payload.createdAt }),
    session: t.field({ description: 'The session as it is now', type: SessionRef, nullable: true, resolve: (event) => event.sessionId }),
  }),
});

builder.objectRef<SessionEvent<'ToolCallStarted'>>('ToolCallStarted').implement({
  description: 'An attempt of the call started running',
  interfaces: [SessionEventRef, ToolCallEventRef],
  isTypeOf: isType('ToolCallStarted'),
  fields: (t) => ({
    attempt: t.int({ description: 'The attempt that started, from 1', resolve: (event) => event.payload.attempt }),
    maxAttempts: t.int({ description: 'How many attempts the call may have in all', resolve: (event) => event.payload.maxAttempts }),
  }),
});

builder.objectRef<SessionEvent<'ToolCallProgress'>>('ToolCallProgress').implement({
  description: 'The running call reported progress',
  interfaces: [SessionEventRef, ToolCallEventRef],
  isTypeOf: isType('ToolCallProgress'),
  fields: (t) => ({
    attempt: t.int({ description: 'The attempt that reported it', resolve: (event) => event.payload.attempt }),
    progress: t.field({ description: 'The progress reported', type: ProgressRef, resolve: (event) => event.payload.progress }),
  }),
});

builder.objectRef<SessionEvent<'ToolCallRetrying'>>('ToolCallRetrying').implement({
  interfaces: [SessionEventRef, ToolCallEventRef],
  description: 'An attempt failed with a retryable failure; the call runs again after `delayMs`.',
  isTypeOf: isType('ToolCallRetrying'),
  fields: (t) => ({
    attempt: t.int({ description: 'The attempt that failed', resolve: (event) => event.payload.attempt }),
    nextAttempt: t.int({ description: 'The attempt that runs next', resolve: (event) => event.payload.nextAttempt }),
    delayMs: t.int({ description: 'Milliseconds until the next attempt starts', resolve: (event) => event.payload.delayMs }),
    failure: t.field({ description: 'The failure of the attempt', type: ToolFailureRef, resolve: (event) => event.payload.failure }),
  }),
});

builder.objectRef<SessionEvent<'ToolCallCompleted'>>('ToolCallCompleted').implement({
  description: 'The call became final: succeeded, failed or cancelled',
  interfaces: [SessionEventRef, ToolCallEventRef],
  isTypeOf: isType('ToolCallCompleted'),
  fields: (t) => ({
    status: t.field({ description: 'The final status', type: CallStatusEnum, resolve: (event) => event.payload.status }),
    output: t.field({ description: 'How the call ended', type: ToolCallOutputUnion, resolve: (event) => outputMember(event.payload.output) }),
    outcome: t.field({
      type: 'JSON',
      description: 'The outcome in the seeds’ JSON form (see ToolCall.outcome)',
      resolve: (event) => seedOutcome(event.payload.output),
    }),
    attempt: t.int({ description: 'The attempt it ended in (0 when it never started)', resolve: (event) => event.payload.attempt }),
    durationMs: t.int({ description: 'How long this final attempt ran, in milliseconds (0 when it ended without running)', resolve: (event) => event.payload.durationMs }),
  }),
});

builder.objectRef<SessionEvent<'ToolCallAwaitingApproval'>>('ToolCallAwaitingApproval').implement({
  description: 'The call waits for an approver to approve or reject it',
  interfaces: [SessionEventRef, ToolCallEventRef],
  isTypeOf: isType('ToolCallAwaitingApproval'),
  fields: (t) => ({
    args: t.field({ description: 'The arguments the approver decides on', type: 'JSON', resolve: (event) => event.payload.args }),
  }),
});

builder.objectRef<SessionEvent<'ToolCallApproved'>>('ToolCallApproved').implement({
  interfaces: [SessionEventRef, ToolCallEventRef],
  description: 'An approver approved the call; it runs next (a serial call in its turn).',
  isTypeOf: isType('ToolCallApproved'),
  fields: (t) => ({
    decidedAt: t.field({ description: 'When the approver approved it', type: 'DateTime', resolve: (event) => event.payload.decidedAt }),
  }),
});

builder.objectRef<SessionEvent<'ToolCallAwaitingCompletion'>>('ToolCallAwaitingCompletion').implement({
  interfaces: [SessionEventRef, ToolCallEventRef],
  description: 'A call of an external tool waits for `completeToolCall` until `deadline`; past it the call fails TIMEOUT.',
  isTypeOf: isType('ToolCallAwaitingCompletion'),
  fields: (t) => ({
    args: t.field({ description: 'The arguments of the call, for whoever does the work', type: 'JSON', resolve: (event) => event.payload.args }),
    attempt: t.int({ description: 'The attempt waiting for a completion, from 1', resolve: (event) => event.payload.attempt }),
    maxAttempts: t.int({ description: 'How many attempts the call may have in all', resolve: (event) => event.payload.maxAttempts }),
    timeoutMs: t.int({ description: 'How long this attempt waits for a completion, in milliseconds', resolve: (event) => event.payload.timeoutMs }),
    deadline: t.field({ description: 'When this attempt stops waiting and the call fails TIMEOUT', type: 'DateTime', resolve: (event) => event.payload.deadline }),
  }),
});

builder.objectRef<SessionEvent<'ToolBatchCompleted'>>('ToolBatchCompleted').implement({
  description: 'Every call of the batch is final',
  interfaces: [SessionEventRef],
  isTypeOf: isType('ToolBatchCompleted'),
  fields: (t) => ({
    batchId: t.string({ description: 'Public id of the batch', resolve: (event) => event.batchId ?? '' }),
    total: t.int({ description: 'Calls in the batch', resolve: (event) => event.payload.total }),
    succeeded: t.int({ description: 'Calls that SUCCEEDED', resolve: (event) => event.payload.succeeded }),
    failed: t.int({ description: 'Calls that FAILED', resolve: (event) => event.payload.failed }),
    cancelled: t.int({ description: 'Calls CANCELLED', resolve: (event) => event.payload.cancelled }),
    batch: t.field({ description: 'The batch as it is now (null once it is no longer visible)',
      type: ToolBatchRef,
      nullable: true,
      resolve: (event, _args, { services, viewer }) => orNull(() => services.calls.findBatch(viewer.tenantId, event.sessionId, event.batchId ?? '')),
    }),
  }),
});

builder.objectRef<SessionEvent<'CursorExpired'>>('CursorExpired').implement({
  interfaces: [SessionEventRef],
  description: 'The `after` cursor is older than the event retention: resync from current state, then subscribe again without a cursor.',
  isTypeOf: isType('CursorExpired'),
  fields: (t) => ({
    message: t.string({ description: 'What happened and what to do, for people', resolve: (event) => event.payload.message }),
    oldestCursor: t.string({ description: 'The oldest cursor still retained; events before it are gone', resolve: (event) => event.payload.oldestCursor }),
  }),
});

/** A `types` argument as a filter: null for every type; an empty list is refused (it would match nothing, or be read as no filter). */
export function eventTypesFilter(types: readonly string[] | null | undefined): string[] | null {
  if (types?.length === 0) throw new ValidationError('types must name at least one event type (leave it out for every type)', 'types');
  return types ? [...new Set(types)].sort() : null;
}

/** The most `Session.recentEvents` returns at once. */
const MAX_RECENT_EVENTS = 1000;

builder.objectFields(SessionRef, (t) => ({
  recentEvents: t.field({
    type: [SessionEventRef],
    description: `The session's newest events (of \`types\`, when given), oldest first: what happened lately, e.g. to show before the live stream. \`count\` up to ${MAX_RECENT_EVENTS}; older ones are replayed by \`toolCallEvents\` / \`taskEvents\` from an earlier cursor, while they are retained.`,
    args: {
      count: t.arg.int({ defaultValue: 50, description: `How many (0 to ${MAX_RECENT_EVENTS})` }),
      types: t.arg({ type: [EventTypeEnum], description: 'Only events of these types (at least one)' }),
    },
    resolve: (session, args, context) => {
      const count = args.count ?? 50;
      if (!Number.isInteger(count) || count < 0 || count > MAX_RECENT_EVENTS) throw new ValidationError(`count must be between 0 and ${MAX_RECENT_EVENTS}`, 'count');
      const types = eventTypesFilter(args.types);
      const loader = requestLoader<SessionEvent[]>(context, `recent-events:${count}:${types?.join(',') ?? '*'}`, (ids) => context.services.events.newest(ids, count, types));
      return loader.load(session.id);
    },
  }),
}));
