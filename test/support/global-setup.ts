// Creates a tier's database, migrated (a copy of the migrated template), once per run, and drops
// the databases that only the run made (`<test database>_<tier>`) when it ends. Each tier names its
// database in its project's env (vitest.config.ts): tiers whose workers act on every row of their
// database never share one, so they can run side by side.
import type { TestProject } from 'vitest/node';
import { TEST_DATABASE_URL } from './database.js';
import { checkedName, onAdminDatabase, recreateMigrated } from './template-database.js';

const ready = new Set<string>();

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const databaseUrl = project.config.env.TEST_DATABASE_URL ?? TEST_DATABASE_URL;
  if (ready.has(databaseUrl)) return undefined;
  ready.add(databaseUrl);
  await recreateMigrated(databaseUrl);
  if (databaseUrl === TEST_DATABASE_URL) return undefined;
  const name = checkedName(new URL(databaseUrl).pathname.slice(1));
  return async () => {
    await onAdminDatabase((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  };
}
