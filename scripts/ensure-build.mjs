// @ts-check
// Runs before every `npm start*` / `npm run apikey` / `npm run migrate:deploy`: brings dist/ up to
// date with `tsc -b` (about 0.4 s when nothing changed, since build mode compares the inputs with
// dist/.tsbuildinfo instead of type-checking again), so a fresh clone needs only
// `npm install && npm start`. In a production install (no TypeScript) it checks that the build is
// there and does nothing else.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
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
