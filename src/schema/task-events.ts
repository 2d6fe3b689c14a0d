// Events of tasks (background runs and schedule monitors), and the taskEvents subscription.
// They live in the session's event log like tool call events: ordered, with cursors and replay.
import type { SessionEvent } from '../domain/event-log.js';
import { TASK_EVENT_TYPES } from '../domain/task-transitions.js';
import { subscribeTaskEvents } from '../resolvers/tasks.js';
import { builder } from './builder.js';
import { ProgressRef, SessionEventRef } from './events.js';
import { TaskRef, TaskStateEnum } from './tasks.js';

const payload = <T>(event: SessionEvent, key: string) => event.payload[key] as T;
const optional = <T>(event: SessionEvent, key: string) => (event.payload[key] ?? null) as T | null;
const isType = (type: string) => (event: unknown) => (event as SessionEvent).type === type;

const OutputStreamEnum = builder.enumType('TaskOutputStream', { values: ['STDOUT', 'STDERR'] as const });

const TaskEventRef = builder.interfaceRef<SessionEvent>('TaskEvent').implement({
  interfaces: [SessionEventRef],
  fields: (t) => ({
    taskId: t.id({ resolve: (event) => event.taskId ?? '' }),
    kind: t.string({ description: '`background_tool` or `monitor`', resolve: (event) => payload<string>(event, 'kind') }),
    runId: t.string({ nullable: true, resolve: (event) => optional<string>(event, 'runId') }),
    task: t.field({ type: TaskRef, nullable: true, description: 'The task as it is now', resolve: (event) => event.taskId }),
  }),
});

builder.objectRef<SessionEvent>('TaskCreated').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  isTypeOf: isType(TASK_EVENT_TYPES.created),
  fields: (t) => ({
    state: t.field({ type: TaskStateEnum, resolve: (event) => payload<'QUEUED' | 'RUNNING'>(event, 'state') }),
    stateDetail: t.string({ nullable: true, description: 'Status text at creation (`Queued` for a run)', resolve: (event) => optional<string>(event, 'stateDetail') }),
    title: t.string({ nullable: true, resolve: (event) => optional<string>(event, 'title') }),
    tool: t.string({ nullable: true, resolve: (event) => optional<string>(event, 'tool') }),
    scheduleId: t.string({ nullable: true, resolve: (event) => optional<string>(event, 'scheduleId') }),
  }),
});

builder.objectRef<SessionEvent>('TaskStarted').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  description: 'A worker took the run (an attempt started).',
  isTypeOf: isType(TASK_EVENT_TYPES.started),
  fields: (t) => ({
    attempt: t.int({ resolve: (event) => payload<number>(event, 'attempt') }),
    workerId: t.string({ resolve: (event) => payload<string>(event, 'workerId') }),
    logPath: t.string({ nullable: true, resolve: (event) => optional<string>(event, 'logPath') }),
    resultPath: t.string({ nullable: true, resolve: (event) => optional<string>(event, 'resultPath') }),
  }),
});

builder.objectRef<SessionEvent>('TaskStatus').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  description: 'New status text.',
  isTypeOf: isType(TASK_EVENT_TYPES.status),
  fields: (t) => ({
    attempt: t.int({ resolve: (event) => payload<number>(event, 'attempt') }),
    text: t.string({ resolve: (event) => payload<string>(event, 'text') }),
  }),
});

builder.objectRef<SessionEvent>('TaskProgress').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  isTypeOf: isType(TASK_EVENT_TYPES.progress),
  fields: (t) => ({
    attempt: t.int({ resolve: (event) => payload<number>(event, 'attempt') }),
    progress: t.field({ type: ProgressRef, resolve: (event) => payload<Record<string, unknown>>(event, 'progress') }),
  }),
});

builder.objectRef<SessionEvent>('TaskOutput').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  description: 'Output that reached the run’s log; `truncated` marks the moment the log hit its cap (later output only moves outputTail).',
  isTypeOf: isType(TASK_EVENT_TYPES.output),
  fields: (t) => ({
    attempt: t.int({ resolve: (event) => payload<number>(event, 'attempt') }),
    stream: t.field({ type: OutputStreamEnum, resolve: (event) => (payload<string>(event, 'stream') === 'stderr' ? 'STDERR' : 'STDOUT') }),
    text: t.string({ resolve: (event) => payload<string>(event, 'text') }),
    truncated: t.boolean({ resolve: (event) => payload<boolean>(event, 'truncated') === true }),
  }),
});

builder.objectRef<SessionEvent>('TaskHeartbeat').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  isTypeOf: isType(TASK_EVENT_TYPES.heartbeat),
  fields: (t) => ({
    attempt: t.int({ resolve: (event) => payload<number>(event, 'attempt') }),
  }),
});

builder.objectRef<SessionEvent>('TaskCancelRequested').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  isTypeOf: isType(TASK_EVENT_TYPES.cancelRequested),
  fields: (t) => ({
    attempt: t.int({ resolve: (event) => payload<number>(event, 'attempt') }),
  }),
});

builder.objectRef<SessionEvent>('TaskReattached').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  description: 'The worker of an attempt was lost; the run starts over as `attempt`, with new artifact paths (`runId` is the new one).',
  isTypeOf: isType(TASK_EVENT_TYPES.reattached),
  fields: (t) => ({
    attempt: t.int({ resolve: (event) => payload<number>(event, 'attempt') }),
    previousRunId: t.string({ nullable: true, resolve: (event) => optional<string>(event, 'previousRunId') }),
    reason: t.string({ resolve: (event) => payload<string>(event, 'reason') }),
    logPath: t.string({ nullable: true, resolve: (event) => optional<string>(event, 'logPath') }),
    resultPath: t.string({ nullable: true, resolve: (event) => optional<string>(event, 'resultPath') }),
  }),
});

builder.objectRef<SessionEvent>('TaskFinished').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  isTypeOf: isType(TASK_EVENT_TYPES.finished),
  fields: (t) => ({
    state: t.field({ type: TaskStateEnum, resolve: (event) => payload<'SUCCEEDED' | 'FAILED' | 'CANCELED'>(event, 'state') }),
    attempt: t.int({ resolve: (event) => payload<number>(event, 'attempt') }),
    summary: t.string({ nullable: true, resolve: (event) => optional<string>(event, 'summary') }),
    error: t.string({ nullable: true, resolve: (event) => optional<string>(event, 'error') }),
    resultPath: t.string({ nullable: true, resolve: (event) => optional<string>(event, 'resultPath') }),
    logPath: t.string({ nullable: true, resolve: (event) => optional<string>(event, 'logPath') }),
  }),
});

builder.subscriptionFields((t) => ({
  taskEvents: t.field({
    type: SessionEventRef,
    authScopes: { authenticated: true },
    description:
      'Task events of a session, or of one task (give sessionId or taskId), after `after`, then live, in order, each once: TaskCreated, TaskStarted, TaskStatus, TaskProgress, TaskOutput, TaskHeartbeat, TaskCancelRequested, TaskReattached, TaskFinished (and CursorExpired).',
    args: { sessionId: t.arg.id(), taskId: t.arg.id(), after: t.arg.string() },
    subscribe: (_root, args, context) =>
      subscribeTaskEvents(context, { sessionId: args.sessionId ? String(args.sessionId) : null, taskId: args.taskId ? String(args.taskId) : null, after: args.after }),
    resolve: (event) => event,
  }),
}));
