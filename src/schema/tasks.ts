// Background runs (DESIGN.md §4): tasks, schedules, the spawnBackground mutation and the
// session's files and messages the runs leave behind.
import { errorTypeMap } from '@pothos/plugin-errors';
import { resolveOffsetConnection } from '@pothos/plugin-relay';
import { type ScheduleSpec, scheduleDescription, type SpawnOutcome } from '../domain/background.js';
import { artifactDirOf } from '../domain/background-output.js';
import {
  BackgroundNotSupportedError,
  InvalidArgumentsError,
  InvalidScheduleError,
  LimitExceededError,
  NotFoundError,
  UnknownToolError,
  ValidationError,
} from '../domain/errors.js';
import { specOf } from '../domain/task-transitions.js';
import type { Schedule, SessionFile, SessionMessage, Task } from '../generated/prisma/client.js';
import {
  cancelSchedule,
  cancelTask,
  findTask,
  listSchedules,
  listSessionFiles,
  listSessionMessages,
  listTasks,
  loadSchedules,
  loadRunsOfSchedules,
  loadTasks,
  spawnBackground,
} from '../resolvers/tasks.js';
import { builder } from './builder.js';
import { BackgroundNotSupportedErrorRef, InvalidArgumentsErrorRef, InvalidScheduleErrorRef, UnknownToolErrorRef } from './errors.js';
import { ProgressRef } from './events.js';
import { SessionRef } from './session.js';

export const TaskStateEnum = builder.enumType('TaskState', {
  description: 'QUEUED → RUNNING → SUCCEEDED | FAILED | CANCELED (a run re-attached after worker loss is QUEUED again, with the next attempt)',
  values: ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELED'] as const,
});
export const ScheduleTypeEnum = builder.enumType('ScheduleType', {
  description: 'CRON: recurring (cronExpression); ONCE: one-shot (scheduledAt)',
  values: ['CRON', 'ONCE'] as const,
});

export const TaskRef = builder.loadableNodeRef<Task | Error, string, string>('Task', {
  id: { resolve: (task) => task.id },
  load: (ids, context) => loadTasks(context, ids),
});

export const ScheduleRef = builder.loadableNodeRef<Schedule | Error, string, string>('Schedule', {
  id: { resolve: (schedule) => schedule.id },
  load: (ids, context) => loadSchedules(context, ids),
});

TaskRef.implement({
  description: 'Tracks long work: a background run (kind `background_tool`) or the monitor of a schedule (kind `monitor`).',
  fields: (t) => ({
    taskId: t.exposeString('id', { description: 'The raw task id (the `id` field is its Relay global id)' }),
    kind: t.exposeString('kind'),
    state: t.expose('state', { type: TaskStateEnum }),
    stateDetail: t.exposeString('stateDetail', { nullable: true, description: 'Status text' }),
    title: t.exposeString('title', { nullable: true }),
    tool: t.exposeString('tool', { nullable: true }),
    args: t.field({ type: 'JSON', nullable: true, resolve: (task) => specOf(task).args ?? null }),
    signalOnCompletion: t.boolean({ resolve: (task) => specOf(task).signalOnCompletion !== false }),
    reattachable: t.boolean({
      description: 'Recorded at spawn: the tool was idempotent or readonly then (recovery checks the live definition again)',
      resolve: (task) => specOf(task).reattachable === true,
    }),
    spec: t.expose('spec', { type: 'JSON' }),
    runId: t.exposeString('runId', { nullable: true, description: 'bg_<uuidv7>: names the current attempt’s artifact directory' }),
    artifactDir: t.string({ nullable: true, resolve: (task) => (task.runId ? artifactDirOf(task.runId) : null) }),
    logPath: t.exposeString('logPath', { nullable: true }),
    resultPath: t.exposeString('resultPath', { nullable: true }),
    progress: t.field({ type: ProgressRef, nullable: true, resolve: (task) => (task.progress as Record<string, unknown> | null) ?? null }),
    outputTail: t.exposeString('outputTail', { description: 'The last 2,048 characters of output' }),
    outputSize: t.exposeInt('outputSize', { description: 'Characters of output in the log (at most 262,144)' }),
    outputTruncated: t.exposeBoolean('outputTruncated'),
    attempt: t.exposeInt('attempt'),
    workerId: t.exposeString('workerId', { nullable: true }),
    heartbeatAt: t.expose('heartbeatAt', { type: 'DateTime', nullable: true }),
    cancelRequestedAt: t.expose('cancelRequestedAt', { type: 'DateTime', nullable: true }),
    summary: t.exposeString('summary', { nullable: true }),
    error: t.exposeString('error', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
    schedule: t.field({ type: ScheduleRef, nullable: true, description: 'The schedule this run was started by (or, for a monitor, the one it tracks)', resolve: (task) => task.scheduleId }),
    session: t.field({ type: SessionRef, resolve: (task) => task.sessionId }),
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
    type: t.field({ type: ScheduleTypeEnum, resolve: (schedule) => schedule.type as 'CRON' | 'ONCE' }),
    cronExpression: t.exposeString('cronExpression', { nullable: true }),
    scheduledAt: t.expose('scheduledAt', { type: 'DateTime', nullable: true }),
    timezone: t.exposeString('timezone'),
    nextTriggerAt: t.expose('nextTriggerAt', { type: 'DateTime', nullable: true }),
    lastTriggerAt: t.expose('lastTriggerAt', { type: 'DateTime', nullable: true }),
    enabled: t.exposeBoolean('enabled'),
    tool: t.string({ resolve: (schedule) => scheduleSpec(schedule).tool ?? '' }),
    title: t.string({ resolve: (schedule) => scheduleSpec(schedule).title ?? '' }),
    args: t.field({ type: 'JSON', resolve: (schedule) => scheduleSpec(schedule).args ?? {} }),
    signalOnCompletion: t.boolean({ resolve: (schedule) => scheduleSpec(schedule).signalOnCompletion !== false }),
    description: t.string({
      description: 'What the session is told when the schedule fires (the seed’s monitor description: title and the spawn_background payload)',
      resolve: (schedule) => scheduleDescription(scheduleSpec(schedule) as Partial<ScheduleSpec>),
    }),
    taskId: t.exposeString('taskId', { nullable: true, description: 'The raw id of the monitor task' }),
    task: t.field({ type: TaskRef, nullable: true, description: 'The monitor task', resolve: (schedule) => schedule.taskId }),
    runs: t.loadableGroup({
      type: TaskRef,
      description: 'The latest runs this schedule started (at most 50), newest first',
      load: (scheduleIds: string[], context) => loadRunsOfSchedules(context, scheduleIds),
      group: (task) => (typeof task === 'string' ? task : ((task as Task).scheduleId ?? '')),
      resolve: (schedule) => schedule.id,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    canceledAt: t.expose('canceledAt', { type: 'DateTime', nullable: true }),
    session: t.field({ type: SessionRef, resolve: (schedule) => schedule.sessionId }),
  }),
});

type RunOutcome = Extract<SpawnOutcome, { kind: 'RUN' }>;
type ScheduledOutcome = Extract<SpawnOutcome, { kind: 'SCHEDULED' }>;

const BackgroundRunRef = builder.objectRef<RunOutcome>('BackgroundRun').implement({
  description: 'A background run that was started; follow it with `taskEvents(taskId:)`.',
  fields: (t) => ({
    runId: t.string({ resolve: ({ task }) => task.runId ?? '' }),
    taskId: t.string({ resolve: ({ task }) => task.id }),
    title: t.string({ resolve: ({ task }) => task.title ?? '' }),
    tool: t.string({ resolve: ({ task }) => task.tool ?? '' }),
    status: t.field({ type: TaskStateEnum, resolve: ({ task }) => task.state }),
    signalOnCompletion: t.exposeBoolean('signalOnCompletion'),
    artifactDir: t.string({ resolve: ({ task }) => artifactDirOf(task.runId ?? '') }),
    logPath: t.string({ resolve: ({ task }) => task.logPath ?? '' }),
    resultPath: t.string({ resolve: ({ task }) => task.resultPath ?? '' }),
    task: t.field({ type: TaskRef, resolve: ({ task }) => task }),
  }),
});

const ScheduledMonitorRef = builder.objectRef<ScheduledOutcome>('ScheduledMonitor').implement({
  description: 'A schedule that was created (it starts runs later), with the monitor task that tracks it.',
  fields: (t) => ({
    scheduleId: t.string({ resolve: ({ schedule }) => schedule.id }),
    type: t.field({ type: ScheduleTypeEnum, resolve: ({ schedule }) => schedule.type as 'CRON' | 'ONCE' }),
    cronExpression: t.string({ nullable: true, resolve: ({ schedule }) => schedule.cronExpression }),
    scheduledAt: t.field({ type: 'DateTime', nullable: true, resolve: ({ schedule }) => schedule.scheduledAt }),
    timezone: t.string({ resolve: ({ schedule }) => schedule.timezone }),
    nextTriggerAt: t.field({ type: 'DateTime', nullable: true, resolve: ({ schedule }) => schedule.nextTriggerAt }),
    enabled: t.boolean({ resolve: ({ schedule }) => schedule.enabled }),
    taskId: t.string({ resolve: ({ task }) => task.id }),
    title: t.string({ resolve: ({ task }) => task.title ?? '' }),
    tool: t.string({ resolve: ({ task }) => task.tool ?? '' }),
    signalOnCompletion: t.exposeBoolean('signalOnCompletion'),
    schedule: t.field({ type: ScheduleRef, resolve: ({ schedule }) => schedule }),
    task: t.field({ type: TaskRef, resolve: ({ task }) => task }),
  }),
});

const REFUSAL_TYPES = new Map<unknown, string>([
  [LimitExceededError, 'LimitExceededError'],
  [InvalidScheduleError, 'InvalidScheduleError'],
  [InvalidArgumentsError, 'InvalidArgumentsError'],
  [BackgroundNotSupportedError, 'BackgroundNotSupportedError'],
  [UnknownToolError, 'UnknownToolError'],
  [NotFoundError, 'NotFoundError'],
  [ValidationError, 'ValidationError'],
]);

const SpawnBackgroundResult = builder.unionType('SpawnBackgroundResult', {
  description: 'The run that was started, the schedule that was created, or why nothing was (every refusal implements Error).',
  types: [
    BackgroundRunRef,
    ScheduledMonitorRef,
    LimitExceededError,
    InvalidScheduleErrorRef,
    InvalidArgumentsErrorRef,
    BackgroundNotSupportedErrorRef,
    UnknownToolErrorRef,
    NotFoundError,
    ValidationError,
  ],
  resolveType: (value) => {
    const errorType = errorTypeMap.get(value as object);
    if (errorType) return REFUSAL_TYPES.get(errorType)!;
    return (value as SpawnOutcome).kind === 'RUN' ? 'BackgroundRun' : 'ScheduledMonitor';
  },
});

const ScheduleInput = builder.inputType('BackgroundScheduleInput', {
  description: 'Exactly one of cronExpression (recurring) or scheduledAt (one-shot)',
  fields: (t) => ({
    cronExpression: t.string({ description: "5-field cron expression, e.g. '*/10 * * * *'" }),
    scheduledAt: t.string({ description: "RFC 3339 date-time, e.g. '2026-04-16T15:30:00Z'" }),
    timezone: t.string({ description: 'IANA timezone (default UTC)' }),
  }),
});

const SessionFileRef = builder.objectRef<SessionFile>('SessionFile').implement({
  description: 'A file or directory of the session file store.',
  fields: (t) => ({
    path: t.exposeString('path'),
    name: t.string({ resolve: (file) => file.path.slice(file.path.lastIndexOf('/') + 1) }),
    isDirectory: t.exposeBoolean('isDirectory'),
    size: t.exposeInt('size', { description: 'UTF-8 bytes of the content' }),
    content: t.exposeString('content', { nullable: true, description: 'Text content (null for directories)' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const SessionMessageRef = builder.objectRef<SessionMessage>('SessionMessage').implement({
  description: 'A message added to the session, e.g. by a finished background run (kind `background_run`).',
  fields: (t) => ({
    messageId: t.exposeString('id'),
    kind: t.exposeString('kind'),
    text: t.exposeString('text'),
    data: t.expose('data', { type: 'JSON', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  task: t.field({
    type: TaskRef,
    nullable: true,
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true, description: 'Task id (raw or Relay global id)' }) },
    resolve: (_root, args, context) => findTask(context, String(args.id)).catch(() => null),
  }),
  tasks: t.connection({
    type: TaskRef,
    authScopes: { authenticated: true },
    description: 'Tasks of a session, newest first',
    args: {
      sessionId: t.arg.id({ required: true }),
      state: t.arg({ type: TaskStateEnum }),
      kind: t.arg.string({ description: '`background_tool` or `monitor`' }),
    },
    resolve: (_root, args, context) =>
      resolveOffsetConnection({ args }, ({ offset, limit }) => listTasks(context, { sessionId: String(args.sessionId), state: args.state, kind: args.kind }, offset, limit)),
  }),
  schedules: t.field({
    type: [ScheduleRef],
    authScopes: { authenticated: true },
    description: 'Schedules of a session, oldest first',
    args: { sessionId: t.arg.id({ required: true }), enabled: t.arg.boolean() },
    resolve: (_root, args, context) => listSchedules(context, { sessionId: String(args.sessionId), enabled: args.enabled }),
  }),
  sessionFiles: t.field({
    type: [SessionFileRef],
    authScopes: { authenticated: true },
    description: 'The file or directory at `path` (default `/`) and everything below it, with contents (at most 1,000 entries)',
    args: { sessionId: t.arg.id({ required: true }), path: t.arg.string() },
    resolve: (_root, args, context) => listSessionFiles(context, { sessionId: String(args.sessionId), path: args.path }),
  }),
  sessionMessages: t.field({
    type: [SessionMessageRef],
    authScopes: { authenticated: true },
    description: 'Messages of a session, oldest first',
    args: { sessionId: t.arg.id({ required: true }), kind: t.arg.string() },
    resolve: (_root, args, context) => listSessionMessages(context, { sessionId: String(args.sessionId), kind: args.kind }),
  }),
}));

builder.mutationFields((t) => ({
  spawnBackground: t.field({
    type: SpawnBackgroundResult,
    authScopes: { authenticated: true },
    description:
      'Starts a background-capable tool as a background run (at most 5 active per session, 64 per worker), or with `schedule` creates a schedule (at most 10 active per session) whose monitor task starts runs later.',
    args: {
      sessionId: t.arg.id({ required: true }),
      tool: t.arg.string({ required: true }),
      args: t.arg({ type: 'JSON', required: true, description: 'Arguments object of the tool' }),
      title: t.arg.string(),
      signalOnCompletion: t.arg.boolean({ defaultValue: true, description: 'Add a session message when the run finishes' }),
      schedule: t.arg({ type: ScheduleInput }),
    },
    resolve: (_root, args, context) =>
      spawnBackground(context, {
        sessionId: String(args.sessionId),
        tool: args.tool,
        args: args.args,
        title: args.title,
        signalOnCompletion: args.signalOnCompletion,
        schedule: args.schedule ?? null,
      }),
  }),
  cancelTask: t.field({
    type: TaskRef,
    authScopes: { authenticated: true },
    description: 'Cancels a background run (idempotent): a queued run ends at once, a running one is stopped cooperatively. Cancelling a monitor cancels its schedule.',
    errors: {},
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, context) => cancelTask(context, String(args.id)),
  }),
  cancelSchedule: t.field({
    type: ScheduleRef,
    authScopes: { authenticated: true },
    description: 'Disables a schedule (idempotent) and ends its monitor task; runs it already started go on.',
    errors: {},
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, context) => cancelSchedule(context, String(args.id)),
  }),
}));
