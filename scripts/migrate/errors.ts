// Turning failures (node-postgres, the schema engine, the file system) into one clear line.
import type { ErrorRegistry } from '@prisma/driver-adapter-utils';

import { redact } from './url.js';

/** An expected failure, with a message fit to show the user as is. */
export class MigrateError extends Error {
  override name = 'MigrateError';
  /** True when the database server could not be reached or refused us (DATABASE_URL may be wrong). */
  readonly connection: boolean;

  constructor(message: string, options: { connection?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.connection = options.connection ?? false;
  }
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EAI_AGAIN', 'ECONNRESET']);

function oneLine(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
}

/** node-postgres errors (our own connections) → MigrateError. */
export function fromPgError(error: unknown, url: string): Error {
  if (error instanceof MigrateError) return error;
  const e = error as { code?: string; message?: string; errors?: { code?: string }[] };
  const code = e.code ?? e.errors?.[0]?.code;
  const message = e.message || code || String(error);
  const at = redact(url);
  if ((code && UNREACHABLE_CODES.has(code)) || /timeout|terminated unexpectedly/i.test(message)) {
    return new MigrateError(`cannot reach the PostgreSQL server of ${at} (${code ?? message})`, { connection: true, cause: error });
  }
  if (code === '28P01' || code === '28000') {
    return new MigrateError(`PostgreSQL refused the credentials of ${at}: ${message}`, { connection: true, cause: error });
  }
  if (code === '3D000') {
    return new MigrateError(`the database of ${at} does not exist (${message})`, { connection: true, cause: error });
  }
  if (code === '42501') {
    return new MigrateError(`permission denied on ${at}: ${message}`, { cause: error });
  }
  return new MigrateError(`${at}: ${oneLine(message)}`, { cause: error });
}

/**
 * Schema engine rejections → MigrateError. The engine rejects with plain Errors whose message
 * may end in a Rust span trace ("   0: schema_engine_wasm::…"), and refers to errors thrown in
 * the adapter by an id in the adapter's error registry ("External error id#0").
 */
export function fromEngineError(
  error: unknown,
  url: string,
  registry?: ErrorRegistry,
  context: { scratch?: boolean } = {},
): Error {
  if (error instanceof MigrateError) return error;
  const raw = error instanceof Error ? error.message : String(error);
  // An error thrown in the adapter (kind GenericJs) reaches us as "External error id#<n>".
  const external = /External error id#(\d+)/.exec(raw);
  if (external && registry) {
    const record = registry.consumeError(Number(external[1]));
    if (record) return fromPgError(record.error, url);
  }
  if (error instanceof Error && /^RuntimeError$/.test(error.name)) {
    const panic = (globalThis as { PRISMA_WASM_PANIC_REGISTRY?: { message?: string } }).PRISMA_WASM_PANIC_REGISTRY?.message;
    return new MigrateError(`the schema engine crashed: ${oneLine(panic ?? raw)}`, { cause: error });
  }
  const [head = raw, spanTrace = ''] = raw.split(/\n\s+0: /);
  const message = oneLine(head);
  const at = redact(url);
  // Prisma schema diagnostics: "error: <message>\n  -->  prisma/schema.prisma:49\n   |\n…".
  const diagnostics = [...head.matchAll(/^error: (.*)\n\s*-->\s*(\S+)/gm)];
  if (diagnostics.length > 0) {
    const list = diagnostics.map(([, text, where]) => `${where}: ${text}`).join('; ');
    return new MigrateError(`invalid Prisma schema: ${list}`, { cause: error });
  }
  const failedMigration = /apply_script\s+with migration_name="([^"]+)"/.exec(spanTrace)?.[1];
  if (failedMigration) {
    const reason = message.replace(/^external connector error\s*/, '').replace(/^Error querying the database:\s*/, '');
    if (context.scratch) {
      return new MigrateError(`migration ${failedMigration} does not apply to an empty database: ${reason}`, { cause: error });
    }
    return new MigrateError(
      `migration ${failedMigration} failed and was rolled back: ${reason} ` +
        `(fix it, then: tsx scripts/migrate.ts resolve --rolled-back ${failedMigration})`,
      { cause: error },
    );
  }
  if (/found failed migrations/.test(message)) {
    const names = [...message.matchAll(/The `([^`]+)` migration started at/g)].map((m) => m[1]);
    return new MigrateError(
      `the database has failed migration(s) ${names.join(', ')}; deploy applies nothing until each is resolved ` +
        `(fix it, then: tsx scripts/migrate.ts resolve --rolled-back <name>)`,
      { cause: error },
    );
  }
  if (/^Can't reach database server/.test(message)) {
    return new MigrateError(`cannot reach the PostgreSQL server of ${at}: ${message}`, { connection: true, cause: error });
  }
  if (/^Database `.*` does not exist/.test(message)) {
    return new MigrateError(`the database of ${at} does not exist`, { connection: true, cause: error });
  }
  if (/^(Authentication failed|User was denied access)/.test(message)) {
    return new MigrateError(`PostgreSQL refused the credentials of ${at}: ${message}`, { connection: true, cause: error });
  }
  return new MigrateError(message, { cause: error });
}
