// What a graphql-ws connection may hold: its key must stay valid (a revoked or expired key closes
// the socket with 4403), and at most MAX_SUBSCRIPTIONS_PER_SOCKET subscriptions are open at once
// (one more fails that operation only; the socket stays open).
import { type DocumentNode, GraphQLError, getOperationAST } from 'graphql';
import { CloseCode } from 'graphql-ws';
import type { WebSocket } from 'ws';
import type { Viewer } from '../domain/tenants/api-keys.js';
import type { Services } from '../services.js';

/** The close code a client sees when its key was revoked or expired: graphql-ws's Forbidden. */
export const KEY_INVALID_CLOSE_CODE = CloseCode.Forbidden;

export function closeWhenKeyInvalid(services: Services, viewer: Viewer, socket: WebSocket): void {
  const stop = services.apiKeys.watch(viewer, (reason) => socket.close(KEY_INVALID_CLOSE_CODE, `API key ${reason}`));
  socket.once('close', stop);
}

const subscriptionIds = new WeakMap<object, Set<string>>();

/**
 * Counts a subscription operation against its socket's limit; returns the error that refuses it
 * when the socket already has as many open. `ctx.subscriptions` holds the operations still open.
 */
export function countSubscription(
  ctx: { subscriptions: Record<string, unknown> },
  id: string,
  document: DocumentNode,
  operationName: string | null | undefined,
  max: number,
): GraphQLError | null {
  if (getOperationAST(document, operationName)?.operation !== 'subscription') return null;
  let ids = subscriptionIds.get(ctx);
  if (!ids) subscriptionIds.set(ctx, (ids = new Set()));
  for (const open of ids) if (!(open in ctx.subscriptions)) ids.delete(open);
  if (ids.size >= max) {
    return new GraphQLError(`This connection already has ${max} subscriptions open (MAX_SUBSCRIPTIONS_PER_SOCKET); complete one first`, {
      extensions: { code: 'LIMIT_EXCEEDED', limit: 'subscriptionsPerSocket', max },
    });
  }
  ids.add(id);
  return null;
}
