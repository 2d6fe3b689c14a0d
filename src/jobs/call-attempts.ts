// When a worker writes what about the attempts it runs.
//
// A call of a readonly tool (no effects) starts at once: its claim (QUEUED → RUNNING,
// ToolCallStarted) goes out on the next tick without the tool waiting for it, and when the tool is
// done before the claim was taken, claim and outcome are one transition in one transaction. Any other
// tool's claim is durable before the tool runs.
//
// Every write is fenced by the attempt (and this worker), so a superseded attempt writes nothing and
// learns it, which aborts the run. A write that fails is retried for as long as this process lives:
// the outcome of a call that ran must not be lost (a process that dies is recovered by the reaper).
import type { CallRef } from '../domain/calls/call-folds.js';
import type { CallDescriptor } from '../domain/calls/call-jobs.js';
import { finishAlone, type FinishWrite, writeClaim, writeFinish, writePendingExternal, writeProgress, writeRequeue } from '../domain/calls/call-writes.js';
import type { AloneForm, EventLog, WriteScope } from '../domain/event-log.js';
import type { Dispatcher } from '../domain/outbox.js';
import type { Logger } from '../logger.js';
import type { ToolCallOutput, ToolFailure } from '../model/outcome.js';

type AttemptState = 'pending' | 'claiming' | 'claimed' | 'lost' | 'done';

const WRITE_BACKOFF_MS = [50, 200, 1000, 5000];

export interface AttemptOptions {
  /** Write the claim before the tool may run (tools that are neither idempotent nor readonly). */
  durable: boolean;
  /** Run by the batch's lane job (which goes on by itself, so its completions wake nothing). */
  inLane: boolean;
  /** The attempt was superseded (recovered elsewhere, cancelled while queued): stop running it. */
  onLost(): void;
}

export class CallAttempt {
  state: AttemptState = 'pending';
  readonly startedAt = new Date();
  claim: Promise<boolean> | null = null;
  private progressPending: Record<string, unknown> | null = null;
  private progressWrite: Promise<void> | null = null;

  constructor(
    readonly call: CallRef,
    readonly descriptor: CallDescriptor,
    readonly options: AttemptOptions,
  ) {}

  queueProgress(progress: Record<string, unknown>, write: (progress: Record<string, unknown>) => Promise<void>): void {
    this.progressPending = progress;
    if (this.progressWrite) return;
    this.progressWrite = (async () => {
      while (this.progressPending && this.state !== 'lost' && this.state !== 'done') {
        const next = this.progressPending;
        this.progressPending = null;
        await write(next).catch(() => undefined);
      }
      this.progressWrite = null;
    })();
  }

  async progressWritten(): Promise<void> {
    await this.progressWrite;
  }
}

export class CallAttempts {
  private readonly pendingClaims = new Set<CallAttempt>();
  private claimTick = false;

  constructor(
    private readonly eventLog: EventLog,
    private readonly dispatcher: Dispatcher,
    /** This worker's id (it changes when the worker re-registers after being declared dead). */
    private readonly workerId: () => string,
    private readonly logger: Logger,
  ) {}

  /** Begins an attempt; null when a durable claim was refused (the call is not QUEUED at that attempt). */
  async begin(call: CallRef, descriptor: CallDescriptor, options: AttemptOptions): Promise<CallAttempt | null> {
    const attempt = new CallAttempt(call, descriptor, options);
    if (options.durable) return (await this.writeClaim(attempt)) ? attempt : null;
    this.pendingClaims.add(attempt);
    if (!this.claimTick) {
      this.claimTick = true;
      setImmediate(() => this.flushClaims());
    }
    return attempt;
  }

  private flushClaims(): void {
    this.claimTick = false;
    const attempts = [...this.pendingClaims];
    this.pendingClaims.clear();
    for (const attempt of attempts) if (attempt.state === 'pending') void this.writeClaim(attempt);
  }

  private writeClaim(attempt: CallAttempt): Promise<boolean> {
    attempt.state = 'claiming';
    attempt.claim = this.write(`claim of ${attempt.call.callId}`, attempt.call.sessionId, (scope, done) =>
      writeClaim(scope, attempt.call, this.workerId(), attempt.startedAt, done),
    ).then((claimed) => {
      if (attempt.state === 'claiming') attempt.state = claimed ? 'claimed' : 'lost';
      if (!claimed) attempt.options.onLost();
      return claimed;
    });
    return attempt.claim;
  }

  /** Reports progress (coalesced: while a write is in flight only the latest report waits). */
  progress(attempt: CallAttempt, progress: Record<string, unknown>): void {
    attempt.queueProgress(progress, async (latest) => {
      if (!(await this.holds(attempt))) return;
      const live = await this.write(`progress of ${attempt.call.callId}`, attempt.call.sessionId, (scope, done) =>
        writeProgress(scope, attempt.call, this.workerId(), latest, done),
      );
      if (!live && attempt.state === 'claimed') {
        attempt.state = 'lost';
        attempt.options.onLost();
      }
    });
  }

  /**
   * Records the outcome. `ran: false` for a call that ends without running (its tool vanished): it gets
   * no ToolCallStarted. Resolves false when the attempt was superseded (nothing written).
   */
  async finish(attempt: CallAttempt, output: ToolCallOutput, durationMs: number, ran = true): Promise<boolean> {
    await attempt.progressWritten();
    const claimed = await this.claimForOutcome(attempt);
    if (claimed === null) return false;
    const write: FinishWrite = { call: attempt.call, workerId: this.workerId(), claimed, ran, output, startedAt: attempt.startedAt, durationMs, inLane: attempt.options.inLane };
    const finished = await this.write(
      `outcome of ${attempt.call.callId}`,
      attempt.call.sessionId,
      (scope, done) => writeFinish(scope, this.dispatcher, write, done),
      (done) => finishAlone(write, done),
    );
    attempt.state = finished ? 'done' : 'lost';
    return finished;
  }

  /** The call runs again as the next attempt after `delayMs` (a retry, or handed back at shutdown). */
  async requeue(attempt: CallAttempt, failure: ToolFailure, delayMs: number): Promise<boolean> {
    await attempt.progressWritten();
    const claimed = await this.claimForOutcome(attempt);
    if (claimed === null) return false;
    const requeued = await this.write(`retry of ${attempt.call.callId}`, attempt.call.sessionId, (scope, done) =>
      writeRequeue(
        scope,
        this.dispatcher,
        { call: attempt.call, descriptor: attempt.descriptor, workerId: this.workerId(), claimed, startedAt: attempt.startedAt, failure, delayMs },
        done,
      ),
    );
    attempt.state = requeued ? 'done' : 'lost';
    return requeued;
  }

  /** QUEUED → PENDING_EXTERNAL for a call of an external tool; false when it was not QUEUED any more. */
  awaitExternal(call: CallRef): Promise<boolean> {
    return this.write(`wait of ${call.callId}`, call.sessionId, (scope, done) => writePendingExternal(scope, call, done));
  }

  /** Whether the attempt holds the call (its claim written and accepted), writing a pending claim first. */
  private async holds(attempt: CallAttempt): Promise<boolean> {
    if (attempt.state === 'pending') {
      this.pendingClaims.delete(attempt);
      return this.writeClaim(attempt);
    }
    if (attempt.state === 'claiming') return attempt.claim!;
    return attempt.state === 'claimed';
  }

  /** null: superseded. Otherwise whether the claim was written (false: claim and outcome in one write). */
  private async claimForOutcome(attempt: CallAttempt): Promise<boolean | null> {
    if (attempt.state === 'lost' || attempt.state === 'done') return null;
    if (attempt.state === 'pending') {
      // Done before its claim went out: claim and outcome become one write (no later claim of its own).
      this.pendingClaims.delete(attempt);
      attempt.state = 'claiming';
      attempt.claim = Promise.resolve(false);
      return false;
    }
    return (await this.holds(attempt)) ? true : null;
  }

  /**
   * One unit of the event log, whose fenced result `done` reports (from its single-statement form
   * `alone` when it has one); failures are retried with backoff.
   */
  private async write<I, R>(
    what: string,
    sessionId: string,
    body: (scope: WriteScope, done: (ok: boolean) => void) => void,
    alone?: (done: (ok: boolean) => void) => AloneForm<I, R> | null,
  ): Promise<boolean> {
    for (let failures = 0; ; failures++) {
      try {
        let ok = false;
        const run = async (scope: WriteScope) => {
          ok = false;
          body(scope, (result) => (ok = result));
        };
        const single = alone?.((result) => (ok = result));
        if (single) await this.eventLog.writeAlone(sessionId, single, run);
        else await this.eventLog.write(sessionId, run);
        return ok;
      } catch (error) {
        if (failures === 0 || failures % 10 === 0) this.logger.warn({ err: error, sessionId, failures: failures + 1 }, `writing the ${what} failed; retrying`);
        await new Promise((resolve) => setTimeout(resolve, WRITE_BACKOFF_MS[Math.min(failures, WRITE_BACKOFF_MS.length - 1)]));
      }
    }
  }
}
