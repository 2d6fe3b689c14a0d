// Root fields of sessions and their files and messages.
import { resolveCursorConnection } from '@pothos/plugin-relay';
import type { ListedFile } from '../domain/sessions/sessions.js';
import { orNull, ValidationError } from '../model/errors.js';
import { pageRequest } from '../model/keyset.js';
import { builder } from '../schema/builder.js';
import { byTime, keysetConnection } from '../schema/connections.js';
import { SessionConnectionRef, SessionFileRef, SessionFilterInput, SessionMessageRef, SessionOrderEnum, SessionRef } from '../schema/session.js';
import { localId } from './global-ids.js';
import { MAX_IDENTIFIER_LENGTH } from '../model/text.js';

const MAX_FILES_PAGE = 200;

builder.queryFields((t) => ({
  session: t.field({
    description: 'A session by its id; null when there is none',
    type: SessionRef,
    nullable: true,
    authScopes: { reader: true },
    args: { id: t.arg.id({ description: 'The session (its Relay id or raw id)', required: true }) },
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
        const order = args.orderBy ?? 'CREATED_AT';
        const request = pageRequest(args, `sessions-by-${order}`);
        const { page, count } = await services.sessions.list(viewer.tenantId, args.filter ?? {}, order, request);
        return keysetConnection(page, request, byTime((session) => (order === 'LAST_ACTIVITY' ? session.lastActivityAt : session.createdAt)), count);
      },
    },
    SessionConnectionRef,
  ),
  sessionFiles: t.connection({
    type: SessionFileRef,
    authScopes: { reader: true },
    description:
      `The file or directory at \`path\` (default \`/\`) and everything below it, sorted by path, in pages (default 50, at most ${MAX_FILES_PAGE} entries); contents longer than SESSION_FILES_MAX_CONTENT_CHARS are cut (\`contentTruncated\`), \`sessionFile\` reads one whole`,
    args: { sessionId: t.arg.id({ description: 'The session (its Relay id or raw id)', required: true }), path: t.arg.string({ description: 'The directory or file to list (default `/`)' }) },
    resolve: async (_root, args, { services, viewer }) => {
      // Checked here: the connection helper would cap an oversized page silently and refuse a negative one without a code.
      for (const field of ['first', 'last'] as const) {
        const size = args[field];
        if (size != null && (size < 0 || size > MAX_FILES_PAGE)) throw new ValidationError(`\`${field}\` must be between 0 and ${MAX_FILES_PAGE}`, field);
      }
      const connection = await resolveCursorConnection<Promise<ListedFile[]>>({ args, defaultSize: 50, maxSize: MAX_FILES_PAGE, toCursor: (file: ListedFile) => Buffer.from(file.path).toString('base64url') }, (page) =>
        services.sessions.listFiles(viewer.tenantId, localId(args.sessionId, 'Session'), args.path, {
          ...page,
          // Only an absent cursor is none: an empty one is refused, as in every other list.
          after: page.after != null ? pathOfCursor(page.after, 'after') : null,
          before: page.before != null ? pathOfCursor(page.before, 'before') : null,
        }),
      );
      // An empty page has no cursors (the helper gives "" for them, which no argument accepts), as every other list.
      if (connection.edges.length > 0) return connection;
      return { ...connection, pageInfo: { ...connection.pageInfo, startCursor: null, endCursor: null } };
    },
  }),
  sessionFile: t.field({
    type: SessionFileRef,
    nullable: true,
    authScopes: { reader: true },
    description: 'The file or directory at `path` with its whole content; null when nothing is there',
    args: { sessionId: t.arg.id({ description: 'The session (its Relay id or raw id)', required: true }), path: t.arg.string({ description: 'Absolute path of the entry', required: true }) },
    resolve: (_root, args, { services, viewer }) => services.sessions.fileAt(viewer.tenantId, localId(args.sessionId, 'Session'), args.path),
  }),
  sessionMessages: t.field({
    type: [SessionMessageRef],
    authScopes: { reader: true },
    description: 'Messages of a session, oldest first',
    args: { sessionId: t.arg.id({ description: 'The session (its Relay id or raw id)', required: true }), kind: t.arg.string({ description: 'Only messages of this kind: `background_run` (another kind is a VALIDATION_FAILED error naming `kind`)' }) },
    resolve: (_root, args, { services, viewer }) => services.sessions.listMessages(viewer.tenantId, localId(args.sessionId, 'Session'), args.kind),
  }),
}));

builder.mutationFields((t) => ({
  createSession: t.field({
    description: 'Creates a session: the scope of batches, tasks, files and messages',
    type: SessionRef,
    authScopes: { submitter: true },
    errors: { types: [ValidationError] },
    args: { title: t.arg.string({ description: 'A title for people (at most 500 characters)' }), metadata: t.arg({ description: `A JSON object of your own, filterable with \`sessions(filter: {metadataContains})\`; its keys, at any depth, at most ${MAX_IDENTIFIER_LENGTH} characters`, type: 'JSON' }) },
    resolve: (_root, args, { services, viewer }) => services.sessions.create(viewer.tenantId, args),
  }),
}));

/** A `sessionFiles` cursor is the entry's path, base64url-encoded. */
function pathOfCursor(cursor: string, field: 'after' | 'before'): string {
  const path = Buffer.from(cursor, 'base64url').toString('utf8');
  // No stored path holds a NUL (nor could PostgreSQL compare one).
  if (!path.startsWith('/') || path.includes('\u0000') || Buffer.from(path).toString('base64url') !== cursor) throw new ValidationError(`${field} is not a sessionFiles cursor`, field);
  return path;
}
