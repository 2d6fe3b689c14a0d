// Runs one attempt of a tool call on a worker: takes a fair slot, claims the call (at once for a
// readonly tool, durably first for any other), executes the tool under its deadline and abort
// signal, streams progress, and records the outcome or a retry (call-attempts.ts decides when).
import type { Config } from '../config.js';
import type { CallRef } from '../domain/calls/call-folds.js';
import type { CallDescriptor } from '../domain/calls/call-jobs.js';
import type { BackgroundService } from '../domain/tasks/background.js';
import type { SessionService } from '../domain/sessions/sessions.js';
import type { Logger } from '../logger.js';
import { isInfrastructureError, summarizeError } from '../logging/infrastructure-errors.js';
import { isLockWaitTimeout, isTransientDatabaseError } from '../sql.js';
import { failure, outputs, type ToolCallOutput, type ToolFailure, ToolFailureError } from '../model/outcome.js';
import { decideRetry } from '../model/retry.js';
import { MalformedToolValueError } from '../model/tool-value.js';
import type { ResolvedTool, ToolRegistry } from '../tools/registry.js';
import { mayRunTwice } from '../tools/types.js';
import type { CallAttempt, CallAttempts } from './call-attempts.js';
import type { CallSlots } from './call-slots.js';
import type { CancelRegistry } from './cancel-registry.js';
import { Execution, replayKeyOf, type Settled } from './execution.js';
import { SpanKind } from '@opentelemetry/api';
import { inSpan, setActiveSpanAttributes, type TraceCarrier, tracingEnabled } from '../telemetry/tracing.js';

export interface CallRunnerDeps {
  config: Config;
  sessions: SessionService;
  registry: ToolRegistry;
  cancels: CancelRegistry;
  attempts: CallAttempts;
  slots: CallSlots;
  logger: Logger;
  /** The args of a call whose job did not carry them (too large). */
  readArgs(callRowId: string): Promise<unknown>;
  /** Gives calls the spawn_background capability. */
  background?: BackgroundService;
  /** Fires when the drain time is over: calls still running are stopped. */
  shutdown: AbortSignal;
}

/**
 * How a run ended for its job: `done` (the call's outcome is recorded), `requeued` (it runs again
 * later as the next attempt), `waiting` (for an external completion), `skipped` (it was not QUEUED at
 * that attempt: done elsewhere, cancelled, or superseded), `stopped` (the worker shuts down before
 * the call started: it must be handed back).
 */
export type RunResult = 'done' | 'requeued' | 'waiting' | 'skipped' | 'stopped';

/** How long a call of a job waits for a slot of this worker before it goes back to the queue. */
export const HAND_BACK_AFTER_MS = 1000;

export class CallRunner {
  private readonly executions = new Set<Execution>();
  /**
   * The attempts (call row id and attempt) in hand on this worker. A job can reach one worker twice
   * (dispatched again after a Redis restart or a lost worker while the first copy still waits here
   * for a slot): the second copy of an attempt is skipped, not run beside the first. (A lane job
   * reads its next call from the database and goes on after a skip, so its runs are not tracked here;
   * two copies of a lane's call are told apart by the claim's fence.)
   */
  private readonly inHand = new Set<string>();

  constructor(private readonly deps: CallRunnerDeps) {
    // One listener for every execution (a listener per call costs more than a fast call's run).
    deps.shutdown.addEventListener('abort', () => {
      for (const execution of this.executions) execution.abort('shutdown');
    }, { once: true });
  }

  /** Calls running here now. */
  get running(): number {
    return this.executions.size;
  }

  /** This worker was declared dead: everything it runs was recovered elsewhere, so stop it all at once. */
  abandonAll(): void {
    for (const execution of this.executions) execution.abort('superseded');
  }

  /**
   * Runs the call; with tracing on, in a span of the trace its job carries (`trace`). `log` is the
   * job's logger (it names the job, tenant and session; the call's lines add its id).
   */
  run(call: CallRef, descriptor: CallDescriptor, options: { inLane: boolean; trace?: TraceCarrier; log: Logger }): Promise<RunResult> {
    const run = () => this.runCall(call, descriptor, options);
    if (!tracingEnabled) return run();
    const attributes = { 'toolrun.tool': call.tool, 'toolrun.call.id': call.callId, 'toolrun.call.attempt': call.attempt, 'toolrun.session.id': call.sessionId };
    return inSpan('toolrun.call.run', { kind: SpanKind.CONSUMER, attributes, parent: options.trace }, async (span) => {
      const result = await run();
      // `done` calls have their status set by record(); the others say how the run ended.
      if (result !== 'done') span.setAttribute('toolrun.call.outcome', result);
      return result;
    });
  }

  private async runCall(call: CallRef, descriptor: CallDescriptor, options: { inLane: boolean; log: Logger }): Promise<RunResult> {
    if (options.inLane) return this.runInHand(call, descriptor, options);
    const key = `${call.id}:${call.attempt}`;
    if (this.inHand.has(key)) return 'skipped';
    this.inHand.add(key);
    try {
      return await this.runInHand(call, descriptor, options);
    } finally {
      this.inHand.delete(key);
    }
  }

  private async runInHand(call: CallRef, descriptor: CallDescriptor, options: { inLane: boolean; log: Logger }): Promise<RunResult> {
    const { registry, slots } = this.deps;
    const tool = await registry.resolve(call.tenantId, call.tool);
    if (tool?.definition.kind === 'EXTERNAL') {
      // External tools run outside toolrun: the call waits for a client's completion (or its deadline).
      return (await this.deps.attempts.awaitExternal(call)) ? 'waiting' : 'skipped';
    }
    // A job's call that waits long for a slot here is handed back to the queue ('stopped'), where a
    // worker with a free slot takes it: this worker took the job when its job slots had room, yet its
    // call slots may stay full for as long as the calls in them run. A lane keeps its place.
    if (!(await slots.acquire(call.tenantId, options.inLane ? undefined : HAND_BACK_AFTER_MS))) return 'stopped';
    try {
      return await this.attempt(call, descriptor, tool, options.inLane, options.log);
    } finally {
      slots.release(call.tenantId);
    }
  }

  private async attempt(call: CallRef, descriptor: CallDescriptor, tool: ResolvedTool | null, inLane: boolean, log: Logger): Promise<RunResult> {
    const { attempts } = this.deps;
    const hints = tool?.definition.hints;
    const rerunnable = mayRunTwice(hints);
    let execution: Execution | null = null;
    // Gone since submission (a registered tool removed): the call ends without running, so no claim
    // (and no ToolCallStarted) is written first: the outcome is the attempt's one write. A readonly
    // tool starts before its claim is durable: if a cancel takes the call meanwhile, the record says
    // it never ran, which is true of every effect it has. An idempotent tool may change things
    // (write_file): it runs only once its claim is durable, so a call cancelled while queued never ran.
    const attempt = await attempts.begin(call, descriptor, { durable: Boolean(tool) && !hints?.readonly, inLane, onLost: () => execution?.abort('superseded') });
    if (!attempt) return 'skipped';
    if (!tool) {
      const unavailable = outputs.unavailable(call.tool);
      if (tracingEnabled) setActiveSpanAttributes(outcomeAttributes(unavailable));
      return (await attempts.finish(attempt, unavailable, 0, false)) ? 'done' : 'skipped';
    }

    const args = (descriptor.args !== undefined ? descriptor.args : await this.deps.readArgs(call.id)) as Record<string, unknown>;
    execution = new Execution(this.deps, { id: call.id, subject: 'tool call', sessionId: call.sessionId, timeoutMs: call.timeoutMs, cancelRequested: false });
    const context = execution.toolContext({
      tenantId: call.tenantId,
      sessionId: call.sessionId,
      callId: call.callId,
      tool: call.tool,
      attempt: call.attempt,
      maxAttempts: call.maxAttempts,
      replayKey: replayKeyOf(call.sessionId, call.callId, call.tool),
      reportProgress: (value) => attempts.progress(attempt, { ...value }),
      output: () => undefined,
      status: (text) => attempts.progress(attempt, { message: text }),
      spawnBackground: this.deps.background ? (spawnArgs: Record<string, unknown>) => this.deps.background!.spawnFromTool(call.tenantId, call.sessionId, spawnArgs) : undefined,
    }, () => log.child({ callId: call.callId, tool: call.tool }));
    const started = performance.now();
    let settled: Settled;
    this.executions.add(execution);
    try {
      settled = await execution.settle(tool.execute(args, context));
    } finally {
      this.executions.delete(execution);
    }
    const durationMs = performance.now() - started;
    return this.record(attempt, tool, execution, settled, durationMs, rerunnable, log);
  }

  private async record(attempt: CallAttempt, tool: ResolvedTool, execution: Execution, settled: Settled, durationMs: number, rerunnable: boolean, log: Logger): Promise<RunResult> {
    const { attempts } = this.deps;
    const { call } = attempt;
    const reason = execution.reason;
    if (reason === 'superseded') return 'skipped';
    if (reason === 'shutdown') {
      // Handed back only when running it again cannot repeat a side effect; otherwise it fails for good.
      if (rerunnable) {
        const handedBack = failure('UNAVAILABLE', 'worker_shutdown', 'The worker shut down during the call; it runs again on another worker', { retry: { kind: 'SAFE', afterMs: 0 } });
        return (await attempts.requeue(attempt, handedBack, 0)) ? 'requeued' : 'skipped';
      }
      const stopped = failure('UNAVAILABLE', 'worker_shutdown', `The worker shut down while running \`${call.tool}\`; the tool is not idempotent, so it is not run again`);
      const output = outputs.failure(stopped);
      if (tracingEnabled) setActiveSpanAttributes(outcomeAttributes(output));
      return (await attempts.finish(attempt, output, durationMs)) ? 'done' : 'skipped';
    }
    let output: ToolCallOutput;
    if (reason === 'cancelled') output = this.cancelledOutput(call, settled, log);
    else if (reason === 'timeout') {
      // A tool that reports its own TIMEOUT failure at the deadline (an HTTP tool: safe to retry) decides its retry.
      output =
        settled.kind === 'error' && settled.error instanceof ToolFailureError && settled.error.failure.class === 'TIMEOUT'
          ? outputs.failure(settled.error.failure)
          : outputs.failure(failure('TIMEOUT', 'timeout', `Tool \`${call.tool}\` timed out after ${call.timeoutMs} ms`));
    } else output = this.outputOf(call, settled, rerunnable, log);

    // A cancelled call is never retried, whatever its failure says.
    const decision = reason === 'cancelled' ? { kind: 'final' as const, output } : decideRetry(output, call.attempt, call.maxAttempts, tool.definition.retry);
    if (decision.kind === 'retry') return (await attempts.requeue(attempt, decision.failure, decision.delayMs)) ? 'requeued' : 'skipped';
    if (tracingEnabled) setActiveSpanAttributes(outcomeAttributes(decision.output));
    const recorded = await attempts.finish(attempt, decision.output, durationMs);
    log.debug({ callId: call.callId, attempt: call.attempt, status: decision.output.status, durationMs: Math.round(durationMs), recorded }, 'call attempt ended');
    return recorded ? 'done' : 'skipped';
  }

  /** A typed failure the tool threw; an INTERNAL one is masked (outputs.failure) and its details logged here. */
  private reportedFailure(call: CallRef, reported: ToolFailure, log: Logger): ToolCallOutput {
    if (reported.class === 'INTERNAL') {
      log.error({ code: reported.code, details: reported.message, callId: call.callId, tool: call.tool }, 'tool reported an internal error');
    }
    return outputs.failure(reported);
  }

  /** Cancelled: what the tool produced within the grace period wins (its side effect happened); else CANCELLED. */
  private cancelledOutput(call: CallRef, settled: Settled, log: Logger): ToolCallOutput {
    if (settled.kind === 'value') return this.outputOf(call, settled, false, log);
    if (settled.kind === 'error' && settled.error instanceof ToolFailureError) return this.reportedFailure(call, settled.error.failure, log);
    return outputs.cancelled();
  }

  private outputOf(call: CallRef, settled: Settled, rerunnable: boolean, log: Logger): ToolCallOutput {
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
    if (settled.kind === 'error' && settled.error instanceof ToolFailureError) return this.reportedFailure(call, settled.error.failure, log);
    if (settled.kind === 'error' && isStoreUnavailable(settled.error)) {
      // What toolrun gives a tool (its session's files, output, progress) failed because PostgreSQL or
      // Redis did not answer in time: no fault of the tool's, and a rerunnable tool may simply run again.
      log.warn({ err: summarizeError(settled.error), callId: call.callId, tool: call.tool }, 'tool stopped: the store did not answer');
      return outputs.failure(
        failure('UNAVAILABLE', 'store_unavailable', `toolrun's store did not answer in time while \`${call.tool}\` ran${rerunnable ? '' : '; the tool is not idempotent, so it is not run again'}`, {
          retry: rerunnable ? { kind: 'SAFE', afterMs: STORE_RETRY_AFTER_MS } : { kind: 'NEVER' },
        }),
      );
    }
    log.error({ err: settled.kind === 'error' ? settled.error : undefined, callId: call.callId, tool: call.tool }, 'tool failed with an internal error');
    return outputs.internal();
  }
}

const STORE_RETRY_AFTER_MS = 1000;

/** A dependency away or too slow: a lost connection, or a statement or lock wait that timed out. */
function isStoreUnavailable(error: unknown): boolean {
  return isInfrastructureError(error) || isTransientDatabaseError(error) || isLockWaitTimeout(error);
}

/** The outcome of an attempt as span attributes. */
function outcomeAttributes(output: ToolCallOutput): Record<string, string> {
  return output.status === 'FAILURE'
    ? { 'toolrun.call.outcome': output.status, 'toolrun.call.failure_class': output.failure.class, 'toolrun.call.failure_code': output.failure.code }
    : { 'toolrun.call.outcome': output.status };
}
