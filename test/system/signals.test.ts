// SIGTERM / SIGINT to the npm process of every documented command reaches the app, which drains
// and exits: it logs "shutting down", its port closes, npm exits with its status, and no process
// is left behind. (npm forwards the signal to its child; the scripts `exec` node, so that child is
// the app itself rather than a shell that would die and leave the app running.)
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, ensureBuilt } from '../support/build.js';
import { Child, freePort } from '../support/cluster.js';
import { deleteRedisKeys, redisPrefixOfFile, TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/database.js';
import { eventually } from '../support/wait.js';
import { listening, logLines, parentOf, processesMarked } from '../support/process-probes.js';

let dataDir: string;
beforeAll(async () => {
  await ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'toolrun-signals-'));
}, 180_000);
const REDIS_PREFIX = redisPrefixOfFile('toolrun-signals');
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await deleteRedisKeys(REDIS_PREFIX);
});

async function run(script: string, ready: RegExp, signal: NodeJS.Signals) {
  const mark = randomUUID();
  const port = await freePort();
  const child = new Child(`npm run ${script}`, 'npm', ['run', script], childEnv({
    TOOLRUN_TEST_MARK: mark,
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: `${REDIS_PREFIX}-${mark}`,
    PORT: String(port),
    TOOLRUN_DATA_DIR: dataDir,
    CANCEL_GRACE_MS: '200',
  }), { group: true });
  try {
    await child.waitForLine(ready, 60_000);
    // npm and the app, and nothing between them (no shell to swallow the signal).
    const marked = processesMarked(mark);
    expect(marked).toHaveLength(2);
    const app = marked.find((pid) => pid !== child.pid)!;
    expect(parentOf(app)).toBe(child.pid);

    process.kill(child.pid, signal);
    const exit = await child.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(logLines(child).find((line) => line.msg === 'shutting down')).toMatchObject({ signal, pid: app });
    expect(logLines(child).some((line) => line.msg === 'stopped')).toBe(true);
    expect(await listening(port)).toBe(false);
    // The app exits before npm does; nothing with this test's mark may be left.
    await eventually(async () => processesMarked(mark).length === 0, 5000);
    return { child, port };
  } finally {
    if (child.running) child.signal('SIGKILL');
    for (const pid of processesMarked(mark)) process.kill(pid, 'SIGKILL');
  }
}

describe('signals under npm scripts', () => {
  it('SIGTERM to `npm run start:api` drains and stops the API', async () => {
    await run('start:api', /api listening/, 'SIGTERM');
  }, 90_000);

  it('SIGINT to `npm run start:api` does the same', async () => {
    await run('start:api', /api listening/, 'SIGINT');
  }, 90_000);

  it('SIGTERM to `npm run start:worker` drains and stops the worker', async () => {
    await run('start:worker', /worker running/, 'SIGTERM');
  }, 90_000);

  it('SIGTERM to `npm start` stops the API and the worker', async () => {
    await run('start', /toolrun is running/, 'SIGTERM');
  }, 90_000);
});
