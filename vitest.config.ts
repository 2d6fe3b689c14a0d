import { configDefaults, defineConfig } from 'vitest/config';

// Three tiers, one project each: `npm run test:unit` / `test:api` / `test:system`, or all with
// `npm test`. The system tier (child processes, kills, Redis restarts) runs after the others, so
// its workers never act on what an API test is doing in the shared test database. The api and
// system files share one module registry per worker process (isolate: false): each file builds
// its own services, so nothing but loaded code is shared, and loading it once per worker saves
// most of a file's start-up.
const databaseSetup = ['test/support/global-setup.ts'];
const RUN_ALONE = ['test/api/background.test.ts'];

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
    maxWorkers: 2,
    projects: [
      // Pure rules: no database, no Redis, no network.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      // In process: the yoga instance's fetch for HTTP and SSE, an in-process worker, real PostgreSQL and Redis.
      {
        extends: true,
        test: {
          name: 'api',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/unit/**', 'test/system/**', ...RUN_ALONE],
          globalSetup: databaseSetup,
          isolate: false,
        },
      },
      // Files that fill or count what the whole database shares (the background-run slots of the
      // live workers): after the other api files, with nothing beside them.
      {
        extends: true,
        test: { name: 'api-alone', include: RUN_ALONE, globalSetup: databaseSetup, isolate: false, sequence: { groupOrder: 1 } },
      },
      // Real child processes, kills and restarts.
      {
        extends: true,
        test: { name: 'system', include: ['test/system/**/*.test.ts'], globalSetup: databaseSetup, isolate: false, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
