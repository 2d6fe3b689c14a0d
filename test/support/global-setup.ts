// Recreates a tier's database from the migrations once per run, and drops the databases that
// only the run made (`<test database>_<tier>`) when it ends. Each tier names its database in its
// project's env (vitest.config.ts): tiers whose workers act on every row of their database never
// share one, so they can run side by side.
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { TEST_DATABASE_URL } from './database.js';

const ready = new Set<string>();

async function onAdminDatabase(url: string, statement: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const databaseUrl = project.config.env.TEST_DATABASE_URL ?? TEST_DATABASE_URL;
  if (ready.has(databaseUrl)) return undefined;
  ready.add(databaseUrl);
  const name = new URL(databaseUrl).pathname.slice(1);
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`refusing to recreate database ${name}`);
  await onAdminDatabase(databaseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/migrate.ts', 'deploy'], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`migrating the test database ${name} failed:\n${result.stdout}\n${result.stderr}`);
  if (databaseUrl === TEST_DATABASE_URL) return undefined;
  return () => onAdminDatabase(databaseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
