// The CPU-bound half of grep_files: matching lines of many files. It runs in a worker thread, so
// a long search never blocks the other calls of the process, and the thread is terminated when the
// call's signal fires (deadline, cancel, shutdown): the search does not outlive its call. Pattern
// and glob run on RE2 (linear time).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { RE2JS } from 're2js';
import { compileLinearRegExp } from './linear-regexp.js';
import { fileError, type GrepMatch, type GrepResult } from './session-files.js';

export interface GrepFile {
  path: string;
  content: string;
}

export interface GrepSearch {
  pattern: string;
  ignoreCase: boolean;
  /** RE2 source matched against `globSubject(path)`; null: every file. */
  glob: { source: string; onName: boolean; relativeTo: string; absolute: boolean } | null;
  maxMatches: number;
  maxLineChars: number;
}

const RE2JS_PATH = createRequire(import.meta.url).resolve('re2js');

// Plain JavaScript run by the worker (eval: true), so it loads the same way from src/ under tsx
// and from dist/.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { RE2JS } = require(workerData.re2js);
const { files, search } = workerData;
const regex = RE2JS.compile(RE2JS.translateRegExp(search.pattern), search.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
const glob = search.glob ? RE2JS.compile(search.glob.source) : null;
const nameOf = (path) => path.slice(path.lastIndexOf('/') + 1);
// A long line is shortened on a character boundary, as cutAt in model/text.ts does (this thread's source cannot import it).
const cut = (text, max) => {
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
};
const matches = [];
let truncated = false;
let filesSearched = 0;
for (const file of files) {
  if (glob) {
    const g = search.glob;
    const subject = g.onName ? nameOf(file.path) : file.path.startsWith(g.relativeTo) ? file.path.slice(g.relativeTo.length) : nameOf(file.path);
    if (!glob.test(subject) && !(g.absolute && glob.test(file.path))) continue;
  }
  filesSearched++;
  if (truncated) continue;
  const lines = file.content.split('\\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index].replace(/\\r$/, '');
    if (index === lines.length - 1 && line === '') break;
    if (!regex.test(line)) continue;
    if (matches.length >= search.maxMatches) {
      truncated = true;
      break;
    }
    const text = line.length > search.maxLineChars ? cut(line, search.maxLineChars) + '\\u2026' : line;
    matches.push({ path: file.path, line: index + 1, text });
  }
}
parentPort.postMessage({ matches, truncated, filesSearched });
`;

/** Throws INVALID_REQUEST `invalid_pattern` for a glob whose RE2 source (as the search thread compiles it) RE2 cannot run. */
export function checkGlobSource(glob: string, source: string): void {
  try {
    RE2JS.compile(source);
  } catch (error) {
    throw fileError('INVALID_REQUEST', 'invalid_pattern', `Invalid glob ${JSON.stringify(glob)}: ${(error as Error).message}`);
  }
}

/** Throws INVALID_REQUEST `invalid_pattern` for a pattern RE2 cannot run, before any thread starts. */
export function checkGrepPattern(pattern: string, ignoreCase: boolean): void {
  try {
    compileLinearRegExp(pattern, { ignoreCase });
  } catch (error) {
    throw fileError(
      'INVALID_REQUEST',
      'invalid_pattern',
      `Invalid regular expression ${JSON.stringify(pattern)} (patterns run on RE2: no backreferences or lookarounds): ${(error as Error).message}`,
    );
  }
}

/** Searches `files` in a worker thread; rejects with `signal.reason` (and stops the thread) when the signal fires. */
export function grepInWorker(files: GrepFile[], search: GrepSearch, signal: AbortSignal | undefined): Promise<GrepResult> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { re2js: RE2JS_PATH, files, search } });
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      finish();
    };
    const onAbort = () => settle(() => reject(signal!.reason));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (result: { matches: GrepMatch[]; truncated: boolean; filesSearched: number }) => settle(() => resolve(result)));
    worker.once('error', (error) => settle(() => reject(error)));
    worker.once('exit', (code) => settle(() => reject(new Error(`grep worker exited with code ${code} before answering`))));
  });
}
