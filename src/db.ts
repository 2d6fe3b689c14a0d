import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client.js';

export type Db = PrismaClient;
export type { Prisma } from './generated/prisma/client.js';

/**
 * Prisma for everything off the hot path: on the process's pool (sql.ts creates it), or on a pool
 * of its own for a database URL (scripts, tests), which it then closes with $disconnect.
 */
export function createDb(source: pg.Pool | string, options: { poolSize?: number; onQuery?: (sql: string) => void } = {}): Db {
  const own = typeof source === 'string';
  const pool = own ? new pg.Pool({ connectionString: source, max: options.poolSize ?? 10 }) : source;
  if (own) pool.on('connect', (client) => client.on('error', () => undefined));
  const adapter = new PrismaPg(pool, { disposeExternalPool: own });
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
