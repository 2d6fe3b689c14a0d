// node-postgres for the hot path: named (prepared) statements, transactions that retry what is safe
// to retry, and JSON columns restored through the storable codec. Prisma shares the same pool for
// everything else (db.ts).
import pg from 'pg';
import { parseStoredJson } from './model/storable-json.js';
import { dbStatements } from './telemetry/metrics.js';

/** A statement PostgreSQL prepares once per connection (its name) and plans from then on. */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

export function statement(name: string, text: string): Statement {
  return { name, text };
}

export interface Queryable {
  query<R = Record<string, unknown>>(statement: Statement | string, values?: readonly unknown[]): Promise<R[]>;
}

const JSON_OIDS = new Set([114, 3802]);
/** Type parsers of the hot-path queries: JSON columns come back restored (see storable-json.ts). */
export const SQL_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    JSON_OIDS.has(oid) && format !== 'binary' ? parseStoredJson : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

export interface ConnectionSettings {
  statementTimeoutMs: number;
  lockTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
  /** A connection is closed, once idle, this long after it opened (0: never); see DATABASE_CONNECTION_LIFETIME_S. */
  lifetimeSeconds?: number;
}

/**
 * The pool of a process. Every connection carries statement, lock and idle-in-transaction
 * timeouts, so a stuck or frozen process never holds a row lock for longer than they allow.
 */
export function createPool(url: string, max: number, settings: ConnectionSettings): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    statement_timeout: settings.statementTimeoutMs,
    lock_timeout: settings.lockTimeoutMs,
    idle_in_transaction_session_timeout: settings.idleInTransactionTimeoutMs,
    maxLifetimeSeconds: settings.lifetimeSeconds ?? 0,
  });
  // A connection the server ends (restart, failover, pg_terminate_backend) emits 'error'. A pooled
  // client can be between owners at that moment (node-postgres#2762), and an 'error' nobody hears
  // ends the process. So every client listens from birth; the pool drops a broken client by itself.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    // Every statement of the process (node-postgres's and Prisma's) goes through a pooled client's query.
    const query = client.query;
    client.query = function (this: pg.PoolClient, ...args: unknown[]) {
      dbStatements.inc();
      return (query as (...args: unknown[]) => unknown).apply(this, args);
    } as typeof client.query;
  });
  return pool;
}

function toConfig(statement: Statement | string, values: readonly unknown[] | undefined): pg.QueryConfig {
  return typeof statement === 'string'
    ? { text: statement, values: values as unknown[], types: SQL_TYPES }
    : { name: statement.name, text: statement.text, values: values as unknown[], types: SQL_TYPES };
}

/** One connection, e.g. inside a transaction. */
export class SqlConnection implements Queryable {
  constructor(
    readonly client: pg.PoolClient,
    private readonly onQuery?: (text: string) => void,
  ) {}

  async query<R>(statement: Statement | string, values?: readonly unknown[]): Promise<R[]> {
    const config = toConfig(statement, values);
    this.onQuery?.(config.text);
    return (await this.client.query(config)).rows as R[];
  }
}

export interface TransactionOptions {
  /** How many times a transaction that failed for a transient reason runs again (default 3). */
  retries?: number;
}

/** The hot path's access to PostgreSQL. */
export class Sql implements Queryable {
  constructor(
    readonly pool: pg.Pool,
    private readonly onQuery?: (text: string) => void,
  ) {}

  async query<R>(statement: Statement | string, values?: readonly unknown[]): Promise<R[]> {
    const config = toConfig(statement, values);
    this.onQuery?.(config.text);
    return (await this.pool.query(config)).rows as R[];
  }

  /**
   * Runs `run` in a transaction. A transaction that failed for a transient reason (lost connection,
   * deadlock, serialization failure) runs again, so `run` must be safe to repeat: it may only touch
   * the database.
   */
  transaction<T>(run: (connection: SqlConnection) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    return this.retryingTransient(() => this.once(run), options.retries);
  }

  /** Runs `run` again (up to `retries` times) when it failed for a transient reason; `run` must be safe to repeat. */
  async retryingTransient<T>(run: () => Promise<T>, retries = 3): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        if (attempt >= retries || !isTransientDatabaseError(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(25 * 2 ** attempt, 500)));
      }
    }
  }

  private async once<T>(run: (connection: SqlConnection) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const connection = new SqlConnection(client, this.onQuery);
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await run(connection);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      broken = isConnectionError(error);
      if (!broken) await client.query('ROLLBACK').catch(() => (broken = true));
      throw error;
    } finally {
      client.release(broken);
    }
  }
}

/** SQLSTATE classes and codes of failures that a retry of the same work can get past. */
const TRANSIENT_CODES = new Set(['40001', '40P01', '57P01', '57P02', '57P03', '53300', '08000', '08003', '08006', '08001', '08004']);
const CONNECTION_MESSAGES = /Connection terminated|ECONNRESET|ECONNREFUSED|EPIPE|Client has encountered a connection error|timeout exceeded when trying to connect|terminating connection/i;

/** Prisma's codes for a lost, unreachable or exhausted database connection. */
const PRISMA_CONNECTION_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

/**
 * The driver adapter's kinds of the same failures: what a raw query's error (P2010, whose code says
 * only that a raw query failed) carries as its cause, e.g. a pooled connection the server closed.
 */
const ADAPTER_CONNECTION_KINDS = new Set(['ConnectionClosed', 'DatabaseNotReachable', 'SocketTimeout', 'TooManyConnections']);

/** The error and its causes (node-postgres errors come bare; Prisma wraps the driver's). */
function causes(error: unknown): unknown[] {
  const seen: unknown[] = [];
  const queue = [error];
  while (queue.length > 0 && seen.length < 10) {
    const next = queue.shift();
    if (next === null || typeof next !== 'object' || seen.includes(next)) continue;
    seen.push(next);
    const record = next as { originalError?: unknown; cause?: unknown; meta?: { driverAdapterError?: { cause?: unknown } } };
    queue.push(record.originalError, record.cause, record.meta?.driverAdapterError?.cause);
  }
  return seen;
}

/** The codes (SQLSTATE, Prisma's, Node's) of the error and its causes. */
function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (const cause of causes(error)) {
    const record = cause as { code?: unknown; originalCode?: unknown };
    if (typeof record.code === 'string') codes.push(record.code);
    if (typeof record.originalCode === 'string') codes.push(record.originalCode);
  }
  return codes;
}

export function isConnectionError(error: unknown): boolean {
  return causes(error).some((cause) => {
    if (ADAPTER_CONNECTION_KINDS.has((cause as { kind?: unknown }).kind as string)) return true;
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('08') || code.startsWith('57P') || code === 'ECONNRESET' || code === 'ECONNREFUSED' || code === 'EPIPE')) return true;
    return cause instanceof Error && CONNECTION_MESSAGES.test(cause.message);
  });
}

export function isTransientDatabaseError(error: unknown): boolean {
  return codesOf(error).some((code) => TRANSIENT_CODES.has(code) || PRISMA_CONNECTION_CODES.has(code)) || isConnectionError(error);
}

/**
 * A wait for a lock that ran out (`lock_timeout`, or `statement_timeout` while queued behind other
 * holders): another process held the row or advisory lock — busy, or frozen and about to be cut off
 * by its idle-in-transaction timeout. The transaction changed nothing, so running it again is safe.
 */
export function isLockWaitTimeout(error: unknown): boolean {
  return codesOf(error).some((code) => code === '55P03' || code === '57014');
}

/** A lock wait that hit `lock_timeout`: another process holds the row (possibly frozen). */
export function isLockTimeout(error: unknown): boolean {
  return codesOf(error).includes('55P03');
}
