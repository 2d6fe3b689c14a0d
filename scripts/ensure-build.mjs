// @ts-check
// Runs before every `npm start*` / `npm run apikey` / `npm run migrate:deploy`: brings dist/ up to
// date with `tsc -b` (about 0.4 s when nothing changed, since build mode compares the inputs with
// dist/.tsbuildinfo instead of type-checking again), bundles the entry points again
// (scripts/bundle.mjs) when src/ or tsc's output is newer than the bundle, and builds the
// dashboard with Vite when dist/dashboard/ is missing or older than dashboard/, so a fresh clone
// needs only `npm install && npm start`. In a production install (no TypeScript) it checks that the build is
// there and does nothing else.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  if (existsSync(join(root, 'dist', 'src', 'bin'))) process.exit(0);
  console.error('toolrun: there is no build in dist/ and no TypeScript to make one: run `npm install` (with dev dependencies), then `npm run build`');
  process.exit(1);
}
if (!existsSync(join(root, 'src'))) process.exit(0);

const build = spawn(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
// A current build answers well within a second; say what is happening when it takes longer.
const notice = setTimeout(() => console.error('toolrun: compiling to dist/ (tsc -b tsconfig.build.json)…'), 1500);
const status = await new Promise((resolve) => build.on('close', (code) => resolve(code)));
clearTimeout(notice);
if (status !== 0) {
  console.error('toolrun: the build failed (tsc -b tsconfig.build.json); fix the errors above, or run `npm run typecheck`');
  process.exit(1);
}

/** @param {string} dir @returns {number} */
const newestChange = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
    const path = join(dir, entry.name);
    return Math.max(newest, entry.isDirectory() ? newestChange(path) : statSync(path).mtimeMs);
  }, 0);
/** @param {string} path */
const modified = (path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;

// The entry points' bundles: made again when any source or tsc's last emit is newer.
const bundleStamp = modified(join(root, 'dist', 'src', 'bin', 'chunks', '.bundled'));
if (bundleStamp < Math.max(newestChange(join(root, 'src')), modified(join(root, 'dist', '.tsbuildinfo')))) {
  const bundle = spawn(process.execPath, [join(root, 'scripts', 'bundle.mjs')], { cwd: root, stdio: 'inherit' });
  const bundleStatus = await new Promise((resolve) => bundle.on('close', (code) => resolve(code)));
  if (bundleStatus !== 0) {
    console.error('toolrun: bundling the entry points failed (node scripts/bundle.mjs)');
    process.exit(1);
  }
}

// The dashboard: rebuilt when any file under dashboard/ is newer than the built index.html.
const dashboardSource = join(root, 'dashboard');
const dashboardIndex = join(root, 'dist', 'dashboard', 'index.html');
if (existsSync(dashboardSource) && (!existsSync(dashboardIndex) || newestChange(dashboardSource) > statSync(dashboardIndex).mtimeMs)) {
  let vite;
  try {
    vite = join(dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
  } catch {
    console.error('toolrun: the dashboard is not built and Vite is missing: run `npm install` (with dev dependencies)');
    process.exit(1);
  }
  console.error('toolrun: building the dashboard (vite build)…');
  const viteBuild = spawn(process.execPath, [vite, 'build', '--config', 'dashboard/vite.config.ts', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
    // A NODE_ENV of the caller's (test runners set `test`) would make Vite bundle React's development build.
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const viteStatus = await new Promise((resolve) => viteBuild.on('close', (code) => resolve(code)));
  if (viteStatus !== 0) {
    console.error('toolrun: the dashboard build failed (vite build --config dashboard/vite.config.ts)');
    process.exit(1);
  }
}
