// Migrations for toolrun, driven by Prisma's own WebAssembly schema engine, offline.
//
// Prisma 7's CLI has no offline migration path (it downloads a native schema engine), so this
// module runs `@prisma/schema-engine-wasm` (the exact version named by the installed
// @prisma/engines-version) against @prisma/adapter-pg. See ../../shared/NOTES.md, "Prisma 7
// offline". The engine writes and reads `_prisma_migrations` exactly like `prisma migrate`
// (checksum = sha256 of migration.sql), and migrations use Prisma's folder format, so the
// native CLI can take over whenever it becomes usable.
//
// Programmatic use: applyMigrations(databaseUrl). The engine's timers are unref'd, so a process
// using this module can exit on its own; the CLI (../migrate.ts) still ends with process.exit.
import { createDatabase, createEngineAdapter, withClient } from './adapter.js';
import { fromEngineError, fromPgError, MigrateError } from './errors.js';
import {
  lockfileContent,
  lockfileProvider,
  normalizeMigrationName,
  PROJECT_ROOT,
  projectPaths,
  readMigrationsList,
  readSchemaFiles,
  writeMigration,
} from './files.js';
import { checkDatabaseUrl, databaseName } from './url.js';
import { loadSchemaEngineWasm, type MigrationList, type SchemaContainer, type SchemaEngine, type SchemaFilter } from './wasm.js';

export { MigrateError } from './errors.js';

const PROVIDER = 'postgresql';
const NO_FILTER: SchemaFilter = { externalTables: [], externalEnums: [] };

export interface MigrateOptions {
  /** Repository root holding prisma/schema.prisma and prisma/migrations. Defaults to this repo. */
  root?: string;
  /** Receives the engine's JSON log lines (e.g. to debug). */
  onEngineLog?: (line: string) => void;
}

interface EngineSession {
  scratchMain?: boolean;
  schemaFiles?: SchemaContainer[];
}

/** Runs `fn` with a fresh engine; every pool and temporary database is gone when it settles. */
async function withEngine<T>(
  databaseUrl: string,
  session: EngineSession,
  options: MigrateOptions,
  fn: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const wasm = await loadSchemaEngineWasm();
  const adapter = createEngineAdapter(databaseUrl, { scratchMain: session.scratchMain ?? false });
  const log = options.onEngineLog ?? (() => {});
  try {
    const datamodels = session.schemaFiles?.map((f): [string, string] => [f.path, f.content]);
    // The engine instance is not free()d: it may still have (unref'd) timers pointing into it,
    // and the FinalizationRegistry of the glue frees it once unreachable.
    const engine = await wasm.SchemaEngine.new({ datamodels }, log, adapter.factory);
    return await fn(engine);
  } catch (error) {
    throw fromEngineError(error, databaseUrl, adapter.factory.errorRegistry, { scratch: session.scratchMain ?? false });
  } finally {
    await adapter.close();
  }
}

function checkProvider(list: MigrationList): void {
  const provider = lockfileProvider(list);
  if (provider !== undefined && provider !== PROVIDER) {
    throw new MigrateError(
      `${list.baseDir}/migration_lock.toml says provider = "${provider}", but this project migrates ${PROVIDER}`,
    );
  }
}

function unreadableMigrations(list: MigrationList): string[] {
  return list.migrationDirectories.filter((d) => d.migrationFile.content.tag === 'error').map((d) => d.path);
}

interface AppliedRow {
  name: string;
  finished: boolean;
  rolledBack: boolean;
}

function pgCode(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

/**
 * The rows of `_prisma_migrations`, read directly (no engine). `rows` is null when the table
 * does not exist; `databaseExists` is false when the database does not.
 */
async function readMigrationRows(databaseUrl: string): Promise<{ databaseExists: boolean; rows: AppliedRow[] | null }> {
  try {
    return await withClient(databaseUrl, async (client) => {
      try {
        const { rows } = await client.query<{ name: string; finished: boolean; rolled_back: boolean }>(
          `SELECT migration_name AS name, finished_at IS NOT NULL AS finished,
                  rolled_back_at IS NOT NULL AS rolled_back
             FROM _prisma_migrations`,
        );
        const applied = rows.map((r) => ({ name: r.name, finished: r.finished, rolledBack: r.rolled_back }));
        return { databaseExists: true, rows: applied };
      } catch (error) {
        if (pgCode(error) === '42P01') return { databaseExists: true, rows: null }; // undefined_table
        throw error;
      }
    });
  } catch (error) {
    if (pgCode(error) === '3D000') return { databaseExists: false, rows: null }; // invalid_catalog_name
    throw fromPgError(error, databaseUrl);
  }
}

async function createDatabaseIfMissing(databaseUrl: string): Promise<void> {
  try {
    await createDatabase(databaseUrl, databaseName(databaseUrl));
  } catch (error) {
    // 42P04 duplicate_database (23505 when the race is even closer): someone else created it.
    const code = pgCode(error);
    if (code !== '42P04' && code !== '23505') throw fromPgError(error, databaseUrl);
  }
}

/** True when applyMigrations would have nothing to do and nothing to complain about. */
function nothingToApply(list: MigrationList, rows: AppliedRow[] | null): boolean {
  if (rows === null) return false;
  if (rows.some((r) => !r.finished && !r.rolledBack)) return false; // failed: let the engine report it
  const applied = new Set(rows.filter((r) => !r.rolledBack).map((r) => r.name));
  return list.migrationDirectories.every((d) => applied.has(d.path));
}

/**
 * `deploy`: creates the database if it is missing, then applies the pending migrations of
 * prisma/migrations, each atomically. Returns the names of the migrations it applied, in order.
 * When everything is applied already it answers from `_prisma_migrations` without loading the
 * engine.
 */
export async function applyMigrations(databaseUrl: string, options: MigrateOptions = {}): Promise<string[]> {
  checkDatabaseUrl(databaseUrl);
  const { migrationsDir } = projectPaths(options.root ?? PROJECT_ROOT);
  const list = await readMigrationsList(migrationsDir);
  checkProvider(list);
  const { databaseExists, rows } = await readMigrationRows(databaseUrl);
  if (!databaseExists) await createDatabaseIfMissing(databaseUrl);
  if (nothingToApply(list, rows)) return [];
  const unreadable = unreadableMigrations(list);
  if (unreadable.length > 0) throw new MigrateError(`cannot read migration.sql of ${unreadable.join(', ')}`);
  return withEngine(databaseUrl, {}, options, async (engine) => {
    const result = await engine.applyMigrations({ migrationsList: list, filters: NO_FILTER });
    return result.appliedMigrationNames;
  });
}

export interface CreatedMigration {
  /** Directory name, `<timestamp>_<name>`. */
  name: string;
  /** Absolute path of the migration.sql written. */
  file: string;
  script: string;
}

/**
 * `create`: the SQL that takes a database from the state of prisma/migrations to the state of
 * prisma/schema.prisma, written as a new migration (not applied). Null when they already agree.
 * Never touches the database DATABASE_URL names: the engine works on two temporary databases on
 * the same server (a scratch "main" one and the shadow one).
 */
export async function createMigration(
  databaseUrl: string,
  rawName: string,
  options: MigrateOptions = {},
): Promise<CreatedMigration | null> {
  checkDatabaseUrl(databaseUrl);
  const root = options.root ?? PROJECT_ROOT;
  const { migrationsDir, schemaPath } = projectPaths(root);
  const migrationName = normalizeMigrationName(rawName);
  if (!migrationName) throw new MigrateError(`invalid migration name ${JSON.stringify(rawName)}: use letters, digits and _`);
  const list = await readMigrationsList(migrationsDir);
  checkProvider(list);
  const schemaFiles = await readSchemaFiles(schemaPath, root);
  const unreadable = unreadableMigrations(list);
  if (unreadable.length > 0) throw new MigrateError(`cannot read migration.sql of ${unreadable.join(', ')}`);

  const output = await withEngine(databaseUrl, { scratchMain: true, schemaFiles }, options, async (engine) => {
    // In the Wasm engine, createMigration cannot open a shadow database itself ("PostgreSQL
    // shadow DB must be provided through an external factory"); it relies on the schema that
    // diagnoseMigrationHistory caches for the migrations applied to the main database, as in
    // `prisma migrate dev`. So: apply every migration to the scratch main database, let
    // diagnoseMigrationHistory build that schema on the shadow database, then create.
    await engine.applyMigrations({ migrationsList: list, filters: NO_FILTER });
    await engine.diagnoseMigrationHistory({ migrationsList: list, optInToShadowDatabase: true, filters: NO_FILTER });
    return engine.createMigration({
      draft: false,
      migrationName,
      migrationsList: list,
      schema: { files: schemaFiles },
      filters: NO_FILTER,
    });
  });
  if (output.migrationScript === null) return null;
  const file = await writeMigration(
    migrationsDir,
    output.generatedMigrationName,
    output.extension,
    output.migrationScript,
    output.connectorType,
  );
  return { name: output.generatedMigrationName, file, script: output.migrationScript };
}

export interface SchemaCheck {
  /** True when prisma/schema.prisma matches the end state of prisma/migrations. */
  inSync: boolean;
  /** The engine's human-readable summary of what a new migration would change. */
  summary: string;
}

/**
 * `check`: does prisma/schema.prisma match prisma/migrations (would a new migration be empty)?
 * Runs the migrations on a temporary shadow database; never touches DATABASE_URL's database.
 */
export async function checkSchema(databaseUrl: string, options: MigrateOptions = {}): Promise<SchemaCheck> {
  checkDatabaseUrl(databaseUrl);
  const root = options.root ?? PROJECT_ROOT;
  const { migrationsDir, schemaPath } = projectPaths(root);
  const list = await readMigrationsList(migrationsDir);
  checkProvider(list);
  const schemaFiles = await readSchemaFiles(schemaPath, root);
  const unreadable = unreadableMigrations(list);
  if (unreadable.length > 0) throw new MigrateError(`cannot read migration.sql of ${unreadable.join(', ')}`);
  // diff needs migration_lock.toml to know the connector; a missing one means postgresql here.
  const lockfile = { ...list.lockfile, content: list.lockfile.content ?? lockfileContent(PROVIDER) };
  const from =
    list.migrationDirectories.length === 0
      ? ({ tag: 'empty' } as const)
      : ({ tag: 'migrations', ...list, lockfile } as const);
  const result = await withEngine(databaseUrl, { scratchMain: true, schemaFiles }, options, (engine) =>
    engine.diff({ from, to: { tag: 'schemaDatamodel', files: schemaFiles }, script: false, exitCode: true, filters: NO_FILTER }),
  );
  return { inSync: result.exitCode === 0, summary: (result.stdout ?? '').trim() };
}

export interface MigrationStatus {
  databaseExists: boolean;
  /** Local migrations (prisma/migrations), in order. */
  local: string[];
  applied: string[];
  pending: string[];
  /** Started but neither finished nor rolled back (deploy refuses to continue). */
  failed: string[];
  /** Applied, but migration.sql changed since (checksum mismatch). */
  edited: string[];
  /** Recorded in the database, absent from prisma/migrations. */
  missingLocally: string[];
}

/** `status`: which local migrations the database has applied, and which are pending. */
export async function migrationStatus(databaseUrl: string, options: MigrateOptions = {}): Promise<MigrationStatus> {
  checkDatabaseUrl(databaseUrl);
  const { migrationsDir } = projectPaths(options.root ?? PROJECT_ROOT);
  const list = await readMigrationsList(migrationsDir);
  checkProvider(list);
  const local = list.migrationDirectories.map((d) => d.path);
  const { databaseExists, rows } = await readMigrationRows(databaseUrl);
  if (rows === null) {
    return { databaseExists, local, applied: [], pending: local, failed: [], edited: [], missingLocally: [] };
  }
  const diagnosis = await withEngine(databaseUrl, {}, options, (engine) =>
    engine.diagnoseMigrationHistory({ migrationsList: list, optInToShadowDatabase: false, filters: NO_FILTER }),
  );
  const history = diagnosis.history;
  const pending =
    history === null ? [] : history.diagnostic === 'migrationsDirectoryIsBehind' ? [] : history.unappliedMigrationNames;
  const missingLocally =
    history === null || history.diagnostic === 'databaseIsBehind' ? [] : history.unpersistedMigrationNames;
  const failed = diagnosis.failedMigrationNames;
  return {
    databaseExists: true,
    local,
    applied: local.filter((name) => !pending.includes(name) && !failed.includes(name)),
    pending,
    failed,
    edited: diagnosis.editedMigrationNames,
    missingLocally,
  };
}

/**
 * `resolve`: mark a failed migration as rolled back (deploy will run it again), or a migration as
 * applied without running it, like `prisma migrate resolve`. Since each migration runs as one
 * atomic query here, a failed migration left nothing behind: rolled back is the usual answer.
 */
export async function resolveMigration(
  databaseUrl: string,
  migrationName: string,
  as: 'rolled-back' | 'applied',
  options: MigrateOptions = {},
): Promise<void> {
  checkDatabaseUrl(databaseUrl);
  const { migrationsDir } = projectPaths(options.root ?? PROJECT_ROOT);
  const list = await readMigrationsList(migrationsDir);
  checkProvider(list);
  if (!list.migrationDirectories.some((d) => d.path === migrationName)) {
    throw new MigrateError(`no migration ${migrationName} in ${migrationsDir}`);
  }
  await withEngine(databaseUrl, {}, options, async (engine) => {
    if (as === 'rolled-back') await engine.markMigrationRolledBack({ migrationName });
    else await engine.markMigrationApplied({ migrationName, migrationsList: list });
  });
}
