// The plans PostgreSQL chooses for toolrun's own statements: tests that a read made on every pass of a
// worker, or on every request of a page, goes through an index of the rows it needs rather than
// through every row ever written. Sequential scans are made as dear as the planner allows, so an
// index that can serve the statement is used however small the test's tables are.
import { randomUUID } from 'node:crypto';
import type { Toolrun } from './toolrun.js';

/** The plan (EXPLAIN's JSON, as text) of a statement without parameters, or with `params`. */
export function planOf(app: Toolrun, text: string, params: unknown[] = []): Promise<string> {
  return app.services.sql.transaction(async (connection) => {
    await connection.query('SET LOCAL enable_seqscan = off');
    return JSON.stringify(await connection.query(`EXPLAIN (FORMAT JSON) ${text}`, params));
  });
}

/**
 * The plan of a statement as toolrun sent it (`app.queries`: Prisma's SQL, whose values are not
 * recorded; or a named statement's text) for any values of its parameters, against a copy of `table`
 * (`tool_call` unless named) that has `index` as its only index: prepared with their types inferred
 * and planned generically, so only what the text says (not a value that happens to suit an index) can
 * pick the index. The copy is a temporary table of the transaction, which is rolled back: the shared
 * tables are neither changed nor locked. The statement reaches the copy whether it names the table as
 * Prisma does (`"public"."<table>"`, rewritten) or unqualified (the temporary schema is searched first).
 */
export async function genericPlanOf(app: Toolrun, text: string, index: string, table = 'tool_call'): Promise<string> {
  if (!/^[a-z_]+$/.test(table)) throw new Error(`not a table name: ${table}`);
  const count = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])));
  const name = `plan_${randomUUID().replaceAll('-', '')}`;
  try {
    await app.services.sql.transaction(async (connection) => {
      const [definition] = await connection.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = $1 AND indexname = $2`, [table, index]);
      if (!definition) throw new Error(`${table} has no index ${index}`);
      await connection.query(`CREATE TEMP TABLE ${table} (LIKE public.${table} INCLUDING DEFAULTS) ON COMMIT DROP`);
      await connection.query(definition.indexdef.replace(` ON public.${table} `, ` ON pg_temp.${table} `));
      await connection.query('SET LOCAL enable_seqscan = off');
      await connection.query('SET LOCAL plan_cache_mode = force_generic_plan');
      await connection.query(`PREPARE ${name} AS ${text.replaceAll(`"public"."${table}"`, `pg_temp."${table}"`)}`);
      const args = count === 0 ? '' : `(${Array.from({ length: count }, () => 'NULL').join(', ')})`;
      const plan = JSON.stringify(await connection.query(`EXPLAIN (FORMAT JSON) EXECUTE ${name}${args}`));
      await connection.query(`DEALLOCATE ${name}`);
      throw new RolledBack(plan);
    });
  } catch (error) {
    if (error instanceof RolledBack) return error.plan;
    throw error;
  }
  throw new Error('the plan\'s transaction was not rolled back');
}

/** The statements toolrun sent since `from` (an index into `app.queries`) that match. */
export function sentSince(app: Toolrun, from: number, pattern: RegExp): string[] {
  return app.queries.slice(from).filter((text) => pattern.test(text));
}

/** Ends a transaction whose changes (the temporary copy) must not stay, carrying what it read. */
class RolledBack extends Error {
  constructor(readonly plan: string) {
    super('rolled back');
  }
}
