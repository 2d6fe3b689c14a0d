// Start-up checks that turn an unreachable dependency into one clear line instead of a stack trace.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { Config } from './config.js';

export class StartupError extends Error {
  override name = 'StartupError';
}

export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

export async function checkDatabase(config: Config): Promise<void> {
  const target = new URL(config.DATABASE_URL);
  target.pathname = '/postgres';
  const client = new pg.Client({ connectionString: target.toString(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw new StartupError(
      `cannot reach PostgreSQL at ${redactUrl(config.DATABASE_URL)} (${(error as Error).message || (error as { code?: string }).code}). Start PostgreSQL or set DATABASE_URL.`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function checkRedis(config: Config): Promise<void> {
  const client = new Redis(config.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    throw new StartupError(`cannot reach Redis at ${redactUrl(config.REDIS_URL)} (${(error as Error).message}). Start Redis or set REDIS_URL.`);
  } finally {
    client.disconnect();
  }
}

/**
 * Creates the database if missing and applies pending migrations (scripts/migrate.ts deploy), in a
 * child process: the schema engine is a large WebAssembly module the server has no use for after.
 * Compiled, this file is dist/src/preflight.js and the script dist/scripts/migrate.js; run from
 * source (tests), both are TypeScript and the child needs tsx too.
 */
export function migrateDatabase(config: Config): void {
  const compiled = import.meta.url.endsWith('.js');
  const script = fileURLToPath(new URL(compiled ? '../scripts/migrate.js' : '../scripts/migrate.ts', import.meta.url));
  const result = spawnSync(process.execPath, [...(compiled ? [] : ['--import', 'tsx']), script, 'deploy'], {
    env: { ...process.env, DATABASE_URL: config.DATABASE_URL },
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    const detail = (result.stderr || result.stdout || '').trim().split('\n').at(-1);
    throw new StartupError(`migrating ${redactUrl(config.DATABASE_URL)} failed: ${detail}`);
  }
}
