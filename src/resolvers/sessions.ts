import { NotFoundError } from '../model/errors.js';
import type { GraphQLContext } from '../schema/context.js';
import { localId } from './global-ids.js';

export function createSession(context: GraphQLContext, args: { title?: string | null; metadata?: unknown }) {
  return context.services.sessions.create(context.viewer.tenantId, args);
}

export async function findSession(context: GraphQLContext, id: string) {
  return context.services.sessions.get(context.viewer.tenantId, localId(id, 'Session'));
}

export async function loadSessions(context: GraphQLContext, ids: readonly string[]) {
  const rows = await context.services.db.session.findMany({ where: { id: { in: [...ids] }, tenantId: context.viewer.tenantId } });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id) ?? new NotFoundError('Session', id));
}

export function listSessions(context: GraphQLContext, offset: number, limit: number) {
  return context.services.db.session.findMany({
    where: { tenantId: context.viewer.tenantId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    skip: offset,
    take: limit,
  });
}
