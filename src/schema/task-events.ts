// Events of tasks (background runs and schedule monitors), and the taskEvents subscription.
// They live in the session's event log like tool call events: ordered, with cursors and replay.
import type { SessionEvent, TaskEventType } from '../model/events.js';
import { builder } from './builder.js';
import { isType, ProgressRef, SessionEventRef } from './events.js';
import { TaskRef, TaskStateEnum } from './tasks.js';

const OutputStreamEnum = builder.enumType('TaskOutputStream', {
  description: 'Which output stream a chunk of a run’s output came from',
  values: { STDOUT: { description: 'Standard output, logged as `[stdout]`' }, STDERR: { description: 'Standard error, logged as `[stderr]`' } } as const,
});

const TaskEventRef = builder.interfaceRef<SessionEvent<TaskEventType>>('TaskEvent').implement({
  description: 'An event of a task (a background run or a schedule’s monitor)',
  interfaces: [SessionEventRef],
  fields: (t) => ({
    taskId: t.id({ description: 'The raw id of the task', resolve: (event) => event.taskId ?? '' }),
    kind: t.string({ description: '`background_tool` or `monitor`', resolve: (event) => event.payload.kind }),
    runId: t.string({ description: 'Id of the run’s current attempt (bg_<uuidv7>); null for a monitor', nullable: true, resolve: (event) => event.payload.runId ?? null }),
    task: t.field({ type: TaskRef, nullable: true, description: 'The task as it is now', resolve: (event) => event.taskId }),
  }),
});

builder.objectRef<SessionEvent<'TaskCreated'>>('TaskCreated').implement({
  description: 'The task was created (a run queued, or a schedule’s monitor started)',
  interfaces: [SessionEventRef, TaskEventRef],
  isTypeOf: isType('TaskCreated'),
  fields: (t) => ({
    state: t.field({ description: 'The state it was created in', type: TaskStateEnum, resolve: (event) => event.payload.state }),
    stateDetail: t.string({ nullable: true, description: 'Status text at creation (`Queued` for a run)', resolve: (event) => event.payload.stateDetail ?? null }),
    title: t.string({ description: 'The task’s title', nullable: true, resolve: (event) => event.payload.title ?? null }),
    tool: t.string({ description: 'The tool the run calls', nullable: true, resolve: (event) => event.payload.tool ?? null }),
    scheduleId: t.string({ description: 'The raw id of the schedule that started it, if one did', nullable: true, resolve: (event) => event.payload.scheduleId ?? null }),
  }),
});

builder.objectRef<SessionEvent<'TaskStarted'>>('TaskStarted').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  description: 'A worker took the run (an attempt started).',
  isTypeOf: isType('TaskStarted'),
  fields: (t) => ({
    attempt: t.int({ description: 'The attempt that started, from 1', resolve: (event) => event.payload.attempt }),
    workerId: t.string({ description: 'The worker running it', resolve: (event) => event.payload.workerId }),
    logPath: t.string({ description: 'Path of this attempt’s `output.log`', nullable: true, resolve: (event) => event.payload.logPath ?? null }),
    resultPath: t.string({ description: 'Path of this attempt’s `result.json`', nullable: true, resolve: (event) => event.payload.resultPath ?? null }),
  }),
});

builder.objectRef<SessionEvent<'TaskStatus'>>('TaskStatus').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  description: 'New status text.',
  isTypeOf: isType('TaskStatus'),
  fields: (t) => ({
    attempt: t.int({ description: 'The attempt this event belongs to', resolve: (event) => event.payload.attempt }),
    text: t.string({ description: 'The status text', resolve: (event) => event.payload.text }),
  }),
});

builder.objectRef<SessionEvent<'TaskProgress'>>('TaskProgress').implement({
  description: 'The run reported progress',
  interfaces: [SessionEventRef, TaskEventRef],
  isTypeOf: isType('TaskProgress'),
  fields: (t) => ({
    attempt: t.int({ description: 'The attempt this event belongs to', resolve: (event) => event.payload.attempt }),
    progress: t.field({ description: 'The progress reported', type: ProgressRef, resolve: (event) => event.payload.progress }),
  }),
});

builder.objectRef<SessionEvent<'TaskOutput'>>('TaskOutput').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  description: 'Output that reached the run’s log; `truncated` marks the moment the log hit its cap (later output only moves outputTail).',
  isTypeOf: isType('TaskOutput'),
  fields: (t) => ({
    attempt: t.int({ description: 'The attempt this event belongs to', resolve: (event) => event.payload.attempt }),
    stream: t.field({ description: 'Standard output or standard error', type: OutputStreamEnum, resolve: (event) => (event.payload.stream === 'stderr' ? 'STDERR' : 'STDOUT') }),
    text: t.string({ description: 'The output chunk', resolve: (event) => event.payload.text }),
    truncated: t.boolean({ description: 'True on the event (its text empty) that marks the moment the log hit its cap, right after the chunk that reached it (that chunk’s text cut to fit); later output is not logged', resolve: (event) => event.payload.truncated === true }),
  }),
});

builder.objectRef<SessionEvent<'TaskHeartbeat'>>('TaskHeartbeat').implement({
  description: 'The running attempt is alive',
  interfaces: [SessionEventRef, TaskEventRef],
  isTypeOf: isType('TaskHeartbeat'),
  fields: (t) => ({
    attempt: t.int({ description: 'The attempt this event belongs to', resolve: (event) => event.payload.attempt }),
  }),
});

builder.objectRef<SessionEvent<'TaskCancelRequested'>>('TaskCancelRequested').implement({
  description: 'A cancel was asked for; the run is being stopped',
  interfaces: [SessionEventRef, TaskEventRef],
  isTypeOf: isType('TaskCancelRequested'),
  fields: (t) => ({
    attempt: t.int({ description: 'The attempt being cancelled', resolve: (event) => event.payload.attempt }),
  }),
});

builder.objectRef<SessionEvent<'TaskReattached'>>('TaskReattached').implement({
  interfaces: [SessionEventRef, TaskEventRef],
  description: 'The worker of an attempt was lost; the run starts over as `attempt`, with new artifact paths (`runId` is the new one).',
  isTypeOf: isType('TaskReattached'),
  fields: (t) => ({
    attempt: t.int({ description: 'The new attempt', resolve: (event) => event.payload.attempt }),
    previousRunId: t.string({ description: 'The run id of the lost attempt', nullable: true, resolve: (event) => event.payload.previousRunId ?? null }),
    reason: t.string({ description: 'Why the attempt was lost, e.g. its worker stopped heartbeating', resolve: (event) => event.payload.reason }),
    logPath: t.string({ description: 'Path of the new attempt’s `output.log`', nullable: true, resolve: (event) => event.payload.logPath ?? null }),
    resultPath: t.string({ description: 'Path of the new attempt’s `result.json`', nullable: true, resolve: (event) => event.payload.resultPath ?? null }),
  }),
});

builder.objectRef<SessionEvent<'TaskFinished'>>('TaskFinished').implement({
  description: 'The task reached a final state',
  interfaces: [SessionEventRef, TaskEventRef],
  isTypeOf: isType('TaskFinished'),
  fields: (t) => ({
    state: t.field({ description: 'The final state', type: TaskStateEnum, resolve: (event) => event.payload.state }),
    attempt: t.int({ description: 'The attempt it finished in', resolve: (event) => event.payload.attempt }),
    summary: t.string({ description: 'How it ended, in a line for people', nullable: true, resolve: (event) => event.payload.summary ?? null }),
    error: t.string({ description: 'FAILED: the error', nullable: true, resolve: (event) => event.payload.error ?? null }),
    resultPath: t.string({ description: 'Path of its `result.json`', nullable: true, resolve: (event) => event.payload.resultPath ?? null }),
    logPath: t.string({ description: 'Path of its `output.log`', nullable: true, resolve: (event) => event.payload.logPath ?? null }),
  }),
});
