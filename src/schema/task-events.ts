// Events of tasks (background runs and schedule monitors), and the taskEvents subscription.
// They live in the session's event log like tool call events: ordered, with cursors and replay.
import type { SessionEvent, TaskEventType } from '../model/events.js';
import { builder } from './builder.js';
import { isType, ProgressRef, SessionEventRef } from './events.js';
import { TaskRef, TaskStateEnum } from './tasks.js';

const OutputStreamEnum = builder.enumType('TaskOutputStream', { values: ['STDOUT', 'STDERR'] as const });

const TaskEventRef = builder.interfaceRef<SessionEvent<TaskEventType>>('TaskEvent').implement({
  interfaces: [SessionEventRef],
  fields: (t) => ({
    taskId: t.id({ resolve: (event) => event.taskId ?? '' }),
    kind: t.string({ description: '`background_tool` or `monitor`', resolve: (event) => event.payload.kind }),
    runId: t.string({ nullable: true, resolve: (event) => event.payload.runId ?? null }),
    task: t.field({ type: TaskRef, nullable: true, description: 'The task as it is now', resolve: (event) => event.taskId }),
  }),
});

builder.objectRef<SessionEvent<'TaskCreated'>>('TaskCreated').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  isTypeOf: isType('TaskCreated'),
  fields: (t) => ({
    state: t.field({ type: TaskStateEnum, resolve: (event) => event.payload.state }),
    stateDetail: t.string({ nullable: true, description: 'Status text at creation (`Queued` for a run)', resolve: (event) => event.payload.stateDetail ?? null }),
    title: t.string({ nullable: true, resolve: (event) => event.payload.title ?? null }),
    tool: t.string({ nullable: true, resolve: (event) => event.payload.tool ?? null }),
    scheduleId: t.string({ nullable: true, resolve: (event) => event.payload.scheduleId ?? null }),
  }),
});

builder.objectRef<SessionEvent<'TaskStarted'>>('TaskStarted').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  description: 'A worker took the run (an attempt started).',
  isTypeOf: isType('TaskStarted'),
  fields: (t) => ({
    attempt: t.int({ resolve: (event) => event.payload.attempt }),
    workerId: t.string({ resolve: (event) => event.payload.workerId }),
    logPath: t.string({ nullable: true, resolve: (event) => event.payload.logPath ?? null }),
    resultPath: t.string({ nullable: true, resolve: (event) => event.payload.resultPath ?? null }),
  }),
});

builder.objectRef<SessionEvent<'TaskStatus'>>('TaskStatus').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  description: 'New status text.',
  isTypeOf: isType('TaskStatus'),
  fields: (t) => ({
    attempt: t.int({ resolve: (event) => event.payload.attempt }),
    text: t.string({ resolve: (event) => event.payload.text }),
  }),
});

builder.objectRef<SessionEvent<'TaskProgress'>>('TaskProgress').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  isTypeOf: isType('TaskProgress'),
  fields: (t) => ({
    attempt: t.int({ resolve: (event) => event.payload.attempt }),
    progress: t.field({ type: ProgressRef, resolve: (event) => event.payload.progress }),
  }),
});

builder.objectRef<SessionEvent<'TaskOutput'>>('TaskOutput').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  description: 'Output that reached the run’s log; `truncated` marks the moment the log hit its cap (later output only moves outputTail).',
  isTypeOf: isType('TaskOutput'),
  fields: (t) => ({
    attempt: t.int({ resolve: (event) => event.payload.attempt }),
    stream: t.field({ type: OutputStreamEnum, resolve: (event) => (event.payload.stream === 'stderr' ? 'STDERR' : 'STDOUT') }),
    text: t.string({ resolve: (event) => event.payload.text }),
    truncated: t.boolean({ resolve: (event) => event.payload.truncated === true }),
  }),
});

builder.objectRef<SessionEvent<'TaskHeartbeat'>>('TaskHeartbeat').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  isTypeOf: isType('TaskHeartbeat'),
  fields: (t) => ({
    attempt: t.int({ resolve: (event) => event.payload.attempt }),
  }),
});

builder.objectRef<SessionEvent<'TaskCancelRequested'>>('TaskCancelRequested').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  isTypeOf: isType('TaskCancelRequested'),
  fields: (t) => ({
    attempt: t.int({ resolve: (event) => event.payload.attempt }),
  }),
});

builder.objectRef<SessionEvent<'TaskReattached'>>('TaskReattached').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  description: 'The worker of an attempt was lost; the run starts over as `attempt`, with new artifact paths (`runId` is the new one).',
  isTypeOf: isType('TaskReattached'),
  fields: (t) => ({
    attempt: t.int({ resolve: (event) => event.payload.attempt }),
    previousRunId: t.string({ nullable: true, resolve: (event) => event.payload.previousRunId ?? null }),
    reason: t.string({ resolve: (event) => event.payload.reason }),
    logPath: t.string({ nullable: true, resolve: (event) => event.payload.logPath ?? null }),
    resultPath: t.string({ nullable: true, resolve: (event) => event.payload.resultPath ?? null }),
  }),
});

builder.objectRef<SessionEvent<'TaskFinished'>>('TaskFinished').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  isTypeOf: isType('TaskFinished'),
  fields: (t) => ({
    state: t.field({ type: TaskStateEnum, resolve: (event) => event.payload.state }),
    attempt: t.int({ resolve: (event) => event.payload.attempt }),
    summary: t.string({ nullable: true, resolve: (event) => event.payload.summary ?? null }),
    error: t.string({ nullable: true, resolve: (event) => event.payload.error ?? null }),
    resultPath: t.string({ nullable: true, resolve: (event) => event.payload.resultPath ?? null }),
    logPath: t.string({ nullable: true, resolve: (event) => event.payload.logPath ?? null }),
  }),
});
