// Helpers for tests that start toolrun the way people do (npm scripts, compiled entry points).
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { Child } from './cluster.js';

/** Whether something accepts connections at 127.0.0.1:`port`. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Pids of the live processes whose environment holds `MARK=<mark>` (every process a test started carries one). */
export function processesMarked(mark: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
      if (environ.split('\0').includes(`TOOLRUN_TEST_MARK=${mark}`)) pids.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}

/** The parent pid of a live process. */
export function parentOf(pid: number): number {
  // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so count from its ')'.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** The JSON log lines a child wrote so far (other lines skipped). */
export function logLines(child: Child): Array<Record<string, unknown>> {
  return child
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return {};
      }
    });
}

/** The lines a process wrote that are not JSON log lines (what a person reads). */
export function plainLines(child: Child): string[] {
  return child
    .output()
    .split('\n')
    .slice(1)
    .filter((line) => line.trim() && !line.startsWith('{'));
}
