// Start-up checks that turn an unreachable dependency into one clear line instead of a stack trace.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { type Config, redactUrl } from './config.js';
import { PACKAGE_ROOT } from './package-root.js';

export { redactUrl };

export class StartupError extends Error {
  override name = 'StartupError';
}

function hint(config: Config, what: 'database' | 'redis'): string {
  const variable = what === 'database' ? 'DATABASE_URL' : 'REDIS_URL';
  return config.defaults[what] ? `${variable} is not set, so this is the local default: set ${variable}, or run \`npm start\`, which starts a local server` : `check ${variable}`;
}

function reason(error: unknown): string {
  const e = error as { message?: string; code?: string; errors?: Array<{ message?: string }> };
  return e.message || e.errors?.map((member) => member.message).join('; ') || e.code || String(error);
}

/**
 * PostgreSQL answers. With `requireSchema` (the API or a worker alone, which do not migrate), the
 * database must also exist and be migrated; `npm start` creates and migrates it itself.
 */
export async function checkDatabase(config: Config, options: { requireSchema?: boolean } = {}): Promise<void> {
  const server = new URL(config.DATABASE_URL);
  const database = decodeURIComponent(server.pathname.slice(1));
  server.pathname = '/postgres';
  const at = redactUrl(config.DATABASE_URL);
  const connect = async (url: string) => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    client.on('error', () => undefined);
    await client.connect();
    return client;
  };
  let client: pg.Client;
  try {
    client = await connect(options.requireSchema ? config.DATABASE_URL : server.toString());
  } catch (error) {
    if ((error as { code?: string }).code === '3D000') {
      throw new StartupError(`the database "${database}" does not exist on ${at}: create and migrate it with \`npm run migrate:deploy\` (or \`npm start\`, which does)`);
    }
    throw new StartupError(`cannot reach PostgreSQL at ${at} (${reason(error)}): ${hint(config, 'database')}`);
  }
  try {
    if (options.requireSchema) {
      const { rows } = await client.query<{ migrated: boolean }>(`SELECT to_regclass('_prisma_migrations') IS NOT NULL AS migrated`);
      if (!rows[0]?.migrated) {
        throw new StartupError(`the database "${database}" on ${at} has no toolrun tables: migrate it with \`npm run migrate:deploy\``);
      }
    } else {
      await client.query('SELECT 1');
    }
  } catch (error) {
    if (error instanceof StartupError) throw error;
    throw new StartupError(`PostgreSQL at ${at} failed a check query (${reason(error)})`);
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
    throw new StartupError(`cannot reach Redis at ${redactUrl(config.REDIS_URL)} (${reason(error)}): ${hint(config, 'redis')}`);
  } finally {
    client.disconnect();
  }
}

/**
 * Creates the database if missing and applies pending migrations (scripts/migrate.ts deploy), in a
 * child process: the schema engine is a large WebAssembly module the server has no use for after.
 * Compiled (per file or bundled), the script is dist/scripts/migrate.js; run from
 * source (tests), both are TypeScript and the child needs tsx too.
 */
export function migrateDatabase(config: Config): void {
  const compiled = import.meta.url.endsWith('.js');
  const script = join(PACKAGE_ROOT, compiled ? 'dist/scripts/migrate.js' : 'scripts/migrate.ts');
  const result = spawnSync(process.execPath, [...(compiled ? [] : ['--import', 'tsx']), script, 'deploy'], {
    env: { ...process.env, DATABASE_URL: config.DATABASE_URL },
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    const detail = (result.stderr || result.stdout || '').trim().split('\n').at(-1);
    throw new StartupError(`migrating ${redactUrl(config.DATABASE_URL)} failed: ${detail}`);
  }
}

const LISTEN_PROBLEMS: Record<string, (host: string, port: number, setting: string) => string> = {
  EADDRINUSE: (host, port, setting) => `port ${port} on ${host} is already in use: stop what listens there, or set ${setting}`,
  EACCES: (host, port, setting) => `no permission to listen on ${host}:${port} (ports below 1024 need privileges): set ${setting}`,
  EADDRNOTAVAIL: (host) => `HOST "${host}" is not an address of this machine: set HOST to one (127.0.0.1, or 0.0.0.0 for every interface)`,
  ENOTFOUND: (host) => `HOST "${host}" does not resolve to an address: set HOST to an address of this machine (127.0.0.1, or 0.0.0.0 for every interface)`,
  EAI_AGAIN: (host) => `HOST "${host}" could not be resolved (DNS did not answer): set HOST to an IP address of this machine`,
  EAI_NONAME: (host) => `HOST "${host}" does not resolve to an address: set HOST to an address of this machine (127.0.0.1, or 0.0.0.0 for every interface)`,
};

/** A listen() failure as one line, or null for one that is not the configuration's fault. */
export function listenProblem(error: unknown, host: string, port: number, setting = 'PORT'): string | null {
  const code = (error as { code?: string }).code;
  return code && LISTEN_PROBLEMS[code] ? LISTEN_PROBLEMS[code](host, port, setting) : null;
}
