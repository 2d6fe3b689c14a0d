// CPU time and memory of processes, read from /proc (Linux).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();
const MS_PER_TICK = 1000 / TICKS_PER_SECOND;

/** Fields of /proc/<pid>/stat from the third (state) on; the command name may contain spaces. */
function statFields(pid: number): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** User + system CPU time of a live process, in ms (null when it is gone). */
export function cpuMs(pid: number): number | null {
  const fields = statFields(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK : null;
}

export function startTime(pid: number): string | null {
  return statFields(pid)?.[19] ?? null;
}

/** Resident set size in bytes (null when the process is gone). */
export function rssBytes(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** CPU time the whole machine spent busy (all cores, everything but idle and iowait), in ms. */
export function machineBusyMs(): number {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const ticks = values.slice(0, 8).map(Number);
  const idle = ticks[3]! + ticks[4]!;
  return (ticks.reduce((sum, value) => sum + value, 0) - idle) * MS_PER_TICK;
}

/** Samples a process's RSS every `intervalMs` and keeps the peak. */
export function rssPeakSampler(pid: number, intervalMs = 100): { stop(): number } {
  let peak = rssBytes(pid) ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssBytes(pid) ?? 0);
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssBytes(pid) ?? 0);
    },
  };
}

export const MB = 1024 * 1024;
