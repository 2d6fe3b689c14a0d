// Background runs (DESIGN.md §4): tasks, schedules, and what spawnBackground answers.
import { type ScheduleSpec, scheduleDescription, type SpawnOutcome } from '../domain/tasks/background.js';
import { scheduleStatus } from '../domain/tasks/schedules.js';
import { artifactDirOf } from '../domain/tasks/background-output.js';
import { specOf } from '../domain/tasks/task-transitions.js';
import type { Schedule, Task } from '../generated/prisma/client.js';
import type { ToolProgress } from '../model/events.js';
import { encodeEventCursor } from '../realtime/cursors.js';
import { builder } from './builder.js';
import { type KeysetConnection, requestLoader } from './connections.js';
import { ProgressRef } from './events.js';
import { SessionRef } from './session.js';

export const TaskStateEnum = builder.enumType('TaskState', {
  description: 'QUEUED → RUNNING → SUCCEEDED | FAILED | CANCELED (a run re-attached after worker loss is QUEUED again, with the next attempt)',
  values: {
    QUEUED: { description: 'Waiting for a worker' },
    RUNNING: { description: 'Running on a worker (a monitor: its schedule is active)' },
    SUCCEEDED: { description: 'Finished with a result' },
    FAILED: { description: 'Finished with an error' },
    CANCELED: { description: 'Cancelled before or while it ran' },
  } as const,
});
export const ScheduleTypeEnum = builder.enumType('ScheduleType', {
  description: 'CRON: recurring (cronExpression); ONCE: one-shot (scheduledAt)',
  values: { CRON: { description: 'Fires on a recurring cron expression' }, ONCE: { description: 'Fires once, at `scheduledAt`' } } as const,
});

export const ScheduleStatusEnum = builder.enumType('ScheduleStatus', {
  description: 'Where a schedule stands',
  values: {
    ACTIVE: { description: 'Enabled: it fires on its cron pattern or at its time' },
    PAUSED: { description: 'Enabled but paused (pauseSchedule): it fires nothing until resumeSchedule' },
    CANCELED: { description: 'Canceled (cancelSchedule, or its monitor task canceled): it never fires again' },
    FINISHED: { description: 'A one-shot schedule that fired' },
  } as const,
});

export const TaskRef = builder.loadableNodeRef<Task | Error, string, string>('Task', {
  id: { resolve: (task) => task.id },
  load: (ids, { services, viewer }) => services.tasks.loadTasks(viewer.tenantId, ids),
});

export const ScheduleRef = builder.loadableNodeRef<Schedule | Error, string, string>('Schedule', {
  id: { resolve: (schedule) => schedule.id },
  load: (ids, { services, viewer }) => services.tasks.loadSchedules(viewer.tenantId, ids),
});

export const TaskConnectionRef = builder.connectionObject(
  {
    type: TaskRef,
    name: 'TaskConnection',
    description: 'A page of tasks',
    fields: (t) => ({
      totalCount: t.int({ description: 'Tasks in all pages (counted only when selected)', resolve: (connection) => (connection as unknown as KeysetConnection<Task>).count() }),
    }),
  },
  { name: 'TaskEdge', description: 'A task and its cursor' },
);

export const ScheduleConnectionRef = builder.connectionObject(
  {
    type: ScheduleRef,
    name: 'ScheduleConnection',
    description: 'A page of schedules',
    fields: (t) => ({
      totalCount: t.int({ description: 'Schedules in all pages (counted only when selected)', resolve: (connection) => (connection as unknown as KeysetConnection<Schedule>).count() }),
    }),
  },
  { name: 'ScheduleEdge', description: 'A schedule and its cursor' },
);

TaskRef.implement({
  description: 'Tracks long work: a background run (kind `background_tool`) or the monitor of a schedule (kind `monitor`).',
  fields: (t) => ({
    taskId: t.exposeString('id', { description: 'The raw task id (the `id` field is its Relay global id)' }),
    kind: t.exposeString('kind', { description: '`background_tool` for a background run, `monitor` for the task that tracks a schedule' }),
    state: t.expose('state', { description: 'Where the task stands', type: TaskStateEnum }),
    stateDetail: t.exposeString('stateDetail', { nullable: true, description: 'Status text' }),
    title: t.exposeString('title', { description: 'A title for people (the tool’s display name unless one was given)', nullable: true }),
    tool: t.exposeString('tool', { description: 'The tool the run calls', nullable: true }),
    args: t.field({ description: 'The arguments object of the run', type: 'JSON', nullable: true, resolve: (task) => specOf(task).args ?? null }),
    signalOnCompletion: t.boolean({ description: 'Whether a session message is added when the run finishes', resolve: (task) => specOf(task).signalOnCompletion !== false }),
    reattachable: t.boolean({
      description: 'Recorded at spawn: the tool was idempotent or readonly then (recovery checks the live definition again)',
      resolve: (task) => specOf(task).reattachable === true,
    }),
    spec: t.expose('spec', { description: 'Everything the task was created with, as stored', type: 'JSON' }),
    runId: t.exposeString('runId', { nullable: true, description: 'bg_<uuidv7>: names the current attempt’s artifact directory' }),
    artifactDir: t.string({ description: 'Directory of the current attempt’s artifacts in the session’s files, `/.background/<runId>/`', nullable: true, resolve: (task) => (task.runId ? artifactDirOf(task.runId) : null) }),
    logPath: t.exposeString('logPath', { description: 'Path of the current attempt’s `output.log` in the session’s files', nullable: true }),
    resultPath: t.exposeString('resultPath', { description: 'Path of the current attempt’s `result.json` in the session’s files', nullable: true }),
    progress: t.field({ description: 'The latest progress the run reported', type: ProgressRef, nullable: true, resolve: (task) => (task.progress as ToolProgress | null) ?? null }),
    outputTail: t.exposeString('outputTail', { description: 'The last 2,048 characters of output' }),
    outputSize: t.exposeInt('outputSize', { description: 'Characters of output in the log (at most 262,144)' }),
    outputTruncated: t.exposeBoolean('outputTruncated', { description: 'The log reached its cap and later output was dropped' }),
    attempt: t.exposeInt('attempt', { description: 'The current attempt, from 1 (a queued run is at 1 before it starts; a run re-attached after losing its worker has the next one)' }),
    workerId: t.exposeString('workerId', { description: 'The worker running the current attempt', nullable: true }),
    heartbeatAt: t.expose('heartbeatAt', { description: 'When the running attempt last said it was alive', type: 'DateTime', nullable: true }),
    cancelRequestedAt: t.expose('cancelRequestedAt', { description: 'When a cancel was asked for while it ran; null when none was', type: 'DateTime', nullable: true }),
    summary: t.exposeString('summary', { description: 'How the task ended, in a line for people', nullable: true }),
    error: t.exposeString('error', { description: 'FAILED: the error', nullable: true }),
    createdAt: t.expose('createdAt', { description: 'When the task was created', type: 'DateTime' }),
    startedAt: t.expose('startedAt', { description: 'When its current attempt started', type: 'DateTime', nullable: true }),
    finishedAt: t.expose('finishedAt', { description: 'When it reached a final state', type: 'DateTime', nullable: true }),
    eventCursor: t.string({
      nullable: true,
      description:
        'Session cursor just before the task’s first event: `taskEvents(taskId, after: eventCursor, completeWhenDone: true)` delivers all of them and completes. When its first events are already past the retention (a long run), the session’s start, so that a stream from it begins with CursorExpired; null for a finished task none of whose events are retained.',
      resolve: async (task, _args, context) => {
        const start = await requestLoader(context, 'task-event-starts', (ids) => context.services.tasks.eventStarts(ids)).load(task.id);
        return start ? encodeEventCursor(start.sessionId, start.seq) : null;
      },
    }),
    schedule: t.field({ type: ScheduleRef, nullable: true, description: 'The schedule this run was started by (or, for a monitor, the one it tracks)', resolve: (task) => task.scheduleId }),
    session: t.field({ description: 'The session the task belongs to', type: SessionRef, resolve: (task) => task.sessionId }),
  }),
});

interface ScheduleSpecView {
  tool?: string;
  args?: unknown;
  title?: string;
  signalOnCompletion?: boolean;
}
const scheduleSpec = (schedule: Schedule) => schedule.spec as ScheduleSpecView;

ScheduleRef.implement({
  description: 'Starts background runs on a cron schedule or once at a given time.',
  fields: (t) => ({
    scheduleId: t.exposeString('id', { description: 'The raw schedule id' }),
    type: t.field({ description: 'Recurring (CRON) or one-shot (ONCE)', type: ScheduleTypeEnum, resolve: (schedule) => schedule.type as 'CRON' | 'ONCE' }),
    cronExpression: t.exposeString('cronExpression', { description: 'CRON: the 5-field cron expression', nullable: true }),
    scheduledAt: t.expose('scheduledAt', { description: 'ONCE: when it fires', type: 'DateTime', nullable: true }),
    timezone: t.exposeString('timezone', { description: 'IANA timezone the cron expression is read in' }),
    nextTriggerAt: t.expose('nextTriggerAt', { description: 'When it fires next; null while paused and once it will not fire again', type: 'DateTime', nullable: true }),
    lastTriggerAt: t.expose('lastTriggerAt', { description: 'When it last fired; null before the first time', type: 'DateTime', nullable: true }),
    enabled: t.exposeBoolean('enabled', { description: 'False once cancelled (or a one-shot schedule has fired)' }),
    status: t.field({ type: ScheduleStatusEnum, description: 'ACTIVE, PAUSED, CANCELED or FINISHED', resolve: (schedule) => scheduleStatus(schedule) }),
    paused: t.boolean({ description: 'Whether the schedule is paused: enabled, but firing nothing until resumed', resolve: (schedule) => scheduleStatus(schedule) === 'PAUSED' }),
    pausedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the schedule was paused (null unless it is paused)',
      resolve: (schedule) => (scheduleStatus(schedule) === 'PAUSED' ? schedule.pausedAt : null),
    }),
    tool: t.string({ description: 'The tool each run calls', resolve: (schedule) => scheduleSpec(schedule).tool ?? '' }),
    title: t.string({ description: 'The title of each run', resolve: (schedule) => scheduleSpec(schedule).title ?? '' }),
    args: t.field({ description: 'The arguments object of each run', type: 'JSON', resolve: (schedule) => scheduleSpec(schedule).args ?? {} }),
    signalOnCompletion: t.boolean({ description: 'Whether each finished run adds a session message', resolve: (schedule) => scheduleSpec(schedule).signalOnCompletion !== false }),
    description: t.string({
      description: 'What the session is told when the schedule fires (the seed’s monitor description: title and the spawn_background payload)',
      resolve: (schedule) => scheduleDescription(scheduleSpec(schedule) as Partial<ScheduleSpec>),
    }),
    taskId: t.exposeString('taskId', { nullable: true, description: 'The raw id of the monitor task' }),
    task: t.field({ type: TaskRef, nullable: true, description: 'The monitor task', resolve: (schedule) => schedule.taskId }),
    runs: t.loadableGroup({
      type: TaskRef,
      description: 'The latest runs this schedule started (at most 50), newest first',
      load: (scheduleIds: string[], { services }) => services.tasks.runsOfSchedules(scheduleIds),
      group: (task) => (typeof task === 'string' ? task : ((task as Task).scheduleId ?? '')),
      resolve: (schedule) => schedule.id,
    }),
    createdAt: t.expose('createdAt', { description: 'When the schedule was created', type: 'DateTime' }),
    canceledAt: t.expose('canceledAt', { description: 'When it was cancelled; null unless it was', type: 'DateTime', nullable: true }),
    session: t.field({ description: 'The session its runs belong to', type: SessionRef, resolve: (schedule) => schedule.sessionId }),
  }),
});

type RunOutcome = Extract<SpawnOutcome, { kind: 'RUN' }>;
type ScheduledOutcome = Extract<SpawnOutcome, { kind: 'SCHEDULED' }>;

export const BackgroundRunRef = builder.objectRef<RunOutcome>('BackgroundRun').implement({
  description: 'A background run that was started; follow it with `taskEvents(taskId:)`.',
  fields: (t) => ({
    runId: t.string({ description: 'Id of the run (bg_<uuidv7>), naming its artifact directory', resolve: ({ task }) => task.runId ?? '' }),
    taskId: t.string({ description: 'The raw id of the task that tracks the run', resolve: ({ task }) => task.id }),
    title: t.string({ description: 'The run’s title', resolve: ({ task }) => task.title ?? '' }),
    tool: t.string({ description: 'The tool it runs', resolve: ({ task }) => task.tool ?? '' }),
    status: t.field({ description: 'The task’s state when the answer was made', type: TaskStateEnum, resolve: ({ task }) => task.state }),
    signalOnCompletion: t.exposeBoolean('signalOnCompletion', { description: 'Whether a session message is added when it finishes' }),
    artifactDir: t.string({ description: 'Directory of its artifacts in the session’s files', resolve: ({ task }) => artifactDirOf(task.runId ?? '') }),
    eventCursor: t.string({
      nullable: true,
      description: 'Session cursor just before the run’s first event: subscribe with `taskEvents(taskId, after: eventCursor, completeWhenDone: true)`',
      resolve: async ({ task }, _args, context) => {
        const start = await requestLoader(context, 'task-event-starts', (ids) => context.services.tasks.eventStarts(ids)).load(task.id);
        return start ? encodeEventCursor(start.sessionId, start.seq) : null;
      },
    }),
    logPath: t.string({ description: 'Path of its `output.log`', resolve: ({ task }) => task.logPath ?? '' }),
    resultPath: t.string({ description: 'Path of its `result.json`, written when it finishes', resolve: ({ task }) => task.resultPath ?? '' }),
    task: t.field({ description: 'The task that tracks the run', type: TaskRef, resolve: ({ task }) => task }),
  }),
});

export const ScheduledMonitorRef = builder.objectRef<ScheduledOutcome>('ScheduledMonitor').implement({
  description: 'A schedule that was created (it starts runs later), with the monitor task that tracks it.',
  fields: (t) => ({
    scheduleId: t.string({ description: 'The raw id of the schedule', resolve: ({ schedule }) => schedule.id }),
    type: t.field({ description: 'Recurring (CRON) or one-shot (ONCE)', type: ScheduleTypeEnum, resolve: ({ schedule }) => schedule.type as 'CRON' | 'ONCE' }),
    cronExpression: t.string({ description: 'CRON: the 5-field cron expression', nullable: true, resolve: ({ schedule }) => schedule.cronExpression }),
    scheduledAt: t.field({ description: 'ONCE: when it fires', type: 'DateTime', nullable: true, resolve: ({ schedule }) => schedule.scheduledAt }),
    timezone: t.string({ description: 'IANA timezone the cron expression is read in', resolve: ({ schedule }) => schedule.timezone }),
    nextTriggerAt: t.field({ description: 'When it fires first', type: 'DateTime', nullable: true, resolve: ({ schedule }) => schedule.nextTriggerAt }),
    enabled: t.boolean({ description: 'Whether the schedule is active', resolve: ({ schedule }) => schedule.enabled }),
    taskId: t.string({ description: 'The raw id of the monitor task', resolve: ({ task }) => task.id }),
    title: t.string({ description: 'The title of each run', resolve: ({ task }) => task.title ?? '' }),
    tool: t.string({ description: 'The tool each run calls', resolve: ({ task }) => task.tool ?? '' }),
    signalOnCompletion: t.exposeBoolean('signalOnCompletion', { description: 'Whether each finished run adds a session message' }),
    schedule: t.field({ description: 'The schedule', type: ScheduleRef, resolve: ({ schedule }) => schedule }),
    task: t.field({ description: 'The monitor task, RUNNING while the schedule is active', type: TaskRef, resolve: ({ task }) => task }),
  }),
});

export const ScheduleInput = builder.inputType('BackgroundScheduleInput', {
  description: 'Exactly one of cronExpression (recurring) or scheduledAt (one-shot)',
  fields: (t) => ({
    cronExpression: t.string({ description: "5-field cron expression, e.g. '*/10 * * * *'" }),
    scheduledAt: t.string({ description: "RFC 3339 date-time, e.g. '2026-04-16T15:30:00Z'" }),
    timezone: t.string({ description: 'IANA timezone (default UTC)' }),
  }),
});
