import { resolveOffsetConnection } from '@pothos/plugin-relay';
import type { Session } from '../generated/prisma/client.js';
import { encodeEventCursor } from '../realtime/cursors.js';
import { createSession, findSession, listSessions, loadSessions } from '../resolvers/sessions.js';
import { builder } from './builder.js';

export const SessionRef = builder.loadableNodeRef<Session | Error, string, string>('Session', {
  id: { resolve: (session) => session.id },
  load: (ids, context) => loadSessions(context, ids),
});

SessionRef.implement({
  description: 'The scope of tool calls, batches, tasks, files and messages.',
  fields: (t) => ({
    sessionId: t.exposeString('id', { description: 'The raw session id (the `id` field is its Relay global id)' }),
    title: t.exposeString('title', { nullable: true }),
    metadata: t.expose('metadata', { type: 'JSON', nullable: true }),
    todos: t.expose('todos', { type: 'JSON' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastEventCursor: t.string({
      nullable: true,
      description: 'Cursor of the newest event; subscribe with `after` set to it to receive only what follows',
      resolve: (session) => (session.eventSeq > 0n ? encodeEventCursor(session.id, Number(session.eventSeq)) : null),
    }),
  }),
});

builder.queryFields((t) => ({
  session: t.field({
    type: SessionRef,
    nullable: true,
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => findSession(context, String(args.id)).catch(() => null),
  }),
  sessions: t.connection({
    type: SessionRef,
    authScopes: { authenticated: true },
    resolve: (_root, args, context) => resolveOffsetConnection({ args }, ({ offset, limit }) => listSessions(context, offset, limit)),
  }),
}));

builder.mutationFields((t) => ({
  createSession: t.field({
    type: SessionRef,
    authScopes: { authenticated: true },
    errors: {},
    args: { title: t.arg.string(), metadata: t.arg({ type: 'JSON' }) },
    resolve: (_root, args, context) => createSession(context, args),
  }),
}));
