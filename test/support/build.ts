// System tests run the compiled build (dist/), the way `npm start` does. Brings it up to date once
// per test run; test files running in parallel wait for each other through a lock file.
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LOCK = `${ROOT}dist.build-lock`;

let built: Promise<void> | null = null;

/** Brings dist/ up to date, once per test process. */
export function ensureBuilt(): Promise<void> {
  built ??= build();
  return built;
}

async function build(): Promise<void> {
  for (;;) {
    try {
      closeSync(openSync(LOCK, 'wx'));
      break;
    } catch {
      // A lock older than the longest build is left over from a killed run.
      const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 180_000) rmSync(LOCK, { force: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    const result = spawnSync(process.execPath, ['scripts/ensure-build.mjs'], { cwd: ROOT, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`the build failed:\n${result.stdout}\n${result.stderr}`);
  } finally {
    rmSync(LOCK, { force: true });
  }
}

/** The environment of a toolrun process started by a test: nothing inherited but PATH and HOME. */
export function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', LOG_LEVEL: 'info' };
  for (const [key, value] of Object.entries(env)) if (value !== undefined) result[key] = value;
  return result;
}
