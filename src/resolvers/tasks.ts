// Root fields of background runs and schedules.
import {
  BackgroundNotSupportedError,
  InvalidArgumentsError,
  InvalidScheduleError,
  InvalidStateError,
  LimitExceededError,
  NotFoundError,
  orNull,
  UnknownToolError,
  ValidationError,
} from '../model/errors.js';
import { builder } from '../schema/builder.js';
import { pageRequest } from '../model/keyset.js';
import { MAX_IDENTIFIER_LENGTH } from '../model/text.js';
import { byTime, keysetConnection } from '../schema/connections.js';
import { BackgroundRunRef, ScheduleConnectionRef, ScheduledMonitorRef, ScheduleInput, ScheduleRef, TaskConnectionRef, TaskRef, TaskStateEnum } from '../schema/tasks.js';
import { localId, optionalLocalId } from './global-ids.js';

builder.queryFields((t) => ({
  task: t.field({
    description: 'A task by its id; null when there is none',
    type: TaskRef,
    nullable: true,
    authScopes: { reader: true },
    args: { id: t.arg.id({ required: true, description: 'Task id (raw or Relay global id)' }) },
    resolve: (_root, args, { services, viewer }) => orNull(() => services.tasks.findTask(viewer.tenantId, localId(args.id, 'Task'))),
  }),
  tasks: t.connection(
    {
      type: TaskRef,
      authScopes: { reader: true },
      description: 'The tenant’s tasks (or one session’s), newest first; pages of up to 100 with stable cursors',
      args: {
        sessionId: t.arg.id({ description: 'Only tasks of this session' }),
        state: t.arg({ type: TaskStateEnum, description: 'Only tasks in this state' }),
        kind: t.arg.string({ description: '`background_tool` or `monitor`' }),
        scheduleId: t.arg.id({ description: 'Only runs started by this schedule (and its monitor)' }),
      },
      resolve: async (_root, args, { services, viewer }) => {
        const request = pageRequest(args, 'tasks');
        const filter = { sessionId: optionalLocalId(args.sessionId, 'Session'), state: args.state, kind: args.kind, scheduleId: optionalLocalId(args.scheduleId, 'Schedule') };
        const { page, count } = await services.tasks.listTasks(viewer.tenantId, filter, request);
        return keysetConnection(page, request, byTime((task) => task.createdAt), count);
      },
    },
    TaskConnectionRef,
  ),
  schedules: t.connection(
    {
      type: ScheduleRef,
      authScopes: { reader: true },
      description: 'The tenant’s schedules (or one session’s), oldest first; pages of up to 100 with stable cursors',
      args: {
        sessionId: t.arg.id({ description: 'Only schedules of this session' }),
        enabled: t.arg.boolean({ description: 'Only enabled (true) or disabled (false) schedules' }),
        paused: t.arg.boolean({ description: 'Only paused (true) or not paused (false) schedules' }),
      },
      resolve: async (_root, args, { services, viewer }) => {
        const request = pageRequest(args, 'schedules');
        const { page, count } = await services.tasks.listSchedules(viewer.tenantId, { sessionId: optionalLocalId(args.sessionId, 'Session'), enabled: args.enabled, paused: args.paused }, request);
        return keysetConnection(page, request, byTime((schedule) => schedule.createdAt), count);
      },
    },
    ScheduleConnectionRef,
  ),
}));

builder.mutationFields((t) => ({
  spawnBackground: t.errorUnionField({
    // The refusals, most specific first; the errors plugin adds the default error types.
    types: [
      BackgroundRunRef,
      ScheduledMonitorRef,
      LimitExceededError,
      InvalidScheduleError,
      InvalidArgumentsError,
      BackgroundNotSupportedError,
      UnknownToolError,
      NotFoundError,
      ValidationError,
    ],
    union: {
      name: 'SpawnBackgroundResult',
      description: 'The run that was started, the schedule that was created, or why nothing was (every refusal implements Error).',
      // Error members are resolved by the errors plugin first.
      resolveType: (outcome) => ('kind' in outcome && outcome.kind === 'RUN' ? BackgroundRunRef : ScheduledMonitorRef),
    },
    authScopes: { submitter: true },
    description:
      'Starts a background-capable tool as a background run (at most 5 active per session, 64 per worker), or with `schedule` creates a schedule (at most 10 active per session) whose monitor task starts runs later.',
    args: {
      sessionId: t.arg.id({ description: 'The session (its Relay id or raw id)', required: true }),
      tool: t.arg.string({ description: `Name of a background-capable tool (\`hints.supportsBackground\`); one longer than ${MAX_IDENTIFIER_LENGTH} characters is a ValidationError naming it`, required: true }),
      args: t.arg({ type: 'JSON', required: true, description: 'Arguments object of the tool' }),
      title: t.arg.string({ description: 'A title for people (default: the tool’s display name)' }),
      signalOnCompletion: t.arg.boolean({ defaultValue: true, description: 'Add a session message when the run finishes' }),
      schedule: t.arg({ description: 'Instead of running now, create a schedule that starts runs later', type: ScheduleInput }),
    },
    resolve: (_root, args, { services, viewer }) =>
      services.background.spawn({
        tenantId: viewer.tenantId,
        sessionId: localId(args.sessionId, 'Session'),
        tool: args.tool,
        args: args.args,
        title: args.title,
        signalOnCompletion: args.signalOnCompletion,
        schedule: args.schedule ?? null,
      }),
  }),
  cancelTask: t.field({
    type: TaskRef,
    authScopes: { submitter: true },
    description: 'Cancels a background run (idempotent): a queued run ends at once, a running one is stopped cooperatively. Cancelling a monitor cancels its schedule.',
    errors: { types: [NotFoundError] },
    args: { id: t.arg.id({ description: 'The task (its Relay id or raw id)', required: true }) },
    resolve: (_root, args, { services, viewer }) => services.background.cancelTask(viewer.tenantId, localId(args.id, 'Task')),
  }),
  cancelSchedule: t.field({
    type: ScheduleRef,
    authScopes: { submitter: true },
    description: 'Disables a schedule (idempotent) and ends its monitor task; runs it already started go on.',
    errors: { types: [NotFoundError] },
    args: { id: t.arg.id({ description: 'The schedule (its Relay id or raw id)', required: true }) },
    resolve: (_root, args, { services, viewer }) => services.background.cancelSchedule(viewer.tenantId, localId(args.id, 'Schedule')),
  }),
  pauseSchedule: t.field({
    type: ScheduleRef,
    authScopes: { submitter: true },
    description:
      'Pauses a schedule (idempotent): it fires nothing until resumeSchedule, and still counts as active; runs it already started go on. A canceled or finished schedule is an InvalidStateError.',
    errors: { types: [NotFoundError, InvalidStateError] },
    args: { id: t.arg.id({ required: true, description: 'Schedule id (raw or Relay global id)' }) },
    resolve: (_root, args, { services, viewer }) => services.background.pauseSchedule(viewer.tenantId, localId(args.id, 'Schedule')),
  }),
  resumeSchedule: t.field({
    type: ScheduleRef,
    authScopes: { submitter: true },
    description:
      'Resumes a paused schedule (idempotent): its next trigger is computed from now (a one-shot whose time passed while paused fires at once). A canceled or finished schedule is an InvalidStateError.',
    errors: { types: [NotFoundError, InvalidStateError] },
    args: { id: t.arg.id({ required: true, description: 'Schedule id (raw or Relay global id)' }) },
    resolve: (_root, args, { services, viewer }) => services.background.resumeSchedule(viewer.tenantId, localId(args.id, 'Schedule')),
  }),
  triggerSchedule: t.field({
    type: TaskRef,
    authScopes: { submitter: true },
    description:
      'Fires a schedule once now (paused or not) and answers the run it started, under the same limits as a spawn; its cadence and next trigger do not change. A canceled or finished schedule is an InvalidStateError.',
    errors: { types: [LimitExceededError, InvalidArgumentsError, BackgroundNotSupportedError, UnknownToolError, InvalidStateError, NotFoundError, ValidationError] },
    args: { id: t.arg.id({ required: true, description: 'Schedule id (raw or Relay global id)' }) },
    resolve: (_root, args, { services, viewer }) => services.background.triggerSchedule(viewer.tenantId, localId(args.id, 'Schedule')),
  }),
}));
