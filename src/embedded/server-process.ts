// A local server toolrun starts for itself (embedded PostgreSQL, redis-server): its own process
// group (a Ctrl-C in the terminal reaches toolrun, which drains and then stops it), its output in
// a log file under the data directory, stopped with toolrun — also when toolrun exits without a
// clean shutdown, as far as an 'exit' handler can.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { StartupError } from '../preflight.js';

export interface ServerProcess {
  pid: number;
  /** Stops the server and waits for it to exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

export interface ServerSpec {
  name: string;
  command: string;
  args: string[];
  /** Where its stdout and stderr go. */
  log: string;
  user?: { uid: number; gid: number } | null;
  env?: Record<string, string>;
  stopSignal: NodeJS.Signals;
}

export async function spawnServer(spec: ServerSpec): Promise<ServerProcess & { exited: Promise<number | null>; running(): boolean }> {
  const fd = openSync(spec.log, 'a');
  const child = spawn(spec.command, spec.args, {
    detached: true,
    stdio: ['ignore', fd, fd],
    env: { ...process.env, ...spec.env },
    ...(spec.user ?? {}),
  });
  closeSync(fd);
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  try {
    await spawned;
  } catch (error) {
    throw new StartupError(`starting ${spec.name} (${spec.command}) failed: ${(error as Error).message}`);
  }
  let alive = true;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => {
    alive = false;
    resolve(code);
  }));
  // The server must not outlive toolrun, whatever way toolrun ends.
  const onExit = () => {
    if (alive) child.kill(spec.stopSignal);
  };
  process.once('exit', onExit);
  child.unref();
  const pid = child.pid ?? -1;
  return {
    pid,
    exited,
    running: () => alive,
    stop: async (graceMs = 15_000) => {
      process.removeListener('exit', onExit);
      if (!alive) return;
      child.kill(spec.stopSignal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Polls `probe` until it succeeds; fails with the end of the server's log if it exits or takes too long. */
export async function untilReady(
  server: { exited: Promise<number | null>; running(): boolean },
  spec: { name: string; log: string; probe: () => Promise<void>; advice?: string; timeoutMs?: number },
): Promise<void> {
  const { name, log, probe, advice = '', timeoutMs = 60_000 } = spec;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!server.running()) throw new StartupError(`${name} stopped while starting: ${await lastLine(log)} (log: ${log})${advice}`);
    try {
      await probe();
      return;
    } catch {
      if (Date.now() > deadline) throw new StartupError(`${name} did not answer within ${timeoutMs / 1000} s: ${await lastLine(log)} (log: ${log})${advice}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function lastLine(log: string): Promise<string> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text.trim().split('\n').at(-1)?.trim() || `(nothing in ${log})`;
}
