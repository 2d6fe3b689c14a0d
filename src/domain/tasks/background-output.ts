// The text side of a background run (DESIGN.md §4): artifact paths, the capped output log, the
// output tail, result.json and the session message a finished run leaves. Pure functions; the
// transitions in task-transitions.ts write what these compute.
import { newRunId } from '../../model/ids.js';
import { displayable } from '../../model/storable-json.js';
import { decodeStoredValue, jsonText } from '../../model/tool-value.js';

/** The output log keeps at most this many characters of output (Unicode code points). */
export const MAX_OUTPUT_LOG_CHARS = 262_144;
/** `outputTail` keeps the last this many characters of output. */
export const OUTPUT_TAIL_CHARS = 2048;
export const TRUNCATION_LINE = `[system] background output truncated at ${MAX_OUTPUT_LOG_CHARS} characters`;
export const CANCELED_LINE = 'Canceled by request.';

export type OutputStream = 'stdout' | 'stderr';

export interface RunArtifacts {
  runId: string;
  artifactDir: string;
  logPath: string;
  resultPath: string;
}

export function newRunArtifacts(): RunArtifacts {
  const runId = newRunId();
  const artifactDir = `/.background/${runId}`;
  return { runId, artifactDir, logPath: `${artifactDir}/output.log`, resultPath: `${artifactDir}/result.json` };
}

export function artifactDirOf(runId: string): string {
  return `/.background/${runId}`;
}

/** Length in code points (what PostgreSQL's length() counts). */
export function charLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** The first `n` code points. */
export function headChars(text: string, n: number): string {
  if (n <= 0) return '';
  let end = 0;
  for (let taken = 0; taken < n && end < text.length; taken++) {
    const code = text.charCodeAt(end);
    end += code >= 0xd800 && code <= 0xdbff && end + 1 < text.length ? 2 : 1;
  }
  return text.slice(0, end);
}

/** The last `n` code points. */
export function tailChars(text: string, n: number): string {
  if (n <= 0) return '';
  let start = text.length;
  for (let taken = 0; taken < n && start > 0; taken++) {
    const code = text.charCodeAt(start - 1);
    start -= code >= 0xdc00 && code <= 0xdfff && start - 2 >= 0 ? 2 : 1;
  }
  return text.slice(start);
}

/** A chunk of output as the log and the tail record it. */
export function outputEntry(stream: OutputStream, text: string): string {
  return `[${stream}] ${text}`;
}

export interface OutputState {
  tail: string;
  /** Characters of output in the log (without the truncation line). */
  logChars: number;
  truncated: boolean;
}

export interface OutputAppend {
  state: OutputState;
  /** What to append to output.log (may include the truncation line). */
  logText: string;
  /** The part of the chunk's text that reached the log. */
  keptText: string;
  /** True when this chunk hit the cap. */
  truncatedNow: boolean;
}

/** Applies one output chunk (shown as displayable text): the tail always moves; the log only grows up to its cap. */
export function appendOutput(state: OutputState, stream: OutputStream, reported: string): OutputAppend {
  // The log is text in PostgreSQL and the session's files, which hold neither NUL nor lone surrogates.
  const text = displayable(reported);
  const entry = outputEntry(stream, text);
  const tail = tailChars(state.tail + entry, OUTPUT_TAIL_CHARS);
  if (state.truncated) return { state: { ...state, tail }, logText: '', keptText: '', truncatedNow: false };
  const entryChars = charLength(entry);
  const remaining = MAX_OUTPUT_LOG_CHARS - state.logChars;
  if (entryChars <= remaining) {
    return { state: { tail, logChars: state.logChars + entryChars, truncated: false }, logText: entry, keptText: text, truncatedNow: false };
  }
  const kept = headChars(entry, remaining);
  const prefixChars = charLength(outputEntry(stream, ''));
  return {
    state: { tail, logChars: MAX_OUTPUT_LOG_CHARS, truncated: true },
    logText: `${kept}\n${TRUNCATION_LINE}\n`,
    keptText: remaining > prefixChars ? text.slice(0, kept.length - outputEntry(stream, '').length) : '',
    truncatedNow: true,
  };
}

export type FinishedState = 'SUCCEEDED' | 'FAILED' | 'CANCELED';

/**
 * result.json of a finished run, as the seed writes it (serde_json's pretty text of a plain
 * `Value`: keys sorted, an object using the tool-value tag key not escaped); `result` is a stored
 * tool value.
 */
export function resultDocument(state: FinishedState, detail: { result?: unknown; error?: string }): string {
  if (state === 'SUCCEEDED') return jsonText(decodeStoredValue(detail.result ?? null), true);
  return jsonText(state === 'FAILED' ? { status: 'failed', error: detail.error ?? '' } : { status: 'canceled' }, true);
}

const VERB: Record<FinishedState, string> = { SUCCEEDED: 'completed', FAILED: 'failed', CANCELED: 'canceled' };

/** The session message a run with signalOnCompletion leaves when it finishes. */
export function completionMessage(
  state: FinishedState,
  run: { runId: string; title: string; tool: string; summary: string; resultPath: string; logPath: string },
): string {
  return [
    `Background run ${VERB[state]}.`,
    `- run_id: ${run.runId}`,
    `- title: ${run.title}`,
    `- tool: ${run.tool}`,
    `- summary: ${run.summary}`,
    `- result_path: ${run.resultPath}`,
    `- log_path: ${run.logPath}`,
  ].join('\n');
}
