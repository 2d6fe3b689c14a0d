// Runs one attempt of a tool call on a worker: claims it (fenced by attempt), executes the tool
// under its deadline and abort signal, streams progress, and records the outcome or a retry.
import type { Config } from '../config.js';
import type { BackgroundService } from '../domain/tasks/background.js';
import { type CallRecord, enterPendingExternal, recordProgress, scheduleRetry } from '../domain/calls/call-transitions.js';
import { recoverInterruptedCall } from '../domain/calls/recovery.js';
import type { CallStore } from '../domain/calls/store.js';
import type { EventLog } from '../domain/event-log.js';
import { failure, outputs, type ToolCallOutput, ToolFailureError } from '../model/outcome.js';
import type { SessionService } from '../domain/sessions/sessions.js';
import { MalformedToolValueError } from '../model/tool-value.js';
import type { Logger } from '../logger.js';
import { addLogContext } from '../logging/context.js';
import { decideRetry } from '../model/retry.js';
import type { ResolvedTool, ToolRegistry } from '../tools/registry.js';
import type { ToolProgress } from '../model/events.js';
import { CallStateWriter } from './call-state-writer.js';
import type { CancelRegistry } from './cancel-registry.js';
import { Execution, replayKeyOf, type Settled } from './execution.js';

export interface CallRunnerDeps {
  config: Config;
  calls: CallStore;
  sessions: SessionService;
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

export class CallRunner {
  private readonly state: CallStateWriter;

  constructor(private readonly deps: CallRunnerDeps) {
    this.state = new CallStateWriter(deps.eventLog, deps.workerId);
  }

  async run(sessionId: string, callRowId: string, jobSignal?: AbortSignal): Promise<RunVerdict> {
    const { calls, eventLog, registry } = this.deps;
    const observed = await calls.load(callRowId);
    if (!observed || (observed.status !== 'QUEUED' && observed.status !== 'RUNNING')) return DONE;
    addLogContext({ tenantId: observed.tenantId, callId: observed.callId });
    const tool = await registry.resolve(observed.tenantId, observed.tool);
    if (observed.status === 'QUEUED' && tool?.definition.kind === 'EXTERNAL') {
      // External tools run outside toolrun: the call waits for a client's completion (or its deadline).
      await eventLog.write(sessionId, (scope) => enterPendingExternal(scope, callRowId));
      return DONE;
    }

    const started =
      observed.status === 'QUEUED'
        ? await this.state.start(sessionId, callRowId)
        : await eventLog.write(sessionId, (scope) => recoverInterruptedCall(scope, observed, tool?.definition.hints ?? null, this.deps.workerId));
    if (!started) return DONE;
    if (!tool) return this.finish(started, outputs.unavailable(started.tool));
    return this.execute(started, tool, jobSignal);
  }

  private async execute(call: CallRecord, tool: ResolvedTool, jobSignal?: AbortSignal): Promise<RunVerdict> {
    const { logger } = this.deps;
    const attempt = call.attempt;
    const execution = new Execution(this.deps, {
      id: call.id,
      subject: 'tool call',
      sessionId: call.sessionId,
      timeoutMs: call.timeoutMs,
      cancelRequested: Boolean(call.cancelRequestedAt),
      jobSignal,
    });
    const progress = new ProgressWriter((latest) =>
      this.deps.eventLog.write(call.sessionId, (scope) => recordProgress(scope, call, attempt, { ...latest })),
    );

    const context = execution.toolContext({
      tenantId: call.tenantId,
      sessionId: call.sessionId,
      callId: call.callId,
      tool: call.tool,
      attempt,
      maxAttempts: call.maxAttempts,
      replayKey: replayKeyOf(call.sessionId, call.callId, call.tool),
      reportProgress: (value) => progress.report(value),
      output: () => undefined,
      status: (text) => progress.report({ message: text }),
      logger: logger.child({ callId: call.callId, sessionId: call.sessionId, tool: call.tool }),
      ...(this.deps.background ? { spawnBackground: (args: Record<string, unknown>) => this.deps.background!.spawnFromTool(call.tenantId, call.sessionId, args) } : {}),
    });

    let settled: Settled;
    try {
      settled = await execution.settle(tool.execute(call.args as Record<string, unknown>, context));
    } finally {
      await progress.flush();
    }

    const reason = execution.reason;
    if (reason === 'shutdown') {
      const handedBack = failure('UNAVAILABLE', 'worker_shutdown', 'The worker shut down during the call; it runs again on another worker', {
        retry: { kind: 'SAFE', afterMs: 0 },
      });
      await this.deps.eventLog.write(call.sessionId, (scope) => scheduleRetry(scope, call, attempt, handedBack, 0));
      return { kind: 'retry', delayMs: 0 };
    }
    let output: ToolCallOutput;
    if (reason === 'cancelled') output = this.cancelledOutput(call, settled);
    else if (reason === 'timeout') {
      // A tool that reports its own TIMEOUT failure at the deadline (an HTTP tool: safe to retry) decides its retry.
      output =
        settled.kind === 'error' && settled.error instanceof ToolFailureError && settled.error.failure.class === 'TIMEOUT'
          ? outputs.failure(settled.error.failure)
          : outputs.failure(failure('TIMEOUT', 'timeout', `Tool \`${call.tool}\` timed out after ${call.timeoutMs} ms`));
    } else output = this.outputOf(call, settled);

    // A cancelled call is not run again, whatever its tool's failure said.
    const decision = reason === 'cancelled' ? { kind: 'final' as const, output } : decideRetry(output, attempt, call.maxAttempts, tool.definition.retry);
    if (decision.kind === 'retry') {
      const { failure: failed, delayMs } = decision;
      const scheduled = await this.deps.eventLog.write(call.sessionId, (scope) => scheduleRetry(scope, call, attempt, failed, delayMs));
      return scheduled ? { kind: 'retry', delayMs } : DONE;
    }
    return this.finish(call, decision.output);
  }

  private async finish(call: CallRecord, output: ToolCallOutput): Promise<RunVerdict> {
    await this.state.complete(call, call.attempt, output);
    return DONE;
  }

  /**
   * A cancelled call's outcome (seed 001: cancel, then the grace period, the tool's own outcome
   * first): a value or a typed failure the tool produced before the grace ran out is recorded as
   * it is (and not retried), so a side effect that completed is not reported as cancelled. A tool
   * that stopped because of the cancellation (it rejected, say with the signal's reason) or that
   * was still running when the grace ran out is recorded CANCELLED.
   */
  private cancelledOutput(call: CallRecord, settled: Settled): ToolCallOutput {
    if (settled.kind === 'value' || (settled.kind === 'error' && settled.error instanceof ToolFailureError)) return this.outputOf(call, settled);
    return outputs.cancelled();
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
