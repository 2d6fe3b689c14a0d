// Runs one attempt of a background run on a worker: claims it (fenced by attempt), executes the
// tool with a sink for status, progress and output, heartbeats, honours cancellation (the cancel
// channel, or the durable flag read on each heartbeat) and finalizes the run's artifacts. A job
// that finds its attempt still RUNNING was handed back by BullMQ's stalled-job check: once the
// heartbeat is stale the run is recovered (domain/tasks/recovery.ts).
import type { Config } from '../config.js';
import { MAX_RUN_ATTEMPTS } from '../domain/tasks/background.js';
import type { OutputStream } from '../domain/tasks/background-output.js';
import type { EventLog } from '../domain/event-log.js';
import { INTERNAL_ERROR_MESSAGE, outputs, ToolFailureError } from '../model/outcome.js';
import type { SessionService } from '../domain/sessions/sessions.js';
import type { TaskStore } from '../domain/tasks/store.js';
import { claimTask, type FinishInput, finishTask, recordActivity, recordHeartbeat, specOf } from '../domain/tasks/task-transitions.js';
import { MalformedToolValueError } from '../model/tool-value.js';
import { firstCharacters } from '../model/text.js';
import type { Task } from '../generated/prisma/client.js';
import type { Logger } from '../logger.js';
import type { ResolvedTool, ToolRegistry } from '../tools/registry.js';
import type { CancelRegistry } from './cancel-registry.js';
import { type AbortKind, Execution, replayKeyOf, type Settled } from './execution.js';
import type { JobCatalogue } from './catalogue.js';
import { staleAfterMs, type TaskRecovery } from '../domain/tasks/recovery.js';
import { TaskSink } from './task-sink.js';

/** How often a running task's heartbeat is announced as a TaskHeartbeat event (it is recorded every HEARTBEAT_INTERVAL_MS). */
export const HEARTBEAT_EVENT_MS = 5000;

export interface TaskRunnerDeps {
  config: Config;
  tasks: TaskStore;
  sessions: SessionService;
  eventLog: EventLog;
  registry: ToolRegistry;
  cancels: CancelRegistry;
  recovery: TaskRecovery;
  logger: Logger;
  workerId: string;
}

/** What the job does next: nothing, or look again after a delay (a run whose worker may still be alive). */
export type TaskVerdict = { kind: 'done' } | { kind: 'recheck'; delayMs: number };
const DONE: TaskVerdict = { kind: 'done' };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export class TaskRunner {
  /** Tasks whose attempt runs in this process. */
  private readonly running = new Set<string>();

  constructor(private readonly deps: TaskRunnerDeps) {}

  /** Background runs running here now. */
  get runningCount(): number {
    return this.running.size;
  }

  isRunning(taskId: string): boolean {
    return this.running.has(taskId);
  }

  /** `log` is the job's logger: its lines name the job and the task. */
  async run(data: JobCatalogue['run-task'], log: Logger, jobSignal?: AbortSignal): Promise<TaskVerdict> {
    const { tasks, eventLog, registry, workerId } = this.deps;
    const task = await tasks.withTenant(data.taskId);
    if (!task || task.attempt !== data.attempt) return DONE;
    if (task.state === 'RUNNING') {
      if (this.running.has(task.id)) return DONE;
      const lastSign = (task.heartbeatAt ?? task.startedAt ?? task.createdAt).getTime();
      const wait = lastSign + staleAfterMs(this.deps.config) - Date.now();
      // The previous holder may be alive (it lost its job lock, not its process): look again once its heartbeat would be stale.
      if (wait > 0) return { kind: 'recheck', delayMs: wait + 100 };
      await this.deps.recovery.recover(task.id, task.attempt, 'the worker running it was lost', { requireStale: true });
      return DONE;
    }
    if (task.state !== 'QUEUED') return DONE;
    const tool = task.tool ? await registry.resolve(task.session.tenantId, task.tool) : null;
    const claimed = await eventLog.writeWithPrisma(task.sessionId, (scope) => claimTask(scope, task.id, data.attempt, workerId));
    if (!claimed) return DONE;
    if (!tool || !tool.definition.hints.supportsBackground) {
      const error = `Tool \`${task.tool}\` is no longer available for background runs`;
      await this.finish(claimed, { state: 'FAILED', summary: error, error });
      return DONE;
    }
    await this.execute(claimed, task.session.tenantId, tool, log, jobSignal);
    return DONE;
  }

  private async execute(task: Task, tenantId: string, tool: ResolvedTool, log: Logger, jobSignal?: AbortSignal): Promise<void> {
    const { config, eventLog } = this.deps;
    const attempt = task.attempt;
    const spec = specOf(task);
    const timeoutMs = tool.definition.timeoutMs;
    const execution = new Execution(this.deps, {
      id: task.id,
      subject: 'background run',
      sessionId: task.sessionId,
      timeoutMs,
      cancelRequested: Boolean(task.cancelRequestedAt),
      jobSignal,
    });
    const abort = (kind: AbortKind) => execution.abort(kind);
    this.running.add(task.id);
    const runLogger = log.child({ tenantId, runId: task.runId, tool: task.tool, attempt });
    const sink = new TaskSink(
      (update) => eventLog.writeWithPrisma(task.sessionId, (scope) => recordActivity(scope, task.id, attempt, update)),
      () => abort('superseded'),
      runLogger,
    );
    let announcedAt = 0;
    const heartbeat = setInterval(() => {
      // Every beat is recorded (recovery needs it fresh); one in HEARTBEAT_EVENT_MS is announced.
      const now = Date.now();
      const announce = now - announcedAt >= HEARTBEAT_EVENT_MS;
      if (announce) announcedAt = now;
      eventLog.writeWithPrisma(task.sessionId, (scope) => recordHeartbeat(scope, task.id, attempt, announce)).then(
        (beat) => {
          if (beat === null) abort('superseded');
          else if (beat.cancelRequested) abort('cancelled');
        },
        (error: unknown) => runLogger.warn({ err: error }, 'background run heartbeat failed'),
      );
    }, config.HEARTBEAT_INTERVAL_MS);

    const context = execution.toolContext({
      tenantId,
      sessionId: task.sessionId,
      callId: task.runId ?? task.id,
      tool: tool.definition.name,
      attempt,
      maxAttempts: MAX_RUN_ATTEMPTS,
      // Stable across re-attached attempts, so an idempotent tool can recognise its own side effects.
      replayKey: replayKeyOf(task.sessionId, task.id, tool.definition.name),
      reportProgress: (progress) => sink.progress(progress),
      output: (stream: OutputStream, text: string) => sink.output(stream, text),
      status: (text) => sink.status(text),
    }, runLogger);

    const settled: Settled = await execution.settle(tool.execute(spec.args ?? {}, context));
    const reason = execution.reason;
    // Until the outcome is recorded the attempt keeps heartbeating and counts as running here, so
    // no reaper takes a run that is merely finishing for a lost one.
    try {
      await sink.flush();
      if (reason === 'superseded') {
        runLogger.info('attempt superseded (re-attached or finished elsewhere); stopped without finalizing');
      } else if (reason === 'shutdown') {
        await this.deps.recovery.recover(task.id, attempt, 'the worker running it shut down', { requireStale: false });
      } else {
        await this.finish(task, this.outcomeOf(task, tool, reason, settled, timeoutMs, runLogger));
      }
    } finally {
      clearInterval(heartbeat);
      this.running.delete(task.id);
    }
  }

  private outcomeOf(task: Task, tool: ResolvedTool, reason: 'cancelled' | 'timeout' | null, settled: Settled, timeoutMs: number, logger: Logger): FinishInput {
    if (reason === 'cancelled') return { state: 'CANCELED', summary: 'Canceled by request.' };
    if (reason === 'timeout') {
      const error = `Background run of \`${tool.definition.name}\` timed out after ${timeoutMs} ms`;
      return { state: 'FAILED', summary: error, error };
    }
    if (settled.kind === 'value') {
      try {
        const output = outputs.success(settled.value);
        const value = output.status === 'SUCCESS' ? output.value : null;
        return { state: 'SUCCEEDED', summary: summaryOf(settled.value, task.title ?? tool.definition.displayName), result: value };
      } catch (error) {
        if (!(error instanceof MalformedToolValueError)) throw error;
        const message = `Tool \`${tool.definition.name}\` returned an invalid value: ${error.message}`;
        return { state: 'FAILED', summary: message, error: message };
      }
    }
    if (settled.kind === 'error' && settled.error instanceof ToolFailureError) {
      // As a call's: an INTERNAL failure shows only that one occurred (outputs.failure masks it).
      const output = outputs.failure(settled.error.failure);
      const message = output.status === 'FAILURE' ? output.failure.message : settled.error.failure.message;
      if (settled.error.failure.class === 'INTERNAL') logger.error({ code: settled.error.failure.code, details: settled.error.failure.message }, 'background tool reported an internal error');
      return { state: 'FAILED', summary: message, error: message };
    }
    logger.error({ err: settled.kind === 'error' ? settled.error : undefined }, 'background tool failed with an internal error');
    return { state: 'FAILED', summary: INTERNAL_ERROR_MESSAGE, error: INTERNAL_ERROR_MESSAGE };
  }

  private async finish(task: Task, input: FinishInput): Promise<void> {
    await this.deps.eventLog.writeWithPrisma(task.sessionId, (scope) => finishTask(scope, task.id, { attempt: task.attempt }, input));
  }
}

/** A tool may say what it did (`summary` in its value); otherwise the run's title says it completed. */
function summaryOf(value: unknown, title: string): string {
  if (isObject(value) && typeof value.summary === 'string' && value.summary.trim() !== '') return firstCharacters(value.summary.trim(), 2000);
  return `${title} completed`;
}
