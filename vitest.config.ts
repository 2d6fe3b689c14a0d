import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { configDefaults, defineConfig } from 'vitest/config';
import { TEST_DATABASE_URL } from './test/support/database.js';

// Three tiers, one project each: `npm run test:unit` / `test:api` / `test:system`, or all with
// `npm test`. All of them run side by side: the tiers whose processes act on every row of their
// database (workers' reconcilers and reapers, the background-run slots of live workers) each have
// a database of their own, and every toolrun instance or cluster has its own Redis prefix. The files
// of a tier share one module registry per worker process (isolate: false): each file builds its
// own services, so nothing but loaded code is shared, and loading it once per worker saves most of
// a file's start-up.
const databaseSetup = ['test/support/global-setup.ts'];
const RUN_ALONE = ['test/api/background.test.ts'];
const SOAK = 'test/system/soak.test.ts';

/**
 * A tier's database: the test database, or the test database with a suffix. Both variables name
 * it, since the processes the tests start read DATABASE_URL.
 */
function tierDatabase(suffix?: string): { TEST_DATABASE_URL: string; DATABASE_URL: string } {
  const url = new URL(TEST_DATABASE_URL);
  if (suffix) url.pathname = `${url.pathname}_${suffix}`;
  return { TEST_DATABASE_URL: url.toString(), DATABASE_URL: url.toString() };
}

/**
 * The longest work first, so that the run ends when the soak does: the soak (two minutes of
 * wall time, most of it waiting on its faults), then the system files, then the api and unit
 * tiers; within a tier, vitest's own order (slowest last time first, else largest file first).
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) =>
      spec.moduleId.endsWith(SOAK) ? 0 : ['system', 'api-alone', 'api', 'unit'].indexOf(spec.project.name) + 1;
    const byVitest = await super.sort(files);
    return byVitest.map((spec, index) => ({ spec, index })).sort((a, b) => rank(a.spec) - rank(b.spec) || a.index - b.index).map(({ spec }) => spec);
  }
}

export default defineConfig({
  resolve: {
    // graphql ships both ESM and CJS; one realm for the whole test run.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    // The soak holds one worker for its two minutes; most system files wait on processes.
    maxWorkers: 4,
    sequence: { sequencer: LongestFirst },
    projects: [
      // Pure rules: no database, no Redis, no network.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false } },
      // In process: the yoga instance's fetch for HTTP and SSE, an in-process worker, real PostgreSQL and Redis.
      {
        extends: true,
        test: {
          name: 'api',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/unit/**', 'test/system/**', ...RUN_ALONE],
          globalSetup: databaseSetup,
          env: tierDatabase(),
          isolate: false,
        },
      },
      // Files that fill or count what a whole database shares (the background-run slots of its
      // live workers): a database of their own.
      {
        extends: true,
        test: { name: 'api-alone', include: RUN_ALONE, globalSetup: databaseSetup, env: tierDatabase('alone'), isolate: false },
      },
      // Real child processes, kills and restarts.
      {
        extends: true,
        test: { name: 'system', include: ['test/system/**/*.test.ts'], globalSetup: databaseSetup, env: tierDatabase('system'), isolate: false },
      },
    ],
  },
});
