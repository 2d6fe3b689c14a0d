// Root fields of sessions and their files and messages.
import { orNull } from '../model/errors.js';
import { pageRequest } from '../model/keyset.js';
import { builder } from '../schema/builder.js';
import { byTime, keysetConnection } from '../schema/connections.js';
import { SessionConnectionRef, SessionFileRef, SessionFilterInput, SessionMessageRef, SessionOrderEnum, SessionRef } from '../schema/session.js';
import { localId } from './global-ids.js';

builder.queryFields((t) => ({
  session: t.field({
    type: SessionRef,
    nullable: true,
    authScopes: { reader: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, { services, viewer }) => orNull(() => services.sessions.get(viewer.tenantId, localId(args.id, 'Session'))),
  }),
  sessions: t.connection(
    {
      type: SessionRef,
      authScopes: { reader: true },
      description: 'The tenant’s sessions, newest first by `orderBy`, filtered; pages of up to 100 with stable cursors',
      args: {
        filter: t.arg({ type: SessionFilterInput, description: 'Only sessions matching this' }),
        orderBy: t.arg({ type: SessionOrderEnum, defaultValue: 'CREATED_AT', description: 'Newest first by creation (default) or by last activity' }),
      },
      resolve: async (_root, args, { services, viewer }) => {
        const request = pageRequest(args);
        const order = args.orderBy ?? 'CREATED_AT';
        const { page, count } = await services.sessions.list(viewer.tenantId, args.filter ?? {}, order, request);
        return keysetConnection(page, request, byTime((session) => (order === 'LAST_ACTIVITY' ? session.lastActivityAt : session.createdAt)), count);
      },
    },
    SessionConnectionRef,
  ),
  sessionFiles: t.field({
    type: [SessionFileRef],
    authScopes: { reader: true },
    description: 'The file or directory at `path` (default `/`) and everything below it, with contents (at most 1,000 entries)',
    args: { sessionId: t.arg.id({ required: true }), path: t.arg.string() },
    resolve: (_root, args, { services, viewer }) => services.sessions.listFiles(viewer.tenantId, localId(args.sessionId, 'Session'), args.path),
  }),
  sessionMessages: t.field({
    type: [SessionMessageRef],
    authScopes: { reader: true },
    description: 'Messages of a session, oldest first',
    args: { sessionId: t.arg.id({ required: true }), kind: t.arg.string() },
    resolve: (_root, args, { services, viewer }) => services.sessions.listMessages(viewer.tenantId, localId(args.sessionId, 'Session'), args.kind),
  }),
}));

builder.mutationFields((t) => ({
  createSession: t.field({
    type: SessionRef,
    authScopes: { submitter: true },
    errors: {},
    args: { title: t.arg.string(), metadata: t.arg({ type: 'JSON' }) },
    resolve: (_root, args, { services, viewer }) => services.sessions.create(viewer.tenantId, args),
  }),
}));
