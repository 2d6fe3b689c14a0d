// Sessions and what they hold besides calls and tasks: files and messages.
import type { ListedFile } from '../domain/sessions/sessions.js';
import type { Session, SessionMessage } from '../generated/prisma/client.js';
import { encodeEventCursor } from '../realtime/cursors.js';
import { builder } from './builder.js';
import { FileUsageRef } from './tenant.js';
import type { KeysetConnection } from './connections.js';

export const SessionRef = builder.loadableNodeRef<Session | Error, string, string>('Session', {
  id: { resolve: (session) => session.id },
  load: (ids, { services, viewer }) => services.sessions.load(viewer.tenantId, ids),
});

SessionRef.implement({
  description: 'The scope of tool calls, batches, tasks, files and messages.',
  fields: (t) => ({
    sessionId: t.exposeString('id', { description: 'The raw session id (the `id` field is its Relay global id)' }),
    title: t.exposeString('title', { nullable: true, description: 'Title given at creation' }),
    metadata: t.expose('metadata', { type: 'JSON', nullable: true, description: 'JSON object given at creation' }),
    todos: t.expose('todos', { type: 'JSON', description: 'The todo list the `write_todos` tool keeps' }),
    createdAt: t.expose('createdAt', { description: 'When the session was created', type: 'DateTime' }),
    lastActivityAt: t.expose('lastActivityAt', { type: 'DateTime', description: 'Time of the newest event of the session (its creation time until it has one)' }),
    lastEventCursor: t.string({
      description: 'Cursor of the newest event (before the first one: the session’s start); subscribe with `after` set to it to receive everything that follows, with no gap',
      resolve: (session) => encodeEventCursor(session.id, Number(session.eventSeq)),
    }),
    fileUsage: t.field({
      type: FileUsageRef,
      description: 'What the session’s file store holds (counted against the tenant’s `limits.sessionFileBytes` and `limits.sessionFiles`)',
      resolve: (session, _args, { services }) => services.sessions.sessionFileUsage(session.id),
    }),
  }),
});

export const SessionFileRef = builder.objectRef<ListedFile>('SessionFile').implement({
  description: 'A file or directory of the session file store.',
  fields: (t) => ({
    path: t.exposeString('path', { description: 'Absolute path in the session’s file store, e.g. `/notes/todo.md`' }),
    name: t.string({ description: 'The last segment of the path', resolve: (file) => file.path.slice(file.path.lastIndexOf('/') + 1) }),
    isDirectory: t.exposeBoolean('isDirectory', { description: 'True for a directory, false for a file' }),
    size: t.exposeInt('size', { description: 'UTF-8 bytes of the content' }),
    content: t.exposeString('content', {
      nullable: true,
      description: 'Text content (null for directories). In `sessionFiles` at most SESSION_FILES_MAX_CONTENT_CHARS characters: see `contentTruncated`',
    }),
    contentTruncated: t.exposeBoolean('contentTruncated', {
      description: 'True when `content` is only the beginning of the file (listings cut long contents); `sessionFile` returns it whole',
    }),
    createdAt: t.expose('createdAt', { description: 'When the entry was created', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { description: 'When the entry was last written', type: 'DateTime' }),
  }),
});

export const SessionMessageRef = builder.objectRef<SessionMessage>('SessionMessage').implement({
  description: 'A message added to the session, e.g. by a finished background run (kind `background_run`).',
  fields: (t) => ({
    messageId: t.exposeString('id', { description: 'The message’s id' }),
    kind: t.exposeString('kind', { description: 'What added the message, e.g. `background_run`' }),
    text: t.exposeString('text', { description: 'The message for the model or people' }),
    data: t.expose('data', { description: 'Structured details, e.g. the run’s ids and outcome', type: 'JSON', nullable: true }),
    createdAt: t.expose('createdAt', { description: 'When the message was added', type: 'DateTime' }),
  }),
});

export const SessionOrderEnum = builder.enumType('SessionOrder', {
  description: 'How `sessions` are ordered (newest first either way)',
  values: {
    CREATED_AT: { description: 'By creation time' },
    LAST_ACTIVITY: { description: 'By the time of the newest event' },
  } as const,
});

export const SessionStatusEnum = builder.enumType('SessionStatus', {
  description: 'Whether a session has work under way',
  values: { ACTIVE: { description: 'A call is not final yet' }, IDLE: { description: 'Every call is final (or there is none)' } } as const,
});

export const SessionFilterInput = builder.inputType('SessionFilter', {
  description: 'Sessions that match every given condition',
  fields: (t) => ({
    titleContains: t.string({ description: 'Case-insensitive substring of the title' }),
    idPrefix: t.string({ description: 'The first hex digits of the session id (4 to 32; dashes ignored), e.g. the 8 the dashboard shows' }),
    metadataContains: t.field({ type: 'JSON', description: 'A JSON object the metadata contains (nested objects match key by key)' }),
    createdAfter: t.field({ type: 'DateTime', description: 'Created at or after this time (the window is `[createdAfter, createdBefore)`, as `queuedAfter`/`queuedBefore`: windows that meet lose nothing between them); with `createdBefore`, it must be before it (an empty or inverted window is a VALIDATION_FAILED error naming `createdAfter`)' }),
    createdBefore: t.field({ type: 'DateTime', description: 'Created before this time (after `createdAfter`, when both are given)' }),
    activeAfter: t.field({ type: 'DateTime', description: 'With an event after this time' }),
    hasPendingApprovals: t.boolean({ description: 'With (true) or without (false) calls awaiting approval' }),
    status: t.field({ type: SessionStatusEnum, description: 'ACTIVE: with a call that is not final yet; IDLE: without' }),
  }),
});

export const SessionConnectionRef = builder.connectionObject(
  {
    type: SessionRef,
    name: 'SessionConnection',
    description: 'A page of sessions',
    fields: (t) => ({
      totalCount: t.int({ description: 'Sessions matching the filter, in all pages (counted only when selected)', resolve: (connection) => (connection as unknown as KeysetConnection<Session>).count() }),
    }),
  },
  { name: 'SessionEdge', description: 'A session and its cursor' },
);
