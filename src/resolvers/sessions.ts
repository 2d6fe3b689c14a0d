import type { GraphQLContext } from '../schema/context.js';
import { localId } from './global-ids.js';

export function createSession(context: GraphQLContext, args: { title?: string | null; metadata?: unknown }) {
  return context.services.sessions.create(context.viewer.tenantId, args);
}

export async function findSession(context: GraphQLContext, id: string) {
  return context.services.sessions.get(context.viewer.tenantId, localId(id, 'Session'));
}

export function loadSessions(context: GraphQLContext, ids: readonly string[]) {
  return context.services.sessions.load(context.viewer.tenantId, ids);
}

export function listSessions(context: GraphQLContext, offset: number, limit: number) {
  return context.services.sessions.list(context.viewer.tenantId, offset, limit);
}
