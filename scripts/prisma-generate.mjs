// @ts-check
// Runs `prisma generate` offline. The CLI insists on having its native schema engine before it
// generates, and downloading it fails here; generate never runs it, so any existing executable
// satisfies the check (see ../shared/NOTES.md).
//
// Plain JavaScript, because it runs as the postinstall script, also in a production install
// (`npm ci --omit=dev`) where neither tsx nor the Prisma CLI is installed: with --if-installed
// it then does nothing, since the compiled build in dist/ carries the generated client.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const args = process.argv.slice(2);
const ifInstalled = args.includes('--if-installed');

/** The CLI's executable, as its package.json `bin` names it. */
let cli;
try {
  const manifest = createRequire(import.meta.url).resolve('prisma/package.json');
  cli = join(dirname(manifest), JSON.parse(readFileSync(manifest, 'utf8')).bin.prisma);
} catch {
  if (ifInstalled) process.exit(0);
  console.error('prisma generate: the Prisma CLI is not installed (it is a devDependency): run npm install');
  process.exit(1);
}

const env = {
  ...process.env,
  CHECKPOINT_DISABLE: '1',
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? (existsSync('/bin/true') ? '/bin/true' : process.execPath),
};
const result = spawnSync(process.execPath, [cli, 'generate', ...args.filter((arg) => arg !== '--if-installed')], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
