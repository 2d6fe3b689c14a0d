// Batches of tool calls and the calls themselves.
import type { CallStatus, ToolBatch, ToolCall } from '../generated/prisma/client.js';
import { type Page, pageRequest } from '../model/keyset.js';
import { parseOutput, seedOutcome, seedToolResult } from '../model/outcome.js';
import { encodeEventCursor } from '../realtime/cursors.js';
import { callKey } from '../realtime/event-reader.js';
import { builder } from './builder.js';
import { byTime, type KeysetConnection, keysetConnection, requestLoader } from './connections.js';
import type { ToolStats } from '../domain/calls/store.js';
import { UNFINISHED_CALL_STATUSES } from '../domain/calls/call-folds.js';
import { ATTEMPT_EVENT_TYPES, attemptsOf, type CallAttempt } from '../model/call-attempts.js';
import { FailureClassEnum, ModelReturnRef, outputMember, ToolCallOutputUnion, ToolFailureRef } from './outcome.js';
import { SessionRef, SessionStatusEnum } from './session.js';
import { ToolSchedulingEnum } from './tool.js';
import { MAX_IDENTIFIER_LENGTH } from '../model/text.js';
import { TOOL_NAME_MAX_LENGTH } from '../tools/types.js';

/** A page of a batch's calls may hold a whole batch. */
const MAX_CALLS_PAGE = 1000;

export const CallStatusEnum = builder.enumType('ToolCallStatus', {
  description: 'Where a call stands; SUCCEEDED, FAILED and CANCELLED are final',
  values: {
    QUEUED: { description: 'Waiting for a worker' },
    AWAITING_APPROVAL: { description: 'Waiting for an approver (the tool requires approval)' },
    RUNNING: { description: 'Running on a worker' },
    PENDING_EXTERNAL: { description: 'Waiting for `completeToolCall` (an external tool)' },
    SUCCEEDED: { description: 'Finished with a value' },
    FAILED: { description: 'Finished with a typed failure' },
    CANCELLED: { description: 'Cancelled before or while it ran' },
  } as const,
});
export const BatchStatusEnum = builder.enumType('ToolBatchStatus', {
  description: 'A batch is COMPLETED once every call of it is final',
  values: { RUNNING: { description: 'Some calls are not final yet' }, COMPLETED: { description: 'Every call is final' } } as const,
});

/** Per-status call counts, as the store counts them. */
export type StatusCounts = Map<CallStatus, number>;

export const CallStatusCountsRef = builder.objectRef<StatusCounts>('ToolCallStatusCounts').implement({
  description: 'How many calls are in each status',
  fields: (t) => ({
    total: t.int({ description: 'All calls counted', resolve: (counts) => [...counts.values()].reduce((sum, n) => sum + n, 0) }),
    queued: t.int({ description: 'QUEUED calls', resolve: (counts) => counts.get('QUEUED') ?? 0 }),
    awaitingApproval: t.int({ description: 'AWAITING_APPROVAL calls', resolve: (counts) => counts.get('AWAITING_APPROVAL') ?? 0 }),
    running: t.int({ description: 'RUNNING calls', resolve: (counts) => counts.get('RUNNING') ?? 0 }),
    pendingExternal: t.int({ description: 'PENDING_EXTERNAL calls', resolve: (counts) => counts.get('PENDING_EXTERNAL') ?? 0 }),
    succeeded: t.int({ description: 'SUCCEEDED calls', resolve: (counts) => counts.get('SUCCEEDED') ?? 0 }),
    failed: t.int({ description: 'FAILED calls', resolve: (counts) => counts.get('FAILED') ?? 0 }),
    cancelled: t.int({ description: 'CANCELLED calls', resolve: (counts) => counts.get('CANCELLED') ?? 0 }),
    unfinished: t.int({
      description: 'Calls not final yet (queued, awaiting approval, running or pending external)',
      resolve: (counts) => UNFINISHED_CALL_STATUSES.reduce((sum, status) => sum + (counts.get(status) ?? 0), 0),
    }),
  }),
});

export const ToolBatchRef = builder.loadableNodeRef<ToolBatch | Error, string, string>('ToolBatch', {
  id: { resolve: (batch) => batch.id },
  load: (ids, { services, viewer }) => services.calls.loadBatches(viewer.tenantId, ids),
});

export const ToolCallRef = builder.loadableNodeRef<ToolCall | Error, string, string>('ToolCall', {
  id: { resolve: (call) => call.id },
  load: (ids, { services, viewer }) => services.calls.loadCalls(viewer.tenantId, ids),
});

export const ToolCallConnectionRef = builder.connectionObject(
  {
    type: ToolCallRef,
    name: 'ToolCallConnection',
    description: 'A page of tool calls',
    fields: (t) => ({
      totalCount: t.int({ description: 'Calls in all pages (counted only when selected)', resolve: (connection) => (connection as unknown as KeysetConnection<ToolCall>).count() }),
    }),
  },
  { name: 'ToolCallEdge', description: 'A tool call and its cursor' },
);

export const ToolBatchConnectionRef = builder.connectionObject(
  {
    type: ToolBatchRef,
    name: 'ToolBatchConnection',
    description: 'A page of batches',
    fields: (t) => ({
      totalCount: t.int({ description: 'Batches in all pages (counted only when selected)', resolve: (connection) => (connection as unknown as KeysetConnection<ToolBatch>).count() }),
    }),
  },
  { name: 'ToolBatchEdge', description: 'A batch and its cursor' },
);

ToolBatchRef.implement({
  description: 'A batch of tool calls submitted together; its calls keep input order.',
  fields: (t) => ({
    batchId: t.exposeString('batchId', { description: 'Public id of the batch: `tool-batch:` + a hash of its calls (or of its idempotency key), the same on resubmission' }),
    status: t.expose('status', { description: 'RUNNING until every call of the batch is final', type: BatchStatusEnum }),
    idempotencyKey: t.exposeString('idempotencyKey', { description: 'The idempotency key it was submitted with, if any', nullable: true }),
    callCount: t.exposeInt('callCount', { description: 'How many calls the batch holds' }),
    pendingCount: t.exposeInt('pendingCount', { description: 'How many of its calls are not final yet' }),
    createdAt: t.expose('createdAt', { description: 'When the batch was submitted', type: 'DateTime' }),
    completedAt: t.expose('completedAt', { description: 'When its last call became final; null while it runs', type: 'DateTime', nullable: true }),
    session: t.field({ description: 'The session the batch belongs to', type: SessionRef, resolve: (batch) => batch.sessionId }),
    calls: t.connection(
      {
        type: ToolCallRef,
        description: 'The calls of the batch in input order (pages of up to 1,000, the most a batch holds; 20 by default)',
        resolve: async (batch, args, context) => {
          const request = pageRequest(args, 'batch-calls', MAX_CALLS_PAGE);
          const loader = requestLoader<Page<ToolCall>>(context, `batch-calls:${JSON.stringify(request)}`, (ids) => context.services.calls.callPagesOfBatches(ids, request));
          return keysetConnection(await loader.load(batch.id), request, (call) => ({ key: call.position, id: call.id }), async () => batch.callCount);
        },
      },
      ToolCallConnectionRef,
    ),
    eventCursor: t.string({
      nullable: true,
      description:
        'Session cursor just before the batch’s first event: `toolCallEvents(sessionId, batchId, after: eventCursor, completeWhenDone: true)` delivers all of them and completes. Null for a completed batch whose events are no longer retained.',
      resolve: async (batch, _args, context) => {
        const start = await requestLoader(context, 'batch-event-starts', (ids) => context.services.calls.eventStarts(ids)).load(batch.id);
        return start ? encodeEventCursor(start.sessionId, start.seq) : null;
      },
    }),
    statusCounts: t.field({
      type: CallStatusCountsRef,
      description: 'How many calls of the batch are in each status',
      resolve: (batch, _args, context) => requestLoader<StatusCounts>(context, 'status-counts:batch', (ids) => context.services.calls.batchStatusCountsOf(ids)).load(batch.id),
    }),
  }),
});

const AttemptEndEnum = builder.enumType('AttemptEnd', {
  description: 'How an attempt of a call ended',
  values: {
    RUNNING: { description: 'It has not ended yet' },
    RETRIED: { description: 'It failed with a retryable failure; a next attempt followed' },
    SUCCEEDED: { description: 'The call succeeded with it' },
    FAILED: { description: 'The call failed with it' },
    CANCELLED: { description: 'The call was cancelled during it' },
  } as const,
});

const ToolCallAttemptRef = builder.objectRef<CallAttempt>('ToolCallAttempt').implement({
  description: 'One attempt of a call, as its events tell it',
  fields: (t) => ({
    attempt: t.exposeInt('attempt', { description: 'Its number, from 1' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true, description: 'When it started' }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true, description: 'When it ended; null while it runs' }),
    durationMs: t.exposeInt('durationMs', { nullable: true, description: 'How long it ran, in milliseconds; null while it runs' }),
    end: t.expose('end', { type: AttemptEndEnum, description: 'How it ended' }),
    failure: t.expose('failure', { type: ToolFailureRef, nullable: true, description: 'Why it failed (a retried attempt, or the failure the call ended with)' }),
  }),
});

ToolCallRef.implement({
  description: 'One tool call and, once finished, its outcome.',
  fields: (t) => ({
    attempts: t.field({
      type: [ToolCallAttemptRef],
      description: 'Its attempts, oldest first, read from its events (while they are retained: see EVENT_RETENTION_HOURS); none for a call that ended without running',
      resolve: async (call, _args, context) => {
        const loader = requestLoader<CallAttempt[]>(context, 'call-attempts', async (keys) => (await context.services.events.ofCalls(keys, ATTEMPT_EVENT_TYPES)).map(attemptsOf));
        const attempts = await loader.load(callKey(call.sessionId, call.callId));
        // The attempt that ended the call ended when the call did (its event's time is the writer's clock, not the row's).
        const last = attempts.at(-1);
        if (!last || !call.completedAt || last.end !== call.status) return attempts;
        return [...attempts.slice(0, -1), { ...last, endedAt: call.completedAt.toISOString() }];
      },
    }),
    callId: t.exposeString('callId', { description: 'The call id, unique in its session (the client’s, or one the server assigned)' }),
    tool: t.exposeString('tool', { description: 'Name of the tool called' }),
    args: t.expose('args', { description: 'The arguments object as submitted', type: 'JSON' }),
    status: t.expose('status', { description: 'Where the call stands', type: CallStatusEnum }),
    scheduling: t.field({ description: 'Whether the call ran beside the batch’s other calls or in turn with its serial ones', type: ToolSchedulingEnum, resolve: (call) => call.scheduling as 'PARALLEL' | 'SERIAL' }),
    output: t.field({ description: 'The outcome (success, failure or cancellation); null until the call is final',
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
    modelReturn: t.field({ description: 'What a model is given back for this call; null until the call is final',
      type: ModelReturnRef,
      nullable: true,
      resolve: (call) => {
        const output = parseOutput(call.output);
        return output ? { callId: call.callId, tool: call.tool, output } : null;
      },
    }),
    position: t.exposeInt('position', { description: 'Index of the call in its batch, from 0' }),
    attempt: t.exposeInt('attempt', { description: 'The attempt running or last run, from 1 (0 before the first starts)' }),
    maxAttempts: t.exposeInt('maxAttempts', { description: 'How many attempts the call may have in all (retries of SAFE failures included)' }),
    timeoutMs: t.exposeInt('timeoutMs', { description: 'Deadline of each attempt, in milliseconds; 0 for a call that ended when it was submitted (unknown tool, invalid arguments): it never ran, so it had no deadline' }),
    durationMs: t.exposeInt('durationMs', { description: 'How long its final attempt ran, in milliseconds (0 when it ended without running; earlier attempts are not counted: see startedAt); null until it is final', nullable: true }),
    queuedAt: t.expose('queuedAt', { description: 'When the call was submitted', type: 'DateTime' }),
    startedAt: t.expose('startedAt', { description: 'When its first attempt started; null when it never started', type: 'DateTime', nullable: true }),
    completedAt: t.expose('completedAt', { description: 'When the call became final; null until then', type: 'DateTime', nullable: true }),
    cancelRequestedAt: t.expose('cancelRequestedAt', { description: 'When a cancel was asked for while it ran; null when none was', type: 'DateTime', nullable: true }),
    deadlineAt: t.expose('deadlineAt', {
      type: 'DateTime',
      nullable: true,
      description: 'PENDING_EXTERNAL: completions are accepted until then; afterwards the call fails TIMEOUT',
    }),
    decidedAt: t.expose('decidedAt', { type: 'DateTime', nullable: true, description: 'When an approver approved or rejected the call' }),
    batch: t.field({ description: 'The batch the call belongs to', type: ToolBatchRef, resolve: (call) => call.batchRowId }),
    session: t.field({ description: 'The session the call belongs to', type: SessionRef, resolve: (call) => call.sessionId }),
  }),
});

// A parent's connection to a child type is declared with the child type (session.ts cannot import
// this file back).
builder.objectFields(SessionRef, (t) => ({
  batches: t.connection(
    {
      type: ToolBatchRef,
      description: 'Batches of this session, newest first',
      resolve: async (session, args, context) => {
        const request = pageRequest(args, 'session-batches');
        const loader = requestLoader<Page<ToolBatch>>(context, `session-batches:${JSON.stringify(request)}`, (ids) => context.services.calls.batchPagesOfSessions(ids, request));
        const counts = requestLoader<number>(context, 'session-batch-counts', (ids) => context.services.calls.batchCountsOf(ids));
        return keysetConnection(await loader.load(session.id), request, byTime((batch) => batch.createdAt), () => counts.load(session.id));
      },
    },
    ToolBatchConnectionRef,
  ),
  // The final calls from the batches' counters, the unfinished ones through their index: not the session's history.
  callCounts: t.field({
    type: CallStatusCountsRef,
    description: 'How many calls of the session are in each status',
    resolve: async (session, _args, context) => {
      const finals = requestLoader<StatusCounts>(context, 'final-counts:session', (ids) => context.services.calls.finalCountsOfSessions(ids));
      const [final, unfinished] = await Promise.all([finals.load(session.id), unfinishedCountsOf(context, session.id)]);
      return new Map([...final, ...unfinished]);
    },
  }),
  status: t.field({
    type: SessionStatusEnum,
    description: 'ACTIVE while a call of the session is not final, else IDLE',
    resolve: async (session, _args, context) => ((await unfinishedCountsOf(context, session.id)).size > 0 ? 'ACTIVE' : 'IDLE'),
  }),
}));


/** The session's calls not final yet, by status (absent statuses have none): one read for `status` and `callCounts` of a page. */
function unfinishedCountsOf(context: Parameters<typeof requestLoader>[0], sessionId: string): Promise<StatusCounts> {
  return requestLoader<StatusCounts>(context, 'unfinished-counts:session', (ids) => context.services.calls.unfinishedCountsOfSessions(context.viewer.tenantId, ids)).load(sessionId);
}

export const ToolCallInput = builder.inputType('ToolCallInput', {
  description: 'One call of a batch to submit',
  fields: (t) => ({
    id: t.string({ description: `Client call id, unique in the session, 1 to ${MAX_IDENTIFIER_LENGTH} printable ASCII characters without spaces; assigned by the server when absent` }),
    tool: t.string({ required: true, description: `Name of the tool to call (see \`tools\`). An unknown one (any name longer than ${TOOL_NAME_MAX_LENGTH} characters, the most a tool's name has, is unknown) ends the call UNAVAILABLE; one longer than ${MAX_IDENTIFIER_LENGTH} is a ValidationError naming it` }),
    args: t.field({ type: 'JSON', description: 'Arguments object, validated against the tool’s JSON Schema' }),
    timeoutMs: t.int({ description: 'Deadline of this call, up to the configured maximum' }),
  }),
});

export const ToolCallFilterInput = builder.inputType('ToolCallFilter', {
  description: 'Calls that match every given condition (a list matches any of its values)',
  fields: (t) => ({
    status: t.field({ type: [CallStatusEnum], description: 'In one of these statuses (e.g. [AWAITING_APPROVAL] for an approvals inbox)' }),
    tool: t.stringList({ description: 'Of one of these tools' }),
    sessionId: t.id({ description: 'Of this session (raw or Relay id)' }),
    batchId: t.string({ description: 'Of the batch with this public batch id' }),
    failureClass: t.field({ type: [FailureClassEnum], description: 'FAILED with one of these failure classes' }),
    failureCode: t.stringList({ description: 'FAILED with one of these failure codes' }),
    queuedAfter: t.field({ type: 'DateTime', description: 'Queued at or after this time; with `queuedBefore`, it must be before it (an empty or inverted window is a VALIDATION_FAILED error naming `queuedAfter`)' }),
    queuedBefore: t.field({ type: 'DateTime', description: 'Queued before this time (after `queuedAfter`, when both are given)' }),
  }),
});

export const ToolStatsRef = builder.objectRef<ToolStats>('ToolStats').implement({
  description: 'Calls of one tool queued in a time window',
  fields: (t) => ({
    tool: t.exposeString('tool', { description: 'The tool name' }),
    callCount: t.exposeInt('callCount', { description: 'Calls queued in the window' }),
    succeededCount: t.exposeInt('succeededCount', { description: 'Of them, SUCCEEDED' }),
    failedCount: t.exposeInt('failedCount', { description: 'Of them, FAILED' }),
    durationP50Ms: t.exposeFloat('durationP50Ms', { nullable: true, description: 'Median duration of the finished ones (ms); null when none finished' }),
    durationP95Ms: t.exposeFloat('durationP95Ms', { nullable: true, description: '95th percentile duration of the finished ones (ms)' }),
  }),
});
