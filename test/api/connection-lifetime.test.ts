// Pooled connections are replaced after DATABASE_CONNECTION_LIFETIME_S, so the plans PostgreSQL
// cached on them are made again: a generic plan chosen while a table was small (a sequential scan)
// must not outlive the table's growth where no ANALYZE invalidates it (autovacuum off).
import { describe, expect, it } from 'vitest';
import { createPool, Sql } from '../../src/sql.js';
import { TEST_DATABASE_URL } from '../support/database.js';
import { sleep } from '../support/wait.js';

const settings = { statementTimeoutMs: 5000, lockTimeoutMs: 5000, idleInTransactionTimeoutMs: 5000 };
const backend = async (sql: Sql) => (await sql.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]!.pid;

describe('pooled connections', () => {
  it('are replaced once their lifetime is over, and keep theirs without one', async () => {
    const expiring = new Sql(createPool(TEST_DATABASE_URL, 1, { ...settings, lifetimeSeconds: 1 }));
    const lasting = new Sql(createPool(TEST_DATABASE_URL, 1, settings));
    try {
      const [first, kept] = [await backend(expiring), await backend(lasting)];
      expect(await backend(expiring)).toBe(first);
      await sleep(1300);
      expect(await backend(expiring)).not.toBe(first);
      expect(await backend(lasting)).toBe(kept);
    } finally {
      await Promise.all([expiring.pool.end(), lasting.pool.end()]);
    }
  });
});
