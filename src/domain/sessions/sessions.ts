// Sessions: the scope of calls, batches, tasks, schedules, files and messages (DESIGN.md §5).
// Every read is scoped to the viewer's tenant; a session of another tenant is one that does not
// exist.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db.js';
import { Prisma, type Session, type SessionFile, type SessionMessage } from '../../generated/prisma/client.js';
import { NotFoundError, ValidationError } from '../../model/errors.js';
import { checkFilterValues, checkTimeWindow, keysetTime, MAX_FILTER_VALUES, type Page, type PageRequest, toPage } from '../../model/keyset.js';
import { normalizePath, type SessionFiles } from '../../tools/session-files.js';
import { UNFINISHED_CALL_STATUSES } from '../calls/call-folds.js';
import type { EventLog } from '../event-log.js';
import { inIdOrder } from '../in-id-order.js';
import { type FileQuota, PrismaSessionFiles } from './session-files.js';
import { firstCharacters, longerThan, MAX_IDENTIFIER_LENGTH } from '../../model/text.js';
import { toStorable, toStorableText } from '../../model/storable-json.js';

/** One entry of a `sessionFiles` page: its content cut at the listing's cap. */
export interface ListedFile {
  id: string;
  path: string;
  isDirectory: boolean;
  size: number;
  content: string | null;
  /** True when `content` is only the first part of the file (read the rest with `sessionFile`). */
  contentTruncated: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface SessionServiceOptions {
  /** The deployment's file store quotas (a tenant's own lower ones are read with each write). */
  fileQuota: FileQuota;
  /** `sessionFiles` returns at most this many characters of a file's content. */
  maxContentChars: number;
}

/** What a session made for an MCP session holds under `metadata.mcp`. */
type McpSessionRecord = {
  client: string | null;
  closedAt: string | null;
};

const MAX_MCP_CLIENT_NAME = 200;

/** The kinds of session messages (a background run's completion message is the only one). */
export const BACKGROUND_RUN_MESSAGE = 'background_run';
export const SESSION_MESSAGE_KINDS: readonly string[] = [BACKGROUND_RUN_MESSAGE];
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function mcpRecordOf(session: Session): McpSessionRecord | null {
  const metadata = session.metadata as { mcp?: unknown } | null;
  const mcp = metadata?.mcp as Partial<McpSessionRecord> | undefined;
  return mcp && typeof mcp === 'object' && !Array.isArray(mcp) ? { client: mcp.client ?? null, closedAt: mcp.closedAt ?? null } : null;
}

export class SessionService {
  constructor(
    private readonly db: Db,
    private readonly eventLog: EventLog,
    private readonly options: SessionServiceOptions,
  ) {}

  async create(tenantId: string, input: { title?: string | null; metadata?: unknown }): Promise<Session> {
    if (input.title !== undefined && input.title !== null && longerThan(input.title, 500)) {
      throw new ValidationError('title must be at most 500 characters', 'title');
    }
    if (input.metadata !== undefined && input.metadata !== null && (typeof input.metadata !== 'object' || Array.isArray(input.metadata))) {
      throw new ValidationError('metadata must be a JSON object', 'metadata');
    }
    if (holdsOverlongKey(input.metadata)) throw new ValidationError(`metadata keys must be at most ${MAX_IDENTIFIER_LENGTH} characters`, 'metadata');
    // Every create inserts a new row (a fresh id, nothing to deduplicate), so each announces itself once.
    const id = randomUUID();
    const { result: session, events } = await this.eventLog.writeWithPrismaEvents(id, async ({ tx, emit }) => {
      const row = await tx.session.create({
        // Stored in the codec's form, as every JSON column (db.ts restores it): a string starting with its marker, U+E000, is kept exactly.
        data: { id, tenantId, title: input.title ?? null, metadata: input.metadata == null ? undefined : (toStorable(input.metadata) as object) },
      });
      emit({ sessionId: id, type: 'SessionCreated', payload: { title: row.title, metadata: row.metadata, createdAt: row.createdAt.toISOString() } });
      return row;
    });
    // The row as committed: its SessionCreated is its newest event.
    const created = events[0]!;
    return { ...session, eventSeq: BigInt(created.seq), lastActivityAt: new Date(created.createdAt) };
  }

  async get(tenantId: string, sessionId: string): Promise<Session> {
    const session = await this.db.session.findFirst({ where: { id: sessionId, tenantId } });
    if (!session) throw new NotFoundError('Session', sessionId);
    return session;
  }

  /**
   * The session of an MCP client's session on `/mcp`: the session's id is the `Mcp-Session-Id`,
   * so any API process can serve it (`server/mcp-endpoint.ts`).
   */
  openMcpSession(tenantId: string, clientName: string | null): Promise<Session> {
    // Cut by characters, as every limit counts them: a cut by UTF-16 units could keep half of a pair, which jsonb refuses.
    const client = clientName ? firstCharacters(clientName, MAX_MCP_CLIENT_NAME) : null;
    const mcp: McpSessionRecord = { client, closedAt: null };
    return this.create(tenantId, { title: `MCP session${client ? ` (${client})` : ''}`, metadata: { mcp } });
  }

  /** The tenant's open MCP session with this id; null when unknown, another tenant's, not an MCP session, or closed. */
  async findMcpSession(tenantId: string, mcpSessionId: string): Promise<Session | null> {
    if (!UUID_PATTERN.test(mcpSessionId)) return null;
    const session = await this.db.session.findFirst({ where: { id: mcpSessionId, tenantId } });
    const mcp = session && mcpRecordOf(session);
    return mcp && mcp.closedAt === null ? session : null;
  }

  /** Ends an MCP session (the client's DELETE): later requests naming it are refused; its calls and runs stay. */
  async closeMcpSession(tenantId: string, mcpSessionId: string): Promise<void> {
    const session = await this.findMcpSession(tenantId, mcpSessionId);
    if (!session) return;
    const mcp: McpSessionRecord = { ...mcpRecordOf(session)!, closedAt: new Date().toISOString() };
    await this.db.session.update({ where: { id: session.id }, data: { metadata: toStorable({ ...(session.metadata as object), mcp }) } });
  }

  /** Throws NotFoundError unless the session exists and is the tenant's. */
  async assertExists(tenantId: string, sessionId: string): Promise<void> {
    const session = await this.db.session.findFirst({ where: { id: sessionId, tenantId }, select: { id: true } });
    if (!session) throw new NotFoundError('Session', sessionId);
  }

  async load(tenantId: string, ids: readonly string[]): Promise<Array<Session | NotFoundError>> {
    const rows = await this.db.session.findMany({ where: { id: { in: [...ids] }, tenantId } });
    return inIdOrder(ids, rows, 'Session');
  }

  /** A page of the tenant's sessions that match, newest first by `order`; `count` counts them all. */
  async list(tenantId: string, filter: SessionFilter, order: SessionOrder, page: PageRequest): Promise<{ page: Page<Session>; count: () => Promise<number> }> {
    const where = sessionWhere(tenantId, filter);
    const column = order === 'LAST_ACTIVITY' ? 'lastActivityAt' : 'createdAt';
    const after = page.after ? keysetTime(page.after) : null;
    const keyset: Prisma.SessionWhereInput = after ? { OR: [{ [column]: { lt: after.key } }, { [column]: after.key, id: { lt: after.id } }] } : {};
    const rows = await this.db.session.findMany({ where: { AND: [where, keyset] }, orderBy: [{ [column]: 'desc' }, { id: 'desc' }], take: page.first + 1 });
    return { page: toPage(rows, page), count: () => this.db.session.count({ where }) };
  }

  /**
   * A page of the file or directory at `path` and everything below it, sorted by path (keyset:
   * entries after the path `after`, or before `before`), with contents cut at the listing's cap.
   * Only the part of each content that is returned is read from the database.
   */
  async listFiles(
    tenantId: string,
    sessionId: string,
    rawPath: string | null | undefined,
    page: { after?: string | null; before?: string | null; limit: number; inverted: boolean },
  ): Promise<ListedFile[]> {
    let path: string;
    try {
      path = normalizePath(rawPath ?? '/');
    } catch (error) {
      throw new ValidationError((error as Error).message, 'path');
    }
    await this.assertExists(tenantId, sessionId);
    const cap = this.options.maxContentChars;
    const below = path === '/' ? '/' : `${path}/`;
    const rows = await this.db.$queryRaw<Array<Omit<ListedFile, 'size'> & { size: number | bigint }>>`
      SELECT id::text AS id, path, is_directory AS "isDirectory", size, left(content, ${cap}::int) AS content,
             coalesce(char_length(content) > ${cap}::int, false) AS "contentTruncated", created_at AS "createdAt", updated_at AS "updatedAt"
        FROM session_file
       WHERE session_id = ${sessionId}::uuid
         AND (path = ${path} OR (path >= ${below} AND left(path, ${below.length}::int) = ${below}))
         ${page.after ? Prisma.sql`AND path > ${page.after}` : Prisma.empty}
         ${page.before ? Prisma.sql`AND path < ${page.before}` : Prisma.empty}
       ORDER BY path ${page.inverted ? Prisma.sql`DESC` : Prisma.sql`ASC`}
       LIMIT ${page.limit}`;
    return rows.map((row) => ({ ...row, size: Number(row.size) }));
  }

  /** One entry with its whole content, or null when nothing is at the path. */
  async fileAt(tenantId: string, sessionId: string, rawPath: string): Promise<ListedFile | null> {
    let path: string;
    try {
      path = normalizePath(rawPath);
    } catch (error) {
      throw new ValidationError((error as Error).message, 'path');
    }
    await this.assertExists(tenantId, sessionId);
    const row = await this.db.sessionFile.findUnique({ where: { sessionId_path: { sessionId, path } } });
    return row && { ...row, contentTruncated: false };
  }

  /** What all the tenant's session file stores hold. */
  async tenantFileUsage(tenantId: string): Promise<{ bytes: number; files: number }> {
    const row = await this.db.tenantFileUsage.findUnique({ where: { tenantId } });
    return { bytes: Number(row?.bytes ?? 0), files: row?.files ?? 0 };
  }

  /** What one session's file store holds. */
  async sessionFileUsage(sessionId: string): Promise<{ bytes: number; files: number }> {
    const row = await this.db.sessionFileUsage.findUnique({ where: { sessionId } });
    return { bytes: Number(row?.bytes ?? 0), files: row?.files ?? 0 };
  }

  /** Messages of a session, oldest first. */
  async listMessages(tenantId: string, sessionId: string, kind?: string | null): Promise<SessionMessage[]> {
    // A kind no message has (a typo) is refused, as tasks(kind:) refuses one, rather than answered with nothing.
    if (kind != null && !SESSION_MESSAGE_KINDS.includes(kind)) throw new ValidationError(`kind must be one of ${SESSION_MESSAGE_KINDS.join(', ')}`, 'kind');
    const [, messages] = await Promise.all([
      this.assertExists(tenantId, sessionId),
      this.db.sessionMessage.findMany({
        where: { sessionId, session: { tenantId }, ...(kind != null ? { kind } : {}) },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      }),
    ]);
    return messages;
  }

  /** The session's file store, as tools use it. */
  files(sessionId: string): SessionFiles {
    return new PrismaSessionFiles(this.db, sessionId, this.options.fileQuota);
  }

  /** Replaces the session's todo list (the write_todos tool). */
  async setTodos(sessionId: string, todos: unknown[]): Promise<void> {
    // The todos are a tool's arguments, kept losslessly as those are (U+0000 and lone surrogates included).
    await this.db.session.update({ where: { id: sessionId }, data: { todos: toStorable(todos) as object[] } });
  }
}

export type SessionOrder = 'CREATED_AT' | 'LAST_ACTIVITY';

export interface SessionFilter {
  /** Case-insensitive substring of the title. */
  titleContains?: string | null;
  idPrefix?: string | null;
  /** The metadata contains this JSON object (PostgreSQL `@>`). */
  metadataContains?: unknown;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
  activeAfter?: Date | null;
  /** Only sessions with (or without) calls awaiting approval. */
  hasPendingApprovals?: boolean | null;
  /** ACTIVE: with a call not final yet; IDLE: without. */
  status?: 'ACTIVE' | 'IDLE' | null;
}

/** Whether a JSON value holds a key longer than MAX_IDENTIFIER_LENGTH, at any depth (walked without recursion). */
function holdsOverlongKey(value: unknown): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
      continue;
    }
    for (const [key, child] of Object.entries(node)) {
      if (longerThan(key, MAX_IDENTIFIER_LENGTH)) return true;
      stack.push(child);
    }
  }
  return false;
}

/** The leaf values of nested objects with their paths: `{a: {b: 1}}` contains what has a.b = 1. */
/** The leaves of a JSON object with their paths; no more than `limit` + 1 of them (the rest is not walked). */
function leaves(object: Record<string, unknown>, limit: number): Array<[string[], unknown]> {
  const found: Array<[string[], unknown]> = [];
  const walk = (node: Record<string, unknown>, prefix: string[]): void => {
    for (const key in node) {
      if (found.length > limit) return;
      if (!Object.hasOwn(node, key)) continue;
      const value = node[key];
      if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) walk(value as Record<string, unknown>, [...prefix, key]);
      else found.push([[...prefix, key], value]);
    }
  };
  walk(object, []);
  return found;
}

/** The ids that start with a prefix of hex digits, as a range (the primary key's index serves it). */
function idRangeOf(prefix: string): { gte: string; lte: string } {
  const digits = prefix.trim().toLowerCase().replaceAll('-', '');
  if (!/^[0-9a-f]{4,32}$/.test(digits)) throw new ValidationError('idPrefix must be 4 to 32 hex digits of a session id (dashes ignored)', 'idPrefix');
  const asUuid = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { gte: asUuid(digits.padEnd(32, '0')), lte: asUuid(digits.padEnd(32, 'f')) };
}

function sessionWhere(tenantId: string, filter: SessionFilter): Prisma.SessionWhereInput {
  checkTimeWindow(filter.createdAfter, filter.createdBefore, 'createdAfter', 'createdBefore');
  const and: Prisma.SessionWhereInput[] = [{ tenantId }];
  // Prisma passes `contains` to ILIKE as it is: its wildcards and escape character are escaped here.
  if (filter.titleContains) and.push({ title: { contains: filter.titleContains.replace(/[\\%_]/g, '\\$&'), mode: 'insensitive' } });
  if (filter.idPrefix !== undefined && filter.idPrefix !== null) and.push({ id: idRangeOf(filter.idPrefix) });
  if (filter.metadataContains !== undefined && filter.metadataContains !== null) {
    if (typeof filter.metadataContains !== 'object' || Array.isArray(filter.metadataContains)) throw new ValidationError('metadataContains must be a JSON object', 'metadataContains');
    const matched = leaves(filter.metadataContains as Record<string, unknown>, MAX_FILTER_VALUES);
    checkFilterValues(matched.length, 'metadataContains');
    // Matched against the stored (codec) form of the metadata.
    for (const [path, value] of matched) and.push({ metadata: { path: path.map(toStorableText), equals: toStorable(value) as Prisma.InputJsonValue } });
  }
  // [createdAfter, createdBefore), as every time window (`queuedAfter`/`queuedBefore`): windows that
  // meet lose no session between them, and any window checkTimeWindow accepts can match one.
  if (filter.createdAfter) and.push({ createdAt: { gte: filter.createdAfter } });
  if (filter.createdBefore) and.push({ createdAt: { lt: filter.createdBefore } });
  if (filter.activeAfter) and.push({ lastActivityAt: { gt: filter.activeAfter } });
  // The calls looked for are the tenant's unfinished ones: read through tool_call_unfinished_idx (the
  // tenant, and `completed_at IS NULL` for its predicate, said beside the status), not through every
  // call of each session.
  if (typeof filter.hasPendingApprovals === 'boolean') {
    const pending: Prisma.SessionWhereInput = { calls: { some: { tenantId, status: 'AWAITING_APPROVAL', completedAt: null } } };
    and.push(filter.hasPendingApprovals ? pending : { NOT: pending });
  }
  if (filter.status) {
    const active: Prisma.SessionWhereInput = { calls: { some: { tenantId, status: { in: [...UNFINISHED_CALL_STATUSES] }, completedAt: null } } };
    and.push(filter.status === 'ACTIVE' ? active : { NOT: active });
  }
  return { AND: and };
}
