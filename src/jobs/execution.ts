// What every execution of a tool on a worker shares — an attempt of a call (call-runner.ts) and
// of a background run (task-runner.ts): one abort signal whose reason says why the tool must stop
// (its deadline, a cancel request, the worker shutting down, a superseded attempt), the deadline
// timer, the registration with the cancel registry, the bridge from the BullMQ job's own signal,
// the bounded wait for the tool to settle, and the ToolContext fields that do not depend on what
// runs.
import type { Config } from '../config.js';
import type { SessionService } from '../domain/sessions/sessions.js';
import type { ToolContext } from '../tools/types.js';
import type { CancelRegistry } from './cancel-registry.js';

export type AbortKind = 'cancelled' | 'timeout' | 'shutdown' | 'superseded';

const HAPPENED: Record<Exclude<AbortKind, 'shutdown'>, string> = { cancelled: 'cancelled', timeout: 'timed out', superseded: 'attempt superseded' };

/** Why an execution's signal fired. Tools reject with it; the runner maps `kind` to an outcome. */
export class ExecutionAbort extends Error {
  override name = 'ExecutionAbort';
  constructor(
    readonly kind: AbortKind,
    subject: 'tool call' | 'background run',
  ) {
    super(kind === 'shutdown' ? 'worker shutting down' : `${subject} ${HAPPENED[kind]}`);
  }
}

/** The seeds' replay key (000): the same on every attempt of a call or run, for idempotent side effects. */
export function replayKeyOf(sessionId: string, callId: string, tool: string): string {
  return `lash-tool:${sessionId}:${callId}:${tool}`;
}

export type Settled = { kind: 'value'; value: unknown } | { kind: 'error'; error: unknown } | { kind: 'abandoned' };

export interface ExecutionDeps {
  config: Config;
  sessions: SessionService;
  cancels: CancelRegistry;
}

export interface ExecutionOptions {
  /** The id cancel signals name: a call's or a task's row id. */
  id: string;
  subject: 'tool call' | 'background run';
  sessionId: string;
  timeoutMs: number;
  /** A cancel was requested before the execution started. */
  cancelRequested: boolean;
  /** The BullMQ job's signal: it fires when the worker shuts down. */
  jobSignal?: AbortSignal;
}

/** The fields of a ToolContext that say what runs and how it reports (the runner's); the execution supplies the rest. */
type OwnContext = Omit<ToolContext, 'signal' | 'deadline' | 'files' | 'setTodos' | 'webFetch' | 'logger'>;

/**
 * A run's ToolContext. A class rather than an object literal: a literal that spreads the runner's
 * fields and defines getters is built on V8's slow path, about 10 µs of CPU per call, more than a
 * fast tool's whole run.
 */
class RunContext implements ToolContext {
  readonly tenantId: string;
  readonly sessionId: string;
  readonly callId: string;
  readonly tool: string;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly replayKey: string;
  readonly reportProgress: ToolContext['reportProgress'];
  readonly output: ToolContext['output'];
  readonly status: ToolContext['status'];
  readonly spawnBackground: ToolContext['spawnBackground'];
  readonly deadline: Date;
  readonly webFetch: ToolContext['webFetch'];
  private log: ToolContext['logger'] | undefined;
  private sessionFiles: ToolContext['files'] | undefined;

  constructor(
    own: OwnContext,
    private readonly execution: Execution,
    private readonly deps: ExecutionDeps,
    private readonly makeLogger: ToolContext['logger'] | (() => ToolContext['logger']),
  ) {
    this.tenantId = own.tenantId;
    this.sessionId = own.sessionId;
    this.callId = own.callId;
    this.tool = own.tool;
    this.attempt = own.attempt;
    this.maxAttempts = own.maxAttempts;
    this.replayKey = own.replayKey;
    this.reportProgress = own.reportProgress;
    this.output = own.output;
    this.status = own.status;
    this.spawnBackground = own.spawnBackground;
    this.deadline = execution.deadline;
    const { config } = deps;
    this.webFetch = {
      allowPrivate: config.WEB_FETCH_ALLOW_PRIVATE,
      allowLoopback: config.WEB_FETCH_ALLOW_LOOPBACK,
      maxBytes: config.WEB_FETCH_MAX_BYTES,
      timeoutMs: config.WEB_FETCH_TIMEOUT_MS,
    };
  }

  get signal(): AbortSignal {
    return this.execution.signal;
  }

  /** A child logger per run costs more than most tools: made on first use. */
  get logger(): ToolContext['logger'] {
    this.log ??= typeof this.makeLogger === 'function' ? this.makeLogger() : this.makeLogger;
    return this.log;
  }

  /** Most tools never touch the session's files: made on first use. */
  get files(): ToolContext['files'] {
    this.sessionFiles ??= this.deps.sessions.files(this.sessionId);
    return this.sessionFiles;
  }

  setTodos(todos: unknown[]): Promise<void> {
    return this.deps.sessions.setTodos(this.sessionId, todos);
  }
}

export class Execution {
  readonly deadline: Date;
  /** Made when the tool first asks for its signal: an AbortController costs ~5 µs of CPU, and fast tools never look. */
  private controller: AbortController | null = null;
  private abortedWith: ExecutionAbort | null = null;
  /** Called once when the execution is aborted while settle() waits (it starts the grace period). */
  private whenAborted: (() => void) | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly unregister: () => void;
  private readonly onJobAbort = () => this.abort('shutdown');

  constructor(
    private readonly deps: ExecutionDeps,
    private readonly options: ExecutionOptions,
  ) {
    this.deadline = new Date(Date.now() + options.timeoutMs);
    this.timer = setTimeout(() => this.abort('timeout'), options.timeoutMs);
    this.unregister = deps.cancels.register(options.id, () => this.abort('cancelled'));
    options.jobSignal?.addEventListener('abort', this.onJobAbort);
    if (options.cancelRequested) this.abort('cancelled');
  }

  /** The tool's signal; it fires with an ExecutionAbort (already fired when the execution was aborted before). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedWith) this.controller.abort(this.abortedWith);
    }
    return this.controller.signal;
  }

  /** Why the execution was aborted, or null while it has not been. */
  get reason(): AbortKind | null {
    return this.abortedWith?.kind ?? null;
  }

  /** Aborts the execution: its signal fires (the first reason wins). */
  abort(kind: AbortKind): void {
    if (this.abortedWith) return;
    this.abortedWith = new ExecutionAbort(kind, this.options.subject);
    this.controller?.abort(this.abortedWith);
    this.whenAborted?.();
  }

  /** The context the tool runs with: what this run is and how it reports, plus what every run shares. */
  toolContext(own: OwnContext, logger: ToolContext['logger'] | (() => ToolContext['logger'])): ToolContext {
    return new RunContext(own, this, this.deps, logger);
  }

  /**
   * Waits for the tool to settle — once the signal fired, CANCEL_GRACE_MS at most — then ends the
   * deadline timer, the cancel registration and the job-signal bridge.
   */
  async settle(execution: Promise<unknown>): Promise<Settled> {
    try {
      return await new Promise<Settled>((resolve) => {
        let grace: NodeJS.Timeout | undefined;
        const startGrace = () => {
          grace = setTimeout(() => resolve({ kind: 'abandoned' }), this.deps.config.CANCEL_GRACE_MS);
        };
        if (this.abortedWith) startGrace();
        else this.whenAborted = startGrace;
        execution
          .then(
            (value) => resolve({ kind: 'value', value }),
            (error: unknown) => resolve({ kind: 'error', error }),
          )
          .finally(() => {
            clearTimeout(grace);
            this.whenAborted = null;
          });
      });
    } finally {
      clearTimeout(this.timer);
      this.unregister();
      this.options.jobSignal?.removeEventListener('abort', this.onJobAbort);
    }
  }
}
