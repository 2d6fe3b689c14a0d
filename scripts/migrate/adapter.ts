// The driver adapter handed to the Wasm schema engine: @prisma/adapter-pg, with three
// workarounds for adapter-pg 7.10 problems that only show up in the schema engine's use of it
// (see ../../shared/NOTES.md, "Prisma 7 offline"):
//
// 1. The engine's catalog queries return Postgres' internal `"char"` type (OID 18), which
//    adapter-pg rejects ("Column type 'char' could not be deserialized"). Our pg.Client subclass
//    reports such columns as text (OID 25); their values are plain strings either way.
// 2. adapter-pg's connectToShadowDb() overrides `database`, but a `connectionString` wins in
//    node-postgres, so its "shadow" database silently is the main one. We create a real
//    temporary database, connect to it by URL, and drop it WITH (FORCE) afterwards.
// 3. adapter-pg's executeScript() splits SQL on every `;` (breaking `$$` bodies, and a failing
//    statement leaves the earlier ones applied). We send the whole script as one simple query,
//    which Postgres runs atomically as an implicit transaction (unless the script itself says
//    COMMIT; and statements that refuse transaction blocks, like CREATE INDEX CONCURRENTLY,
//    fail there: such a migration must be split, one statement in its own migration).
import { randomUUID } from 'node:crypto';

import { PrismaPg } from '@prisma/adapter-pg';
import {
  bindMigrationAwareSqlAdapterFactory,
  type ErrorCapturingSqlMigrationAwareDriverAdapterFactory,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import pg from 'pg';

import { maintenanceUrl, withDatabase } from './url.js';

const CHAR_OID = 18;
const TEXT_OID = 25;
const CONNECT_TIMEOUT_MS = 10_000;

type PgAdapter = Awaited<ReturnType<PrismaPg['connect']>>;

function relabelCharColumns(result: unknown): unknown {
  // A multi-statement simple query resolves to an array of results.
  for (const r of Array.isArray(result) ? result : [result]) {
    const fields = (r as { fields?: { dataTypeID: number }[] } | undefined)?.fields;
    for (const field of fields ?? []) {
      if (field.dataTypeID === CHAR_OID) field.dataTypeID = TEXT_OID;
    }
  }
  return result;
}

/** A pg.Client that reports `"char"` (OID 18) result columns as `text` (OID 25). */
export class CharAsTextClient extends pg.Client {}

{
  const baseQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  // pg.Client#query has many overloads (promise, callback, submittable); pg.Pool uses the
  // callback form, so both a trailing callback and a returned promise are handled.
  function query(this: pg.Client, ...args: unknown[]): unknown {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (err: unknown, result: unknown) =>
        (callback as (e: unknown, r: unknown) => void)(err, err ? result : relabelCharColumns(result));
      return baseQuery.apply(this, args);
    }
    const returned = baseQuery.apply(this, args);
    return returned instanceof Promise ? returned.then(relabelCharColumns) : returned;
  }
  Object.defineProperty(CharAsTextClient.prototype, 'query', { value: query, writable: true, configurable: true });
}

export function createPool(url: string, max = 4): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    Client: CharAsTextClient,
    max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on('error', () => {});
  return pool;
}

/** Runs `fn` with a short-lived plain connection to `url`. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export async function createDatabase(serverUrl: string, name: string): Promise<void> {
  await withClient(maintenanceUrl(serverUrl), (c) => c.query(`CREATE DATABASE ${quoteIdent(name)}`));
}

export async function dropDatabaseForce(serverUrl: string, name: string): Promise<void> {
  await withClient(maintenanceUrl(serverUrl), (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`));
}

/** adapter-pg's adapter, with executeScript sending the script as one simple query. */
async function connectAdapter(pool: pg.Pool): Promise<PgAdapter> {
  const adapter = await new PrismaPg(pool, { disposeExternalPool: true }).connect();
  adapter.executeScript = async (script: string): Promise<void> => {
    try {
      await pool.query(script);
    } catch (error) {
      // adapter-pg's own conversion into a DriverAdapterError, so the engine sees the usual
      // Postgres error codes and messages.
      (adapter as unknown as { onError(e: unknown): never }).onError(error);
    }
  };
  return adapter;
}

export interface EngineAdapter {
  /** What SchemaEngine.new() expects. */
  factory: ErrorCapturingSqlMigrationAwareDriverAdapterFactory;
  /** Ends every pool and drops every temporary database still around. Never throws. */
  close(): Promise<void>;
}

export interface EngineAdapterOptions {
  /**
   * Give the engine a temporary, empty database as its "main" database instead of the one
   * `databaseUrl` names (which then need not exist). The engine always connects to a main
   * database, even for commands that only use the shadow database; this keeps `create` and
   * `check` away from real data.
   */
  scratchMain?: boolean;
}

const TEMP_DB_PREFIX = 'prisma_migrate_shadow_db_';

const openAdapters = new Set<EngineAdapter>();

/** Closes every adapter still open (for signal handlers: drops the temporary databases). */
export async function closeAllEngineAdapters(): Promise<void> {
  await Promise.all([...openAdapters].map((adapter) => adapter.close()));
}

export function createEngineAdapter(databaseUrl: string, options: EngineAdapterOptions = {}): EngineAdapter {
  const cleanups = new Set<() => Promise<void>>();
  const track = (cleanup: () => Promise<void>): (() => Promise<void>) => {
    let done: Promise<void> | undefined;
    const once = (): Promise<void> => {
      cleanups.delete(once);
      done ??= cleanup().catch(() => {});
      return done;
    };
    cleanups.add(once);
    return once;
  };

  let closed = false;

  /** A fresh database on the same server, dropped WITH (FORCE) when the adapter is disposed. */
  async function connectToTemporaryDatabase(): Promise<PgAdapter> {
    if (closed) throw new Error('the migration adapter is closed');
    const name = `${TEMP_DB_PREFIX}${randomUUID().replaceAll('-', '')}`;
    let pool: pg.Pool | undefined;
    // Tracked before CREATE DATABASE returns, so that an interruption meanwhile still drops it.
    const creating = createDatabase(databaseUrl, name);
    const dispose = track(async () => {
      await creating.catch(() => {});
      await pool?.end().catch(() => {});
      await dropDatabaseForce(databaseUrl, name);
    });
    try {
      await creating;
      pool = createPool(withDatabase(databaseUrl, name));
      const adapter = await connectAdapter(pool);
      adapter.dispose = dispose;
      return adapter;
    } catch (error) {
      await dispose();
      throw error;
    }
  }

  const raw: SqlMigrationAwareDriverAdapterFactory = {
    provider: 'postgres',
    adapterName: '@prisma/adapter-pg',
    async connect() {
      if (options.scratchMain) return connectToTemporaryDatabase();
      const adapter = await connectAdapter(createPool(databaseUrl));
      adapter.dispose = track(adapter.dispose.bind(adapter));
      return adapter;
    },
    connectToShadowDb: connectToTemporaryDatabase,
  };

  const engineAdapter: EngineAdapter = {
    factory: bindMigrationAwareSqlAdapterFactory(raw),
    async close() {
      closed = true;
      openAdapters.delete(engineAdapter);
      await Promise.all([...cleanups].map((cleanup) => cleanup()));
    },
  };
  openAdapters.add(engineAdapter);
  return engineAdapter;
}
