// Built-in tools and the session file store against a real PostgreSQL database
// (the suite's test database, migrated by the global setup), and web_fetch against a local server.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDb, type Db } from '../../src/db.js';
import { FAILURE_CLASSES, ToolFailureError } from '../../src/model/outcome.js';
import { float } from '../../src/model/tool-value.js';
import { PrismaSessionFiles } from '../../src/domain/sessions/session-files.js';
import { MAX_FILE_BYTES, normalizePath } from '../../src/tools/session-files.js';
import { builtinTools } from '../../src/tools/builtin/index.js';
import { isAddressAllowed } from '../../src/tools/builtin/web-fetch.js';
import type { ToolProgress } from '../../src/model/events.js';
import { type BuiltinTool, TOOL_NAME_PATTERN, type ToolContext, type WebFetchSettings } from '../../src/tools/types.js';
import { compileSchemaOrError, validateArgs } from '../../src/tools/validate-args.js';
import { TEST_DATABASE_URL } from '../support/database.js';
import { failureOf } from '../support/fixtures.js';


let db: Db;
let tenantId: string;
let sessionId: string;
const logger = pino({ level: 'silent' });

function tool(name: string): BuiltinTool {
  const found = builtinTools.find((candidate) => candidate.definition.name === name);
  if (!found) throw new Error(`no built-in tool ${name}`);
  return found;
}

interface TestContext extends ToolContext {
  progress: ToolProgress[];
  controller: AbortController;
}

function makeContext(options: { session?: string; attempt?: number; webFetch?: Partial<WebFetchSettings>; tool?: string } = {}): TestContext {
  const session = options.session ?? sessionId;
  const controller = new AbortController();
  const progress: ToolProgress[] = [];
  const callId = `call-${randomUUID()}`;
  const toolName = options.tool ?? 'test';
  return {
    tenantId,
    sessionId: session,
    callId,
    tool: toolName,
    attempt: options.attempt ?? 1,
    maxAttempts: 3,
    replayKey: `lash-tool:${session}:${callId}:${toolName}`,
    signal: controller.signal,
    deadline: new Date(Date.now() + 60_000),
    reportProgress: (entry) => progress.push(entry),
    output: () => {},
    status: () => {},
    files: new PrismaSessionFiles(db, session),
    setTodos: async (todos) => {
      await db.session.update({ where: { id: session }, data: { todos: todos as object[] } });
    },
    webFetch: { allowPrivate: false, allowLoopback: false, maxBytes: 1024 * 1024, timeoutMs: 10_000, ...options.webFetch },
    logger,
    progress,
    controller,
  };
}

async function run(name: string, args: Record<string, unknown>, context: ToolContext = makeContext({ tool: name })): Promise<any> {
  return tool(name).execute(args, context);
}

beforeAll(async () => {
  db = createDb(TEST_DATABASE_URL, { poolSize: 20 });
  const tenant = await db.tenant.create({ data: { name: `tools-test-${randomUUID()}` } });
  tenantId = tenant.id;
  sessionId = (await db.session.create({ data: { tenantId } })).id;
}, 180_000);

afterAll(async () => {
  if (db && tenantId) await db.tenant.delete({ where: { id: tenantId } });
  await db?.$disconnect();
});

async function newSession(): Promise<string> {
  return (await db.session.create({ data: { tenantId } })).id;
}

// ---------------------------------------------------------------------------------------------

describe('paths', () => {
  it('normalizes', () => {
    expect(normalizePath('/a//b/./c')).toBe('/a/b/c');
    expect(normalizePath('/a/b/../c/')).toBe('/a/c');
    expect(normalizePath('/')).toBe('/');
    expect(normalizePath('notes.md')).toBe('/notes.md');
    expect(normalizePath('/a/..')).toBe('/');
  });

  it('rejects empty, NUL, escaping and overlong paths', () => {
    for (const bad of ['', '   ', '/a\0b', '/..', '/a/../../b', '../x', `/${'x'.repeat(300)}`, '/a\nb']) {
      let caught: unknown;
      try {
        normalizePath(bad);
      } catch (error) {
        caught = error;
      }
      expect(caught, JSON.stringify(bad)).toBeInstanceOf(ToolFailureError);
      expect((caught as ToolFailureError).failure).toMatchObject({ class: 'INVALID_REQUEST', code: 'invalid_path' });
    }
  });
});

describe('PrismaSessionFiles', () => {
  let files: PrismaSessionFiles;
  beforeAll(async () => {
    files = new PrismaSessionFiles(db, await newSession());
  });

  it('writes a file, creating parent directories, and reads it back', async () => {
    const written = await files.writeFile('/docs//guide/./intro.md', 'héllo\nworld\n');
    expect(written).toMatchObject({ path: '/docs/guide/intro.md', name: 'intro.md', isDirectory: false, size: 13, created: true });
    expect(written.createdAt).toBeInstanceOf(Date);
    expect(await files.stat('/docs')).toMatchObject({ isDirectory: true, size: 0 });
    expect(await files.stat('/docs/guide')).toMatchObject({ isDirectory: true });
    const read = await files.readFile('/docs/guide/intro.md');
    expect(read).toMatchObject({ content: 'héllo\nworld\n', totalLines: 2, offset: 0, lineCount: 2, hasMore: false, size: 13 });

    const overwritten = await files.writeFile('/docs/guide/intro.md', 'short');
    expect(overwritten).toMatchObject({ created: false, size: 5 });
    expect(overwritten.updatedAt.getTime()).toBeGreaterThanOrEqual(written.updatedAt.getTime());
    expect(overwritten.createdAt.getTime()).toBe(written.createdAt.getTime());
    expect((await files.readFile('/docs/guide/intro.md')).content).toBe('short');
  });

  it('reads a range of lines', async () => {
    await files.writeFile('/lines.txt', 'l1\nl2\nl3\nl4\nl5');
    expect(await files.readFile('/lines.txt', { offset: 1, limit: 2 })).toMatchObject({
      content: 'l2\nl3\n',
      totalLines: 5,
      offset: 1,
      lineCount: 2,
      hasMore: true,
    });
    expect(await files.readFile('/lines.txt', { offset: 3 })).toMatchObject({ content: 'l4\nl5', lineCount: 2, hasMore: false });
    expect(await files.readFile('/lines.txt', { offset: 10, limit: 5 })).toMatchObject({ content: '', lineCount: 0, hasMore: false });
  });

  it('reports missing files, directories and files in the way', async () => {
    expect(await failureOf(files.readFile('/nope.txt'))).toMatchObject({ class: 'EXECUTION', code: 'file_not_found', message: expect.stringContaining('/nope.txt') });
    expect(await failureOf(files.readFile('/docs'))).toMatchObject({ class: 'INVALID_REQUEST', code: 'is_a_directory', message: expect.stringContaining('/docs') });
    expect(await failureOf(files.readFile('/'))).toMatchObject({ code: 'is_a_directory' });
    expect(await failureOf(files.writeFile('/docs', 'x'))).toMatchObject({ class: 'INVALID_REQUEST', code: 'is_a_directory' });
    expect(await failureOf(files.writeFile('/lines.txt/child.txt', 'x'))).toMatchObject({
      class: 'INVALID_REQUEST',
      code: 'not_a_directory',
      message: expect.stringContaining('/lines.txt'),
    });
    expect(await failureOf(files.writeFile('/../x', 'x'))).toMatchObject({ code: 'invalid_path' });
    // A huge refused path is quoted in part, not echoed whole.
    const huge = await failureOf(files.writeFile(`/${'a'.repeat(100_000)}`, 'x'));
    expect(huge).toMatchObject({ code: 'invalid_path', message: expect.stringContaining('… (100001 characters): a path segment is longer than') });
    expect((huge as { message: string }).message.length).toBeLessThan(400);
    expect(await failureOf(files.writeFile('/bin.dat', 'a\0b'))).toMatchObject({ class: 'INVALID_REQUEST', code: 'invalid_content' });
    // A lone surrogate is no text either (PostgreSQL would keep U+FFFD, and two paths would be one file).
    expect(await failureOf(files.writeFile('/lone.txt', 'x\ud800y'))).toMatchObject({ class: 'INVALID_REQUEST', code: 'invalid_content', message: expect.stringContaining('unpaired UTF-16 surrogate') });
    expect(await failureOf(files.writeFile('/k\udc00', 'x'))).toMatchObject({ class: 'INVALID_REQUEST', code: 'invalid_path', message: expect.stringContaining('unpaired UTF-16 surrogate') });
    // Within 1,024 characters but not within what the store's index holds (3,005 bytes of UTF-8): refused, typed.
    const wide = Array.from({ length: 5 }, (_, segment) => `/${String.fromCodePoint(0x4e00 + segment).repeat(200)}`).join('');
    expect(await failureOf(files.writeFile(wide, 'x'))).toMatchObject({ class: 'INVALID_REQUEST', code: 'invalid_path', message: expect.stringContaining('longer than 2048 bytes in UTF-8') });
    const narrower = Array.from({ length: 3 }, (_, segment) => `/${String.fromCodePoint(0x4e00 + segment).repeat(200)}`).join('');
    await files.writeFile(narrower, 'x');
    expect(await files.readFile(narrower)).toMatchObject({ content: expect.stringContaining('x') });
    // Characters count as code points, as the tools' schemas count them: 300 astral ones are 300, and a quoted path never ends in half a pair.
    await files.writeFile(`/${'\u{20000}'.repeat(250)}`, 'astral');
    const astral = await failureOf(files.writeFile(`/${'\u{20000}'.repeat(100_000)}`, 'x'));
    expect(astral).toMatchObject({ code: 'invalid_path', message: expect.stringContaining('… (100001 characters)') });
    expect((astral as { message: string }).message).not.toMatch(/\\ud[89ab][0-9a-f]{2}"/i);
    await files.writeFile('/paired.txt', 'a \ud83d\ude00 b');
    expect(await files.readFile('/paired.txt')).toMatchObject({ content: expect.stringContaining('a \ud83d\ude00 b') });
    await files.writeFile('/edit-lone.txt', 'abc');
    expect(await failureOf(files.editFile('/edit-lone.txt', 'b', '\udfff'))).toMatchObject({ code: 'invalid_content' });
    expect(await files.stat('/nope.txt')).toBeNull();
    expect(await files.stat('/')).toMatchObject({ path: '/', isDirectory: true });
  });

  it('edits: once, everywhere, and refuses absent or ambiguous text', async () => {
    await files.writeFile('/edit.txt', 'alpha beta alpha gamma');
    expect(await failureOf(files.editFile('/edit.txt', 'delta', 'x'))).toMatchObject({
      class: 'INVALID_REQUEST',
      code: 'edit_not_found',
      message: expect.stringContaining('/edit.txt'),
    });
    expect(await failureOf(files.editFile('/edit.txt', 'alpha', 'x'))).toMatchObject({
      class: 'INVALID_REQUEST',
      code: 'edit_ambiguous',
      message: expect.stringContaining('2 times'),
    });
    expect(await files.editFile('/edit.txt', 'beta', '$& $1 b€ta')).toMatchObject({ replacements: 1 });
    expect((await files.readFile('/edit.txt')).content).toBe('alpha $& $1 b€ta alpha gamma');
    const all = await files.editFile('/edit.txt', 'alpha', 'A', true);
    expect(all).toMatchObject({ replacements: 2, size: Buffer.byteLength('A $& $1 b€ta A gamma') });
    expect((await files.readFile('/edit.txt')).content).toBe('A $& $1 b€ta A gamma');
    expect(await failureOf(files.editFile('/missing.txt', 'a', 'b'))).toMatchObject({ code: 'file_not_found' });
    expect(await failureOf(files.editFile('/docs', 'a', 'b'))).toMatchObject({ code: 'is_a_directory' });
    expect(await failureOf(files.editFile('/edit.txt', '', 'b'))).toMatchObject({ class: 'INVALID_REQUEST' });
  });

  it('keeps concurrent edits of one file', async () => {
    await files.writeFile('/counter.txt', Array.from({ length: 10 }, (_, i) => `item${i}`).join('\n'));
    await Promise.all(Array.from({ length: 10 }, (_, i) => files.editFile('/counter.txt', `item${i}`, `done${i}`)));
    expect((await files.readFile('/counter.txt')).content).toBe(Array.from({ length: 10 }, (_, i) => `done${i}`).join('\n'));
  });

  it('lists directories, flat or recursive', async () => {
    const session = new PrismaSessionFiles(db, await newSession());
    await session.writeFile('/a/one.txt', '1');
    await session.writeFile('/a/sub/two.txt', '22');
    await session.writeFile('/a_b/three.txt', '333');
    await session.writeFile('/aXb/four.txt', '4444');
    await session.mkdir('/a/empty');
    expect((await session.listDirectory('/')).map((entry) => entry.path)).toEqual(['/a', '/aXb', '/a_b']);
    const flat = await session.listDirectory('/a');
    expect(flat.map((entry) => [entry.name, entry.isDirectory, entry.size])).toEqual([
      ['empty', true, 0],
      ['one.txt', false, 1],
      ['sub', true, 0],
    ]);
    expect((await session.listDirectory('/a', { recursive: true })).map((entry) => entry.path)).toEqual([
      '/a/empty',
      '/a/one.txt',
      '/a/sub',
      '/a/sub/two.txt',
    ]);
    // `_` is a LIKE wildcard: /a_b must not list /aXb.
    expect((await session.listDirectory('/a_b', { recursive: true })).map((entry) => entry.path)).toEqual(['/a_b/three.txt']);
    expect(await session.listDirectory('/a/empty')).toEqual([]);
    expect(await failureOf(session.listDirectory('/a/one.txt'))).toMatchObject({ class: 'INVALID_REQUEST', code: 'not_a_directory' });
    expect(await failureOf(session.listDirectory('/zzz'))).toMatchObject({ class: 'EXECUTION', code: 'file_not_found' });
    // Sessions are isolated.
    expect(await files.stat('/a/one.txt')).toBeNull();
  });

  it('greps with a regex, case folding, a glob, a path and a match limit', async () => {
    const session = new PrismaSessionFiles(db, await newSession());
    await session.writeFile('/src/main.ts', 'const TODO = 1;\n// todo: fix\nexport {};\n');
    await session.writeFile('/src/lib/util.ts', 'export function todoList() {}\n');
    await session.writeFile('/README.md', '# Readme\nTODO write docs\n');
    await session.writeFile('/notes.txt', Array.from({ length: 30 }, (_, i) => `todo ${i}`).join('\n'));

    const caseSensitive = await session.grep('TODO');
    expect(caseSensitive.matches).toEqual([
      { path: '/README.md', line: 2, text: 'TODO write docs' },
      { path: '/src/main.ts', line: 1, text: 'const TODO = 1;' },
    ]);
    expect(caseSensitive).toMatchObject({ truncated: false, filesSearched: 4 });

    const folded = await session.grep('todo', { ignoreCase: true, glob: '*.ts' });
    expect(folded.matches.map((match) => `${match.path}:${match.line}`)).toEqual(['/src/lib/util.ts:1', '/src/main.ts:1', '/src/main.ts:2']);
    expect(folded.filesSearched).toBe(2);

    const underLib = await session.grep('todo', { path: '/src', glob: 'lib/**/*.ts' });
    expect(underLib.matches.map((match) => match.path)).toEqual(['/src/lib/util.ts']);
    expect((await session.grep('^export', { path: '/src/main.ts' })).matches).toEqual([{ path: '/src/main.ts', line: 3, text: 'export {};' }]);
    expect((await session.grep('todo', { glob: '{*.md,*.txt}', ignoreCase: true, maxMatches: 500 })).matches).toHaveLength(31);

    // A long line is shortened to 500 characters on a character boundary, never half an emoji.
    await session.writeFile('/long.txt', `${'x'.repeat(499)}\u{1F389}tail\n${'y'.repeat(600)} tail\n`);
    const long = await session.grep('tail', { path: '/long.txt' });
    expect(long.matches.map((match) => match.text)).toEqual([`${'x'.repeat(499)}\u2026`, `${'y'.repeat(500)}\u2026`]);

    const limited = await session.grep('todo \\d+', { maxMatches: 5 });
    expect(limited.matches).toHaveLength(5);
    expect(limited.truncated).toBe(true);

    expect(await failureOf(session.grep('('))).toMatchObject({ class: 'INVALID_REQUEST', code: 'invalid_pattern' });
    // Globs the search thread's RE2 could not compile are refused as such, not failed as internal errors.
    for (const glob of ['[!]', '[^]', '*.[!]txt', '[z-a]']) expect(await failureOf(session.grep('x', { glob }))).toMatchObject({ class: 'INVALID_REQUEST', code: 'invalid_pattern' });
    // `[` inside a class is itself, and the first `]` closes it (RE2 would take `[:alpha:]` for a POSIX class).
    await session.writeFile('/:]a', 'x');
    expect((await session.grep('x', { glob: '[[:alpha:]]a' })).matches.map((match) => match.path)).toEqual(['/:]a']);
    expect(await failureOf(session.grep('x', { path: '/missing' }))).toMatchObject({ code: 'file_not_found' });
  });

  it('deletes files and directories, refusing non-empty ones unless recursive', async () => {
    const session = new PrismaSessionFiles(db, await newSession());
    await session.writeFile('/d/x.txt', 'x');
    await session.writeFile('/d/e/y.txt', 'y');
    await session.writeFile('/d_other/z.txt', 'z');
    expect(await failureOf(session.deleteFile('/d'))).toMatchObject({ class: 'EXECUTION', code: 'directory_not_empty', message: expect.stringContaining('/d') });
    expect(await session.deleteFile('/d/x.txt')).toEqual({ path: '/d/x.txt', isDirectory: false, deleted: 1 });
    expect(await session.stat('/d/x.txt')).toBeNull();
    expect(await session.deleteFile('/d', { recursive: true })).toEqual({ path: '/d', isDirectory: true, deleted: 3 });
    expect(await session.stat('/d/e/y.txt')).toBeNull();
    expect(await session.stat('/d_other/z.txt')).not.toBeNull();
    await session.mkdir('/empty');
    expect(await session.deleteFile('/empty')).toEqual({ path: '/empty', isDirectory: true, deleted: 1 });
    expect(await failureOf(session.deleteFile('/d'))).toMatchObject({ class: 'EXECUTION', code: 'file_not_found' });
    expect(await failureOf(session.deleteFile('/d', { recursive: true }))).toMatchObject({ code: 'file_not_found' });
    expect(await failureOf(session.deleteFile('/'))).toMatchObject({ class: 'INVALID_REQUEST', code: 'invalid_path' });
  });

  it('makes directories idempotently and refuses a file in the way', async () => {
    const session = new PrismaSessionFiles(db, await newSession());
    const made = await session.mkdir('/p/q/r');
    expect(made).toMatchObject({ path: '/p/q/r', isDirectory: true });
    expect(await session.mkdir('/p/q/r')).toMatchObject({ path: '/p/q/r', isDirectory: true, createdAt: made.createdAt });
    expect(await session.stat('/p/q')).toMatchObject({ isDirectory: true });
    await session.writeFile('/p/file', 'f');
    expect(await failureOf(session.mkdir('/p/file'))).toMatchObject({ class: 'INVALID_REQUEST', code: 'file_exists' });
    expect(await failureOf(session.mkdir('/p/file/x'))).toMatchObject({ code: 'not_a_directory' });
    expect(await session.mkdir('/')).toMatchObject({ path: '/', isDirectory: true });
    const concurrent = await Promise.all(Array.from({ length: 10 }, () => session.mkdir('/same/new/dir')));
    expect(new Set(concurrent.map((stat) => stat.createdAt.getTime())).size).toBe(1);
    expect(await session.listDirectory('/same', { recursive: true })).toHaveLength(2);
  });

  it('appends atomically, and creates under concurrency without losing writes', async () => {
    const session = new PrismaSessionFiles(db, await newSession());
    await Promise.all(Array.from({ length: 20 }, (_, i) => session.appendFile('/.background/run/output.log', `line ${i}\n`)));
    const log = await session.readFile('/.background/run/output.log');
    expect(log.totalLines).toBe(20);
    expect(new Set(log.content.split('\n').filter(Boolean))).toEqual(new Set(Array.from({ length: 20 }, (_, i) => `line ${i}`)));
    expect(log.size).toBe(Buffer.byteLength(log.content));
    expect(await failureOf(session.appendFile('/.background', 'x'))).toMatchObject({ code: 'is_a_directory' });

    await Promise.all(Array.from({ length: 20 }, (_, i) => session.writeFile(`/deep/new/dir/f${i}.txt`, String(i))));
    expect(await session.listDirectory('/deep/new/dir')).toHaveLength(20);
  });

  it('caps file size', async () => {
    const session = new PrismaSessionFiles(db, await newSession());
    expect(await failureOf(session.writeFile('/big.txt', 'x'.repeat(MAX_FILE_BYTES + 1)))).toMatchObject({
      class: 'RESOURCE_LIMIT',
      code: 'file_too_large',
    });
    await session.writeFile('/big.txt', 'x'.repeat(MAX_FILE_BYTES - 2));
    expect(await failureOf(session.appendFile('/big.txt', 'abc'))).toMatchObject({ class: 'RESOURCE_LIMIT', code: 'file_too_large' });
    expect(await session.appendFile('/big.txt', 'ab')).toMatchObject({ size: MAX_FILE_BYTES });
    expect(await failureOf(session.editFile('/big.txt', 'ab', 'abc'))).toMatchObject({ class: 'RESOURCE_LIMIT' });
  });

  it('without quotas, an append locks the usage rows before the file row (the lock order; the soak found deadlocks)', async () => {
    const sessionId = await newSession();
    const files = new PrismaSessionFiles(db, sessionId);
    await files.appendFile('/ticks.log', 'tick 1\n');
    const holder = new pg.Client({ connectionString: TEST_DATABASE_URL });
    const probe = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await Promise.all([holder.connect(), probe.connect()]);
    try {
      await holder.query('BEGIN');
      expect((await holder.query('SELECT 1 FROM session_file_usage WHERE session_id = $1 FOR UPDATE', [sessionId])).rowCount).toBe(1);
      const append = files.appendFile('/ticks.log', 'tick 2\n');
      // The append waits for the usage row…
      for (let n = 0; n < 100; n++) {
        const { rows } = await probe.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%session_file%' AND pid <> pg_backend_pid()`);
        if (rows[0].n > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // …holding no lock on the file row meanwhile.
      await probe.query('BEGIN');
      expect((await probe.query(`SELECT 1 FROM session_file WHERE session_id = $1 AND path = '/ticks.log' FOR UPDATE NOWAIT`, [sessionId])).rowCount).toBe(1);
      await probe.query('ROLLBACK');
      await holder.query('COMMIT');
      await append;
    } finally {
      await Promise.all([holder.end(), probe.end()]);
    }
    expect((await files.readFile('/ticks.log')).content).toBe('tick 1\ntick 2\n');
  });
});

// ---------------------------------------------------------------------------------------------

describe('built-in tool definitions', () => {
  it('have unique valid names and closed, compiling schemas', () => {
    const names = builtinTools.map((entry) => entry.definition.name);
    expect(new Set(names).size).toBe(names.length);
    for (const { definition } of builtinTools) {
      expect(definition.name).toMatch(TOOL_NAME_PATTERN);
      expect(definition.kind).toBe('BUILTIN');
      expect(compileSchemaOrError(definition.parametersSchema), definition.name).toBeNull();
      expect(definition.parametersSchema.additionalProperties, definition.name).toBe(false);
    }
    expect(names).toEqual(
      expect.arrayContaining([
        'echo',
        'get_current_time',
        'add',
        'subtract',
        'multiply',
        'divide',
        'get_weather',
        'get_forecast',
        'write_todos',
        'read_file',
        'write_file',
        'edit_file',
        'list_directory',
        'grep_files',
        'delete_file',
        'stat_file',
        'web_fetch',
        'sleep',
        'failing_tool',
      ]),
    );
    expect(tool('delete_file').definition.hints.destructive).toBe(true);
    expect(tool('read_file').definition.hints).toMatchObject({ readonly: true, idempotent: true, destructive: false });
    expect(tool('web_fetch').definition.hints).toMatchObject({ openWorld: true, readonly: true, idempotent: true, supportsBackground: true });
    expect(tool('sleep').definition.hints).toMatchObject({ readonly: true, idempotent: true, supportsBackground: true });
    expect(tool('failing_tool').definition.retry).toMatchObject({ maxAttempts: 3, backoff: { type: 'FIXED', delayMs: 50 } });
  });
});

describe('validateArgs', () => {
  it('refuses a schema that refers to itself without end: at registration, and for the args it loops on', () => {
    expect(compileSchemaOrError({ type: 'object', $ref: '#' })).toMatch(/refers to itself without end/);
    // This one evaluates `{}` but loops on any `a`: those calls are refused with a reason, not a crash.
    const looping = { name: 'looping', parametersSchema: { type: 'object', if: { required: ['a'] }, then: { $ref: '#' } } };
    expect(compileSchemaOrError(looping.parametersSchema)).toBeNull();
    expect(validateArgs(looping, {})).toEqual({ ok: true });
    expect(validateArgs(looping, { a: 1 })).toEqual({ ok: false, message: expect.stringMatching(/refers to itself without end/) });
  });

  it("judges args by their own properties: a parameter named like an object's built-in member (toString, constructor) is absent unless sent", () => {
    const named = {
      name: 'named_like_members',
      parametersSchema: {
        type: 'object',
        properties: { toString: { type: 'string' }, constructor: { type: 'string', enum: ['a', 'b'] }, hasOwnProperty: { type: 'boolean' }, valueOf: { type: 'object' } },
        additionalProperties: false,
      },
    };
    expect(validateArgs(named, {})).toEqual({ ok: true });
    expect(validateArgs(named, { toString: 'x', constructor: 'b' })).toEqual({ ok: true });
    expect(validateArgs(named, JSON.parse('{"hasOwnProperty": 1}'))).toEqual({ ok: false, message: 'args/hasOwnProperty must be boolean' });
    // Required means sent, not inherited.
    const required = { name: 'requires_members', parametersSchema: { type: 'object', properties: { toString: { type: 'string' } }, required: ['toString'] } };
    expect(validateArgs(required, {})).toEqual({ ok: false, message: "args must have required property 'toString'" });
    expect(validateArgs(required, { toString: 'x' })).toEqual({ ok: true });
  });

  it('accepts valid args and explains invalid ones', () => {
    const add = tool('add').definition;
    expect(validateArgs(add, { a: 1, b: 2 })).toEqual({ ok: true });
    expect(validateArgs(add, { a: 'x', b: 2 })).toEqual({ ok: false, message: 'args/a must be number' });
    const missing = validateArgs(add, { a: 1 });
    expect(missing).toEqual({ ok: false, message: "args must have required property 'b'" });
    const many = validateArgs(add, { a: 'x', b: null, c: 3 });
    expect(many.ok).toBe(false);
    if (!many.ok) {
      expect(many.message).toContain('args/a must be number');
      expect(many.message).toContain('args/b must be number');
      expect(many.message).toContain("must NOT have additional property 'c'");
    }
    expect(validateArgs(add, null)).toEqual({ ok: false, message: 'args must be an object' });
    expect(validateArgs(add, [1, 2])).toEqual({ ok: false, message: 'args must be an object' });
    const forecast = validateArgs(tool('get_forecast').definition, { location: 'Oslo', days: 15, units: 'kelvin' });
    expect(forecast.ok).toBe(false);
    if (!forecast.ok) {
      expect(forecast.message).toContain('args/days must be <= 14');
      expect(forecast.message).toContain('args/units must be equal to one of the allowed values');
    }
    const todos = validateArgs(tool('write_todos').definition, { todos: [{ content: 'x', status: 'done' }] });
    expect(todos.ok === false && todos.message).toContain('args/todos/0/status');
  });

  it('recompiles when a schema changes under the same tool name, and checks formats', () => {
    const first = { name: 'custom', parametersSchema: { type: 'object', properties: { n: { type: 'integer' } } } };
    const second = { name: 'custom', parametersSchema: { type: 'object', properties: { n: { type: 'string', format: 'email' } } } };
    expect(validateArgs(first, { n: 1 }).ok).toBe(true);
    expect(validateArgs(second, { n: 1 })).toEqual({ ok: false, message: 'args/n must be string' });
    expect(validateArgs(second, { n: 'not-an-email' })).toEqual({ ok: false, message: 'args/n must match format "email"' });
    expect(validateArgs(first, { n: 1 }).ok).toBe(true);
  });

  it('checks uniqueItems and enum in time linear in the args and the schema: a tenant cannot hold the API thread with them', () => {
    const elapsed = (work: () => void) => {
      const started = performance.now();
      work();
      return performance.now() - started;
    };
    // 40,000 distinct one-item arrays (350 kB): Ajv's own uniqueItems compared every pair, about 20 s on this thread.
    const unique = { name: 'unique_items', parametersSchema: { type: 'object', properties: { a: { type: 'array', uniqueItems: true } } } };
    const items = Array.from({ length: 40_000 }, (_, i) => [i]);
    expect(elapsed(() => expect(validateArgs(unique, { a: items })).toEqual({ ok: true }))).toBeLessThan(3_000);
    // Equal as JSON (keys in any order) is a duplicate; 1, '1', [1] and {"1": 1} are not.
    expect(validateArgs(unique, { a: [{ x: 1, y: [2] }, 3, { y: [2], x: 1 }] })).toEqual({ ok: false, message: 'args/a must NOT have duplicate items (items ## 0 and 2 are identical)' });
    expect(validateArgs(unique, { a: [1, '1', [1], { 1: 1 }, null] })).toEqual({ ok: true });
    expect(validateArgs({ name: 'not_unique', parametersSchema: { type: 'object', properties: { a: { type: 'array', uniqueItems: false } } } }, { a: [1, 1] })).toEqual({ ok: true });

    // An enum of 40,000 values against 40,000 values: their product, about 10 s, with Ajv's own enum.
    const allowed = Array.from({ length: 40_000 }, (_, i) => i);
    const long = { name: 'long_enum', parametersSchema: { type: 'object', properties: { a: { type: 'array', items: { enum: allowed } } } } };
    expect(elapsed(() => expect(validateArgs(long, { a: Array.from({ length: 40_000 }, () => 39_999) })).toEqual({ ok: true }))).toBeLessThan(3_000);
    const shapes = { name: 'shapes', parametersSchema: { type: 'object', properties: { a: { enum: [{ x: 1, y: 2 }, 'k', null] } } } };
    expect(validateArgs(shapes, { a: { y: 2, x: 1 } })).toEqual({ ok: true });
    expect(validateArgs(shapes, { a: null })).toEqual({ ok: true });
    expect(validateArgs(shapes, { a: 'K' })).toEqual({ ok: false, message: 'args/a must be equal to one of the allowed values: {"x":1,"y":2}, "k", null' });
    expect(compileSchemaOrError({ type: 'object', properties: { a: { enum: [] } } })).toMatch(/enum must NOT have fewer than 1 items/);
  });

  // CPU-bound by design (each refusal spends its whole budget): on a loaded 2-core runner it takes longer than the default test timeout.
  it('stops a schema whose $refs fan out on a budget, and still checks large args against a recursive schema', () => {
    // Two refs to a schema that holds two refs to …: 2 kB of schema, 2^24 evaluations for one string (minutes on the API's thread).
    const fanOut = (applicator: string, depth: number, root = false) => {
      const definitions: Record<string, unknown> = { [`d${depth}`]: { type: 'string', minLength: 2 } };
      for (let i = 0; i < depth; i++) definitions[`d${i}`] = { [applicator]: [{ $ref: `#/definitions/d${i + 1}` }, { $ref: `#/definitions/d${i + 1}` }] };
      return root ? { type: 'object', definitions, allOf: [{ $ref: '#/definitions/d0' }] } : { type: 'object', definitions, properties: { a: { $ref: '#/definitions/d0' } } };
    };
    for (const applicator of ['anyOf', 'allOf']) {
      const schema = fanOut(applicator, 24);
      expect(compileSchemaOrError(schema)).toBeNull();
      const started = performance.now();
      expect(validateArgs({ name: `fan_out_${applicator}`, parametersSchema: schema }, { a: 'x' })).toEqual({
        ok: false,
        message: expect.stringMatching(/^checking them against the schema of `fan_out_\w+` takes too long \(its subschemas are evaluated or fail more often than one batch's args may take/),
      });
      expect(performance.now() - started).toBeLessThan(5_000);
    }
    // Many branches that fail against many items: 500 × 100,000 errors (a minute on the API's thread, then out of memory).
    const branches = { name: 'branches', parametersSchema: { type: 'object', properties: { a: { type: 'array', items: { anyOf: Array.from({ length: 500 }, (_, i) => ({ minimum: i + 1, maximum: i + 1 })) } } } } };
    const started = performance.now();
    expect(validateArgs(branches, { a: Array.from({ length: 100_000 }, () => 0) })).toEqual({
      ok: false,
      message: expect.stringMatching(/^checking them against the schema of `branches` takes too long \(its subschemas are evaluated or fail more often/),
    });
    expect(performance.now() - started).toBeLessThan(5_000);
    // The same schema on ordinary args: a few items, each matching a late branch, are checked as before.
    expect(validateArgs(branches, { a: [500, 499, 1] })).toEqual({ ok: true });
    expect(validateArgs(branches, { a: [500, 0] })).toEqual({ ok: false, message: expect.stringMatching(/^args\/a\/1 must be >= 1/) });
    // Keywords that all pass, each item evaluating all of them: 1,500 × 100,000 (no call, error or branch to charge; minutes on the API's thread).
    const keywords = { name: 'keywords', parametersSchema: { type: 'object', properties: { a: { type: 'array', items: { allOf: Array.from({ length: 1500 }, (_, i) => ({ minimum: -i - 1 })) } } } } };
    const timed = performance.now();
    expect(validateArgs(keywords, { a: Array.from({ length: 100_000 }, () => 0) })).toEqual({
      ok: false,
      message: expect.stringMatching(/^checking them against the schema of `keywords` takes too long/),
    });
    expect(performance.now() - timed).toBeLessThan(5_000);
    expect(validateArgs(keywords, { a: Array.from({ length: 100 }, () => 0) })).toEqual({ ok: true });
    // Ordinary schemas over the most items a request holds are checked as before.
    const records = {
      name: 'records',
      parametersSchema: { type: 'object', properties: { rows: { type: 'array', items: { type: 'object', properties: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}`, { type: 'integer', minimum: 0 }])), required: ['f0'] } }, xs: { type: 'array', items: { type: 'number' } } } },
    };
    expect(validateArgs(records, { rows: Array.from({ length: 20_000 }, () => ({ f0: 1, f5: 2, f9: 3 })), xs: Array.from({ length: 1_000_000 }, (_, i) => i) })).toEqual({ ok: true });
    // 2,000 branches nest the compiled code too deeply for V8's parser: refused at registration, saying so.
    expect(compileSchemaOrError({ type: 'object', properties: { a: { anyOf: Array.from({ length: 2000 }, (_, i) => ({ minimum: i + 1, maximum: i + 1 })) } } })).toMatch(/nests too deeply/);
    // One that fans out for the empty object is refused at registration.
    expect(compileSchemaOrError(fanOut('allOf', 24, true))).toMatch(/takes too long to evaluate even for \{\}/);
    // A tree of 5,000 nodes against a recursive schema: each node one evaluation, well within the budget.
    const tree = { name: 'tree', parametersSchema: { type: 'object', definitions: { node: { type: 'object', properties: { v: { type: 'integer' }, children: { type: 'array', items: { $ref: '#/definitions/node' } } } } }, properties: { root: { $ref: '#/definitions/node' } } } };
    const root = { v: 0, children: Array.from({ length: 50 }, (_, i) => ({ v: i, children: Array.from({ length: 100 }, (_, j) => ({ v: j, children: [] })) })) };
    expect(validateArgs(tree, { root })).toEqual({ ok: true });
    root.children[49]!.children[99]!.v = 0.5;
    expect(validateArgs(tree, { root })).toEqual({ ok: false, message: 'args/root/children/49/children/99/v must be integer' });
  }, 90_000);

  it('compiles a schema that refers many times to one large schema in time linear in its size', () => {
    // 200 refs to a schema of 200 properties (14 kB): Ajv copied it into each, 40,000 properties of code, seconds to compile.
    const leaf = { type: 'object', properties: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, { type: 'integer', minimum: i }])) };
    const schema = { type: 'object', definitions: { leaf }, properties: { a: { allOf: Array.from({ length: 200 }, () => ({ $ref: '#/definitions/leaf' })) } } };
    const started = performance.now();
    expect(compileSchemaOrError(schema)).toBeNull();
    expect(validateArgs({ name: 'many_refs', parametersSchema: schema }, { a: { k0: 0, k199: 199 } })).toEqual({ ok: true });
    expect(validateArgs({ name: 'many_refs', parametersSchema: schema }, { a: { k5: 4 } })).toEqual({ ok: false, message: 'args/a/k5 must be >= 5' });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('reports schemas that do not compile', () => {
    expect(compileSchemaOrError({ type: 'object', properties: { a: { type: 'strin' } } })).toMatch(/schema is invalid/);
    expect(compileSchemaOrError({ type: 'object', properties: { a: { $ref: '#/definitions/missing' } } })).toMatch(/missing/);
    expect(compileSchemaOrError('nope')).toMatch(/JSON object/);
    expect(compileSchemaOrError({ type: 'string' })).toMatch(/object/);
    expect(compileSchemaOrError({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] })).toBeNull();
    expect(
      compileSchemaOrError({ $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'x', type: 'object', properties: { t: { prefixItems: [{ type: 'string' }] } } }),
    ).toBeNull();
    expect(validateArgs({ name: 'bad', parametersSchema: { type: 'object', properties: { a: { type: 'nope' } } } }, {})).toMatchObject({
      ok: false,
      message: expect.stringContaining('parameters schema of tool `bad` is invalid'),
    });
  });
});

describe('simple tools', () => {
  it('echo returns the message and its length in UTF-8 bytes (seed 002)', async () => {
    expect(await run('echo', { message: 'hi' })).toEqual({ echoed: 'hi', length: 2 });
    expect(await run('echo', { message: 'é✓' })).toEqual({ echoed: 'é✓', length: 5 });
    expect(await run('echo', { message: '' })).toEqual({ echoed: '', length: 0 });
  });

  it('get_current_time gives ISO time in a time zone', async () => {
    const utc = await run('get_current_time', {});
    expect(utc.timezone).toBe('UTC');
    expect(Math.abs(Date.parse(utc.currentTime) - Date.now())).toBeLessThan(5000);
    expect(utc.utcOffset).toBe('+00:00');
    const kolkata = await run('get_current_time', { timezone: 'Asia/Kolkata' });
    expect(kolkata).toMatchObject({ timezone: 'Asia/Kolkata', utcOffset: '+05:30' });
    expect(Math.abs(Date.parse(kolkata.localTime) - Date.parse(kolkata.currentTime))).toBe(0);
    expect(await failureOf(run('get_current_time', { timezone: 'Mars/Olympus' }))).toMatchObject({ class: 'INVALID_REQUEST', code: 'invalid_timezone' });
  });

  it('does arithmetic', async () => {
    // Results are f64, as in the seed: 2 - 3 is -1.0 to the model.
    expect(await run('add', { a: 2, b: 3.5 })).toEqual({ result: float(5.5) });
    expect(await run('subtract', { a: 2, b: 3 })).toEqual({ result: float(-1) });
    expect(await run('multiply', { a: -4, b: 2.5 })).toEqual({ result: float(-10) });
    expect(await run('divide', { a: 7, b: 2 })).toEqual({ result: float(3.5) });
    expect(await failureOf(run('divide', { a: 1, b: 0 }))).toMatchObject({ class: 'EXECUTION', code: 'division_by_zero' });
    expect(await failureOf(run('multiply', { a: 1e308, b: 10 }))).toMatchObject({ class: 'EXECUTION', code: 'numeric_overflow' });
  });

  it('weather is deterministic per location and day', async () => {
    const first = await run('get_weather', { location: 'Paris' });
    expect(await run('get_weather', { location: 'Paris' })).toEqual(first);
    expect(await run('get_weather', { location: '  paris ' })).toEqual({ ...first, location: '  paris ' });
    expect(first).toMatchObject({ location: 'Paris', units: 'celsius', synthetic: true });
    expect(typeof first.temperature).toBe('number');
    expect(typeof first.conditions).toBe('string');
    const others = await Promise.all(['Tokyo', 'Lima', 'Nairobi', 'Oslo'].map((location) => run('get_weather', { location })));
    expect(new Set(others.map((other) => JSON.stringify({ ...other, location: '' }))).size).toBeGreaterThan(1);
    const fahrenheit = await run('get_weather', { location: 'Paris', units: 'fahrenheit' });
    expect(fahrenheit.temperature).toBeCloseTo((first.temperature * 9) / 5 + 32, 0);

    const forecast = await run('get_forecast', { location: 'Paris', days: 7 });
    expect(forecast.forecast).toHaveLength(7);
    expect(forecast.forecast.map((day: { day: number }) => day.day)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(await run('get_forecast', { location: 'Paris', days: 7 })).toEqual(forecast);
    expect((await run('get_forecast', { location: 'Paris', days: 3 })).forecast).toEqual(forecast.forecast.slice(0, 3));
    for (const day of forecast.forecast) expect(day.high).toBeGreaterThan(day.low);
    expect(new Set(forecast.forecast.map((day: { high: number }) => day.high)).size).toBeGreaterThan(1);
  });

  it('write_todos stores the list on the session and counts it', async () => {
    const session = await newSession();
    const result = await run(
      'write_todos',
      {
        todos: [
          { content: 'plan', status: 'completed' },
          { id: 'b', content: 'build', status: 'in_progress' },
          { content: 'ship', status: 'pending' },
        ],
      },
      makeContext({ session }),
    );
    expect(result.counts).toEqual({ total: 3, pending: 1, in_progress: 1, completed: 1 });
    expect(result.todos).toEqual([
      { id: '1', content: 'plan', status: 'completed' },
      { id: 'b', content: 'build', status: 'in_progress' },
      { id: '3', content: 'ship', status: 'pending' },
    ]);
    const stored = await db.session.findUniqueOrThrow({ where: { id: session }, select: { todos: true } });
    expect(stored.todos).toEqual(result.todos);
    expect((await run('write_todos', { todos: [] }, makeContext({ session }))).counts.total).toBe(0);
  });

  it('write_todos refuses a list where two items have the same id, and keeps the stored list', async () => {
    const session = await newSession();
    await run('write_todos', { todos: [{ id: 'a', content: 'keep', status: 'pending' }] }, makeContext({ session }));
    for (const todos of [
      [{ id: 'x', content: 'one', status: 'pending' }, { id: 'x', content: 'two', status: 'pending' }],
      // The second item's default id is its position, "2", which the first took.
      [{ id: '2', content: 'one', status: 'pending' }, { content: 'two', status: 'pending' }],
    ]) {
      const failure = await run('write_todos', { todos }, makeContext({ session })).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ToolFailureError);
      expect((failure as ToolFailureError).failure).toMatchObject({ class: 'INVALID_REQUEST', code: 'duplicate_todo_id' });
      expect((failure as ToolFailureError).message).toContain('todos[1]');
    }
    const stored = await db.session.findUniqueOrThrow({ where: { id: session }, select: { todos: true } });
    expect(stored.todos).toEqual([{ id: 'a', content: 'keep', status: 'pending' }]);
  });
});

describe('file tools', () => {
  it('write, read, edit, list, grep, stat and delete through the tools', async () => {
    const context = makeContext({ session: await newSession() });
    expect(await run('write_file', { path: '/notes/a.md', content: 'hello\nworld\n' }, context)).toEqual({ path: '/notes/a.md', size: 12, created: true });
    expect(await run('read_file', { path: '/notes/a.md' }, context)).toMatchObject({ path: '/notes/a.md', content: 'hello\nworld\n', totalLines: 2 });
    expect(await run('read_file', { path: '/notes/a.md', offset: 1, limit: 1 }, context)).toMatchObject({ content: 'world\n', hasMore: false });
    expect(await run('edit_file', { path: '/notes/a.md', oldString: 'world', newString: 'there' }, context)).toEqual({
      path: '/notes/a.md',
      size: 12,
      replacements: 1,
    });
    const listing = await run('list_directory', {}, context);
    expect(listing).toMatchObject({ path: '/', total: 1, truncated: false, entries: [{ path: '/notes', type: 'directory' }] });
    expect((await run('list_directory', { path: '/notes', recursive: true }, context)).entries).toEqual([
      expect.objectContaining({ path: '/notes/a.md', name: 'a.md', type: 'file', size: 12 }),
    ]);
    expect(await run('grep_files', { pattern: 'THERE', ignoreCase: true }, context)).toEqual({
      matches: [{ path: '/notes/a.md', line: 2, text: 'there' }],
      count: 1,
      truncated: false,
      filesSearched: 1,
    });
    expect(await run('stat_file', { path: '/notes/a.md' }, context)).toMatchObject({ exists: true, path: '/notes/a.md', type: 'file', size: 12 });
    expect(await run('stat_file', { path: '/notes//b.md' }, context)).toEqual({ path: '/notes/b.md', exists: false });
    expect(await failureOf(run('delete_file', { path: '/notes' }, context))).toMatchObject({ code: 'directory_not_empty' });
    expect(await run('delete_file', { path: '/notes', recursive: true }, context)).toEqual({ path: '/notes', type: 'directory', deleted: 2 });
    expect(await failureOf(run('read_file', { path: '/notes/a.md' }, context))).toMatchObject({ class: 'EXECUTION', code: 'file_not_found' });
    expect(await failureOf(run('edit_file', { path: '/x', oldString: 'a', newString: 'b' }, context))).toMatchObject({ code: 'file_not_found' });
    expect(await failureOf(run('grep_files', { pattern: '[' }, context))).toMatchObject({ code: 'invalid_pattern' });
  });
});

describe('sleep', () => {
  it('reports progress while it waits', async () => {
    const context = makeContext();
    const started = Date.now();
    expect(await run('sleep', { ms: 250, progressIntervalMs: 50 }, context)).toEqual({ sleptMs: 250 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    expect(context.progress.length).toBeGreaterThanOrEqual(3);
    for (const entry of context.progress) expect(entry).toMatchObject({ total: 250, unit: 'ms', label: 'sleeping' });
    expect(context.progress.at(-1)).toMatchObject({ current: 250 });
    const currents = context.progress.map((entry) => entry.current ?? 0);
    expect([...currents].sort((a, b) => a - b)).toEqual(currents);
  });

  it('stops at once when aborted, rejecting with the reason', async () => {
    vi.useFakeTimers();
    try {
      const context = makeContext();
      const reason = new Error('cancelled by test');
      const sleeping = run('sleep', { ms: 60_000, progressIntervalMs: 20 }, context);
      const stopped = expect(sleeping).rejects.toBe(reason);
      await vi.advanceTimersByTimeAsync(60);
      expect(context.progress.length).toBeGreaterThanOrEqual(2);
      // Rejected without any time passing after the abort.
      context.controller.abort(reason);
      await stopped;
      const count = context.progress.length;
      // No timer of it is left behind: however long passes, it reports nothing more.
      await vi.advanceTimersByTimeAsync(60_000);
      expect(context.progress.length).toBe(count);
    } finally {
      vi.useRealTimers();
    }

    const already = makeContext();
    already.controller.abort('gone');
    await expect(run('sleep', { ms: 10 }, already)).rejects.toBe('gone');
  });
});

describe('failing_tool', () => {
  it('fails with the defaults', async () => {
    expect(await failureOf(run('failing_tool', {}))).toEqual({
      class: 'EXECUTION',
      code: 'intentional_failure',
      message: 'Tool execution failed',
      source: 'TOOL',
      retry: { kind: 'NEVER' },
    });
  });

  it('fails with every class, code, message and retry', async () => {
    for (const cls of FAILURE_CLASSES) {
      expect(await failureOf(run('failing_tool', { class: cls, code: 'custom_code', message: `boom ${cls}`, retry: 'SAFE' }))).toMatchObject({
        class: cls,
        code: 'custom_code',
        message: `boom ${cls}`,
        retry: { kind: 'SAFE' },
      });
    }
  });

  it('throws an untyped error for internal', async () => {
    const error = await run('failing_tool', { internal: true, message: 'secret detail' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ToolFailureError);
  });

  it('succeeds from the requested attempt on', async () => {
    expect(await failureOf(run('failing_tool', { succeedOnAttempt: 2, retry: 'SAFE' }, makeContext({ attempt: 1 })))).toMatchObject({ retry: { kind: 'SAFE' } });
    expect(await run('failing_tool', { succeedOnAttempt: 2 }, makeContext({ attempt: 2 }))).toEqual({ succeededOnAttempt: 2 });
    expect(await run('failing_tool', { succeedOnAttempt: 2 }, makeContext({ attempt: 3 }))).toEqual({ succeededOnAttempt: 3 });
  });

  it('carries retryAfterMs into a SAFE retry', async () => {
    expect(await failureOf(run('failing_tool', { retry: 'SAFE', retryAfterMs: 75 }))).toMatchObject({ retry: { kind: 'SAFE', afterMs: 75 } });
  });

  it('waits delayMs before failing, honouring abort', async () => {
    const started = Date.now();
    expect(await failureOf(run('failing_tool', { delayMs: 120 }))).toMatchObject({ code: 'intentional_failure' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);

    const context = makeContext();
    const waiting = run('failing_tool', { delayMs: 30_000 }, context);
    setTimeout(() => context.controller.abort('stop'), 30);
    await expect(waiting).rejects.toBe('stop');
  });
});

// ---------------------------------------------------------------------------------------------

describe('web_fetch', () => {
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      switch (url.pathname) {
        case '/hello':
          response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-private': 'no' });
          response.end(request.method === 'HEAD' ? undefined : 'héllo world');
          return;
        case '/big': {
          const size = Number(url.searchParams.get('size') ?? 200_000);
          response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(size) });
          // Several chunks, so progress can be reported as they arrive.
          let sent = 0;
          const pump = () => {
            while (sent < size) {
              const chunk = Buffer.alloc(Math.min(16_384, size - sent), 97);
              sent += chunk.length;
              if (!response.write(chunk)) return void response.once('drain', pump);
            }
            response.end();
          };
          pump();
          return;
        }
        case '/endless': {
          response.writeHead(200, { 'content-type': 'text/plain' });
          const timer = setInterval(() => response.write('x'.repeat(4096)), 1);
          response.on('close', () => clearInterval(timer));
          return;
        }
        case '/redirect':
          response.writeHead(302, { location: '/hello' });
          response.end();
          return;
        case '/loop':
          response.writeHead(302, { location: '/loop' });
          response.end();
          return;
        case '/to-private':
          response.writeHead(301, { location: 'http://10.0.0.1/secret' });
          response.end();
          return;
        case '/to-ftp':
          response.writeHead(302, { location: 'ftp://example.com/file' });
          response.end();
          return;
        case '/missing':
          response.writeHead(404, { 'content-type': 'text/plain' });
          response.end('not here');
          return;
        case '/hang':
          return; // never answers
        default:
          response.writeHead(500);
          response.end();
      }
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const loopback = () => makeContext({ webFetch: { allowLoopback: true } });

  it('fetches a page from an allowed loopback address', async () => {
    const context = loopback();
    const result = await run('web_fetch', { url: `${base}/hello` }, context);
    expect(result).toMatchObject({
      url: `${base}/hello`,
      status: 200,
      contentType: 'text/plain; charset=utf-8',
      body: 'héllo world',
      bytes: Buffer.byteLength('héllo world'),
      truncated: false,
      redirects: 0,
    });
    expect(result.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(result.headers['x-private']).toBeUndefined();
    expect(context.progress.at(-1)).toMatchObject({ current: result.bytes, unit: 'bytes' });

    const head = await run('web_fetch', { url: `${base}/hello`, method: 'HEAD' }, loopback());
    expect(head).toMatchObject({ status: 200, body: '', bytes: 0 });
    expect(await run('web_fetch', { url: `${base}/missing` }, loopback())).toMatchObject({ status: 404, body: 'not here' });
  });

  it('caps the size, marks truncation and reports progress in bytes', async () => {
    const context = loopback();
    const result = await run('web_fetch', { url: `${base}/big?size=200000`, maxBytes: 50_000 }, context);
    expect(result).toMatchObject({ status: 200, bytes: 50_000, truncated: true });
    expect(result.body).toHaveLength(50_000);
    expect(context.progress.at(-1)).toEqual({ current: 50_000, total: 200_000, unit: 'bytes', label: 'fetching' });

    const whole = loopback();
    const complete = await run('web_fetch', { url: `${base}/big?size=100000`, maxBytes: 100_000 }, whole);
    expect(complete).toMatchObject({ bytes: 100_000, truncated: false });
    expect(whole.progress.at(-1)).toMatchObject({ current: 100_000, total: 100_000 });

    // The deployment's cap wins over a larger request, and an endless body stops at the cap.
    const capped = makeContext({ webFetch: { allowLoopback: true, maxBytes: 10_000 } });
    expect(await run('web_fetch', { url: `${base}/endless`, maxBytes: 1_000_000 }, capped)).toMatchObject({ bytes: 10_000, truncated: true });
  });

  it('follows redirects, at most five, re-checking every hop', async () => {
    expect(await run('web_fetch', { url: `${base}/redirect` }, loopback())).toMatchObject({ url: `${base}/hello`, body: 'héllo world', redirects: 1 });
    expect(await failureOf(run('web_fetch', { url: `${base}/loop` }, loopback()))).toMatchObject({ class: 'EXTERNAL', code: 'too_many_redirects' });
    expect(await failureOf(run('web_fetch', { url: `${base}/to-private` }, loopback()))).toMatchObject({
      class: 'PERMISSION_DENIED',
      code: 'address_not_allowed',
      message: expect.stringContaining('10.0.0.1'),
    });
    expect(await failureOf(run('web_fetch', { url: `${base}/to-ftp` }, loopback()))).toMatchObject({ class: 'EXTERNAL', code: 'unsupported_redirect' });
  });

  it('refuses non-public addresses unless allowed', async () => {
    for (const url of [`${base}/hello`, 'http://10.0.0.1/', 'http://[::1]/', 'http://169.254.169.254/latest/meta-data/', 'http://[::ffff:127.0.0.1]/', 'http://[::127.0.0.1]/', 'http://[::a00:1]/', 'http://[64:ff9b::7f00:1]/', 'http://[2002:7f00:1::]/', 'http://0.0.0.0/', 'http://[fd00::1]/', 'http://224.0.0.1/', 'http://2130706433/']) {
      expect(await failureOf(run('web_fetch', { url }, makeContext())), url).toMatchObject({
        class: 'PERMISSION_DENIED',
        code: 'address_not_allowed',
        retry: { kind: 'NEVER' },
      });
    }
    // A host name is checked on every address it resolves to, at connect time.
    const port = (server.address() as AddressInfo).port;
    expect(await failureOf(run('web_fetch', { url: `http://localhost:${port}/hello` }, makeContext()))).toMatchObject({
      class: 'PERMISSION_DENIED',
      code: 'address_not_allowed',
      message: expect.stringContaining('localhost resolves to a non-public address'),
    });
    // Credentials in the URL are not repeated in what the call answers.
    const withCredentials = await failureOf(run('web_fetch', { url: 'http://user:s3cret@10.0.0.1/' }, makeContext()));
    expect(withCredentials).toMatchObject({ code: 'address_not_allowed', message: expect.stringContaining('http://10.0.0.1/') });
    expect(withCredentials.message).not.toMatch(/s3cret|user/);
    // What the name resolved to inside the deployment is not said.
    expect((await failureOf(run('web_fetch', { url: `http://localhost:${port}/hello` }, makeContext()))).message).not.toMatch(/127\.0\.0\.1|::1|loopback/);
    // allowLoopback allows loopback only; allowPrivate allows every non-public address.
    expect(await failureOf(run('web_fetch', { url: 'http://10.0.0.1/' }, loopback()))).toMatchObject({ code: 'address_not_allowed' });
    expect(await run('web_fetch', { url: `http://localhost:${port}/hello` }, loopback())).toMatchObject({ status: 200 });
    expect(await run('web_fetch', { url: `${base}/hello` }, makeContext({ webFetch: { allowPrivate: true } }))).toMatchObject({ status: 200 });
    expect(isAddressAllowed('93.184.215.14', { allowPrivate: false, allowLoopback: false })).toBe(true);
    expect(isAddressAllowed('2606:2800:21f:cb07:6820:80da:af6b:8b2c', { allowPrivate: false, allowLoopback: false })).toBe(true);
    expect(isAddressAllowed('192.168.1.1', { allowPrivate: false, allowLoopback: true })).toBe(false);
    expect(isAddressAllowed('100.64.0.1', { allowPrivate: false, allowLoopback: false })).toBe(false);
    // IPv4-compatible IPv6 (URLs write ::127.0.0.1 as ::7f00:1) counts as the IPv4 address it carries.
    expect(isAddressAllowed('::7f00:1', { allowPrivate: false, allowLoopback: false })).toBe(false);
    expect(isAddressAllowed('::7f00:1', { allowPrivate: false, allowLoopback: true })).toBe(true);
    expect(isAddressAllowed('::808:808', { allowPrivate: false, allowLoopback: false })).toBe(true);
    expect(isAddressAllowed('::1', { allowPrivate: false, allowLoopback: true })).toBe(true);
  });

  it('rejects invalid URLs and other schemes', async () => {
    expect(await failureOf(run('web_fetch', { url: 'not a url' }))).toMatchObject({ class: 'INVALID_REQUEST', code: 'invalid_url' });
    expect(await failureOf(run('web_fetch', { url: 'file:///etc/passwd' }))).toMatchObject({ class: 'INVALID_REQUEST', code: 'unsupported_scheme' });
  });

  it('caps the time, and stops when the call is cancelled', async () => {
    const started = Date.now();
    expect(await failureOf(run('web_fetch', { url: `${base}/hang`, timeoutMs: 200 }, loopback()))).toMatchObject({
      class: 'TIMEOUT',
      code: 'fetch_timeout',
      retry: { kind: 'SAFE' },
    });
    expect(Date.now() - started).toBeLessThan(2000);

    const context = loopback();
    const fetching = run('web_fetch', { url: `${base}/hang` }, context);
    const reason = new Error('call cancelled');
    setTimeout(() => context.controller.abort(reason), 50);
    await expect(fetching).rejects.toBe(reason);
  });

  it('reports network errors as retryable EXTERNAL failures', async () => {
    const closed = http.createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await failureOf(run('web_fetch', { url: `http://127.0.0.1:${port}/` }, loopback()))).toMatchObject({
      class: 'EXTERNAL',
      code: 'network_error',
      retry: { kind: 'SAFE' },
    });
  });
});
