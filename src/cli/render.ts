// What the CLI draws: tables, progress bars, outcomes. On a terminal a live view redraws in place;
// anywhere else (a pipe, a log, a test) each change is one new line.
import type { Output, Progress } from './operations.js';

export interface Screen {
  /** Whether output goes to a terminal (live views redraw in place). */
  tty: boolean;
  /** The terminal's width in columns, when known. */
  columns?(): number | undefined;
  /** The terminal's height in rows, when known. */
  rows?(): number | undefined;
  write(text: string): void;
}

export const stdoutScreen: Screen = {
  tty: Boolean(process.stdout.isTTY),
  columns: () => process.stdout.columns,
  rows: () => process.stdout.rows,
  write: (text) => void process.stdout.write(text),
};

const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Text from the server (titles, names, messages anyone with a key may have set) as one line that a
 * terminal shows as it is: control characters — an escape sequence that would clear or recolour the
 * screen, a line break that would split a table row — and bidirectional overrides are shown escaped.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (char) => ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Columns padded to their widest cell (each cell printable). */
export function table(header: string[], cells: string[][]): string {
  const rows = cells.map((row) => row.map(printable));
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/**
 * A call's progress as its reports tell it so far: a report that leaves a field out (a status line
 * is a report with a message and no numbers) keeps what the earlier reports of the attempt said,
 * so the bar stays where the tool last put it.
 */
export function mergeProgress(previous: Progress | null, next: Progress): Progress {
  if (!previous) return next;
  return {
    current: next.current ?? previous.current,
    total: next.total ?? previous.total,
    unit: next.unit ?? previous.unit,
    label: next.label ?? previous.label,
    message: next.message ?? previous.message,
  };
}

/** What a ToolCallRetrying says: the failed attempt, why, and when the next one starts. */
export function retryText(event: { attempt?: number; nextAttempt?: number; delayMs?: number; failure?: { class: string; code: string; message: string } }): string {
  const failure = event.failure ? `: ${printable(`${event.failure.class}/${event.failure.code}: ${event.failure.message}`)}` : '';
  return `attempt ${event.attempt} failed${failure}; attempt ${event.nextAttempt} in ${event.delayMs} ms`;
}

/**
 * The line a live view adds while its stream resumes after a break, so that a view that stopped
 * moving says why instead of looking live.
 */
export function reconnectingLine(url: string): string {
  return `reconnecting to ${printable(url)}… (it resumes from the last event shown)`;
}

/** `[########------------] 40% 2/5 steps  message` (no bar when the total is unknown). */
export function progressBar(progress: Progress, width = 24): string {
  const { current, total, unit, label, message } = progress;
  const parts: string[] = [];
  if (current !== null && total !== null && total > 0) {
    const ratio = Math.min(1, Math.max(0, current / total));
    const filled = Math.round(ratio * width);
    parts.push(`[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.round(ratio * 100)).padStart(3)}% ${current}/${total}${unit ? ` ${unit}` : ''}`);
  } else if (current !== null) {
    parts.push(`${current}${unit ? ` ${unit}` : ''}`);
  }
  for (const text of [label, message]) if (text) parts.push(printable(text));
  return parts.join('  ');
}

export function outputText(output: Output | undefined | null): string {
  if (!output) return '';
  switch (output.__typename) {
    case 'ToolSuccess':
      return printable(JSON.stringify(output.value));
    case 'ToolFailure':
      return printable(`${output.class}/${output.code}: ${output.message}`);
    default:
      return printable(`cancelled: ${output.message}`);
  }
}

/**
 * A block of lines redrawn in place on a terminal (cursor up, clear, rewrite); elsewhere the lines
 * that changed since the last draw are printed. On a terminal the block must fit the screen: each
 * line is cut to its width (a line the terminal wrapped would take two rows where the redraw goes
 * up one), and a block taller than the screen keeps its first line and its last ones, saying how
 * many it leaves out (the cursor cannot go up past the top of the screen: every redraw would leave
 * a copy of what scrolled off behind).
 */
export class LiveBlock {
  private drawn = 0;
  private last: string[] = [];

  constructor(private readonly screen: Screen) {}

  draw(lines: string[]): void {
    if (this.screen.tty) {
      const columns = this.screen.columns?.();
      const rows = this.screen.rows?.();
      let shown = lines;
      if (rows && lines.length > rows - 1 && rows >= 4) {
        const last = lines.slice(lines.length - (rows - 3));
        shown = [lines[0]!, `… ${lines.length - 1 - last.length} more above (the terminal is ${rows} rows high)`, ...last];
      }
      const fitted = columns ? shown.map((line) => fit(line, columns)) : shown;
      const up = this.drawn > 0 ? `\x1b[${this.drawn}F` : '';
      this.screen.write(`${up}\x1b[0J${fitted.join('\n')}\n`);
      this.drawn = fitted.length;
      return;
    }
    const changed = lines.filter((line, index) => this.last[index] !== line);
    if (changed.length > 0) this.screen.write(`${changed.join('\n')}\n`);
    this.last = lines;
  }
}

/**
 * `line` in fewer than `columns` columns, cut with `…` when longer (counted in code points; the
 * last column stays free, where some terminals wrap at once).
 */
export function fit(line: string, columns: number): string {
  const points = [...line];
  if (points.length < columns) return line;
  return `${points.slice(0, Math.max(0, columns - 2)).join('')}…`;
}
