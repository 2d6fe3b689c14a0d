// Root subscription fields: a session's tool call events and task events, after a cursor, then
// live. Argument problems are GraphQL errors with a code (no stream starts); an expired cursor is
// an event of its own; a stream whose key stopped working ends with an UNAUTHENTICATED error.
import { GraphQLError } from 'graphql';
import { DomainError, NotFoundError, ValidationError } from '../model/errors.js';
import { CALL_EVENT_TYPES, isEventOf, type SessionEvent, TASK_EVENT_TYPES } from '../model/events.js';
import { decodeEventCursor, decodeTenantEventCursor } from '../realtime/cursors.js';
import { endingWith, KeyStopped, type OpenStream } from '../realtime/open-streams.js';
import { inBatches, MAX_EVENTS_PER_BATCH, sessionEvents, tenantEvents } from '../realtime/subscription.js';
import type { FinishedEvents } from '../domain/finished-events.js';
import { FINISHED_TASK_STATES } from '../domain/tasks/task-transitions.js';
import { builder } from '../schema/builder.js';
import type { GraphQLContext } from '../schema/context.js';
import { eventTypesFilter, EventTypeEnum, SessionEventBatchRef, SessionEventRef, type TenantStreamEvent } from '../schema/events.js';
import { localId, optionalLocalId } from './global-ids.js';

builder.subscriptionFields((t) => {
  const maxEvents = () => t.arg.int({ defaultValue: DEFAULT_EVENTS_PER_MESSAGE, description: `The most events one message carries (1 to ${MAX_EVENTS_PER_BATCH})` });
  const callEventArgs = (cursors: string) => ({
    sessionId: t.arg.id({ required: true, description: 'The session (raw or Relay id)' }),
    batchId: t.arg.string({ description: 'Only events of this batch' }),
    after: t.arg.string({ description: `A session cursor (${cursors}, \`Session.lastEventCursor\`, \`ToolBatch.eventCursor\`); null or absent: from now (an empty string is no cursor: VALIDATION_FAILED)` }),
    completeWhenDone: t.arg.boolean({
      description: 'With `batchId`: the stream completes after the batch’s ToolBatchCompleted (for a batch already completed: its events from its first, or those after `after`, then completes; at once when `after` is at or past its end)',
    }),
  });
  const taskEventArgs = (cursors: string) => ({
    sessionId: t.arg.id({ description: 'The session (raw or Relay id)' }),
    taskId: t.arg.id({ description: 'Only events of this task' }),
    after: t.arg.string({ description: `A session cursor (${cursors}, \`Session.lastEventCursor\`, \`BackgroundRun.eventCursor\`); null or absent: from now (an empty string is no cursor: VALIDATION_FAILED)` }),
    completeWhenDone: t.arg.boolean({
      description: 'With `taskId`: the stream completes after the task’s TaskFinished (for a task already finished: its events from its first, or those after `after`, then completes; at once when `after` is at or past its end)',
    }),
  });
  const tenantEventArgs = (cursors: string) => ({
    after: t.arg.string({ description: `A tenant cursor (${cursors}, \`tenantCursor\` of any event, \`tenantSettings.lastEventCursor\`); null or absent: from now (an empty string is no cursor: VALIDATION_FAILED)` }),
    types: t.arg({ type: [EventTypeEnum], description: 'Only events of these types (at least one)' }),
    sessionId: t.arg.id({ description: 'Only events of this session' }),
  });
  const BATCHES = (of: string) =>
    `The events of \`${of}\`, several per message: each message carries the next event and those already waiting behind it (at most \`maxEvents\`), in order, each once. At low load a message holds one event; a burst, or a subscriber catching up, gets them in far fewer messages. Resume after a message with \`after: cursor\`.`;
  const TASK_EVENTS =
    'Task events of a session, or of one task (give sessionId or taskId), after `after`, then live, in order, each once: TaskCreated, TaskStarted, TaskStatus, TaskProgress, TaskOutput, TaskHeartbeat, TaskCancelRequested, TaskReattached, TaskFinished (and CursorExpired).';
  const TENANT_EVENTS =
    'Events of every session of the tenant after `after`, then live, in tenant order (`tenantSeq`), each once; a cursor older than the retention yields CursorExpired. For list views and inboxes (a new session arrives as its SessionCreated): filter by `types` (e.g. [ToolCallAwaitingApproval]) or `sessionId`.';

  return {
    toolCallEvents: t.field({
      type: SessionEventRef,
      authScopes: { reader: true },
      description: 'Tool call events of a session (optionally one batch) after `after`, then live, in order, each once.',
      args: callEventArgs('`cursor` of an event'),
      subscribe: (_root, args, context) => subscribe(context, args.after, () => callEventsScope(context, args)),
      resolve: (event) => eventOrKeyError(event),
    }),
    toolCallEventBatches: t.field({
      type: SessionEventBatchRef,
      authScopes: { reader: true },
      description: BATCHES('toolCallEvents'),
      args: { ...callEventArgs('`cursor` of a message or an event'), maxEvents: maxEvents() },
      subscribe: (_root, args, context) => batchesOf(args.maxEvents, 'session', () => subscribe(context, args.after, () => callEventsScope(context, args))),
      resolve: (batch) => eventOrKeyError(batch),
    }),
    taskEvents: t.field({
      type: SessionEventRef,
      authScopes: { reader: true },
      description: TASK_EVENTS,
      args: taskEventArgs('`cursor` of an event'),
      subscribe: (_root, args, context) => subscribe(context, args.after, () => taskEventsScope(context, args)),
      resolve: (event) => eventOrKeyError(event),
    }),
    taskEventBatches: t.field({
      type: SessionEventBatchRef,
      authScopes: { reader: true },
      description: BATCHES('taskEvents'),
      args: { ...taskEventArgs('`cursor` of a message or an event'), maxEvents: maxEvents() },
      subscribe: (_root, args, context) => batchesOf(args.maxEvents, 'session', () => subscribe(context, args.after, () => taskEventsScope(context, args))),
      resolve: (batch) => eventOrKeyError(batch),
    }),
    tenantEvents: t.field({
      type: SessionEventRef,
      authScopes: { reader: true },
      description: TENANT_EVENTS,
      args: tenantEventArgs('`cursor` of an event of this stream'),
      subscribe: (_root, args, context) => subscribeTenant(context, args),
      resolve: (event): TenantStreamEvent => ({ ...eventOrKeyError(event), stream: 'tenant' }),
    }),
    tenantEventBatches: t.field({
      type: SessionEventBatchRef,
      authScopes: { reader: true },
      description: BATCHES('tenantEvents'),
      args: { ...tenantEventArgs('`cursor` of a message or of an event of this stream'), maxEvents: maxEvents() },
      subscribe: (_root, args, context) => batchesOf(args.maxEvents, 'tenant', () => subscribeTenant(context, args)),
      resolve: (batch) => eventOrKeyError(batch),
    }),
  };
});

const DEFAULT_EVENTS_PER_MESSAGE = 100;

/** The stream `open` gives, several events per message; a `maxEvents` out of bounds is refused before it opens. */
async function batchesOf(maxEvents: number | null | undefined, kind: 'session' | 'tenant', open: () => Promise<AsyncIterableIterator<SessionEvent | KeyStopped>>) {
  const max = maxEvents ?? DEFAULT_EVENTS_PER_MESSAGE;
  if (!Number.isInteger(max) || max < 1 || max > MAX_EVENTS_PER_BATCH) {
    const refusal = new ValidationError(`maxEvents must be between 1 and ${MAX_EVENTS_PER_BATCH}`, 'maxEvents');
    throw new GraphQLError(refusal.message, { extensions: refusal.extensions });
  }
  return inBatches(await open(), max, kind);
}

/** What `taskEvents` and `taskEventBatches` watch: a session's task events, or one task's. */
async function taskEventsScope(context: GraphQLContext, args: { sessionId?: string | number | null; taskId?: string | number | null; completeWhenDone?: boolean | null }): Promise<Scope> {
  const { services, viewer } = context;
  if (args.completeWhenDone && args.taskId == null) throw new ValidationError('completeWhenDone needs taskId', 'completeWhenDone');
  if (args.taskId != null) {
    let task = await services.tasks.findTask(viewer.tenantId, localId(args.taskId, 'Task'));
    if (args.sessionId != null && localId(args.sessionId, 'Session') !== task.sessionId) throw new NotFoundError('Task', String(args.taskId));
    let from: number | undefined;
    if (args.completeWhenDone && !FINISHED_TASK_STATES.includes(task.state)) {
      // See `Scope.from`: the head first, then the task again.
      from = await services.feed.head('session', task.sessionId);
      task = await services.tasks.findTask(viewer.tenantId, task.id);
    }
    const done = args.completeWhenDone && FINISHED_TASK_STATES.includes(task.state);
    const taskId = task.id;
    return {
      sessionId: task.sessionId,
      matches: (event) => isEventOf(TASK_EVENT_TYPES, event) && event.taskId === taskId,
      until: args.completeWhenDone ? (event) => event.type === 'TaskFinished' && event.taskId === taskId : undefined,
      ...(done ? { finished: await services.tasks.finishedEvents(task) } : { from }),
    };
  }
  if (args.sessionId == null) throw new ValidationError('give sessionId or taskId', 'sessionId');
  const sessionId = localId(args.sessionId, 'Session');
  await services.sessions.assertExists(viewer.tenantId, sessionId);
  return { sessionId, matches: (event) => isEventOf(TASK_EVENT_TYPES, event) };
}

/** The tenant's events for `tenantEvents` and `tenantEventBatches`: arguments checked, then the stream. */
async function subscribeTenant(
  context: GraphQLContext,
  args: { after?: string | null; types?: readonly string[] | null; sessionId?: string | number | null },
): Promise<AsyncIterableIterator<SessionEvent | KeyStopped>> {
  const { viewer, services } = context;
  let afterTenantSeq: number | undefined;
  let sessionId: string | null;
  let types: Set<string> | null;
  try {
    const chosen = eventTypesFilter(args.types);
    types = chosen && new Set(chosen);
    afterTenantSeq = args.after != null ? decodeTenantEventCursor(args.after, viewer.tenantId) : undefined;
    if (afterTenantSeq !== undefined) await refuseAhead(context, 'tenant', viewer.tenantId, afterTenantSeq);
    sessionId = optionalLocalId(args.sessionId, 'Session');
    if (sessionId) await services.sessions.assertExists(viewer.tenantId, sessionId);
  } catch (error) {
    if (error instanceof DomainError) throw new GraphQLError(error.message, { extensions: error.extensions });
    throw error;
  }
  const stream = openStream(context);
  const events = tenantEvents(services.feed, {
    tenantId: viewer.tenantId,
    afterTenantSeq,
    matches: (event) => (!types || types.has(event.type)) && (!sessionId || event.sessionId === sessionId),
    signal: stream.signal,
  });
  return endingWith(events, stream);
}

/** What `toolCallEvents` and `toolCallEventBatches` watch: the session's call events, or one batch's. */
async function callEventsScope(context: GraphQLContext, args: { sessionId: string | number; batchId?: string | null; completeWhenDone?: boolean | null }): Promise<Scope> {
  const sessionId = localId(args.sessionId, 'Session');
  await context.services.sessions.assertExists(context.viewer.tenantId, sessionId);
  if (args.completeWhenDone && args.batchId == null) throw new ValidationError('completeWhenDone needs batchId', 'completeWhenDone');
  const findBatch = () => context.services.calls.findBatch(context.viewer.tenantId, sessionId, args.batchId!);
  let batch = args.batchId != null ? await findBatch() : null;
  let from: number | undefined;
  if (args.completeWhenDone && batch?.status !== 'COMPLETED') {
    // See `Scope.from`: the head first, then the batch again.
    from = await context.services.feed.head('session', sessionId);
    batch = await findBatch();
  }
  const done = args.completeWhenDone && batch?.status === 'COMPLETED';
  return {
    sessionId,
    matches: (event) => isEventOf(CALL_EVENT_TYPES, event) && (args.batchId == null || event.batchId === args.batchId),
    until: args.completeWhenDone ? (event) => event.type === 'ToolBatchCompleted' && event.batchId === args.batchId : undefined,
    ...(done ? { finished: await context.services.calls.finishedEvents(batch!) } : { from }),
  };
}

interface Scope {
  sessionId: string;
  matches: (event: SessionEvent) => boolean;
  until?: (event: SessionEvent) => boolean;
  /**
   * Set when the watched batch or task had already finished and the stream is to complete when it
   * does, so that it ends rather than wait for an end that is past: without a cursor its events are
   * replayed from their first; a cursor at or past its final event (or events no longer retained)
   * ends it at once.
   */
  finished?: FinishedEvents;
  /**
   * Where a stream without `after` that is to complete when its batch or task does starts: the
   * session's head read before the batch or task was last seen unfinished, so that its final event
   * (committed after that read) is delivered. Starting "from now", after that read, could miss it
   * and wait forever.
   */
  from?: number;
}

/** Resolves (and authorizes) what to watch, decodes the cursor, then streams until unsubscribe or shutdown. */
async function subscribe(context: GraphQLContext, after: string | null | undefined, scope: () => Promise<Scope>): Promise<AsyncIterableIterator<SessionEvent | KeyStopped>> {
  let watched: Scope;
  let afterSeq: number | undefined;
  try {
    watched = await scope();
    afterSeq = after != null ? decodeEventCursor(after, watched.sessionId) : watched.finished ? (watched.finished.from ?? undefined) : watched.from;
    if (after != null) await refuseAhead(context, 'session', watched.sessionId, afterSeq!);
  } catch (error) {
    if (error instanceof DomainError) throw new GraphQLError(error.message, { extensions: error.extensions });
    throw error;
  }
  const stream = openStream(context);
  const { finished } = watched;
  if (finished && (after != null ? finished.end === null || afterSeq! >= finished.end : finished.from === null)) {
    stream.close();
    return (async function* () {})();
  }
  const events = sessionEvents(context.services.feed, { ...watched, tenantId: context.viewer.tenantId, afterSeq, signal: stream.signal });
  return endingWith(events, stream);
}

/**
 * A slot among the key's open streams (refused past MAX_SUBSCRIPTIONS_PER_KEY). On shutdown the
 * client sees the subscription complete, and resumes elsewhere with its last cursor; when the key
 * is revoked or expires, the stream ends with an error saying so.
 */
function openStream(context: GraphQLContext): OpenStream {
  try {
    return context.services.streams.open(context.viewer, context.shutdown);
  } catch (error) {
    if (error instanceof DomainError) throw new GraphQLError(error.message, { extensions: error.extensions });
    throw error;
  }
}

/** The event, or the error that ends a stream whose key stopped working (over SSE no close code can say it). */
function eventOrKeyError<T>(item: T | KeyStopped): T {
  if (item instanceof KeyStopped) {
    throw new GraphQLError(`The API key ${item.reason === 'expired' ? 'has expired' : `was ${item.reason}`}: this subscription ended`, { extensions: { code: 'UNAUTHENTICATED', reason: item.reason } });
  }
  return item;
}

/** A cursor past the stream's newest event names nothing toolrun gave out: refused, or the events up to it would be skipped. */
async function refuseAhead(context: GraphQLContext, kind: 'session' | 'tenant', id: string, after: number): Promise<void> {
  if (after > (await context.services.feed.head(kind, id))) throw new ValidationError(`after is ahead of the newest event of this ${kind}`, 'after');
}
