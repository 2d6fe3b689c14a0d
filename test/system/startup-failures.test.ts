// Expected start-up failures end the process with one line on stderr that says what is wrong and
// what to do, and no stack: a port in use, a HOST that does not resolve, a database that does not
// exist (or is not migrated) for the API or a worker alone, and every invalid setting. `npm start`
// creates and migrates a missing database instead.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config.js';
import { childEnv, ensureBuilt } from '../support/build.js';
import { Child, freePort } from '../support/cluster.js';
import { deleteRedisKeys, redisPrefixOfFile, TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/database.js';
import { listening, logLines, plainLines } from '../support/process-probes.js';

let dataDir: string;
beforeAll(async () => {
  await ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'toolrun-failures-'));
}, 180_000);
const REDIS_PREFIX = redisPrefixOfFile('toolrun-failures');
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await deleteRedisKeys(REDIS_PREFIX);
});

const databaseUrl = (name: string) => {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl('postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Runs a compiled entry point that is expected to fail, and returns what it said. */
async function failing(entry: string, env: Record<string, string | undefined>) {
  const child = new Child(entry, process.execPath, [`dist/src/bin/${entry}.js`], childEnv({
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: `${REDIS_PREFIX}-${randomUUID()}`,
    TOOLRUN_DATA_DIR: dataDir,
    ...env,
  }));
  const exit = await Promise.race([child.exited, new Promise<null>((resolve) => setTimeout(() => resolve(null), 30_000))]);
  if (exit === null) child.signal('SIGKILL');
  const output = child.output();
  expect(exit, output).toEqual({ code: 1, signal: null });
  const said = plainLines(child);
  expect(said, output).toHaveLength(1);
  expect(said[0], output).toMatch(/^toolrun: /);
  expect(output).not.toMatch(/^\s+at /m);
  return { line: said[0]!, child };
}

describe('the API cannot listen', () => {
  let blocker: Server;
  let taken: number;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    taken = (blocker.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

  it('a port in use is one line naming the port and PORT', async () => {
    const { line, child } = await failing('api', { PORT: String(taken) });
    expect(line).toBe(`toolrun: port ${taken} on 127.0.0.1 is already in use: stop what listens there, or set PORT`);
    expect(logLines(child).some((entry) => entry.msg === 'api listening')).toBe(false);
  }, 60_000);

  it('`npm start` on a port in use says the same, and has taken no job', async () => {
    const { line } = await failing('start', { PORT: String(taken) });
    expect(line).toBe(`toolrun: port ${taken} on 127.0.0.1 is already in use: stop what listens there, or set PORT`);
  }, 60_000);

  it("a worker's metrics port in use is one line naming WORKER_METRICS_PORT, not PORT", async () => {
    const { line } = await failing('worker', { WORKER_METRICS_PORT: String(taken) });
    expect(line).toBe(`toolrun: port ${taken} on 127.0.0.1 is already in use: stop what listens there, or set WORKER_METRICS_PORT`);
  }, 60_000);

  it('a HOST that does not resolve is one line naming it and HOST', async () => {
    // Two dots: refused by the resolver itself, so the test sends no DNS query anywhere.
    const { line } = await failing('api', { PORT: String(await freePort()), HOST: 'toolrun..invalid' });
    expect(line).toBe('toolrun: HOST "toolrun..invalid" does not resolve to an address: set HOST to an address of this machine (127.0.0.1, or 0.0.0.0 for every interface)');
  }, 60_000);
});

describe('the database', () => {
  const missing = `toolrun_test_missing_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  const empty = `toolrun_test_empty_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  const created = `toolrun_test_created_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  afterAll(async () => {
    await admin(async (client) => {
      for (const name of [missing, empty, created]) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    });
  });

  it('that does not exist stops the API alone before it listens, with one line', async () => {
    const port = await freePort();
    const { line, child } = await failing('api', { DATABASE_URL: databaseUrl(missing), PORT: String(port) });
    expect(line).toBe(`toolrun: the database "${missing}" does not exist on ${databaseUrl(missing)}: create and migrate it with \`npm run migrate:deploy\` (or \`npm start\`, which does)`);
    expect(logLines(child).some((entry) => entry.msg === 'api listening')).toBe(false);
    expect(await listening(port)).toBe(false);
  }, 60_000);

  it('that exists without the tables stops a worker alone, with one line', async () => {
    await admin((client) => client.query(`CREATE DATABASE ${empty}`));
    const { line } = await failing('worker', { DATABASE_URL: databaseUrl(empty) });
    expect(line).toBe(`toolrun: the database "${empty}" on ${databaseUrl(empty)} has no toolrun tables: migrate it with \`npm run migrate:deploy\``);
  }, 60_000);

  it('that does not exist is created and migrated by `npm start`', async () => {
    const port = await freePort();
    const child = new Child('start', process.execPath, ['dist/src/bin/start.js'], childEnv({
      DATABASE_URL: databaseUrl(created),
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: `${REDIS_PREFIX}-${randomUUID()}`,
      TOOLRUN_DATA_DIR: dataDir,
      PORT: String(port),
    }));
    try {
      await child.waitForLine(/toolrun is running/, 60_000);
      const tables = await admin(async () => {
        const client = new pg.Client({ connectionString: databaseUrl(created) });
        await client.connect();
        try {
          return (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL`)).rows[0]!.n;
        } finally {
          await client.end();
        }
      });
      expect(tables).toBeGreaterThan(0);
      expect(await listening(port)).toBe(true);
    } finally {
      await child.stop();
    }
  }, 90_000);
});

describe('settings', () => {
  // One invalid value for every setting that can be invalid; the free-text ones take any value.
  const INVALID: Record<string, string> = {
    NODE_ENV: 'staging',
    WORKER_METRICS_PORT: '70000',
    BULL_BOARD_ENABLED: 'maybe',
    INTROSPECTION: 'sometimes',
    MAX_CALLS_PER_REQUEST: '0',
    MAX_JSON_DEPTH: '1',
    MAX_SUBSCRIPTIONS_PER_SOCKET: '0',
    MAX_SUBSCRIPTIONS_PER_KEY: '0',
    API_HEAP_GROWING_PERCENT: '-1',
    WS_KEEPALIVE_MS: '50',
    RATE_LIMIT_REQUESTS: '-1',
    RATE_LIMIT_WINDOW_SECONDS: '0',
    SESSION_FILES_MAX_CONTENT_CHARS: '-1',
    SESSION_FILE_MAX_BYTES: '10',
    SESSION_FILE_MAX_FILES: '0',
    TENANT_FILE_MAX_BYTES: '10',
    TENANT_FILE_MAX_FILES: '0',
    TENANT_MAX_BACKGROUND_RUNS: '0',
    TENANT_MAX_RUNNING_CALLS: '-1',
    CORS_ORIGINS: 'example.com/path',
    DATABASE_URL: 'mysql://someone:s3cret@db.example/toolrun',
    DATABASE_POOL_SIZE: '0',
    DATABASE_CONNECTION_LIFETIME_S: '-1',
    REDIS_URL: 'not a url',
    REDIS_PREFIX: 'has space',
    LOCAL_POSTGRES_PORT: '70000',
    LOCAL_REDIS_PORT: 'abc',
    PORT: '-1',
    LOG_LEVEL: 'loud',
    LOG_REPEAT_INTERVAL_MS: '5',
    WORKER_CONCURRENCY: '0',
    MAX_CALL_TIMEOUT_MS: '1.5',
    MAX_CALLS_PER_BATCH: 'many',
    MAX_BATCH_WAIT_MS: '-5',
    CANCEL_GRACE_MS: '999999',
    HEARTBEAT_INTERVAL_MS: '1',
    WORKER_DEAD_AFTER_MS: '10',
    WORKER_DRAIN_MS: '-1',
    CALLS_PER_JOB: '0',
    TENANT_CALLS_PER_WORKER: 'all',
    WORKER_NEWCOMER_SLOTS: '-1',
    CALLS_EXPRESS_BACKLOG: 'few',
    CALLS_EXPRESS_CONCURRENCY: '0',
    DB_STATEMENT_TIMEOUT_MS: '5',
    DB_LOCK_TIMEOUT_MS: '1e9',
    DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: 'x',
    ENQUEUE_TIMEOUT_MS: '1',
    SUBSCRIBER_QUEUE_EVENTS: '1',
    EVENT_RING_SIZE: '-1',
    JOB_LOCK_MS: '1',
    EVENT_RETENTION_HOURS: '0',
    RECONCILE_INTERVAL_MS: 'x',
    MAX_REQUEST_BYTES: '1',
    MAX_QUERY_DEPTH: '1',
    MAX_QUERY_ALIASES: '0',
    MAX_QUERY_COST: '1',
    MAX_QUERY_TOKENS: '1',
    WEB_FETCH_ALLOW_PRIVATE: 'maybe',
    WEB_FETCH_ALLOW_LOOPBACK: 'sure',
    WEB_FETCH_MAX_BYTES: '0',
    WEB_FETCH_TIMEOUT_MS: '1',
    HTTP_TOOL_ALLOW_PRIVATE: 'y',
    HTTP_TOOL_ALLOW_LOOPBACK: 'n',
    HTTP_TOOL_MAX_RESPONSE_BYTES: '1',
    HTTP_TOOL_MAX_RETRY_AFTER_MS: '-1',
    MCP_REQUEST_TIMEOUT_MS: '5',
    MCP_MAX_MESSAGE_BYTES: '100',
    BACKGROUND_RUNS_PER_WORKER: '0',
    TASK_REAPER_INTERVAL_MS: '1',
    SCHEDULE_ALLOW_SECONDS: 'perhaps',
    ENABLE_TEST_TOOLS: '2',
  };
  const FREE_TEXT = ['HOST', 'WORKER_ID', 'DEV_TENANT', 'TOOLRUN_DATA_DIR', 'SECRET_KEYS'];

  it('covers every setting (a new setting needs an invalid value here, or to be free text)', () => {
    expect([...Object.keys(INVALID), ...FREE_TEXT].sort()).toEqual([...SETTINGS].sort());
  });

  it('every invalid setting is named, with its value, on one line; passwords are not shown', async () => {
    const { line } = await failing('api', INVALID);
    expect(line).toMatch(/^toolrun: invalid settings: /);
    for (const [key, value] of Object.entries(INVALID)) {
      const shown = key === 'DATABASE_URL' ? 'mysql://someone:***@db.example/toolrun' : value;
      expect(line).toContain(`${key}=${JSON.stringify(shown)} (`);
    }
    expect(line).not.toContain('s3cret');
  }, 60_000);

  it('a SECRET_KEYS that does not parse is one line naming it, without its value', async () => {
    const { line } = await failing('api', { SECRET_KEYS: 'k1:not-32-bytes-s3cret' });
    expect(line).toMatch(/^toolrun: SECRET_KEYS: /);
    expect(line).not.toContain('s3cret');
  }, 60_000);

  it('without SECRET_KEYS, a data directory where its key cannot be kept is one line saying what to set, for the API and a worker', async () => {
    // Where the process may not write (an image's root-owned directory run as a non-root user; here
    // a path through a file, since tests may run as root), the key cannot be made.
    const file = join(dataDir, 'not-a-directory');
    writeFileSync(file, '');
    for (const entry of ['api', 'worker']) {
      const { line } = await failing(entry, { SECRET_KEYS: undefined, TOOLRUN_DATA_DIR: join(file, 'data') });
      expect(line).toMatch(/^toolrun: without SECRET_KEYS the key that encrypts secrets at rest is kept in .+\/not-a-directory\/data\/secret-keys, which cannot be made or read \(ENOTDIR\): set SECRET_KEYS \(`npm run secrets -- new-key <id>` makes one\) or TOOLRUN_DATA_DIR$/);
    }
  }, 120_000);

  it('an OTLP endpoint that is no URL is one line naming the variable', async () => {
    const { line } = await failing('api', { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' });
    expect(line).toMatch(/^toolrun: OTEL_EXPORTER_OTLP_ENDPOINT/);
  }, 60_000);

  it('one invalid setting is one line too, for the worker and `npm start` alike', async () => {
    for (const entry of ['worker', 'start']) {
      const { line } = await failing(entry, { PORT: 'eighty' });
      expect(line).toMatch(/^toolrun: invalid setting: PORT="eighty" \(.+\)$/);
    }
  }, 60_000);
});
