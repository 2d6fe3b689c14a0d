// Database migrations without the Prisma CLI's native engine (offline): Prisma's WebAssembly
// schema engine, driven through ./migrate/engine.ts. Migrations live in prisma/migrations in
// Prisma's own format, so `prisma migrate` can take over whenever it is usable.
//
//   tsx scripts/migrate.ts deploy          create the database if missing, apply pending migrations
//   tsx scripts/migrate.ts create <name>   write a new migration for the changes of schema.prisma
//   tsx scripts/migrate.ts check           exit 1 when schema.prisma and the migrations disagree
//   tsx scripts/migrate.ts status          list applied and pending migrations
//   tsx scripts/migrate.ts resolve --rolled-back|--applied <migration>
//
// DATABASE_URL names the database (default postgresql://postgres@127.0.0.1:5432/toolrun).
// `npm run build` compiles this script to dist/scripts/migrate.js, so that production migrates
// without tsx or the Prisma CLI (`npm run migrate:deploy` runs the compiled one).
import { relative } from 'node:path';

import { closeAllEngineAdapters } from './migrate/adapter.js';
import { applyMigrations, checkSchema, createMigration, MigrateError, migrationStatus, resolveMigration } from './migrate/engine.js';
import type { MigrateOptions } from './migrate/engine.js';
import { DEFAULT_DATABASE_URL, databaseUrlFromEnv, redact } from './migrate/url.js';

const USAGE = `usage: tsx scripts/migrate.ts <command>     (compiled: node dist/scripts/migrate.js <command>)

  deploy          create the database if it is missing, then apply the pending migrations
  create <name>   write prisma/migrations/<timestamp>_<name>/migration.sql with the changes
                  prisma/schema.prisma makes to the migrations (not applied); "no changes" if none
  check           exit 1 when prisma/schema.prisma and prisma/migrations disagree
  status          list applied and pending migrations; exit 1 unless the database is up to date
  resolve --rolled-back <migration>
                  mark a failed migration rolled back, so deploy runs it again once fixed
                  (each migration runs atomically: a failed one left nothing behind)
  resolve --applied <migration>
                  record a migration as applied without running it

DATABASE_URL names the database (default ${DEFAULT_DATABASE_URL}).
create and check only use temporary databases on that server, never the database itself.
MIGRATE_DEBUG=1 prints the schema engine's log and stack traces.`;

const debug = process.env.MIGRATE_DEBUG === '1';

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function run(command: string | undefined, args: string[]): Promise<number> {
  const url = databaseUrlFromEnv();
  const options: MigrateOptions = debug ? { onEngineLog: (line) => process.stderr.write(line.endsWith('\n') ? line : `${line}\n`) } : {};

  switch (command) {
    case 'deploy': {
      const applied = await applyMigrations(url, options);
      for (const name of applied) say(`applied ${name}`);
      if (applied.length === 0) say('no pending migrations');
      return 0;
    }
    case 'create': {
      const name = args.join(' ').trim();
      if (!name) throw new MigrateError('create needs a migration name, e.g. `create add_task_priority`');
      const created = await createMigration(url, name, options);
      if (created === null) {
        say('no changes');
        return 0;
      }
      say(`created ${relative(process.cwd(), created.file) || created.file}`);
      return 0;
    }
    case 'check': {
      const result = await checkSchema(url, options);
      if (result.inSync) {
        say('prisma/schema.prisma matches prisma/migrations');
        return 0;
      }
      const changes = result.summary ? `:\n${result.summary}` : '';
      process.stderr.write(
        `migrate check: prisma/schema.prisma differs from prisma/migrations; ` +
          `run \`npm run migrate:create -- <name>\` to add a migration${changes}\n`,
      );
      return 1;
    }
    case 'status': {
      const s = await migrationStatus(url, options);
      say(`database ${redact(url)}${s.databaseExists ? '' : ' (does not exist yet)'}`);
      const missing = new Set(s.missingLocally);
      const mark = (name: string): string =>
        s.failed.includes(name) ? 'failed ' : s.pending.includes(name) ? 'pending' : 'applied';
      for (const name of s.local) say(`${mark(name)}  ${name}${s.edited.includes(name) ? '  (edited since applied)' : ''}`);
      for (const name of missing) say(`unknown  ${name}  (in the database, not in prisma/migrations)`);
      const parts = [`${s.applied.length} applied`, `${s.pending.length} pending`];
      if (s.failed.length) parts.push(`${s.failed.length} failed`);
      if (s.edited.length) parts.push(`${s.edited.length} edited`);
      if (missing.size) parts.push(`${missing.size} not in prisma/migrations`);
      say(parts.join(', '));
      return s.pending.length || s.failed.length || missing.size ? 1 : 0;
    }
    case 'resolve': {
      const flag = args[0];
      const name = args[1];
      if ((flag !== '--rolled-back' && flag !== '--applied') || !name || args.length > 2) {
        throw new MigrateError('usage: resolve --rolled-back <migration> | resolve --applied <migration>');
      }
      const as = flag === '--applied' ? 'applied' : 'rolled-back';
      await resolveMigration(url, name, as, options);
      say(`marked ${name} ${as}`);
      return 0;
    }
    case undefined:
    case 'help':
    case '-h':
    case '--help':
      (command === undefined ? process.stderr : process.stdout).write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`migrate: unknown command ${JSON.stringify(command)}\n\n${USAGE}\n`);
      return 2;
  }
}

function explain(error: unknown, command: string | undefined): string {
  const prefix = `migrate${command ? ` ${command}` : ''}: error:`;
  if (error instanceof MigrateError) {
    const hint = error.connection
      ? process.env.DATABASE_URL?.trim()
        ? ' (set by DATABASE_URL)'
        : ' (the default URL; set DATABASE_URL to use another)'
      : '';
    return `${prefix} ${error.message}${hint}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `${prefix} ${message.split('\n')[0]}`;
}

// Interrupted: drop the temporary (shadow/scratch) databases before leaving. Closing them makes
// the running command fail, so the normal exit below waits for this instead of racing it.
let interrupted: Promise<never> | undefined;
for (const [signal, status] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  process.once(signal, () => {
    interrupted ??= closeAllEngineAdapters().then(() => process.exit(status));
  });
}

const [command, ...args] = process.argv.slice(2);
let code: number;
try {
  code = await run(command, args);
} catch (error) {
  if (interrupted) await interrupted;
  process.stderr.write(`${explain(error, command)}\n`);
  if (debug && error instanceof Error) process.stderr.write(`${error.stack ?? ''}\n`);
  code = 1;
}
if (interrupted) await interrupted;
// The schema engine leaves timers pending (and pg pools may linger on errors): exit explicitly.
process.exit(code);
