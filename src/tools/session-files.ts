// The session file store as tools see it (context.files): a small virtual file system per
// session. Paths are absolute POSIX paths; content is text only. Failures are typed tool
// failures (ToolFailureError), so a tool can let them through as its own. The store itself is
// src/domain/sessions/session-files.ts.
import { type FailureClass, ToolFailureError } from '../model/outcome.js';
import { LONE_SURROGATE } from '../model/storable-json.js';
import { characters, cutAt, longerThan } from '../model/text.js';

/** Largest file content, in UTF-8 bytes. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
export const MAX_PATH_LENGTH = 1024;
/** A path's UTF-8 bytes: PostgreSQL indexes (session, path) in a btree, whose entries hold at most 2,704 bytes. */
export const MAX_PATH_BYTES = 2048;
const MAX_SEGMENT_LENGTH = 255;

export interface FileStat {
  path: string;
  name: string;
  isDirectory: boolean;
  /** UTF-8 bytes of the content; 0 for directories. */
  size: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface ReadFileOptions {
  /** 0-based index of the first line to return. */
  offset?: number;
  /** Largest number of lines to return. */
  limit?: number;
}

export interface ReadFileResult extends FileStat {
  /** The requested lines, verbatim (line endings kept); the whole file without offset/limit. */
  content: string;
  totalLines: number;
  /** 0-based index of the first returned line. */
  offset: number;
  /** Number of lines returned. */
  lineCount: number;
  /** True when lines follow the returned ones. */
  hasMore: boolean;
}

export interface WriteFileResult extends FileStat {
  /** False when an existing file was overwritten. */
  created: boolean;
}

export interface EditFileResult extends FileStat {
  replacements: number;
}

export interface ListDirectoryOptions {
  recursive?: boolean;
}

export interface GrepOptions {
  /** File or directory to search (default `/`). */
  path?: string;
  /** Glob on paths: without `/` it matches the file name, with `/` the path below `path`. */
  glob?: string;
  ignoreCase?: boolean;
  /** Default 100, at most 1000. */
  maxMatches?: number;
  /** Stops the search (its worker thread) when it fires. */
  signal?: AbortSignal;
}

export interface GrepMatch {
  path: string;
  /** 1-based line number. */
  line: number;
  text: string;
}

export interface GrepResult {
  matches: GrepMatch[];
  /** True when more matches exist than were returned. */
  truncated: boolean;
  filesSearched: number;
}

export interface DeleteFileOptions {
  recursive?: boolean;
}

export interface DeleteFileResult {
  path: string;
  isDirectory: boolean;
  /** Rows removed: 1 for a file, the directory and everything below it otherwise. */
  deleted: number;
}

export interface SessionFiles {
  readFile(path: string, options?: ReadFileOptions): Promise<ReadFileResult>;
  /** Creates or overwrites a file; creates missing parent directories. */
  writeFile(path: string, content: string): Promise<WriteFileResult>;
  /** Replaces `oldString` (exactly once, or every occurrence with `replaceAll`). */
  editFile(path: string, oldString: string, newString: string, replaceAll?: boolean): Promise<EditFileResult>;
  /** Entries below a directory, sorted by path. */
  listDirectory(path: string, options?: ListDirectoryOptions): Promise<FileStat[]>;
  /** Searches file contents line by line with a regular expression (JavaScript syntax, run on RE2). */
  grep(pattern: string, options?: GrepOptions): Promise<GrepResult>;
  deleteFile(path: string, options?: DeleteFileOptions): Promise<DeleteFileResult>;
  /** Null when nothing exists at the path. */
  stat(path: string): Promise<FileStat | null>;
  /** Creates a directory and its parents; succeeds when it already exists. */
  mkdir(path: string): Promise<FileStat>;
  /** Appends to a file, creating it (and its parents) when absent. Atomic under concurrency. */
  appendFile(path: string, text: string): Promise<FileStat>;
}

// ---------------------------------------------------------------------------------------------
// Errors

export function fileError(cls: FailureClass, code: string, message: string): ToolFailureError {
  return new ToolFailureError({ class: cls, code, message });
}

/** A path as an error quotes it: at most SHOWN_PATH_CHARS characters of it (a refused path may be huge). */
const SHOWN_PATH_CHARS = 200;
function shownPath(path: unknown): string {
  if (typeof path !== 'string' || path.length <= SHOWN_PATH_CHARS) return JSON.stringify(path);
  return `${JSON.stringify(cutAt(path, SHOWN_PATH_CHARS))}… (${characters(path)} characters)`;
}

export const fileErrors = {
  invalidPath: (path: unknown, why: string) => fileError('INVALID_REQUEST', 'invalid_path', `Invalid path ${shownPath(path)}: ${why}`),
  notFound: (path: string) => fileError('EXECUTION', 'file_not_found', `No such file or directory: ${path}`),
  isDirectory: (path: string) => fileError('INVALID_REQUEST', 'is_a_directory', `${path} is a directory`),
  notDirectory: (path: string) => fileError('INVALID_REQUEST', 'not_a_directory', `${path} is not a directory`),
  parentNotDirectory: (path: string, parent: string) =>
    fileError('INVALID_REQUEST', 'not_a_directory', `Cannot create ${path}: ${parent} is a file, not a directory`),
  fileExists: (path: string) => fileError('INVALID_REQUEST', 'file_exists', `Cannot create directory ${path}: a file exists at that path`),
  notEmpty: (path: string) =>
    fileError('EXECUTION', 'directory_not_empty', `Directory ${path} is not empty (delete it with recursive: true)`),
  tooLarge: (path: string, bytes: number) =>
    fileError('RESOURCE_LIMIT', 'file_too_large', `${path} would be ${bytes} bytes; the limit is ${MAX_FILE_BYTES} bytes`),
  binary: (path: string) =>
    fileError('INVALID_REQUEST', 'invalid_content', `Cannot write ${path}: content contains NUL characters (only text is supported)`),
  unpaired: (path: string) =>
    fileError('INVALID_REQUEST', 'invalid_content', `Cannot write ${path}: content contains an unpaired UTF-16 surrogate (only valid Unicode text is stored)`),
};

// ---------------------------------------------------------------------------------------------
// Paths

/**
 * Normalizes a path: resolves `.` and `..`, collapses repeated slashes, drops a trailing slash.
 * A relative path is taken relative to `/`. Throws INVALID_REQUEST `invalid_path` for an empty
 * path, control characters, a path escaping the root, or overlong paths.
 */
export function normalizePath(input: unknown): string {
  if (typeof input !== 'string') throw fileErrors.invalidPath(input, 'a path must be a string');
  if (input.trim() === '') throw fileErrors.invalidPath(input, 'the path is empty');
  if (input.includes('\0')) throw fileErrors.invalidPath(input, 'the path contains a NUL character');
  if (LONE_SURROGATE.test(input)) throw fileErrors.invalidPath(input, 'the path contains an unpaired UTF-16 surrogate');
  // eslint-disable-next-line no-control-regex
  if (/[\x01-\x1f\x7f]/.test(input)) throw fileErrors.invalidPath(input, 'the path contains control characters');
  const parts: string[] = [];
  for (const segment of input.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) throw fileErrors.invalidPath(input, 'the path escapes the root directory');
      parts.pop();
      continue;
    }
    if (longerThan(segment, MAX_SEGMENT_LENGTH)) throw fileErrors.invalidPath(input, `a path segment is longer than ${MAX_SEGMENT_LENGTH} characters`);
    parts.push(segment);
  }
  const path = `/${parts.join('/')}`;
  if (longerThan(path, MAX_PATH_LENGTH)) throw fileErrors.invalidPath(input, `the path is longer than ${MAX_PATH_LENGTH} characters`);
  if (path.length * 3 > MAX_PATH_BYTES && Buffer.byteLength(path) > MAX_PATH_BYTES) throw fileErrors.invalidPath(input, `the path is longer than ${MAX_PATH_BYTES} bytes in UTF-8`);
  return path;
}
