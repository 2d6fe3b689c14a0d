// toolrun started as a deployment, the way its README starts it in production: one API process
// and one worker process, configured only through environment variables, on a database of its
// own (dropped, recreated and migrated at every bench run) and a Redis prefix of its own.
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { Child, ROOT } from './children.js';
import { ToolrunClient } from './graphql.js';
import { BenchError, until, within } from './wait.js';

type Entry = 'api' | 'worker' | 'apikey';

/**
 * How a toolrun process is started: the compiled build when there is one (`npm run build`),
 * else the sources through tsx (`node --import tsx src/bin/<entry>.ts`).
 */
export const TOOLRUN_COMMAND: { kind: string; args(entry: Entry): string[] } = (() => {
  for (const dir of ['dist/bin', 'dist/src/bin']) {
    if (existsSync(join(ROOT, dir, 'api.js')) && existsSync(join(ROOT, dir, 'worker.js'))) {
      return { kind: `node ${dir}/<entry>.js`, args: (entry: Entry) => [join(dir, `${entry}.js`)] };
    }
  }
  return { kind: 'node --import tsx src/bin/<entry>.ts', args: (entry: Entry) => ['--import', 'tsx', `src/bin/${entry}.ts`] };
})();

/** `BENCH_PROFILE=<dir>`: the API and worker write CPU profiles there (`node --cpu-prof`) when they exit. */
const PROFILE_ARGS = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];

/**
 * The settings the bench gives toolrun; everything else is toolrun's default. When toolrun gains
 * limits that a benchmark load trips on purpose (request rates, subscriptions per key), raise them
 * here, so that the bench measures the hot path rather than the limiter.
 */
export function toolrunEnv(settings: { databaseUrl: string; redisUrl: string; prefix: string; role: string; port?: number }): NodeJS.ProcessEnv {
  const url = new URL(settings.databaseUrl);
  // Tags the process's PostgreSQL backends, so that their CPU is reported per process.
  url.searchParams.set('application_name', `toolrun-bench-${settings.role}`);
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATABASE_URL: url.toString(),
    REDIS_URL: settings.redisUrl,
    REDIS_PREFIX: settings.prefix,
    HOST: '127.0.0.1',
    // P3 holds 1,000 subscriptions of one key on one API process: above the default safety limit (500).
    MAX_SUBSCRIPTIONS_PER_KEY: '5000',
    ...(settings.port === undefined ? {} : { PORT: String(settings.port) }),
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export function databaseName(databaseUrl: string): string {
  return new URL(databaseUrl).pathname.slice(1);
}

/** Drops the bench database and creates and migrates it again (toolrun's own migration script). */
export async function recreateDatabase(databaseUrl: string): Promise<void> {
  const name = databaseName(databaseUrl);
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new BenchError(`unexpected database name ${JSON.stringify(name)}`);
  const maintenance = new URL(databaseUrl);
  maintenance.pathname = '/postgres';
  const client = new pg.Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
  const migrate = new Child('migrate', ['--import', 'tsx', 'scripts/migrate.ts', 'deploy'], { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: databaseUrl });
  const exit = await within('migrating the bench database', 120_000, migrate.exited);
  if (exit.code !== 0) throw new BenchError(`migrating ${name} failed\n${migrate.output()}`);
}

export interface Toolrun {
  api: Child;
  worker: Child;
  url: string;
  wsUrl: string;
  client(apiKey: string): ToolrunClient;
}

interface Settings {
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
}

/** Creates a tenant and an API key with every role, as an operator does (`apikey create`), and returns the printed key. */
export async function createKey(settings: Settings, tenant: string): Promise<string> {
  const child = new Child(`apikey create ${tenant}`, [...TOOLRUN_COMMAND.args('apikey'), 'create', tenant, '--roles', 'submitter,approver,admin'], toolrunEnv({ ...settings, role: 'apikey' }));
  const exit = await within(`creating an API key for ${tenant}`, 60_000, child.exited);
  const key = /^key\s+(\S+)/m.exec(child.output())?.[1];
  if (exit.code !== 0 || !key) throw new BenchError(`could not create an API key for ${tenant}\n${child.output()}`);
  return key;
}

/** Starts the API and the worker, and waits until the API is ready. */
export async function startToolrun(settings: Settings): Promise<Toolrun> {
  const port = await freePort();
  const api = new Child('toolrun API', [...PROFILE_ARGS, ...TOOLRUN_COMMAND.args('api')], toolrunEnv({ ...settings, role: 'api', port }), { essential: true });
  const worker = new Child('toolrun worker', [...PROFILE_ARGS, ...TOOLRUN_COMMAND.args('worker')], toolrunEnv({ ...settings, role: 'worker' }), { essential: true });
  const base = `http://127.0.0.1:${port}`;
  await until('the toolrun API answering 200 on /ready', 60_000, async () => (await fetch(`${base}/ready`)).status === 200, 200);
  return {
    api,
    worker,
    url: `${base}/graphql`,
    wsUrl: `ws://127.0.0.1:${port}/graphql`,
    client: (apiKey) => new ToolrunClient(`${base}/graphql`, `ws://127.0.0.1:${port}/graphql`, apiKey),
  };
}
