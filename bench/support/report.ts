// The table printed at the end, and the machine facts stored with the results.
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { ROOT } from './children.js';
import type { Row } from './bench.js';

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

const withUnit = (value: number | null, unit: string) => (value === null ? '—' : unit === '%' ? `${formatNumber(value)} %` : `${formatNumber(value)} ${unit}`);

export function table(rows: Row[]): string {
  const lines = [
    '| figure | baseline | toolrun | ratio | target | pass |',
    '| --- | ---: | ---: | ---: | --- | --- |',
  ];
  for (const row of rows) {
    if (row.broken) {
      lines.push(`| ${row.figure} | — | — | — | ${row.target} | BROKEN: ${row.broken.split('\n')[0]!.slice(0, 160)} |`);
      continue;
    }
    const ratio = row.ratio === null ? '—' : `${row.ratio >= 10 ? row.ratio.toFixed(1) : row.ratio.toFixed(2)}×`;
    const pass = row.pass === null ? '—' : row.pass ? 'pass' : 'FAIL';
    lines.push(`| ${row.figure} | ${withUnit(row.baseline, row.unit)} | ${withUnit(row.toolrun, row.unit)} | ${ratio} | ${row.target} | ${pass} |`);
  }
  return lines.join('\n');
}

function git(...args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

export function gitInfo() {
  return { commit: git('rev-parse', 'HEAD'), branch: git('rev-parse', '--abbrev-ref', 'HEAD'), dirty: (git('status', '--porcelain', '--untracked-files=no') ?? '') !== '' };
}

export function machineInfo() {
  return { cores: cpus().length, cpuModel: cpus()[0]?.model ?? null, totalMemoryMB: Math.round(totalmem() / 1024 / 1024), node: process.version, platform: `${process.platform} ${process.arch}`, loadAverage: loadavg() };
}
