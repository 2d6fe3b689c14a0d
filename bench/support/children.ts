// The bench's child processes: toolrun's API and worker, and the baseline's producer, worker and
// WebSocket server. Each keeps its last output lines (for error messages); an essential one that
// exits on its own breaks the run. All of them are killed when the bench exits, however it exits,
// and a bench that was killed outright (SIGKILL) has its leftovers killed by the next run (their
// pids and start times are kept in a file).
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTime } from './proc.js';
import { BenchError, deferred, reportCrash, within } from './wait.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// One file per checkout: a bench run never kills the children of a run in another checkout (worktree).
const PID_FILE = join(tmpdir(), `toolrun-bench-children-${process.getuid?.() ?? 0}-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.json`);
const OUTPUT_LINES = 200;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface IpcReply {
  id?: number;
  ready?: unknown;
  result?: unknown;
  error?: string;
}

const children = new Set<Child>();

export class Child {
  readonly process: ChildProcess;
  readonly exited: Promise<Exit>;
  readonly ready = deferred<unknown>();
  private readonly lines: string[] = [];
  private stopping = false;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();

  constructor(
    readonly name: string,
    args: string[],
    env: NodeJS.ProcessEnv,
    options: { ipc?: boolean; essential?: boolean } = {},
  ) {
    this.process = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe', ...(options.ipc ? (['ipc'] as const) : [])] });
    children.add(this);
    savePids();
    for (const stream of [this.process.stdout!, this.process.stderr!]) {
      let partial = '';
      const keep = (line: string) => {
        if (line.trim()) this.lines.push(line);
        this.lines.splice(0, Math.max(0, this.lines.length - OUTPUT_LINES));
      };
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const parts = (partial + chunk).split('\n');
        partial = parts.pop() ?? '';
        parts.forEach(keep);
      });
      stream.on('end', () => keep(partial));
    }
    this.process.on('message', (message: IpcReply) => {
      if (message.ready !== undefined) this.ready.resolve(message.ready);
      const waiter = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id!);
      if (message.error) waiter.reject(new BenchError(`${this.name}: ${message.error}`));
      else waiter.resolve(message.result);
    });
    this.exited = new Promise((resolve) => {
      this.process.once('error', (error) => this.lines.push(`spawn failed: ${error.message}`));
      this.process.once('close', (code, signal) => {
        children.delete(this);
        savePids();
        const failure = new BenchError(`${this.name} exited (code ${code}, signal ${signal})\n${this.output()}`);
        this.ready.reject(failure);
        for (const waiter of this.pending.values()) waiter.reject(failure);
        if (options.essential && !this.stopping) reportCrash(failure);
        resolve({ code, signal });
      });
    });
  }

  get pid(): number {
    return this.process.pid ?? -1;
  }

  output(lines = OUTPUT_LINES): string {
    if (this.lines.length === 0) return `(${this.name}, pid ${this.pid}, wrote nothing)`;
    return `--- last output of ${this.name} (pid ${this.pid}) ---\n${this.lines.slice(-lines).join('\n')}`;
  }

  /** A request to a baseline child over IPC (see baseline/serve.ts). */
  call<T>(command: string, args: unknown, timeoutMs: number): Promise<T> {
    const id = this.nextId++;
    const reply = new Promise<T>((resolve, reject) => this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject }));
    this.process.send({ id, command, args });
    return within(`${this.name} ${command}`, timeoutMs, reply);
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<Exit> {
    this.stopping = true;
    if (this.process.exitCode === null && this.process.signalCode === null) this.process.kill('SIGTERM');
    const timer = setTimeout(() => this.process.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

export async function stopAll(graceMs = 10_000): Promise<void> {
  await Promise.all([...children].map((child) => child.stop(graceMs)));
}

function savePids(): void {
  const entries = [...children].filter((child) => child.pid > 0).map((child) => ({ pid: child.pid, start: startTime(child.pid) }));
  if (entries.length === 0) rmSync(PID_FILE, { force: true });
  else writeFileSync(PID_FILE, JSON.stringify(entries));
}

/** Kills the children a previous bench run left behind (only those: same pid and same start time). */
export function killLeftovers(): number {
  let killed = 0;
  try {
    for (const { pid, start } of JSON.parse(readFileSync(PID_FILE, 'utf8')) as Array<{ pid: number; start: string | null }>) {
      if (start !== null && startTime(pid) === start) {
        process.kill(pid, 'SIGKILL');
        killed++;
      }
    }
  } catch {
    // No file, or nothing left to kill.
  }
  rmSync(PID_FILE, { force: true });
  return killed;
}

let interruptedBy: NodeJS.Signals | null = null;

/** The signal that interrupted the bench, if one did (the run then ends with exit code 130). */
export const interrupted = () => interruptedBy;

/** Kills every child when the bench ends: normally, on an uncaught error, or on SIGINT/SIGTERM (then runs `cleanup`). */
export function killChildrenOnExit(cleanup: () => Promise<void>): void {
  process.on('exit', () => {
    for (const child of children) child.process.kill('SIGKILL');
    rmSync(PID_FILE, { force: true });
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      interruptedBy = signal;
      console.error(`\n${signal}: stopping the bench's processes`);
      void stopAll(3000)
        .then(cleanup)
        .finally(() => process.exit(130));
    });
  }
}
