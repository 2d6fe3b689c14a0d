// Runs one attempt of a tool call on a worker: claims it (fenced by attempt), executes the tool
// under its deadline and abort signal, streams progress, and records the outcome or a retry.
import type { Config } from '../config.js';
import type { Db } from '../db.js';
import type { BackgroundService } from '../domain/background.js';
import {
  type CallRecord,
  callEvent,
  completeAttempt,
  EVENT_TYPES,
  enterPendingExternal,
  loadCall,
  recordProgress,
  scheduleRetry,
  startAttempt,
} from '../domain/call-transitions.js';
import type { EventLog } from '../domain/event-log.js';
import { failure, outputs, type ToolCallOutput, ToolFailureError } from '../domain/outcome.js';
import { PrismaSessionFiles } from '../domain/session-files.js';
import { MalformedToolValueError } from '../domain/tool-value.js';
import type { Logger } from '../logger.js';
import { addLogContext } from '../logging/context.js';
import type { ResolvedTool, ToolRegistry } from '../tools/registry.js';
import type { RetryPolicy, ToolContext, ToolProgress } from '../tools/types.js';
import { CallAbort } from './call-abort.js';
import { CallStateWriter } from './call-state-writer.js';
import type { CancelRegistry } from './cancel-registry.js';

export interface CallRunnerDeps {
  config: Config;
  db: Db;
  eventLog: EventLog;
  registry: ToolRegistry;
  cancels: CancelRegistry;
  logger: Logger;
  workerId: string;
  /** Gives calls the spawn_background capability. */
  background?: BackgroundService;
}

/** What the job should do next: nothing, or run again after a delay. */
export type RunVerdict = { kind: 'done' } | { kind: 'retry'; delayMs: number };

const DONE: RunVerdict = { kind: 'done' };

/**
 * A lost attempt (its worker died) is not the tool's failure: an idempotent or readonly call gets
 * at least this many attempts in all when its workers are lost, whatever its retry policy. The
 * cap stops a call that brings down every worker it runs on from going round forever.
 */
const LOST_WORKER_ATTEMPTS = 3;

export class CallRunner {
  private readonly state: CallStateWriter;

  constructor(private readonly deps: CallRunnerDeps) {
    this.state = new CallStateWriter(deps.eventLog, deps.workerId);
  }

  async run(sessionId: string, callRowId: string, jobSignal?: AbortSignal): Promise<RunVerdict> {
    const { db, eventLog, registry } = this.deps;
    const observed = await loadCall({ tx: db }, callRowId);
    if (!observed || (observed.status !== 'QUEUED' && observed.status !== 'RUNNING')) return DONE;
    addLogContext({ tenantId: observed.tenantId, callId: observed.callId });
    const tool = await registry.resolve(observed.tenantId, observed.tool);
    if (observed.status === 'QUEUED' && tool?.definition.kind === 'EXTERNAL') {
      // External tools run outside toolrun: the call waits for a client's completion (or its deadline).
      await eventLog.write(sessionId, (scope) => enterPendingExternal(scope, callRowId));
      return DONE;
    }

    const started = observed.status === 'QUEUED' ? await this.state.start(sessionId, callRowId) : await this.recoverInterrupted(sessionId, observed, tool);
    if (!started) return DONE;
    if (!tool) return this.finish(started, outputs.unavailable(started.tool));
    return this.execute(started, tool, jobSignal);
  }

  /** A RUNNING call picked up again: its earlier attempt was interrupted (its worker died or stalled). */
  private recoverInterrupted(sessionId: string, observed: CallRecord, tool: ResolvedTool | null): Promise<CallRecord | null> {
    const callRowId = observed.id;
    return this.deps.eventLog.write(sessionId, async (scope) => {
      // RUNNING here means an earlier attempt was interrupted (its worker died or stalled).
      const current = await loadCall(scope, callRowId);
      if (!current || current.status !== 'RUNNING' || current.attempt !== observed.attempt) return null;
      if (current.cancelRequestedAt) {
        await completeAttempt(scope, current, current.attempt, outputs.cancelled());
        return null;
      }
      const rerunnable = tool && (tool.definition.hints.idempotent || tool.definition.hints.readonly);
      if (rerunnable && current.attempt < Math.max(current.maxAttempts, LOST_WORKER_ATTEMPTS)) {
        const lost = failure('EXECUTION', 'worker_lost', `The attempt running \`${current.tool}\` was interrupted (its worker was lost); the call runs again`, { retry: { kind: 'SAFE', afterMs: 0 } });
        scope.emit(current.sessionId, callEvent(EVENT_TYPES.callRetrying, current, { attempt: current.attempt, failure: lost, delayMs: 0, nextAttempt: current.attempt + 1 }));
        return startAttempt(scope, callRowId, this.deps.workerId, current.attempt);
      }
      await completeAttempt(scope, current, current.attempt, workerLost(current, Boolean(rerunnable)));
      return null;
    });
  }

  private async execute(call: CallRecord, tool: ResolvedTool, jobSignal?: AbortSignal): Promise<RunVerdict> {
    const { config, logger } = this.deps;
    const attempt = call.attempt;
    const controller = new AbortController();
    const abort = (kind: CallAbort['kind']) => {
      if (!controller.signal.aborted) controller.abort(new CallAbort(kind));
    };
    const deadline = new Date(Date.now() + call.timeoutMs);
    const timer = setTimeout(() => abort('timeout'), call.timeoutMs);
    const unregister = this.deps.cancels.register(call.id, () => abort('cancelled'));
    const onJobAbort = () => abort('shutdown');
    jobSignal?.addEventListener('abort', onJobAbort);
    if (call.cancelRequestedAt) abort('cancelled');
    const progress = new ProgressWriter((latest) =>
      this.deps.eventLog.write(call.sessionId, (scope) => recordProgress(scope, call, attempt, { ...latest })),
    );

    const context: ToolContext = {
      tenantId: call.tenantId,
      sessionId: call.sessionId,
      callId: call.callId,
      tool: call.tool,
      attempt,
      maxAttempts: call.maxAttempts,
      replayKey: `${call.sessionId}:${call.callId}:${call.tool}`,
      signal: controller.signal,
      deadline,
      reportProgress: (value) => progress.report(value),
      output: () => undefined,
      status: (text) => progress.report({ message: text }),
      files: new PrismaSessionFiles(this.deps.db, call.sessionId),
      setTodos: async (todos) => {
        await this.deps.db.session.update({ where: { id: call.sessionId }, data: { todos: todos as object[] } });
      },
      webFetch: {
        allowPrivate: config.WEB_FETCH_ALLOW_PRIVATE,
        allowLoopback: config.WEB_FETCH_ALLOW_LOOPBACK,
        maxBytes: config.WEB_FETCH_MAX_BYTES,
        timeoutMs: config.WEB_FETCH_TIMEOUT_MS,
      },
      logger: logger.child({ callId: call.callId, sessionId: call.sessionId, tool: call.tool }),
      ...(this.deps.background ? { spawnBackground: (args) => this.deps.background!.spawnFromTool(call.tenantId, call.sessionId, args) } : {}),
    };

    let settled: Settled;
    try {
      settled = await settle(tool.execute(call.args as Record<string, unknown>, context), controller.signal, config.CANCEL_GRACE_MS);
    } finally {
      clearTimeout(timer);
      unregister();
      jobSignal?.removeEventListener('abort', onJobAbort);
      await progress.flush();
    }

    const reason = controller.signal.aborted ? (controller.signal.reason as CallAbort).kind : null;
    if (reason === 'shutdown') {
      const handedBack = failure('UNAVAILABLE', 'worker_shutdown', 'The worker shut down during the call; it runs again on another worker', {
        retry: { kind: 'SAFE', afterMs: 0 },
      });
      await this.deps.eventLog.write(call.sessionId, (scope) => scheduleRetry(scope, call, attempt, handedBack, 0));
      return { kind: 'retry', delayMs: 0 };
    }
    let output: ToolCallOutput;
    if (reason === 'cancelled') output = outputs.cancelled();
    else if (reason === 'timeout') {
      // A tool that reports its own TIMEOUT failure at the deadline (an HTTP tool: safe to retry) decides its retry.
      output =
        settled.kind === 'error' && settled.error instanceof ToolFailureError && settled.error.failure.class === 'TIMEOUT'
          ? outputs.failure(settled.error.failure)
          : outputs.failure(failure('TIMEOUT', 'timeout', `Tool \`${call.tool}\` timed out after ${call.timeoutMs} ms`));
    } else output = this.outputOf(call, settled);

    if (output.status === 'FAILURE' && output.failure.retry.kind === 'SAFE') {
      if (attempt < call.maxAttempts) {
        const delayMs = output.failure.retry.afterMs ?? backoffDelay(tool.definition.retry, attempt);
        const failed = output.failure;
        const scheduled = await this.deps.eventLog.write(call.sessionId, (scope) => scheduleRetry(scope, call, attempt, failed, delayMs));
        return scheduled ? { kind: 'retry', delayMs } : DONE;
      }
      output = outputs.failure({ ...output.failure, retry: { kind: 'EXHAUSTED', attempts: attempt } });
    }
    return this.finish(call, output);
  }

  private async finish(call: CallRecord, output: ToolCallOutput): Promise<RunVerdict> {
    await this.state.complete(call, call.attempt, output);
    return DONE;
  }

  private outputOf(call: CallRecord, settled: Settled): ToolCallOutput {
    if (settled.kind === 'value') {
      try {
        return outputs.success(settled.value);
      } catch (error) {
        if (error instanceof MalformedToolValueError) {
          return outputs.failure(failure('EXECUTION', 'invalid_tool_value', `Tool \`${call.tool}\` returned an invalid value: ${error.message}`, { source: 'TOOL' }));
        }
        throw error;
      }
    }
    if (settled.kind === 'error' && settled.error instanceof ToolFailureError) return outputs.failure(settled.error.failure);
    this.deps.logger.error({ err: settled.kind === 'error' ? settled.error : undefined, callId: call.callId, sessionId: call.sessionId, tool: call.tool }, 'tool failed with an internal error');
    return outputs.internal();
  }
}

function workerLost(call: CallRecord, rerunnable: boolean): ToolCallOutput {
  return outputs.failure(
    rerunnable
      ? failure('EXECUTION', 'worker_lost', `The worker running \`${call.tool}\` was lost and no attempts remain`, {
          retry: { kind: 'EXHAUSTED', attempts: call.attempt },
        })
      : failure('EXECUTION', 'worker_lost', `The worker running \`${call.tool}\` was lost; the tool is not idempotent, so it was not run again`),
  );
}

export function backoffDelay(policy: RetryPolicy, attempt: number): number {
  const { type, delayMs, maxDelayMs } = policy.backoff;
  const delay = type === 'FIXED' ? delayMs : delayMs * 2 ** Math.max(0, attempt - 1);
  return Math.min(delay, maxDelayMs);
}

export type Settled = { kind: 'value'; value: unknown } | { kind: 'error'; error: unknown } | { kind: 'abandoned' };

/** Waits for the tool; once the signal fires, gives it `graceMs` to stop before abandoning it. */
export function settle(execution: Promise<unknown>, signal: AbortSignal, graceMs: number): Promise<Settled> {
  return new Promise((resolve) => {
    let grace: NodeJS.Timeout | undefined;
    const startGrace = () => {
      grace = setTimeout(() => resolve({ kind: 'abandoned' }), graceMs);
    };
    if (signal.aborted) startGrace();
    else signal.addEventListener('abort', startGrace, { once: true });
    execution.then(
      (value) => resolve({ kind: 'value', value }),
      (error: unknown) => resolve({ kind: 'error', error }),
    ).finally(() => {
      clearTimeout(grace);
      signal.removeEventListener('abort', startGrace);
    });
  });
}

/** Writes progress in order, coalescing bursts: while one write is in flight only the latest report waits. */
class ProgressWriter {
  private pending: ToolProgress | null = null;
  private inFlight: Promise<void> | null = null;

  constructor(private readonly write: (progress: ToolProgress) => Promise<unknown>) {}

  report(progress: ToolProgress): void {
    this.pending = progress;
    if (!this.inFlight) this.inFlight = this.pump();
  }

  private async pump(): Promise<void> {
    while (this.pending) {
      const next = this.pending;
      this.pending = null;
      await this.write(next).catch(() => undefined);
    }
    this.inFlight = null;
  }

  async flush(): Promise<void> {
    await this.inFlight;
  }
}
