// Background runs and their schedules (DESIGN.md §4), the API side: spawning (the mutation and
// the spawn_background tool share `spawn`), cancelling, and firing schedules. Limits are taken
// in the same transaction that creates the run, under the session row lock (per session) and a
// transaction-scoped advisory lock (per worker capacity, per tenant), so concurrent spawns in any
// number of processes cannot overshoot them.
import type { Config } from '../../config.js';
import type { Schedule, Task } from '../../generated/prisma/client.js';
import type { Logger } from '../../logger.js';
import type { ResolvedTool, ToolRegistry } from '../../tools/registry.js';
import { mayRunTwice, overlongToolName } from '../../tools/types.js';
import { validateArgs } from '../../tools/validate-args.js';
import { type Broadcast, publishCancel } from '../broadcast.js';
import { artifactDirOf, newRunArtifacts } from './background-output.js';
import {
  BackgroundNotSupportedError,
  DomainError,
  InvalidArgumentsError,
  InvalidStateError,
  LimitExceededError,
  UnknownToolError,
  ValidationError,
} from '../../model/errors.js';
import type { EventLog, PrismaWriteScope } from '../event-log.js';
import type { SessionService } from '../sessions/sessions.js';
import type { LiveTaskWorkers, WorkQueue } from '../work.js';
import { type FailureClass, ToolFailureError } from '../../model/outcome.js';
import { isRfc3339, MAX_ACTIVE_SCHEDULES_PER_SESSION, nextCronTrigger, nextTriggerOnResume, type ParsedSchedule, parseSchedule, scheduleStatus } from './schedules.js';
import {
  type BackgroundSpec,
  createTask,
  finishTask,
  requestTaskCancel,
  setTaskStatus,
  TASK_KINDS,
} from './task-transitions.js';
import type { TaskStore } from './store.js';
import type { TenantLimitsService } from '../tenants/tenant-limits.js';
import { jsonText } from '../../model/tool-value.js';
import { newRunId } from '../../model/ids.js';
import { toStorable, unacceptableText } from '../../model/storable-json.js';
import { longerThan } from '../../model/text.js';

export const SPAWN_BACKGROUND_TOOL = 'spawn_background';
export const MAX_ACTIVE_BACKGROUND_RUNS_PER_SESSION = 5;
/** A run lost this many times is failed as orphaned instead of re-attached again. */
export const MAX_RUN_ATTEMPTS = 5;
const MAX_TITLE_LENGTH = 200;

export const LIMITS = {
  perSession: 'background_runs_per_session',
  perWorker: 'background_runs_per_worker',
  perTenant: 'background_runs_per_tenant',
  schedules: 'schedules_per_session',
} as const;

export interface SpawnInput {
  tenantId: string;
  sessionId: string;
  tool: unknown;
  args: unknown;
  title?: unknown;
  signalOnCompletion?: unknown;
  /** `{cronExpression | scheduledAt, timezone?}`; absent or null for an immediate run. */
  schedule?: unknown;
}

export type SpawnOutcome =
  | { kind: 'RUN'; task: Task; signalOnCompletion: boolean }
  | { kind: 'SCHEDULED'; schedule: Schedule; task: Task; signalOnCompletion: boolean };

/** What a schedule remembers to start each time it fires. */
export interface ScheduleSpec {
  tool: string;
  args: Record<string, unknown>;
  title: string;
  signalOnCompletion: boolean;
}

export interface BackgroundServiceDeps {
  config: Config;
  eventLog: EventLog;
  registry: ToolRegistry;
  work: WorkQueue;
  bus: Broadcast;
  workers: LiveTaskWorkers;
  logger: Logger;
  sessions: SessionService;
  tasks: TaskStore;
  tenantLimits: TenantLimitsService;
}

interface Target {
  name: string;
  tool: ResolvedTool;
  args: Record<string, unknown>;
}

interface RunRequest {
  tenantId: string;
  sessionId: string;
  target: Target;
  title: string;
  signalOnCompletion: boolean;
  scheduleId?: string | null;
  fireKey?: string | null;
}

type Admission = { task: Task; duplicate: boolean } | { refusal: LimitExceededError };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export class BackgroundService {
  constructor(private readonly deps: BackgroundServiceDeps) {}

  /** Starts a background run now, or creates a schedule (with its monitor task) that starts them later. */
  async spawn(input: SpawnInput): Promise<SpawnOutcome> {
    const { config } = this.deps;
    await this.deps.sessions.assertExists(input.tenantId, input.sessionId);
    const target = await this.checkTarget(input.tenantId, input.tool, input.args);
    const title = normalizeTitle(input.title, target.tool.definition.displayName);
    if (input.signalOnCompletion !== undefined && input.signalOnCompletion !== null && typeof input.signalOnCompletion !== 'boolean') {
      throw new ValidationError('signalOnCompletion must be a boolean', 'signalOnCompletion');
    }
    const signalOnCompletion = (input.signalOnCompletion as boolean | null | undefined) ?? true;
    if (input.schedule !== undefined && input.schedule !== null) {
      const schedule = parseSchedule(input.schedule, { allowSeconds: config.SCHEDULE_ALLOW_SECONDS });
      return this.createSchedule(input.sessionId, target, title, signalOnCompletion, schedule);
    }
    const capacity = await this.capacity(input.tenantId);
    const admitted = await this.deps.eventLog.writeWithPrisma(input.sessionId, (scope) =>
      this.admitRun(scope, { tenantId: input.tenantId, sessionId: input.sessionId, target, title, signalOnCompletion }, capacity),
    );
    if ('refusal' in admitted) throw admitted.refusal;
    return { kind: 'RUN', task: admitted.task, signalOnCompletion };
  }

  /**
   * The spawn_background tool (seed 002): the seed's argument names, checks in the seed's order
   * with the seed's messages, then the same spawn as the mutation; every refusal is a typed tool
   * failure. Returns the seed's description of the run or the schedule.
   */
  async spawnFromTool(tenantId: string, sessionId: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const toolName = typeof args.tool === 'string' ? args.tool.trim() : '';
    if (!toolName) throw refusal('INVALID_REQUEST', 'missing_parameter', 'Missing required parameter: tool');
    const badName = targetNameProblem(toolName);
    if (badName) throw refusal('INVALID_REQUEST', 'validation_failed', `tool ${badName}`);
    if (!isObject(args.args)) throw refusal('INVALID_REQUEST', 'missing_parameter', 'Missing required parameter: args (object expected)');
    const signalOnCompletion = typeof args.signal_on_completion === 'boolean' ? args.signal_on_completion : true;
    const schedule = seedSchedule(args);
    const tool = await this.deps.registry.resolve(tenantId, toolName);
    if (!tool) throw refusal('UNAVAILABLE', 'unknown_tool', `Unknown tool: ${toolName}`);
    if (toolName === SPAWN_BACKGROUND_TOOL) throw refusal('INVALID_REQUEST', 'spawn_itself', 'spawn_background cannot target itself recursively');
    if (!tool.definition.hints.supportsBackground) {
      throw refusal('INVALID_REQUEST', 'not_background_capable', `Tool does not support background execution: ${toolName}`);
    }
    const title = typeof args.title === 'string' && args.title.trim() !== '' ? args.title.trim() : tool.definition.displayName || `Background ${toolName}`;
    try {
      const outcome = await this.spawn({ tenantId, sessionId, tool: toolName, args: args.args, title, signalOnCompletion, schedule });
      return describeSpawn(outcome);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const cls = error instanceof LimitExceededError ? 'RESOURCE_LIMIT' : error instanceof UnknownToolError ? 'UNAVAILABLE' : 'INVALID_REQUEST';
      throw refusal(cls, error.code.toLowerCase(), error.message);
    }
  }

  /** The target of a run must exist, not be spawn_background, support background runs and get an arguments object its schema accepts. */
  async checkTarget(tenantId: string, toolName: unknown, args: unknown): Promise<Target> {
    if (typeof toolName !== 'string' || toolName.trim() === '') throw new ValidationError('tool must name a tool', 'tool');
    const name = toolName.trim();
    const badName = targetNameProblem(name);
    if (badName) throw new ValidationError(`tool ${badName}`, 'tool');
    if (name === SPAWN_BACKGROUND_TOOL) throw new BackgroundNotSupportedError(name, 'SELF');
    const tool = await this.deps.registry.resolve(tenantId, name);
    if (!tool) throw new UnknownToolError(name);
    if (!tool.definition.hints.supportsBackground) throw new BackgroundNotSupportedError(name, 'NOT_BACKGROUND_CAPABLE');
    if (tool.definition.policy === 'REQUIRES_APPROVAL') {
      throw new BackgroundNotSupportedError(name, 'NOT_BACKGROUND_CAPABLE', `Tool \`${name}\` requires approval, which a background run cannot wait for`);
    }
    if (!isObject(args)) throw new InvalidArgumentsError(`args must be a JSON object (the arguments of \`${name}\`)`, name);
    const verdict = validateArgs(tool.definition, args);
    if (!verdict.ok) throw new InvalidArgumentsError(`Invalid arguments for \`${name}\`: ${verdict.message}`, name);
    return { name, tool, args };
  }

  /**
   * Background-run slots of the deployment: the sum of the live task workers' concurrency, and
   * at least one worker's worth (a run spawned while no worker is up waits for one).
   */
  async workerCapacity(): Promise<number> {
    const perWorker = this.deps.config.BACKGROUND_RUNS_PER_WORKER;
    try {
      const live = await this.deps.workers.live();
      return live.workers > 0 ? Math.max(1, live.capacity) : perWorker;
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'reading live task workers failed; assuming one worker');
      return perWorker;
    }
  }

  /** The deployment's background-run slots and the tenant's share of them. */
  private async capacity(tenantId: string): Promise<{ workers: number; tenant: number }> {
    const [workers, limits] = await Promise.all([this.workerCapacity(), this.deps.tenantLimits.effective(tenantId)]);
    return { workers, tenant: limits.backgroundRuns };
  }

  /** Takes the limits and creates the run's task; a refusal is returned (not thrown) so a grouped write is not rolled back. */
  private async admitRun(scope: PrismaWriteScope, request: RunRequest, capacity: { workers: number; tenant: number }): Promise<Admission> {
    const { tx } = scope;
    if (request.fireKey) {
      const existing = await tx.task.findUnique({ where: { fireKey: request.fireKey } });
      if (existing) return { task: existing, duplicate: true };
    }
    const active = { kind: TASK_KINDS.background, state: { in: ['QUEUED' as const, 'RUNNING' as const] } };
    // The worker limit is checked first, then the session's, as in the seed.
    // Serialises admissions across sessions and processes until this transaction ends.
    await tx.$queryRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext('toolrun:background-run-capacity'))::text AS locked`);
    const everywhere = await tx.task.count({ where: active });
    if (everywhere >= capacity.workers) {
      const perWorker = this.deps.config.BACKGROUND_RUNS_PER_WORKER;
      return {
        refusal: new LimitExceededError(
          LIMITS.perWorker,
          perWorker,
          `Worker is already running the maximum ${perWorker} active background runs. Try again after an existing run finishes.`,
        ),
      };
    }
    const inSession = await tx.task.count({ where: { ...active, sessionId: request.sessionId } });
    if (inSession >= MAX_ACTIVE_BACKGROUND_RUNS_PER_SESSION) {
      return {
        refusal: new LimitExceededError(
          LIMITS.perSession,
          MAX_ACTIVE_BACKGROUND_RUNS_PER_SESSION,
          `Maximum ${MAX_ACTIVE_BACKGROUND_RUNS_PER_SESSION} active background runs per session. Wait for an existing run to finish before starting another.`,
        ),
      };
    }
    // One tenant never takes every slot (issue 10): its runs across sessions are capped too.
    const ofTenant = await tx.task.count({ where: { ...active, session: { tenantId: request.tenantId } } });
    if (ofTenant >= capacity.tenant) {
      return {
        refusal: new LimitExceededError(
          LIMITS.perTenant,
          capacity.tenant,
          `Maximum ${capacity.tenant} active background runs per tenant. Wait for an existing run to finish before starting another.`,
        ),
      };
    }
    const artifacts = newRunArtifacts();
    const spec: BackgroundSpec = {
      tool: request.target.name,
      args: request.target.args,
      title: request.title,
      signalOnCompletion: request.signalOnCompletion,
      reattachable: mayRunTwice(request.target.tool.definition.hints),
    };
    const task = await createTask(scope, {
      sessionId: request.sessionId,
      kind: TASK_KINDS.background,
      state: 'QUEUED',
      runId: artifacts.runId,
      title: request.title,
      tool: request.target.name,
      // Its args are the client's, kept losslessly as a call's are (U+0000 and lone surrogates included).
      spec: toStorable(spec) as object,
      stateDetail: 'Queued',
      attempt: 1,
      logPath: artifacts.logPath,
      resultPath: artifacts.resultPath,
      scheduleId: request.scheduleId ?? null,
      fireKey: request.fireKey ?? null,
    });
    scope.afterCommit(() => this.deps.work.runTasks([{ sessionId: request.sessionId, taskId: task.id, attempt: 1 }]));
    return { task, duplicate: false };
  }

  private async createSchedule(sessionId: string, target: Target, title: string, signalOnCompletion: boolean, parsed: ParsedSchedule): Promise<SpawnOutcome> {
    const created = await this.deps.eventLog.writeWithPrisma(sessionId, async (scope) => {
      const { tx } = scope;
      const enabled = await tx.schedule.count({ where: { sessionId, enabled: true } });
      if (enabled >= MAX_ACTIVE_SCHEDULES_PER_SESSION) {
        return {
          refusal: new LimitExceededError(
            LIMITS.schedules,
            MAX_ACTIVE_SCHEDULES_PER_SESSION,
            `Maximum ${MAX_ACTIVE_SCHEDULES_PER_SESSION} active schedules per session. Cancel an existing schedule first.`,
          ),
        };
      }
      const spec: ScheduleSpec = { tool: target.name, args: target.args, title, signalOnCompletion };
      const schedule = await tx.schedule.create({
        data: {
          sessionId,
          type: parsed.type,
          cronExpression: parsed.cronExpression,
          scheduledAt: parsed.scheduledAt,
          timezone: parsed.timezone,
          spec: toStorable(spec) as object,
          nextTriggerAt: parsed.nextTriggerAt,
        },
      });
      const monitor = await createTask(scope, {
        sessionId,
        kind: TASK_KINDS.monitor,
        state: 'RUNNING',
        title,
        tool: target.name,
        spec: toStorable({ ...spec, scheduleId: schedule.id, scheduleType: parsed.type, cronExpression: parsed.cronExpression, scheduledAt: parsed.scheduledAt?.toISOString() ?? null, timezone: parsed.timezone }) as object,
        stateDetail: `Scheduled; next trigger at ${parsed.nextTriggerAt.toISOString()}`,
        scheduleId: schedule.id,
        startedAt: new Date(),
      });
      const linked = await tx.schedule.update({ where: { id: schedule.id }, data: { taskId: monitor.id } });
      scope.afterCommit(() => this.deps.work.armSchedule(linked));
      return { schedule: linked, task: monitor };
    });
    if ('refusal' in created) throw created.refusal;
    return { kind: 'SCHEDULED', schedule: created.schedule, task: created.task, signalOnCompletion };
  }

  /**
   * Fires a schedule: starts its run under the same limits as a spawn, and records the firing on
   * the schedule and its monitor. `fireKey` identifies the firing, so a re-delivered job starts
   * nothing twice.
   */
  async fireSchedule(scheduleId: string, fireKey: string): Promise<Task | null> {
    const { eventLog, logger } = this.deps;
    const schedule = await this.deps.tasks.scheduleWithTenant(scheduleId);
    if (!schedule || !schedule.enabled || schedule.pausedAt) {
      await this.deps.work.disarmSchedule(scheduleId);
      return null;
    }
    const spec = schedule.spec as unknown as ScheduleSpec;
    let refusal: DomainError | null = null;
    let target: Target | null = null;
    try {
      target = await this.checkTarget(schedule.session.tenantId, spec.tool, spec.args);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      refusal = error;
    }
    const capacity = await this.capacity(schedule.session.tenantId);
    return eventLog.writeWithPrisma(schedule.sessionId, async (scope) => {
      const current = await scope.tx.schedule.findUnique({ where: { id: scheduleId } });
      if (!current?.enabled || current.pausedAt) return null;
      let run: Task | null = null;
      let why = refusal;
      if (target && !why) {
        const admitted = await this.admitRun(scope, { tenantId: schedule.session.tenantId, sessionId: schedule.sessionId, target, title: spec.title, signalOnCompletion: spec.signalOnCompletion, scheduleId, fireKey }, capacity);
        if ('refusal' in admitted) why = admitted.refusal;
        else if (admitted.duplicate) return admitted.task;
        else run = admitted.task;
      }
      const now = new Date();
      const once = current.type !== 'CRON';
      const next = once || !current.cronExpression ? null : nextCronTrigger(current.cronExpression, current.timezone, now);
      await scope.tx.schedule.update({ where: { id: scheduleId }, data: { lastTriggerAt: now, nextTriggerAt: next, ...(once ? { enabled: false } : {}) } });
      const fired = run ? `Fired at ${now.toISOString()}: started ${run.runId}` : `Fired at ${now.toISOString()}: no run started: ${why?.message}`;
      if (why) logger.info({ scheduleId, reason: why.message }, 'schedule fired without starting a run');
      if (current.taskId) {
        if (once) {
          await finishTask(scope, current.taskId, { states: ['RUNNING'] }, { state: run ? 'SUCCEEDED' : 'FAILED', summary: fired, error: run ? null : (why?.message ?? null) });
        } else {
          await setTaskStatus(scope, current.taskId, `${fired}; next trigger at ${next!.toISOString()}`);
        }
      }
      return run;
    });
  }

  /**
   * Fires a schedule once now, at a client's request: starts one run under the same limits as a
   * firing (a refusal is the answer), without changing the schedule's cadence or next trigger. A
   * paused schedule may be triggered; a canceled or finished one may not.
   */
  async triggerSchedule(tenantId: string, scheduleId: string): Promise<Task> {
    const schedule = await this.enabledSchedule(tenantId, scheduleId, 'triggered');
    const spec = schedule.spec as unknown as ScheduleSpec;
    const target = await this.checkTarget(tenantId, spec.tool, spec.args);
    const capacity = await this.capacity(tenantId);
    const fireKey = `${scheduleId}:manual:${newRunId()}`;
    const admitted = await this.deps.eventLog.writeWithPrisma(schedule.sessionId, async (scope) => {
      const current = await scope.tx.schedule.findUnique({ where: { id: scheduleId } });
      if (!current?.enabled) return { refusal: this.notEnabled(current ?? schedule, 'triggered') };
      const admission = await this.admitRun(scope, { tenantId, sessionId: schedule.sessionId, target, title: spec.title, signalOnCompletion: spec.signalOnCompletion, scheduleId, fireKey }, capacity);
      if ('refusal' in admission) return admission;
      const now = new Date();
      await scope.tx.schedule.update({ where: { id: scheduleId }, data: { lastTriggerAt: now } });
      if (current.taskId) {
        const next = current.nextTriggerAt ? `; next trigger at ${current.nextTriggerAt.toISOString()}` : current.pausedAt ? '; paused' : '';
        await setTaskStatus(scope, current.taskId, `Triggered at ${now.toISOString()}: started ${admission.task.runId}${next}`);
      }
      return admission;
    });
    if ('refusal' in admitted) throw admitted.refusal;
    return admitted.task;
  }

  /** Pauses a schedule (idempotent): it stays enabled but fires nothing until resumed; runs it already started go on. */
  async pauseSchedule(tenantId: string, scheduleId: string): Promise<Schedule> {
    const schedule = await this.enabledSchedule(tenantId, scheduleId, 'paused');
    if (schedule.pausedAt) return schedule;
    return this.deps.eventLog.writeWithPrisma(schedule.sessionId, async (scope) => {
      const now = new Date();
      const paused = await scope.tx.schedule.updateMany({ where: { id: scheduleId, enabled: true, pausedAt: null }, data: { pausedAt: now, nextTriggerAt: null } });
      const current = await scope.tx.schedule.findUniqueOrThrow({ where: { id: scheduleId } });
      if (paused.count === 0) {
        if (!current.enabled) throw this.notEnabled(current, 'paused');
        return current;
      }
      if (current.taskId) await setTaskStatus(scope, current.taskId, `Paused at ${now.toISOString()}`);
      scope.afterCommit(() => this.deps.work.disarmSchedule(scheduleId));
      return current;
    });
  }

  /** Resumes a paused schedule (idempotent): its next trigger is computed from now (a one-shot whose time passed fires at once). */
  async resumeSchedule(tenantId: string, scheduleId: string): Promise<Schedule> {
    const schedule = await this.enabledSchedule(tenantId, scheduleId, 'resumed');
    if (!schedule.pausedAt) return schedule;
    return this.deps.eventLog.writeWithPrisma(schedule.sessionId, async (scope) => {
      const now = new Date();
      const next = nextTriggerOnResume(schedule, now);
      const resumed = await scope.tx.schedule.updateMany({ where: { id: scheduleId, enabled: true, pausedAt: { not: null } }, data: { pausedAt: null, nextTriggerAt: next } });
      const current = await scope.tx.schedule.findUniqueOrThrow({ where: { id: scheduleId } });
      if (resumed.count === 0) {
        if (!current.enabled) throw this.notEnabled(current, 'resumed');
        return current;
      }
      if (current.taskId) await setTaskStatus(scope, current.taskId, `Resumed at ${now.toISOString()}; next trigger at ${next.toISOString()}`);
      scope.afterCommit(() => this.deps.work.armSchedule(current));
      return current;
    });
  }

  /** The tenant's schedule, refused with InvalidStateError when it is canceled or has finished. */
  private async enabledSchedule(tenantId: string, scheduleId: string, action: string): Promise<Schedule> {
    const schedule = await this.deps.tasks.findSchedule(tenantId, scheduleId);
    if (!schedule.enabled) throw this.notEnabled(schedule, action);
    return schedule;
  }

  private notEnabled(schedule: Schedule, action: string): InvalidStateError {
    const status = scheduleStatus(schedule);
    const why = status === 'CANCELED' ? 'is canceled' : 'has finished (a one-shot schedule fires once)';
    return new InvalidStateError(`Schedule \`${schedule.id}\` ${why}; it cannot be ${action}`, status);
  }

  /** Cancels a task (idempotent): a queued run ends at once, a running one is signalled; a monitor cancels its schedule. */
  async cancelTask(tenantId: string, taskId: string): Promise<Task> {
    const task = await this.deps.tasks.findTask(tenantId, taskId);
    if (task.kind === TASK_KINDS.monitor) {
      if (task.scheduleId && task.state === 'RUNNING') await this.cancelSchedule(tenantId, task.scheduleId);
      return this.deps.tasks.findTask(tenantId, taskId);
    }
    if (task.state !== 'QUEUED' && task.state !== 'RUNNING') return task;
    await this.deps.eventLog.writeWithPrisma(task.sessionId, async (scope) => {
      const canceled = await finishTask(scope, task.id, { states: ['QUEUED'] }, { state: 'CANCELED', summary: 'Canceled by request.' });
      if (canceled) return;
      await requestTaskCancel(scope, task.id);
      // Signalled on every request (not only the first), so a lost message is made good by asking again.
      scope.afterCommit(() => publishCancel(this.deps.bus, { taskIds: [task.id] }));
    });
    // A run whose worker is gone cannot stop itself: end it here, at once when that is known now,
    // else when the grace period is over (as cancelling calls does).
    await this.endOrphanedRun(tenantId, taskId);
    const timer = setTimeout(() => void this.endOrphanedRun(tenantId, taskId).catch(() => undefined), this.deps.config.CANCEL_GRACE_MS);
    timer.unref();
    return this.deps.tasks.findTask(tenantId, taskId);
  }

  private async endOrphanedRun(tenantId: string, taskId: string): Promise<void> {
    const task = await this.deps.tasks.findTask(tenantId, taskId);
    if (task.state !== 'RUNNING') return;
    if (task.workerId) {
      const alive = await this.deps.workers.alive([task.workerId], 2 * this.deps.config.HEARTBEAT_INTERVAL_MS);
      if (alive.has(task.workerId)) return;
    }
    await this.deps.eventLog.writeWithPrisma(task.sessionId, (scope) =>
      finishTask(scope, task.id, { states: ['RUNNING'] }, { state: 'CANCELED', summary: 'Canceled by request (its worker was gone).' }),
    );
  }

  /** Disables a schedule (idempotent) and ends its monitor task; runs it already started go on. */
  async cancelSchedule(tenantId: string, scheduleId: string): Promise<Schedule> {
    const schedule = await this.deps.tasks.findSchedule(tenantId, scheduleId);
    if (!schedule.enabled) return schedule;
    const updated = await this.deps.eventLog.writeWithPrisma(schedule.sessionId, async (scope) => {
      const current = await scope.tx.schedule.findUnique({ where: { id: scheduleId } });
      if (!current?.enabled) return current;
      const canceled = await scope.tx.schedule.update({ where: { id: scheduleId }, data: { enabled: false, canceledAt: new Date(), nextTriggerAt: null } });
      if (canceled.taskId) await finishTask(scope, canceled.taskId, { states: ['QUEUED', 'RUNNING'] }, { state: 'CANCELED', summary: 'Schedule canceled.' });
      scope.afterCommit(() => this.deps.work.disarmSchedule(scheduleId));
      return canceled;
    });
    return updated ?? schedule;
  }
}

/**
 * Why the name of a run's target is refused before it is looked up, or null: text PostgreSQL cannot
 * take (spawn_background's args are kept losslessly, so they may hold it), or longer than any
 * identifier, as a call's tool (`overlongToolName`); a name no tool has within that bound is unknown.
 */
function targetNameProblem(name: string): string | null {
  return unacceptableText(name) ?? overlongToolName(name);
}

function normalizeTitle(title: unknown, fallback: string): string {
  if (title === undefined || title === null) return fallback;
  if (typeof title !== 'string') throw new ValidationError('title must be a string', 'title');
  const unstorable = unacceptableText(title);
  if (unstorable) throw new ValidationError(`title ${unstorable}`, 'title');
  const trimmed = title.trim();
  if (longerThan(trimmed, MAX_TITLE_LENGTH)) throw new ValidationError(`title must be at most ${MAX_TITLE_LENGTH} characters`, 'title');
  return trimmed === '' ? fallback : trimmed;
}

const refusal = (cls: FailureClass, code: string, message: string) => new ToolFailureError({ class: cls, code, message });

/** The `schedule` argument of the spawn_background tool, checked as the seed checks it (in its order, with its messages). */
function seedSchedule(args: Record<string, unknown>): { cronExpression: string | null; scheduledAt: string | null; timezone: string } | null {
  if (args.schedule === undefined) return null;
  const schedule = args.schedule;
  if (!isObject(schedule)) throw refusal('INVALID_REQUEST', 'invalid_schedule', 'schedule must be an object');
  const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
  const cronExpression = text(schedule.cron_expression);
  const scheduledAt = text(schedule.scheduled_at);
  if (scheduledAt !== null && !isRfc3339(scheduledAt)) throw refusal('INVALID_REQUEST', 'invalid_schedule', 'scheduled_at must be RFC3339');
  if (cronExpression === null && scheduledAt === null) {
    throw refusal('INVALID_REQUEST', 'invalid_schedule', 'schedule must include exactly one of cron_expression (recurring) or scheduled_at (one-shot)');
  }
  if (cronExpression !== null && scheduledAt !== null) {
    throw refusal('INVALID_REQUEST', 'invalid_schedule', 'schedule must not include both cron_expression and scheduled_at; provide exactly one');
  }
  return { cronExpression, scheduledAt, timezone: text(schedule.timezone) ?? 'UTC' };
}

/** An instant as the seeds serialize one (chrono's RFC 3339, `Z`, fraction only when there is one). */
export function seedInstant(date: Date | null): string | null {
  return date ? date.toISOString().replace('.000Z', 'Z') : null;
}

/** What the spawn_background tool returns (seed 002): the run's handle, or the schedule that was created. */
export function describeSpawn(outcome: SpawnOutcome): Record<string, unknown> {
  const { task } = outcome;
  if (outcome.kind === 'RUN') {
    return {
      run_id: task.runId,
      resource_id: task.runId,
      task_id: task.id,
      title: task.title,
      tool: task.tool,
      status: 'running',
      signal_on_completion: outcome.signalOnCompletion,
      artifact_dir: artifactDirOf(task.runId!),
      log_path: task.logPath,
      result_path: task.resultPath,
    };
  }
  const { schedule } = outcome;
  return {
    created: true,
    status: 'scheduled',
    title: task.title,
    tool: task.tool,
    signal_on_completion: outcome.signalOnCompletion,
    schedule_id: schedule.id,
    schedule_type: schedule.type === 'CRON' ? 'recurring' : 'oneshot',
    cron_expression: schedule.cronExpression,
    scheduled_at: seedInstant(schedule.scheduledAt),
    timezone: schedule.timezone,
    next_trigger_at: seedInstant(schedule.nextTriggerAt),
    enabled: schedule.enabled,
    task_id: task.id,
  };
}

/** The seed's description of a scheduled monitor: what the session is told to do when it fires. */
export function scheduleDescription(spec: Partial<ScheduleSpec>): string {
  const title = spec.title ?? '';
  const payload = jsonText({ tool: spec.tool ?? '', title, signal_on_completion: spec.signalOnCompletion !== false, args: spec.args ?? {} }, true);
  return `Monitor: ${title}\n\nThis scheduled monitor fired. Start the background run now.\n\nspawn_background payload:\n${payload}`;
}
