// The README's examples, run as written against a fresh tenant: every ```graphql block (each
// operation in it, with the variables the README names: `$session`, `$headers`), and every ```sh
// block that talks to the API (`gql …` or `curl … "$URL"`), in README order, as one reader would
// run them. What a reader replaces is replaced here too: `trk_…` by the key, `U2Vzc2lvbjo…` by the
// session's id, `<taskId>` and `<eventCursor>` by the last spawned run's, and the local address by
// the test server's. A block preceded by `<!-- readme-test: skip (why) -->` is not run; one preceded
// by `<!-- readme-test: once <callId> is <STATUS> -->` runs when that call of the session is in that
// status (as a reader would, on its event). Any GraphQL error, or any typed error in an answer, fails
// the test: so that typed errors show, every example that selects `... on Error` selects its `code`.
// Its relative links must name files of the repository. It is a system test because the README's
// background run must not overlap test/api/background.test.ts, which counts every active run.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Kind, parse, print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/model/errors.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

interface Block {
  lang: string;
  line: number;
  text: string;
  skip: boolean;
  /** The call and status a `once` marker waits for. */
  once: { callId: string; status: string } | null;
}

const SKIP_MARKER = /^<!-- readme-test: skip \(.+\) -->$/;
const ONCE_MARKER = /^<!-- readme-test: once (\S+) is ([A-Z_]+) -->$/;

function readmeBlocks(): Block[] {
  const lines = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith('```'));
    const once = ONCE_MARKER.exec(lines[i - 1] ?? '');
    blocks.push({
      lang: open[1]!,
      line: i + 1,
      text: lines.slice(i + 1, end).join('\n'),
      skip: SKIP_MARKER.test(lines[i - 1] ?? ''),
      once: once ? { callId: once[1]!, status: once[2]! } : null,
    });
    i = end;
  }
  return blocks;
}

const talksToApi = (block: Block) => block.lang === 'sh' && (/^gql '/m.test(block.text) || /curl .*"\$URL"/.test(block.text));

/** Typed errors anywhere in an answer: objects whose `code` is an ErrorCode (tool failures use lower-case codes). */
function typedErrors(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(typedErrors);
  if (value === null || typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  if (typeof record.code === 'string' && record.code in ERROR_CODES) return [record];
  return Object.values(record).flatMap(typedErrors);
}

function run(command: string, args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: timeoutMs, killSignal: 'SIGTERM' }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

describe('the README examples', () => {
  let toolrun: Toolrun;
  let key: string;
  let url: string;
  let sessionId: string;
  const spawned = { taskId: '', eventCursor: '' };

  beforeAll(async () => {
    toolrun = await startToolrun();
    url = `${await toolrun.baseUrl()}/graphql`;
    key = await toolrun.newKey(undefined, ['submitter', 'approver', 'admin']);
    const created = await send('mutation { createSession(title: "readme") { ... on Session { id } } }', {});
    sessionId = (created.data as { createSession: { id: string } }).createSession.id;
  });
  afterAll(async () => {
    await toolrun?.close();
  });

  /** The block as the reader runs it, placeholders replaced. */
  function substituted(text: string): string {
    return text
      .replaceAll('trk_…', key)
      .replaceAll('U2Vzc2lvbjo…', sessionId)
      .replaceAll('<taskId>', spawned.taskId)
      .replaceAll('<eventCursor>', spawned.eventCursor)
      .replaceAll('http://127.0.0.1:4000/graphql', url);
  }

  /** Sends one operation over HTTP as a client would, and returns the answer. */
  async function send(query: string, variables: Record<string, unknown>): Promise<{ data?: unknown; errors?: unknown[] }> {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as { data?: unknown; errors?: unknown[] };
  }

  async function waitForStatus(block: Block, { callId, status }: { callId: string; status: string }): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const answer = await send('query($c: String!, $s: ID) { toolCall(callId: $c, sessionId: $s) { status } }', { c: callId, s: sessionId });
      const current = (answer.data as { toolCall: { status: string } | null } | undefined)?.toolCall?.status;
      if (current === status) return;
      if (Date.now() > deadline) throw new Error(`README line ${block.line}: call ${callId} is ${current ?? 'missing'}, not ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function runGraphql(block: Block): Promise<void> {
    if (block.once) await waitForStatus(block, block.once);
    const document = parse(substituted(block.text));
    for (const definition of document.definitions) {
      if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
      const known: Record<string, unknown> = { session: sessionId, headers: { 'X-Team': 'platform' } };
      const variables = Object.fromEntries((definition.variableDefinitions ?? []).map((variable) => [variable.variable.name.value, known[variable.variable.name.value]]));
      const answer = await send(print(definition), variables);
      expect(answer.errors, `README line ${block.line}`).toBeUndefined();
      expect(typedErrors(answer.data), `README line ${block.line}: ${JSON.stringify(answer.data)}`).toEqual([]);
      const run = (answer.data as { spawnBackground?: { taskId?: string; eventCursor?: string } }).spawnBackground;
      if (run?.taskId) Object.assign(spawned, { taskId: run.taskId, eventCursor: run.eventCursor ?? '' });
    }
  }

  /** Runs a shell block after what the reader's shell already holds (the set-up and earlier `export`s). */
  async function runShell(block: Block, prelude: string): Promise<void> {
    // A stream that does not end by itself (a session's live events) is stopped after a while; one
    // that completes when its work is done must end, having delivered that work's events.
    const endless = block.text.includes('text/event-stream') && !block.text.includes('completeWhenDone: true');
    const result = await run('bash', ['-c', `set -e\n${substituted(prelude)}\n${substituted(block.text)}`], endless ? 4000 : 20_000);
    if (!(endless && result.code === null)) expect(result.code, `README line ${block.line}: ${result.stderr}`).toBe(0);
    const answers = result.stdout
      .split('\n')
      .map((line) => line.replace(/^data: /, '').trim())
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { data?: unknown; errors?: unknown[] });
    if (!endless) expect(answers.length, `README line ${block.line}: no answer in ${result.stdout}`).toBeGreaterThan(0);
    for (const answer of answers) {
      expect(answer.errors, `README line ${block.line}`).toBeUndefined();
      expect(typedErrors(answer.data), `README line ${block.line}: ${JSON.stringify(answer.data)}`).toEqual([]);
    }
  }

  it('run as written, in order, without an error', async () => {
    const blocks = readmeBlocks();
    const runnable = blocks.filter((block) => !block.skip && (block.lang === 'graphql' || talksToApi(block)));
    for (const block of runnable) {
      for (const [selection] of block.text.matchAll(/\.\.\. on Error \{[^}]*\}/g)) expect(selection, `README line ${block.line}`).toMatch(/\bcode\b/);
    }
    // The examples this test exists for are there: the batch, the external tool, the background run, the session set-up.
    expect(runnable.filter((block) => block.lang === 'graphql').length).toBeGreaterThanOrEqual(5);
    const setup = runnable.find((block) => /^gql\(\) \{/m.test(block.text));
    expect(setup, 'the shell set-up that defines gql()').toBeDefined();
    let prelude = setup!.text;
    for (const block of runnable) {
      if (block.lang === 'graphql') await runGraphql(block);
      else if (block !== setup) {
        await runShell(block, prelude);
        prelude += `\n${block.text.split('\n').filter((line) => line.startsWith('export ')).join('\n')}`;
      }
    }
    expect(spawned.taskId, 'the background run example spawned a run').not.toBe('');
  }, 120_000);

  it('link only to files inside the repository', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const targets = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/.test(target));
    expect(targets).toContain('docs/architecture.md');
    for (const target of targets) {
      const file = new URL(`../../${target}`, import.meta.url);
      expect(file.pathname.startsWith(new URL('../../', import.meta.url).pathname) && existsSync(file), target).toBe(true);
    }
  });
});
