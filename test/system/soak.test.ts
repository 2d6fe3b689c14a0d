// The soak of issue 15 (`npm run soak`), as CI runs it: two minutes of mixed load on two API and
// two worker processes, with a fault every 20 s (a worker killed, a worker frozen, Redis restarted,
// PostgreSQL backends terminated, an API stopped), and the soak's own targets as the assertions:
// nothing lost or left non-terminal, no non-idempotent call or run executed twice, no subscriber gap
// or duplicate, no unexpected error or exit, no deadlock, load on both APIs and both workers. The
// memory growth of the API and worker the faults spare is measured but, over two minutes, only
// reported (the soak checks it on runs of 10 minutes or more). `npm run test:soak` runs it alone.
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { Child } from '../support/cluster.js';
import { TEST_DATABASE_URL } from '../support/database.js';

const summaryFile = join(tmpdir(), `toolrun-soak-${process.pid}.json`);
const databaseUrl = (() => {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `${url.pathname}_soak`;
  return url.toString();
})();

beforeAll(async () => {
  // The soak runs the compiled build when there is one: make sure it is this checkout's.
  await ensureBuilt();
}, 180_000);

afterAll(async () => {
  rmSync(summaryFile, { force: true });
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${new URL(databaseUrl).pathname.slice(1)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
});

interface Summary {
  pass: boolean;
  targets: Array<{ name: string; value: number | string; pass: boolean }>;
  calls: { submitted: number; lost: number; nonTerminal: number };
  tasks: { spawned: number; scheduledRuns: number };
  faults: string[];
  submitted: { approvals: number; completions: number };
  subscribers: { reconnects: number };
  rss: Array<{ name: string; spared: boolean; growth: number | null }>;
}

describe('npm run soak -- --minutes 2', () => {
  it('meets every target under mixed load and five kinds of fault', async () => {
    const soak = new Child('soak', process.execPath, ['--import', 'tsx', 'bench/soak.ts', '--minutes', '2', '--database-url', databaseUrl, '--json', summaryFile], {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
    });
    const exit = await soak.exited;
    const output = soak.output();
    expect(exit, output).toEqual({ code: 0, signal: null });
    const summary = JSON.parse(readFileSync(summaryFile, 'utf8')) as Summary;
    expect(summary.targets.filter((target) => !target.pass), output).toEqual([]);
    // It did what it says: real load of every kind, and every kind of fault.
    expect(summary.faults, output).toHaveLength(5);
    expect(summary.calls.submitted).toBeGreaterThan(200);
    expect(summary.tasks.spawned).toBeGreaterThan(8);
    expect(summary.tasks.scheduledRuns).toBeGreaterThan(2);
    expect(summary.submitted.approvals).toBeGreaterThan(4);
    expect(summary.submitted.completions).toBeGreaterThan(4);
    expect(summary.subscribers.reconnects).toBeGreaterThan(5);
    // The faults spared one API and one worker, which lived through the run and measured their growth.
    expect(summary.rss.filter((proc) => proc.spared).map((proc) => typeof proc.growth), output).toEqual(['number', 'number']);
  }, 420_000);
});
