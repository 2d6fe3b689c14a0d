// Sessions: the scope of calls, batches, tasks, schedules, files and messages (DESIGN.md §5).
// Every read is scoped to the viewer's tenant; a session of another tenant is one that does not
// exist.
import type { Db } from '../../db.js';
import type { Session, SessionFile, SessionMessage } from '../../generated/prisma/client.js';
import { NotFoundError, ValidationError } from '../../model/errors.js';
import { normalizePath, type SessionFiles } from '../../tools/session-files.js';
import { inIdOrder } from '../in-id-order.js';
import { PrismaSessionFiles } from './session-files.js';

/** `sessionFiles` returns at most this many entries. */
const MAX_LISTED_FILES = 1000;

export class SessionService {
  constructor(private readonly db: Db) {}

  async create(tenantId: string, input: { title?: string | null; metadata?: unknown }): Promise<Session> {
    if (input.title !== undefined && input.title !== null && input.title.length > 500) {
      throw new ValidationError('title must be at most 500 characters', 'title');
    }
    if (input.metadata !== undefined && input.metadata !== null && (typeof input.metadata !== 'object' || Array.isArray(input.metadata))) {
      throw new ValidationError('metadata must be a JSON object', 'metadata');
    }
    return this.db.session.create({
      data: { tenantId, title: input.title ?? null, metadata: (input.metadata ?? undefined) as object | undefined },
    });
  }

  async get(tenantId: string, sessionId: string): Promise<Session> {
    const session = await this.db.session.findFirst({ where: { id: sessionId, tenantId } });
    if (!session) throw new NotFoundError('Session', sessionId);
    return session;
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

  /** The tenant's sessions, newest first. */
  list(tenantId: string, offset: number, limit: number): Promise<Session[]> {
    return this.db.session.findMany({ where: { tenantId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: offset, take: limit });
  }

  /** The file or directory at `path` and everything below it, with contents, sorted by path. */
  async listFiles(tenantId: string, sessionId: string, rawPath: string | null | undefined): Promise<SessionFile[]> {
    let path: string;
    try {
      path = normalizePath(rawPath ?? '/');
    } catch (error) {
      throw new ValidationError((error as Error).message, 'path');
    }
    const prefix = path === '/' ? '/' : `${path}/`;
    const [, rows] = await Promise.all([
      this.assertExists(tenantId, sessionId),
      this.db.sessionFile.findMany({
        where: { sessionId, session: { tenantId }, OR: [{ path }, { path: { startsWith: prefix } }] },
        orderBy: { path: 'asc' },
        take: MAX_LISTED_FILES,
      }),
    ]);
    // LIKE wildcards in the prefix (`_` is common in paths) may match more; keep exact descendants only.
    return rows.filter((row) => row.path === path || row.path.startsWith(prefix));
  }

  /** Messages of a session, oldest first. */
  async listMessages(tenantId: string, sessionId: string, kind?: string | null): Promise<SessionMessage[]> {
    const [, messages] = await Promise.all([
      this.assertExists(tenantId, sessionId),
      this.db.sessionMessage.findMany({
        where: { sessionId, session: { tenantId }, ...(kind ? { kind } : {}) },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      }),
    ]);
    return messages;
  }

  /** The session's file store, as tools use it. */
  files(sessionId: string): SessionFiles {
    return new PrismaSessionFiles(this.db, sessionId);
  }

  /** Replaces the session's todo list (the write_todos tool). */
  async setTodos(sessionId: string, todos: unknown[]): Promise<void> {
    await this.db.session.update({ where: { id: sessionId }, data: { todos: todos as object[] } });
  }
}
