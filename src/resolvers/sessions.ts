// Root fields of sessions and their files and messages.
import { resolveOffsetConnection } from '@pothos/plugin-relay';
import { orNull } from '../model/errors.js';
import { builder } from '../schema/builder.js';
import { SessionFileRef, SessionMessageRef, SessionRef } from '../schema/session.js';
import { localId } from './global-ids.js';

builder.queryFields((t) => ({
  session: t.field({
    type: SessionRef,
    nullable: true,
    authScopes: { reader: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, { services, viewer }) => orNull(() => services.sessions.get(viewer.tenantId, localId(args.id, 'Session'))),
  }),
  sessions: t.connection({
    type: SessionRef,
    authScopes: { reader: true },
    resolve: (_root, args, { services, viewer }) =>
      resolveOffsetConnection({ args }, ({ offset, limit }) => services.sessions.list(viewer.tenantId, offset, limit)),
  }),
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
