import type { Db } from '../../db.js';
import type { Session } from '../../generated/prisma/client.js';
import { NotFoundError, ValidationError } from '../../model/errors.js';

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
}
