// Runs `prisma generate` offline. The CLI insists on having its native schema engine before it
// generates, and downloading it fails here; generate never runs it, so any existing executable
// satisfies the check (see ../shared/NOTES.md).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const env = {
  ...process.env,
  CHECKPOINT_DISABLE: '1',
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? (existsSync('/bin/true') ? '/bin/true' : process.execPath),
};
const result = spawnSync('npx', ['--no-install', 'prisma', 'generate', ...process.argv.slice(2)], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
