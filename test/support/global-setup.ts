// Recreates the test database from the migrations once per run (the api and system tiers both
// name this file; the second call finds it done).
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { TEST_DATABASE_URL } from './database.js';

const DONE = 'TOOLRUN_TEST_DATABASE_READY';

export default async function setup(): Promise<void> {
  if (process.env[DONE] === TEST_DATABASE_URL) return;
  const url = new URL(TEST_DATABASE_URL);
  const name = url.pathname.slice(1);
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`refusing to recreate database ${name}`);
  const admin = new URL(TEST_DATABASE_URL);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/migrate.ts', 'deploy'], {
    env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`migrating the test database failed:\n${result.stdout}\n${result.stderr}`);
  process.env[DONE] = TEST_DATABASE_URL;
}
