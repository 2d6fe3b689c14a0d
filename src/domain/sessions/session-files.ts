// The session file store (the SessionFiles port of src/tools/session-files.ts), kept in
// PostgreSQL. Directories are rows of their own (the root `/` is implicit). Every operation is
// one SQL statement on its success path, except an edit (a short transaction: lock and read the
// row, then update it).
//
// Quotas: triggers on session_file keep what each session and each tenant holds (bytes, entries)
// in session_file_usage and tenant_file_usage (migration 20261126061313_quotas), rows that exist
// from the session's and tenant's creation on (20261127073500). A write that
// adds bytes or entries checks them in its own statement, with both usage rows locked (FOR
// UPDATE gives the latest committed values), against the tenant's limits (tenant_limits, capped
// by the deployment's): so concurrent writes in any process cannot overshoot them. Writes that
// only shrink the store are never refused.
import { Prisma } from '../../generated/prisma/client.js';
import { ToolFailureError } from '../../model/outcome.js';
import { LONE_SURROGATE } from '../../model/storable-json.js';
import type { Db } from '../../db.js';
import {
  type DeleteFileOptions,
  type DeleteFileResult,
  type EditFileResult,
  fileError,
  fileErrors as errors,
  type FileStat,
  type GrepMatch,
  type GrepOptions,
  type GrepResult,
  type ListDirectoryOptions,
  MAX_FILE_BYTES,
  normalizePath,
  type ReadFileOptions,
  type ReadFileResult,
  type SessionFiles,
  type WriteFileResult,
} from '../../tools/session-files.js';
import { checkGlobSource, checkGrepPattern, grepInWorker } from '../../tools/grep-search.js';

const GREP_DEFAULT_MATCHES = 100;
const GREP_MAX_MATCHES = 1000;
/** A matched line longer than this is cut in grep results. */
const GREP_MAX_LINE_CHARS = 500;
/** How long an edit waits for a pooled connection, and how long its transaction may take. */
const EDIT_LOCK_WAIT_MS = 10_000;
const EDIT_TIMEOUT_MS = 30_000;

/** Proper ancestors of a normalized path, outermost first, without the root. */
function ancestorsOf(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  const ancestors: string[] = [];
  for (let i = 1; i < parts.length; i++) ancestors.push(`/${parts.slice(0, i).join('/')}`);
  return ancestors;
}

function nameOf(path: string): string {
  return path === '/' ? '/' : path.slice(path.lastIndexOf('/') + 1);
}

/** LIKE pattern matching every path strictly below a directory. */
function descendantsPattern(dir: string): string {
  const prefix = dir === '/' ? '/' : `${dir}/`;
  return `${prefix.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/**
 * A glob as the RE2 source the search thread runs: `*` and `?` stay within a path segment, `**`
 * crosses segments (`**\/` also matches no directory), `{a,b}` alternatives, `[abc]`/`[!abc]`
 * character classes. What RE2 cannot compile is refused here (invalid_pattern).
 */
function globSource(glob: string): string {
  let source = '';
  let braceDepth = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === '*') {
      if (glob[i + 1] === '*') {
        i++;
        if (glob[i + 1] === '/') {
          i++;
          source += '(?:.*/)?';
        } else source += '.*';
      } else source += '[^/]*';
    } else if (char === '?') source += '[^/]';
    else if (char === '{') {
      braceDepth++;
      source += '(?:';
    } else if (char === '}' && braceDepth > 0) {
      braceDepth--;
      source += ')';
    } else if (char === ',' && braceDepth > 0) source += '|';
    else if (char === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) source += '\\[';
      else {
        let body = glob.slice(i + 1, end);
        const negate = body.startsWith('!') || body.startsWith('^');
        if (negate) body = body.slice(1);
        if (body === '') throw fileError('INVALID_REQUEST', 'invalid_pattern', `Invalid glob ${JSON.stringify(glob)}: an empty character class`);
        // `[` escaped too: RE2 would read `[:alpha:]` inside a class as a POSIX class.
        source += `[${negate ? '^' : ''}${body.replace(/[\\\]^[]/g, (c) => `\\${c}`)}]`;
        i = end;
      }
    } else source += char.replace(/[.+^${}()|[\]\\]/g, (c) => `\\${c}`);
  }
  if (braceDepth > 0) throw fileError('INVALID_REQUEST', 'invalid_pattern', `Invalid glob ${JSON.stringify(glob)}: unclosed {`);
  checkGlobSource(glob, `^${source}$`);
  return `^${source}$`;
}

/** Lines with their line endings, so a slice joins back to the exact text. */
function splitLines(content: string): string[] {
  return content.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function checkContent(path: string, content: string): void {
  if (typeof content !== 'string') throw fileError('INVALID_REQUEST', 'invalid_content', `Content for ${path} must be a string`);
  if (content.includes('\0')) throw errors.binary(path);
  if (LONE_SURROGATE.test(content)) throw errors.unpaired(path);
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > MAX_FILE_BYTES) throw errors.tooLarge(path, bytes);
}

/** Non-overlapping occurrences, left to right (the same as `split(needle).length - 1`). */
function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count++;
  return count;
}

// ---------------------------------------------------------------------------------------------
// Store

interface StatRow {
  path: string;
  is_directory: boolean;
  size: number;
  created_at: Date;
  updated_at: Date;
}

function toStat(row: StatRow): FileStat {
  return {
    path: row.path,
    name: nameOf(row.path),
    isDirectory: row.is_directory,
    size: Number(row.size),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

const STAT_COLUMNS = Prisma.sql`path, is_directory, size, created_at, updated_at`;

/** The deployment's file store quotas; a tenant's own (tenant_limits) apply when lower. */
export interface FileQuota {
  sessionFileBytes: number;
  sessionFiles: number;
  tenantFileBytes: number;
  tenantFiles: number;
}

/** Which quota a write would exceed, with the store's usage and the limit (from the `quota` CTE). */
interface QuotaVerdict {
  over: 'session_bytes' | 'session_files' | 'tenant_bytes' | 'tenant_files' | null;
  usage: string | null;
  limit: string | null;
}

type UpsertRow = { blocked: string | null; created: boolean | null } & Partial<StatRow> & QuotaVerdict;

function quotaError(path: string, verdict: QuotaVerdict): ToolFailureError {
  const [scope, unit] = verdict.over!.split('_') as ['session' | 'tenant', 'bytes' | 'files'];
  const owner = scope === 'session' ? "the session's file store" : "the tenant's file stores";
  const what = unit === 'bytes' ? 'bytes' : 'entries (files and directories)';
  return fileError(
    'RESOURCE_LIMIT',
    'file_quota_exceeded',
    `Cannot write ${path}: ${owner} would exceed ${verdict.limit} ${what} (${verdict.usage} in use); delete files to make room`,
  );
}

export class PrismaSessionFiles implements SessionFiles {
  constructor(
    private readonly db: Db,
    readonly sessionId: string,
    /** Without one (background artifacts, written inside a run's state change), writes are counted but not refused. */
    private readonly quota?: FileQuota,
  ) {}

  /**
   * CTE `quota`: which quota (if any) a write adding `bytes` and `entries` would exceed. It locks the
   * session's and the tenant's usage rows until the end of the transaction.
   */
  private quotaCheck(bytes: Prisma.Sql, entries: Prisma.Sql): Prisma.Sql {
    const q = this.quota;
    // Without quotas the usage rows are still locked first (the lock order: the tenant's usage row, the
    // session's, then file rows; the usage triggers would otherwise lock them after the file row). Both
    // rows exist from the session's and tenant's creation (migration 20261127073500): a row created
    // by a concurrent write would be invisible to this statement's snapshot, its usage read as none.
    if (!q) {
      return Prisma.sql`tu AS (SELECT 1 FROM tenant_file_usage WHERE tenant_id = (SELECT tenant_id FROM session WHERE id = ${this.sessionId}::uuid) FOR UPDATE),
        su AS (SELECT 1 FROM session_file_usage WHERE session_id = ${this.sessionId}::uuid AND (SELECT count(*) FROM tu) >= 0 FOR UPDATE),
        quota AS (SELECT NULL::text AS over, NULL::text AS usage, NULL::text AS "limit" WHERE (SELECT count(*) FROM su) + (SELECT count(*) FROM tu) >= 0)`;
    }
    return Prisma.sql`owner AS (SELECT tenant_id FROM session WHERE id = ${this.sessionId}::uuid),
      delta AS (SELECT (${bytes})::bigint AS bytes, (${entries})::bigint AS entries),
      tu AS (SELECT bytes, files FROM tenant_file_usage WHERE tenant_id = (SELECT tenant_id FROM owner) FOR UPDATE),
      su AS (SELECT bytes, files FROM session_file_usage WHERE session_id = ${this.sessionId}::uuid AND (SELECT count(*) FROM tu) >= 0 FOR UPDATE),
      lim AS (
        SELECT least(coalesce(l.session_file_bytes, ${q.sessionFileBytes}::bigint), ${q.sessionFileBytes}::bigint) AS sb,
               least(coalesce(l.session_files, ${q.sessionFiles}::int), ${q.sessionFiles}::int) AS sf,
               least(coalesce(l.tenant_file_bytes, ${q.tenantFileBytes}::bigint), ${q.tenantFileBytes}::bigint) AS tb,
               least(coalesce(l.tenant_files, ${q.tenantFiles}::int), ${q.tenantFiles}::int) AS tf
          FROM (SELECT 1) AS one LEFT JOIN tenant_limits l ON l.tenant_id = (SELECT tenant_id FROM owner)
      ),
      usage AS (
        SELECT coalesce((SELECT bytes FROM su), 0) AS sb, coalesce((SELECT files FROM su), 0) AS sf,
               coalesce((SELECT bytes FROM tu), 0) AS tb, coalesce((SELECT files FROM tu), 0) AS tf
      ),
      quota AS (
        SELECT v.over, v.usage::text AS usage, v."limit"::text AS "limit"
          FROM delta d CROSS JOIN usage u CROSS JOIN lim l
          LEFT JOIN LATERAL (
            SELECT c.over, c.usage, c."limit" FROM (VALUES
                (1, 'session_bytes', u.sb, l.sb, d.bytes), (2, 'session_files', u.sf, l.sf, d.entries),
                (3, 'tenant_bytes', u.tb, l.tb, d.bytes), (4, 'tenant_files', u.tf, l.tf, d.entries)
              ) AS c(ord, over, usage, "limit", adds)
             WHERE c.adds > 0 AND c.usage + c.adds > c."limit" ORDER BY c.ord LIMIT 1
          ) AS v ON true
      )`;
  }

  async readFile(rawPath: string, options: ReadFileOptions = {}): Promise<ReadFileResult> {
    const path = normalizePath(rawPath);
    if (path === '/') throw errors.isDirectory(path);
    const row = await this.db.sessionFile.findUnique({
      where: { sessionId_path: { sessionId: this.sessionId, path } },
      select: { path: true, isDirectory: true, content: true, size: true, createdAt: true, updatedAt: true },
    });
    if (!row) throw errors.notFound(path);
    if (row.isDirectory) throw errors.isDirectory(path);
    const stat: FileStat = { path, name: nameOf(path), isDirectory: false, size: row.size, createdAt: row.createdAt, updatedAt: row.updatedAt };
    const content = row.content ?? '';
    const lines = splitLines(content);
    const offset = Math.max(0, Math.floor(options.offset ?? 0));
    if (options.offset === undefined && options.limit === undefined) {
      return { ...stat, content, totalLines: lines.length, offset: 0, lineCount: lines.length, hasMore: false };
    }
    const end = options.limit === undefined ? lines.length : Math.min(lines.length, offset + Math.max(0, Math.floor(options.limit)));
    const selected = lines.slice(offset, end);
    return {
      ...stat,
      content: selected.join(''),
      totalLines: lines.length,
      offset,
      lineCount: selected.length,
      hasMore: end < lines.length,
    };
  }

  async writeFile(rawPath: string, content: string): Promise<WriteFileResult> {
    const path = normalizePath(rawPath);
    const row = await this.upsertWithParents(path, content, 'replace');
    if (row.blocked) throw errors.parentNotDirectory(path, row.blocked);
    if (!row.path) throw errors.isDirectory(path);
    return { ...toStat(row as StatRow), created: Boolean(row.created) };
  }

  /**
   * CTEs `blocked` (the shallowest of `chain` that is a file, if any) and `dirs` (the missing
   * directories of `chain`, created unless something is blocked or the `quota` CTE refuses;
   * RETURNING `returning`).
   */
  private createDirectories(chain: string[], returning: Prisma.Sql): Prisma.Sql {
    return Prisma.sql`blocked AS (
        SELECT f.path FROM session_file f
        WHERE f.session_id = ${this.sessionId}::uuid AND f.path = ANY(${chain}::text[]) AND NOT f.is_directory
        ORDER BY length(f.path) LIMIT 1
      ), dirs AS (
        INSERT INTO session_file (id, session_id, path, is_directory, content, size, created_at, updated_at)
        SELECT gen_random_uuid(), ${this.sessionId}::uuid, a.path, true, NULL, 0, now(), now()
        FROM unnest(${chain}::text[]) AS a(path)
        WHERE NOT EXISTS (SELECT 1 FROM blocked) AND (SELECT over FROM quota) IS NULL
        ON CONFLICT (session_id, path) DO NOTHING
        RETURNING ${returning}
      )`;
  }

  /**
   * One statement: refuse when an ancestor is a file, create missing ancestors, then insert the
   * file or replace / append to its content, unless a directory stands at its path (or, when
   * appending, the result would exceed the size cap). `xmax = 0` tells an insert from an update.
   */
  private async upsertWithParents(path: string, text: string, mode: 'replace' | 'append'): Promise<UpsertRow> {
    if (path === '/') throw errors.isDirectory(path);
    checkContent(path, text);
    const ancestors = ancestorsOf(path);
    const update =
      mode === 'replace'
        ? Prisma.sql`SET content = EXCLUDED.content, size = EXCLUDED.size, updated_at = now() WHERE NOT f.is_directory`
        : Prisma.sql`SET content = coalesce(f.content, '') || EXCLUDED.content, size = f.size + EXCLUDED.size, updated_at = now()
                     WHERE NOT f.is_directory AND f.size + EXCLUDED.size <= ${MAX_FILE_BYTES}`;
    const existing = Prisma.sql`(SELECT size FROM session_file WHERE session_id = ${this.sessionId}::uuid AND path = ${path})`;
    const bytes = mode === 'replace' ? Prisma.sql`octet_length(${text}::text) - coalesce(${existing}, 0)` : Prisma.sql`octet_length(${text}::text)`;
    const entries = Prisma.sql`(SELECT count(*) FROM unnest(${[...ancestors, path]}::text[]) AS a(path)
      WHERE NOT EXISTS (SELECT 1 FROM session_file x WHERE x.session_id = ${this.sessionId}::uuid AND x.path = a.path))`;
    const rows = await this.db.$queryRaw<UpsertRow[]>`
      WITH ${this.quotaCheck(bytes, entries)}, ${this.createDirectories(ancestors, Prisma.sql`path`)}, file AS (
        INSERT INTO session_file AS f (id, session_id, path, is_directory, content, size, created_at, updated_at)
        SELECT gen_random_uuid(), ${this.sessionId}::uuid, ${path}, false, ${text}, octet_length(${text}::text), now(), now()
        WHERE NOT EXISTS (SELECT 1 FROM blocked) AND (SELECT over FROM quota) IS NULL
        ON CONFLICT (session_id, path) DO UPDATE ${update}
        RETURNING f.path, f.is_directory, f.size, f.created_at, f.updated_at, (f.xmax = 0) AS created
      )
      SELECT (SELECT path FROM blocked) AS blocked, quota.over, quota.usage, quota."limit", file.*
        FROM quota LEFT JOIN file ON true`;
    const row = rows[0] ?? { blocked: null, created: null, over: null, usage: null, limit: null };
    if (row.over && !row.blocked) throw quotaError(path, row);
    return row;
  }

  async editFile(rawPath: string, oldString: string, newString: string, replaceAll = false): Promise<EditFileResult> {
    const path = normalizePath(rawPath);
    if (path === '/') throw errors.isDirectory(path);
    if (typeof oldString !== 'string' || oldString === '') {
      throw fileError('INVALID_REQUEST', 'edit_not_found', `Cannot edit ${path}: the text to replace must not be empty`);
    }
    if (typeof newString !== 'string') throw fileError('INVALID_REQUEST', 'invalid_content', `Cannot edit ${path}: the replacement must be a string`);
    // The row is locked while the replacement is computed, so concurrent edits apply one after
    // another and none is lost.
    const result = await this.db.$transaction(async (tx) => {
      await tx.$queryRaw`${this.usageLocked()} SELECT (SELECT count(*) FROM su) + (SELECT count(*) FROM tu) AS locked`;
      const [row] = await tx.$queryRaw<Array<{ id: string; is_directory: boolean; content: string | null }>>`
        SELECT id::text AS id, is_directory, content
        FROM session_file WHERE session_id = ${this.sessionId}::uuid AND path = ${path}
        FOR UPDATE`;
      if (!row) throw errors.notFound(path);
      if (row.is_directory) throw errors.isDirectory(path);
      const current = row.content ?? '';
      const occurrences = countOccurrences(current, oldString);
      if (occurrences === 0) {
        throw fileError('INVALID_REQUEST', 'edit_not_found', `Cannot edit ${path}: the text to replace was not found`);
      }
      if (occurrences > 1 && !replaceAll) {
        throw fileError(
          'INVALID_REQUEST',
          'edit_ambiguous',
          `Cannot edit ${path}: the text to replace occurs ${occurrences} times; give more context or set replaceAll`,
        );
      }
      const next = replaceAll ? current.split(oldString).join(newString) : current.replace(oldString, () => newString);
      checkContent(path, next);
      const growth = Buffer.byteLength(next, 'utf8') - Buffer.byteLength(current, 'utf8');
      if (growth > 0 && this.quota) {
        const [verdict] = await tx.$queryRaw<QuotaVerdict[]>`WITH ${this.quotaCheck(Prisma.sql`${growth}::bigint`, Prisma.sql`0`)} SELECT * FROM quota`;
        if (verdict?.over) throw quotaError(path, verdict);
      }
      const [updated] = await tx.$queryRaw<StatRow[]>`
        UPDATE session_file SET content = ${next}, size = octet_length(${next}::text), updated_at = now()
        WHERE id = ${row.id}::uuid
        RETURNING ${STAT_COLUMNS}`;
      return { ...toStat(updated!), replacements: replaceAll ? occurrences : 1 };
    }, { maxWait: EDIT_LOCK_WAIT_MS, timeout: EDIT_TIMEOUT_MS });
    return result;
  }

  async listDirectory(rawPath: string, options: ListDirectoryOptions = {}): Promise<FileStat[]> {
    const path = normalizePath(rawPath);
    const depthFilter = options.recursive
      ? Prisma.empty
      : Prisma.sql`AND (path = ${path} OR strpos(substr(path, ${path === '/' ? 2 : path.length + 2}::int), '/') = 0)`;
    const rows = await this.db.$queryRaw<StatRow[]>`
      SELECT ${STAT_COLUMNS} FROM session_file
      WHERE session_id = ${this.sessionId}::uuid AND (path = ${path} OR path LIKE ${descendantsPattern(path)})
      ${depthFilter}
      ORDER BY path`;
    const self = rows.find((row) => row.path === path);
    if (path !== '/') {
      if (!self) throw errors.notFound(path);
      if (!self.is_directory) throw errors.notDirectory(path);
    }
    return rows.filter((row) => row.path !== path).map(toStat);
  }

  async grep(pattern: string, options: GrepOptions = {}): Promise<GrepResult> {
    if (typeof pattern !== 'string' || pattern === '') throw fileError('INVALID_REQUEST', 'invalid_pattern', 'The search pattern must not be empty');
    const ignoreCase = options.ignoreCase ?? false;
    checkGrepPattern(pattern, ignoreCase);
    const base = normalizePath(options.path ?? '/');
    const glob = options.glob ? globSource(options.glob) : null;
    const maxMatches = Math.min(GREP_MAX_MATCHES, Math.max(1, Math.floor(options.maxMatches ?? GREP_DEFAULT_MATCHES)));
    // One query: the base itself (to tell a missing path from an empty one) and every file below.
    const rows = await this.db.$queryRaw<Array<{ path: string; is_directory: boolean; content: string | null }>>`
      SELECT path, is_directory, CASE WHEN is_directory THEN NULL ELSE content END AS content
      FROM session_file
      WHERE session_id = ${this.sessionId}::uuid AND (path = ${base} OR (path LIKE ${descendantsPattern(base)} AND NOT is_directory))
      ORDER BY path`;
    if (base !== '/' && !rows.some((row) => row.path === base)) throw errors.notFound(base);
    const files = rows.filter((row) => !row.is_directory).map((row) => ({ path: row.path, content: row.content ?? '' }));
    return grepInWorker(
      files,
      {
        pattern,
        ignoreCase,
        glob: glob === null ? null : {
          source: glob,
          onName: !options.glob!.includes('/'),
          relativeTo: base === '/' ? '/' : `${base}/`,
          absolute: options.glob!.startsWith('/'),
        },
        maxMatches,
        maxLineChars: GREP_MAX_LINE_CHARS,
      },
      options.signal,
    );
  }

  /**
   * CTEs `su` and `tu` that lock the session's and the tenant's usage rows. Every statement that
   * changes files takes them before any file row (writes lock them first; the usage triggers of a
   * delete or an edit would otherwise take them after the file row: a deadlock with a write).
   */
  private usageLocked(): Prisma.Sql {
    return Prisma.sql`WITH tu AS (SELECT 1 FROM tenant_file_usage WHERE tenant_id = (SELECT tenant_id FROM session WHERE id = ${this.sessionId}::uuid) FOR UPDATE),
      su AS (SELECT 1 FROM session_file_usage WHERE session_id = ${this.sessionId}::uuid AND (SELECT count(*) FROM tu) >= 0 FOR UPDATE)`;
  }

  async deleteFile(rawPath: string, options: DeleteFileOptions = {}): Promise<DeleteFileResult> {
    const path = normalizePath(rawPath);
    if (path === '/') throw errors.invalidPath(path, 'the root directory cannot be deleted');
    if (options.recursive) {
      const rows = await this.db.$queryRaw<Array<{ path: string; is_directory: boolean }>>`
        ${this.usageLocked()}
        DELETE FROM session_file
        WHERE session_id = ${this.sessionId}::uuid AND (path = ${path} OR path LIKE ${descendantsPattern(path)})
          AND (SELECT count(*) FROM su) + (SELECT count(*) FROM tu) >= 0
        RETURNING path, is_directory`;
      const self = rows.find((row) => row.path === path);
      if (!self) throw errors.notFound(path);
      return { path, isDirectory: self.is_directory, deleted: rows.length };
    }
    const rows = await this.db.$queryRaw<Array<{ is_directory: boolean }>>`
      ${this.usageLocked()}
      DELETE FROM session_file
      WHERE session_id = ${this.sessionId}::uuid AND path = ${path}
        AND (SELECT count(*) FROM su) + (SELECT count(*) FROM tu) >= 0
        AND NOT EXISTS (
          SELECT 1 FROM session_file c WHERE c.session_id = ${this.sessionId}::uuid AND c.path LIKE ${descendantsPattern(path)}
        )
      RETURNING is_directory`;
    if (rows[0]) return { path, isDirectory: rows[0].is_directory, deleted: 1 };
    // Nothing deleted: missing, or a directory with entries.
    const existing = await this.stat(path);
    if (!existing) throw errors.notFound(path);
    throw errors.notEmpty(path);
  }

  async stat(rawPath: string): Promise<FileStat | null> {
    const path = normalizePath(rawPath);
    if (path === '/') {
      const session = await this.db.session.findUnique({ where: { id: this.sessionId }, select: { createdAt: true } });
      const at = session?.createdAt ?? new Date();
      return { path, name: '/', isDirectory: true, size: 0, createdAt: at, updatedAt: at };
    }
    const row = await this.db.sessionFile.findUnique({
      where: { sessionId_path: { sessionId: this.sessionId, path } },
      select: { isDirectory: true, size: true, createdAt: true, updatedAt: true },
    });
    if (!row) return null;
    return { path, name: nameOf(path), isDirectory: row.isDirectory, size: row.size, createdAt: row.createdAt, updatedAt: row.updatedAt };
  }

  async mkdir(rawPath: string): Promise<FileStat> {
    const path = normalizePath(rawPath);
    if (path === '/') return (await this.stat('/'))!;
    const chain = [...ancestorsOf(path), path];
    // A directory created concurrently by another statement is invisible to this statement's
    // snapshot; a second attempt then finds it.
    for (let attempt = 0; attempt < 2; attempt++) {
      const row = await this.mkdirOnce(path, chain);
      if (row) return row;
    }
    throw fileError('EXECUTION', 'mkdir_conflict', `Cannot create directory ${path}: it changed concurrently; try again`);
  }

  private async mkdirOnce(path: string, chain: string[]): Promise<FileStat | null> {
    const entries = Prisma.sql`(SELECT count(*) FROM unnest(${chain}::text[]) AS a(path)
      WHERE NOT EXISTS (SELECT 1 FROM session_file x WHERE x.session_id = ${this.sessionId}::uuid AND x.path = a.path))`;
    const rows = await this.db.$queryRaw<Array<{ blocked: string | null } & Partial<StatRow> & QuotaVerdict>>`
      WITH ${this.quotaCheck(Prisma.sql`0`, entries)}, ${this.createDirectories(chain, STAT_COLUMNS)}, existing AS (
        SELECT ${STAT_COLUMNS} FROM session_file WHERE session_id = ${this.sessionId}::uuid AND path = ${path}
      )
      SELECT (SELECT path FROM blocked) AS blocked, quota.over, quota.usage, quota."limit", d.*
      FROM quota
      LEFT JOIN LATERAL (
        SELECT * FROM dirs WHERE dirs.path = ${path} UNION ALL SELECT * FROM existing LIMIT 1
      ) AS d ON true`;
    const row = rows[0];
    if (row?.blocked) throw row.blocked === path ? errors.fileExists(path) : errors.parentNotDirectory(path, row.blocked);
    if (row?.over && !row.path) throw quotaError(path, row);
    return row?.path ? toStat(row as StatRow) : null;
  }

  async appendFile(rawPath: string, text: string): Promise<FileStat> {
    const path = normalizePath(rawPath);
    const row = await this.upsertWithParents(path, text, 'append');
    if (row.blocked) throw errors.parentNotDirectory(path, row.blocked);
    if (row.path) return toStat(row as StatRow);
    const existing = await this.stat(path);
    if (existing?.isDirectory) throw errors.isDirectory(path);
    throw errors.tooLarge(path, (existing?.size ?? 0) + Buffer.byteLength(text, 'utf8'));
  }
}
