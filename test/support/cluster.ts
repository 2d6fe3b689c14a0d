// Real child processes for multi-process tests: API processes (`src/bin/api.ts`) and worker
// processes (`src/bin/worker.ts`) sharing a database of their own and one fresh Redis prefix,
// plus a private `redis-server` for tests that restart Redis. Every process's output is kept
// (the last lines; all of it in TEST_CHILD_LOG_DIR when set) so that a failing test can say what
// the processes said.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createDb, type Db } from '../../src/db.js';
import { ApiKeyService } from '../../src/domain/tenants/api-keys.js';
import { ensureBuilt } from './build.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './database.js';
import { migratedTemplate, onAdminDatabase } from './template-database.js';
import { type GraphQLClient, graphqlClient, httpEndpoint } from './toolrun.js';
import { eventually } from './wait.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * How a test starts a toolrun entry point: the compiled build (`src/bin/x.ts` runs as
 * `dist/src/bin/x.js`, as `npm start` runs it, and without a TypeScript loader's start-up in every
 * child), exiting with the test process.
 */
export function toolrunNodeArgs(script: string): string[] {
  return ['--import', './test/support/exit-with-parent.mjs', script.replace(/^src\/(.*)\.ts$/, 'dist/src/$1.js')];
}
const OUTPUT_LINES = 400;

/**
 * A port nobody listens on right now, for a process a test starts. Drawn below the kernel's
 * ephemeral range (32768+): a port from bind(0) is one that any outgoing connection may take as its
 * local port before the process under test binds it.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A child process whose output is kept and whose exit can be awaited. */
export class Child {
  readonly process: ChildProcess;
  readonly exited: Promise<Exit>;
  private readonly lines: string[] = [];
  private readonly watchers = new Set<(line: string) => void>();
  private exit: Exit | null = null;

  constructor(
    readonly name: string,
    command: string,
    args: string[],
    env: NodeJS.ProcessEnv,
    /** `group`: the process leads a process group of its own, and everything in it is killed with the test process (npm and the app it runs). */
    options: { cwd?: string; group?: boolean } = {},
  ) {
    this.process = spawn(command, args, { cwd: options.cwd ?? ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: options.group ?? false });
    // Never outlive the test process, whatever happens to its afterAll.
    const killOnExit = () => {
      try {
        if (options.group && this.process.pid) process.kill(-this.process.pid, 'SIGKILL');
        else this.process.kill('SIGKILL');
      } catch {
        // already gone
      }
    };
    process.once('exit', killOnExit);
    this.process.once('exit', () => process.removeListener('exit', killOnExit));
    for (const stream of [this.process.stdout!, this.process.stderr!]) {
      let partial = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const parts = (partial + chunk).split('\n');
        partial = parts.pop() ?? '';
        for (const line of parts) this.record(line);
      });
    }
    this.exited = new Promise((resolve) => {
      this.process.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
      this.process.once('error', (error) => {
        this.record(`spawn failed: ${error.message}`);
        this.exit = { code: -1, signal: null };
        resolve(this.exit);
      });
    });
  }

  get running(): boolean {
    return this.exit === null;
  }

  get pid(): number {
    return this.process.pid ?? -1;
  }

  private record(line: string): void {
    if (!line) return;
    // TEST_CHILD_LOG_DIR keeps every line of every process, for debugging.
    if (process.env.TEST_CHILD_LOG_DIR) appendFileSync(`${process.env.TEST_CHILD_LOG_DIR}/${this.name}-${this.pid}.log`, `${line}\n`);
    this.lines.push(line);
    if (this.lines.length > OUTPUT_LINES) this.lines.shift();
    for (const watcher of this.watchers) watcher(line);
  }

  /** The last lines the process wrote (stdout and stderr). */
  output(): string {
    return `--- ${this.name} (pid ${this.pid}${this.exit ? `, exited ${JSON.stringify(this.exit)}` : ''}) ---\n${this.lines.join('\n')}`;
  }

  /** Resolves when the process writes a line matching `pattern`; rejects if it exits first. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string> {
    const seen = this.lines.find((line) => pattern.test(line));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const done = (error: Error | null, line?: string) => {
        clearTimeout(timer);
        this.watchers.delete(watch);
        if (error) reject(error);
        else resolve(line!);
      };
      const watch = (line: string) => pattern.test(line) && done(null, line);
      const timer = setTimeout(() => done(new Error(`${this.name}: no line matching ${pattern} within ${timeoutMs} ms\n${this.output()}`)), timeoutMs);
      this.watchers.add(watch);
      void this.exited.then(() => done(new Error(`${this.name} exited before writing ${pattern}\n${this.output()}`)));
    });
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) this.process.kill(signal);
  }

  /** SIGTERM, then SIGKILL if the process is still there after `graceMs`. */
  async stop(graceMs = 10_000): Promise<Exit> {
    if (!this.running) return this.exited;
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A private Redis on a spare port, so a test may stop and restart it without touching the shared one. */
export class RedisServer {
  private child: Child | null = null;
  readonly url: string;

  private constructor(readonly port: number) {
    this.url = `redis://127.0.0.1:${port}`;
  }

  static async start(): Promise<RedisServer> {
    const server = new RedisServer(await freePort());
    await server.restart();
    return server;
  }

  /** Starts the server (again), empty: it never saves anything. */
  async restart(): Promise<void> {
    if (this.child?.running) throw new Error('redis-server is already running');
    this.child = new Child(`redis-server:${this.port}`, 'redis-server', [
      '--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no',
    ], process.env);
    const child = this.child;
    await eventually(async () => {
      if (!child.running) throw new Error(`redis-server exited\n${child.output()}`);
      const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => undefined);
      try {
        await client.connect();
        return (await client.ping()) === 'PONG';
      } finally {
        client.disconnect();
      }
    }, 10_000, 50, `redis-server on ${this.port}`);
  }

  /** Kills the server at once (SIGKILL): every key, job and subscription is gone. */
  async kill(): Promise<void> {
    if (!this.child?.running) return;
    this.child.signal('SIGKILL');
    await this.child.exited;
  }

  output(): string {
    return this.child?.output() ?? '';
  }
}

/**
 * A TCP proxy in front of PostgreSQL for the processes that connect through it: `cut` closes their
 * connections and refuses new ones until `restore`, an outage of the database as they see it, without
 * touching the server the other tests share.
 */
export class DatabaseProxy {
  private down = false;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly target: URL,
    readonly port: number,
  ) {}

  static async start(databaseUrl: string): Promise<DatabaseProxy> {
    const target = new URL(databaseUrl);
    const port = await freePort();
    const server = createServer();
    const proxy = new DatabaseProxy(server, target, port);
    server.on('connection', (client) => proxy.accept(client));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return proxy;
  }

  /** `databaseUrl` through this proxy. */
  url(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  private accept(client: Socket): void {
    if (this.down) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(this.target.port || 5432), this.target.hostname);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        (socket === client ? upstream : client).destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  }

  /** The outage begins: open connections are cut, new ones refused. */
  cut(): void {
    this.down = true;
    for (const socket of this.sockets) socket.destroy();
  }

  /** The outage ends. */
  restore(): void {
    this.down = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export interface ApiProcess extends GraphQLClient {
  child: Child;
  port: number;
  /** GET a path of this process (`/health`, `/ready`). */
  get(path: string): Promise<{ status: number; body: unknown }>;
}

export interface WorkerProcess {
  child: Child;
  /** The WORKER_ID the process runs as (what `tool_call.worker_id` says). */
  workerId: string;
}

export interface ClusterOptions {
  /** Redis for every process (default: the test Redis). */
  redisUrl?: string;
  /** Environment for every process, on top of the cluster's defaults. */
  env?: Record<string, string>;
}

/**
 * A set of toolrun processes sharing one database of their own and one Redis prefix. The
 * database is private because every worker's reconciler acts on every call in its database:
 * the in-process instances of other test files (each with its own Redis prefix) would otherwise
 * run this cluster's waiting calls, and this cluster theirs. The processes' connections carry
 * `application_name = <cluster.appName>`, so a test can cut exactly those.
 */
export class Cluster {
  readonly id = randomUUID().replaceAll('-', '').slice(0, 12);
  readonly prefix = `toolrun-cluster-${this.id}`;
  readonly appName = `toolrun-cluster-${this.id}`;
  readonly databaseName = `toolrun_test_cluster_${this.id}`;
  /** What the processes connect with (the private database, tagged with `appName`). */
  readonly databaseUrl: string;
  readonly redisUrl: string;
  /** The test's own client of the cluster's database (not one of the processes' connections). */
  readonly db: Db;
  apiKey = '';
  tenantId = '';
  private readonly children: Child[] = [];
  private readonly clients: GraphQLClient[] = [];
  /** The cluster's database, for the test's own connections (no `application_name` tag). */
  readonly plainDatabaseUrl: string;

  private constructor(private readonly options: ClusterOptions = {}) {
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${this.databaseName}`;
    this.plainDatabaseUrl = url.toString();
    url.searchParams.set('application_name', this.appName);
    this.databaseUrl = url.toString();
    this.redisUrl = options.redisUrl ?? TEST_REDIS_URL;
    this.db = createDb(this.plainDatabaseUrl, { poolSize: 4 });
  }

  /** Creates the cluster's database, migrated (a copy of the migrated template), and a tenant with an API key; starts no process yet. */
  static async start(options: ClusterOptions = {}): Promise<Cluster> {
    const cluster = new Cluster(options);
    await ensureBuilt();
    await onAdminDatabase(async (client) => client.query(`CREATE DATABASE ${cluster.databaseName} TEMPLATE ${await migratedTemplate()}`));
    const { key, tenant } = await new ApiKeyService(cluster.db).createKey(`cluster-${cluster.id}`, { roles: ['submitter', 'approver', 'admin'] });
    cluster.apiKey = key;
    cluster.tenantId = tenant.id;
    return cluster;
  }

  private env(extra: Record<string, string>): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.TEST_CHILD_LOG_LEVEL ?? 'info',
      DATABASE_URL: this.databaseUrl,
      DATABASE_POOL_SIZE: '5',
      REDIS_URL: this.redisUrl,
      REDIS_PREFIX: this.prefix,
      HOST: '127.0.0.1',
      // Short enough that lost workers and stalled jobs are noticed within seconds, long enough
      // that a process starved of CPU on a busy machine does not lose its jobs.
      JOB_LOCK_MS: '4000',
      HEARTBEAT_INTERVAL_MS: '250',
      RECONCILE_INTERVAL_MS: '1000',
      ...this.options.env,
      ...extra,
    };
  }

  private spawn(name: string, script: string, env: NodeJS.ProcessEnv): Child {
    const child = new Child(name, process.execPath, toolrunNodeArgs(script), env);
    this.children.push(child);
    return child;
  }

  /** Starts an API process on a free port (or `env.PORT`, to restart one where it was) and waits until `/ready` answers 200 (a minute: a loaded machine starts processes slowly). */
  async startApi(name: string, env: Record<string, string> = {}): Promise<ApiProcess> {
    const port = env.PORT ? Number(env.PORT) : await freePort();
    const child = this.spawn(name, 'src/bin/api.ts', this.env({ PORT: String(port), ...env }));
    const base = `http://127.0.0.1:${port}`;
    const get = async (path: string) => {
      const response = await fetch(`${base}${path}`);
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as unknown };
    };
    try {
      await eventually(async () => {
        if (!child.running) throw new Error('exited');
        return (await get('/ready')).status === 200;
      }, 60_000, 100, `${name} /ready`);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${child.output()}`);
    }
    const client = graphqlClient(httpEndpoint(base), this.apiKey);
    this.clients.push(client);
    return { ...client, child, port, get };
  }

  /** Starts a worker process and waits until it says it is running. */
  async startWorker(name: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
    const worker = this.spawnWorker(name, env);
    await worker.child.waitForLine(/worker running/, 60_000);
    return worker;
  }

  /** Starts a worker process (WORKER_ID from `name`), without waiting for it. */
  spawnWorker(name: string, env: Record<string, string> = {}): WorkerProcess {
    const workerId = `${this.prefix}:${name}`;
    return { child: this.spawn(name, 'src/bin/worker.ts', this.env({ WORKER_ID: workerId, ...env })), workerId };
  }

  /** Terminates every backend connection of this cluster's processes (and only those). */
  async cutDatabaseConnections(): Promise<number> {
    const rows = await this.db.$queryRawUnsafe<Array<{ ok: boolean }>>(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = $1`,
      this.appName,
    );
    return rows.filter((row) => row.ok).length;
  }

  /** What every process said, for failure messages. */
  output(): string {
    return this.children.map((child) => child.output()).join('\n');
  }

  /** Wraps a test body so that its failure message ends with the processes' last output lines. */
  explained(body: () => Promise<void>, more: () => string = () => ''): () => Promise<void> {
    return async () => {
      try {
        await body();
      } catch (error) {
        if (error instanceof Error) error.message += `\n\n${this.output().split('\n').slice(-200).join('\n')}\n${more()}`;
        throw error;
      }
    };
  }

  async close(): Promise<void> {
    for (const client of this.clients) await client.close().catch(() => undefined);
    await Promise.all(this.children.map((child) => child.stop(5000)));
    const redis = new Redis(this.redisUrl, { maxRetriesPerRequest: 1, retryStrategy: () => null });
    redis.on('error', () => undefined);
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${this.prefix}:*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
    } catch {
      // A private Redis may already be gone.
    } finally {
      redis.disconnect();
    }
    await this.db.$disconnect();
    await onAdminDatabase((client) => client.query(`DROP DATABASE IF EXISTS ${this.databaseName} WITH (FORCE)`));
  }
}

