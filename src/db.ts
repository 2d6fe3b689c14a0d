import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { setFlagsFromString } from 'node:v8';
import { type Prisma, PrismaClient } from './generated/prisma/client.js';
import { fromStorable } from './model/storable-json.js';

export type { Prisma } from './generated/prisma/client.js';

/**
 * JSON columns hold the storable form of their values (model/storable-json.ts): every read through
 * Prisma gives the original back, as the hot path's reads do.
 */
function restoringJson(client: PrismaClient) {
  const restore = <F extends string>(field: F) => ({
    needs: { [field]: true } as Record<F, true>,
    compute: (row: Record<F, unknown>) => fromStorable(row[field]) as Prisma.JsonValue,
  });
  return client.$extends({
    result: {
      toolCall: { args: restore('args'), output: restore('output') },
      session: { metadata: restore('metadata'), todos: restore('todos') },
      task: { spec: restore('spec'), progress: restore('progress') },
      schedule: { spec: restore('spec') },
      sessionMessage: { data: restore('data') },
      event: { payload: restore('payload') },
      registeredTool: { definition: restore('definition') },
      mcpServer: { tools: restore('tools') },
    },
  });
}

export type Db = ReturnType<typeof restoringJson>;
/** The client inside an interactive transaction. */
export type DbTransaction = Omit<Db, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

/**
 * Prisma for everything off the hot path: on the process's pool (sql.ts creates it), or on a pool
 * of its own for a database URL (scripts, tests), which it then closes with $disconnect.
 */
export function createDb(source: pg.Pool | string, options: { poolSize?: number; onQuery?: (sql: string) => void } = {}): Db {
  // Prisma's query compiler is WebAssembly. V8's optimising tier for it cost each process ~0.4 s of
  // CPU and ~75 MB after its first query, for queries off the hot path. Set here rather than at
  // import: set before the process's modules had loaded, it added ~0.1 s of CPU to each start.
  setFlagsFromString('--liftoff-only');
  const own = typeof source === 'string';
  const pool = own ? new pg.Pool({ connectionString: source, max: options.poolSize ?? 10 }) : source;
  if (own) pool.on('connect', (client) => client.on('error', () => undefined));
  const adapter = new PrismaPg(pool, { disposeExternalPool: own });
  return restoringJson(new PrismaClient({ adapter: options.onQuery ? observeQueries(adapter, options.onQuery) : adapter }));
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
