// Migrated test databases, each a copy of one migrated template (CREATE DATABASE … TEMPLATE: a
// fraction of a second, where migrating takes a child process and seconds on a loaded machine).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { TEST_DATABASE_URL } from './database.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/** Runs `fn` on a connection of its own to the test server's `postgres` database. */
export async function onAdminDatabase<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const admin = new URL(TEST_DATABASE_URL);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A database name the tests may drop and create. */
export function checkedName(name: string): string {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`refusing to recreate database ${name}`);
  return name;
}

/** Drops the database named by `url` if it exists and creates it again, migrated. */
export async function recreateMigrated(url: string): Promise<void> {
  const name = checkedName(new URL(url).pathname.slice(1));
  const template = await migratedTemplate();
  await onAdminDatabase(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  });
}

let template: Promise<string> | null = null;

/**
 * The template: a database holding every migration. It is named by a hash of prisma/migrations,
 * so a changed migration makes a new one; it is migrated under a name of its own and renamed once
 * complete, under an advisory lock, so no test file (nor another checkout's run on the same
 * server) copies a half-migrated one. Nothing connects to it afterwards (ALLOW_CONNECTIONS false):
 * a copy needs its template without sessions.
 */
export function migratedTemplate(): Promise<string> {
  template ??= buildTemplate().catch((error: unknown) => {
    template = null;
    throw error;
  });
  return template;
}

async function buildTemplate(): Promise<string> {
  const migrations = `${ROOT}prisma/migrations/`;
  const hash = createHash('sha256');
  const files = readdirSync(migrations, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  for (const file of files.map((entry) => `${entry.parentPath}/${entry.name}`).sort()) {
    hash.update(`${file.slice(migrations.length)}\0`).update(readFileSync(file)).update('\0');
  }
  const name = `toolrun_test_template_${hash.digest('hex').slice(0, 16)}`;
  const building = `${name}_building`;
  return onAdminDatabase(async (client) => {
    const lockKey = `hashtext('toolrun test template')`;
    await client.query(`SELECT pg_advisory_lock(${lockKey})`);
    try {
      if ((await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount) return name;
      // Left by a run killed while it migrated.
      await client.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      const url = new URL(TEST_DATABASE_URL);
      url.pathname = `/${building}`;
      try {
        await run(process.execPath, ['--import', 'tsx', 'scripts/migrate.ts', 'deploy'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: url.toString() } });
      } catch (error) {
        const { stdout, stderr } = error as { stdout?: string; stderr?: string };
        throw new Error(`migrating ${building} failed:\n${stdout ?? ''}\n${stderr ?? ''}`);
      }
      await client.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      await client.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
      return name;
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${lockKey})`);
    }
  });
}
