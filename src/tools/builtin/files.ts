// Tools over the session file store (context.files). Failures are the store's typed errors.
import { type FileStat, normalizePath } from '../session-files.js';
import { type BuiltinTool, defineBuiltinTool } from '../types.js';

const MAX_LISTED_ENTRIES = 1000;

const pathSchema = { type: 'string', minLength: 1, maxLength: 1024, description: 'Absolute path in the session file store, e.g. /notes/todo.md' };

function entry(stat: FileStat) {
  return {
    path: stat.path,
    name: stat.name,
    type: stat.isDirectory ? 'directory' : 'file',
    size: stat.size,
    updatedAt: stat.updatedAt.toISOString(),
  };
}

export const readFile = defineBuiltinTool({
  name: 'read_file',
  description:
    'Reads a text file from the session file store. Optional `offset` (0-based first line) and `limit` (number of lines) read part of it; `hasMore` says whether lines follow.',
  parametersSchema: {
    type: 'object',
    properties: {
      path: pathSchema,
      offset: { type: 'integer', minimum: 0, description: '0-based index of the first line to read' },
      limit: { type: 'integer', minimum: 1, description: 'Largest number of lines to read' },
    },
    required: ['path'],
    additionalProperties: false,
  },
  hints: { readonly: true, idempotent: true },
  timeoutMs: 15_000,
  async execute(args, context) {
    const file = await context.files.readFile(args.path as string, { offset: args.offset as number | undefined, limit: args.limit as number | undefined });
    return {
      path: file.path,
      content: file.content,
      size: file.size,
      totalLines: file.totalLines,
      offset: file.offset,
      lineCount: file.lineCount,
      hasMore: file.hasMore,
    };
  },
});

export const writeFile = defineBuiltinTool({
  name: 'write_file',
  description: 'Creates or overwrites a text file in the session file store (missing parent directories are created). Returns its path and size in bytes.',
  parametersSchema: {
    type: 'object',
    properties: { path: pathSchema, content: { type: 'string', description: 'The complete new content' } },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  // Overwrites whatever was there (destructive); writing the same content again changes nothing.
  hints: { idempotent: true, destructive: true },
  scheduling: 'SERIAL',
  timeoutMs: 15_000,
  async execute(args, context) {
    const file = await context.files.writeFile(args.path as string, args.content as string);
    return { path: file.path, size: file.size, created: file.created };
  },
});

export const editFile = defineBuiltinTool({
  name: 'edit_file',
  description:
    'Replaces text in a session file: `oldString` must occur exactly once, or set `replaceAll` to replace every occurrence. Fails when the text is absent or ambiguous.',
  parametersSchema: {
    type: 'object',
    properties: {
      path: pathSchema,
      oldString: { type: 'string', minLength: 1, description: 'Exact text to replace' },
      newString: { type: 'string', description: 'Replacement text' },
      replaceAll: { type: 'boolean', default: false, description: 'Replace every occurrence' },
    },
    required: ['path', 'oldString', 'newString'],
    additionalProperties: false,
  },
  // Not idempotent: a repeated single replacement fails (or, with replaceAll, may match again).
  hints: { destructive: true },
  scheduling: 'SERIAL',
  timeoutMs: 15_000,
  async execute(args, context) {
    const file = await context.files.editFile(args.path as string, args.oldString as string, args.newString as string, args.replaceAll === true);
    return { path: file.path, size: file.size, replacements: file.replacements };
  },
});

export const listDirectory = defineBuiltinTool({
  name: 'list_directory',
  description: `Lists a directory of the session file store (default /), sorted by path; \`recursive\` lists everything below it. At most ${MAX_LISTED_ENTRIES} entries are returned.`,
  parametersSchema: {
    type: 'object',
    properties: { path: { ...pathSchema, default: '/' }, recursive: { type: 'boolean', default: false } },
    additionalProperties: false,
  },
  hints: { readonly: true, idempotent: true },
  timeoutMs: 15_000,
  async execute(args, context) {
    const path = (args.path as string | undefined) ?? '/';
    const entries = await context.files.listDirectory(path, { recursive: args.recursive === true });
    return {
      path,
      entries: entries.slice(0, MAX_LISTED_ENTRIES).map(entry),
      total: entries.length,
      truncated: entries.length > MAX_LISTED_ENTRIES,
    };
  },
});

export const grepFiles = defineBuiltinTool({
  name: 'grep_files',
  description:
    'Searches session files line by line with a regular expression (JavaScript syntax, run on RE2 in linear time: no backreferences or lookarounds). Optional `path` (file or directory, default /), `glob` on file names (e.g. "*.md", or "src/**/*.ts" relative to `path`), `ignoreCase`, `maxMatches` (default 100, at most 1000).',
  parametersSchema: {
    type: 'object',
    properties: {
      pattern: { type: 'string', minLength: 1, maxLength: 1000, description: 'Regular expression source (JavaScript syntax; RE2 semantics)' },
      path: pathSchema,
      glob: { type: 'string', minLength: 1, maxLength: 500 },
      ignoreCase: { type: 'boolean', default: false },
      maxMatches: { type: 'integer', minimum: 1, maximum: 1000 },
    },
    required: ['pattern'],
    additionalProperties: false,
  },
  hints: { readonly: true, idempotent: true },
  timeoutMs: 30_000,
  async execute(args, context) {
    const result = await context.files.grep(args.pattern as string, {
      path: args.path as string | undefined,
      glob: args.glob as string | undefined,
      ignoreCase: args.ignoreCase === true,
      maxMatches: args.maxMatches as number | undefined,
      signal: context.signal,
    });
    return { matches: result.matches, count: result.matches.length, truncated: result.truncated, filesSearched: result.filesSearched };
  },
});

export const deleteFile = defineBuiltinTool({
  name: 'delete_file',
  description: 'Deletes a file or an empty directory from the session file store; `recursive` deletes a directory with everything below it. Each call waits for an approver.',
  parametersSchema: {
    type: 'object',
    properties: { path: pathSchema, recursive: { type: 'boolean', default: false } },
    required: ['path'],
    additionalProperties: false,
  },
  // Not idempotent: deleting again fails with file_not_found.
  hints: { destructive: true },
  // Irreversible: a person approves each call (approveToolCall / rejectToolCall).
  policy: 'REQUIRES_APPROVAL',
  scheduling: 'SERIAL',
  timeoutMs: 15_000,
  async execute(args, context) {
    const result = await context.files.deleteFile(args.path as string, { recursive: args.recursive === true });
    return { path: result.path, type: result.isDirectory ? 'directory' : 'file', deleted: result.deleted };
  },
});

export const statFile = defineBuiltinTool({
  name: 'stat_file',
  description: 'Tells whether a path exists in the session file store and, if so, its type, size and timestamps.',
  parametersSchema: {
    type: 'object',
    properties: { path: pathSchema },
    required: ['path'],
    additionalProperties: false,
  },
  hints: { readonly: true, idempotent: true },
  timeoutMs: 15_000,
  async execute(args, context) {
    const stat = await context.files.stat(args.path as string);
    if (!stat) return { path: normalizePath(args.path), exists: false };
    return { exists: true, ...entry(stat), createdAt: stat.createdAt.toISOString() };
  },
});

export const fileTools: BuiltinTool[] = [readFile, writeFile, editFile, listDirectory, grepFiles, deleteFile, statFile];
