import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client.js';

export type Db = PrismaClient;
export type { Prisma } from './generated/prisma/client.js';

export interface DbOptions {
  poolSize?: number;
  /** Called with every SQL statement sent (tests count queries with it). */
  onQuery?: (sql: string) => void;
}

export function createDb(databaseUrl: string, options: DbOptions = {}): Db {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.poolSize ?? 10 });
  // A connection the server ends (restart, failover, pg_terminate_backend) emits 'error'. A pooled
  // client can be between owners at that moment (node-postgres#2762), and an 'error' nobody hears
  // ends the process. So every client listens from birth; the pool drops a broken client by
  // itself, and a query that was using it fails (and is retried) on its own.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const adapter = new PrismaPg(pool, { disposeExternalPool: true });
  return new PrismaClient({ adapter: options.onQuery ? observeQueries(adapter, options.onQuery) : adapter });
}

/** Resolves when the database answers a trivial query. */
export async function pingDatabase(db: Db): Promise<void> {
  await db.$queryRawUnsafe('SELECT 1');
}

/** Wraps a driver adapter factory so that every statement (in or out of transactions) is reported. */
function observeQueries<T extends object>(target: T, onQuery: (sql: string) => void): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (property === 'queryRaw' || property === 'executeRaw') {
        return (query: { sql: string }, ...rest: unknown[]) => {
          onQuery(query.sql);
          return (value as (...args: unknown[]) => unknown).call(object, query, ...rest);
        };
      }
      if (property === 'connect' || property === 'startTransaction' || property === 'connectToShadowDb') {
        return async (...args: unknown[]) => observeQueries((await (value as (...a: unknown[]) => Promise<object>).apply(object, args)) as object, onQuery);
      }
      return (value as (...args: unknown[]) => unknown).bind(object);
    },
  });
}
