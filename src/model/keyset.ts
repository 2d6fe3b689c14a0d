// Keyset pagination: a page is "the first N rows after (orderKey, id)" in a fixed order, so rows
// inserted meanwhile never make a page repeat or skip one. Cursors are opaque to clients.
import { ValidationError } from './errors.js';

/** The position of a row in its list: its order key (a time, in ISO form, or a number) and its id. */
export interface KeysetPosition {
  key: string | number;
  id: string;
}

export interface PageRequest {
  /** Rows to return (the page size). */
  first: number;
  after: KeysetPosition | null;
}

export interface Page<T> {
  rows: T[];
  hasNextPage: boolean;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/**
 * Values a list read may be given to match (a filter's statuses, tools or codes, the leaves of a
 * `metadataContains`, the ids of `nodes`): each is a condition or a parameter of one statement, so
 * an unbounded list held the process (compiling it) and the database (running it) for everyone.
 */
export const MAX_FILTER_VALUES = 100;

/** Refuses a list of more than MAX_FILTER_VALUES values to match, naming its argument. */
export function checkFilterValues(count: number, field: string): void {
  if (count > MAX_FILTER_VALUES) throw new ValidationError(`\`${field}\` holds more than ${MAX_FILTER_VALUES} values; at most ${MAX_FILTER_VALUES} are accepted`, field);
}

/**
 * A filter's "one of these" list: absent is no filter; empty matches nothing and is refused rather
 * than taken as no filter (as `types: []` is), so a client that selected none never reads everything.
 */
export function checkFilterList(values: readonly unknown[] | null | undefined, field: string): void {
  if (values == null) return;
  if (values.length === 0) throw new ValidationError(`\`${field}\` must name at least one value (leave it out for no filter)`, field);
  checkFilterValues(values.length, field);
}

/**
 * A list's time window, wherever one is taken (a filter's pair of bounds, `toolStats`): its start must
 * be before its end. An empty or inverted window can match nothing, so it is refused, naming its start,
 * rather than answered with an empty list a client would take for "nothing happened".
 */
export function checkTimeWindow(start: Date | null | undefined, end: Date | null | undefined, startField: string, endField: string): void {
  if (start && end && start.getTime() >= end.getTime()) throw new ValidationError(`\`${startField}\` must be before \`${endField}\``, startField);
}

/** A page request of one list (`list` names it and its order: a cursor of another list is refused). */
export interface ListPageRequest extends PageRequest {
  list: string;
}

export function encodeKeysetCursor(list: string, position: KeysetPosition): string {
  return Buffer.from(JSON.stringify(['k2', list, position.key, position.id])).toString('base64url');
}

/** Every listed row's id is a UUID. */
const ROW_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A time (checked where it is used) or a position (a 32-bit integer, as the columns hold). */
const isOrderKey = (key: unknown): key is string | number =>
  typeof key === 'string' || (typeof key === 'number' && Number.isInteger(key) && key >= -(2 ** 31) && key < 2 ** 31);

/** The position a cursor of `list` names; anything else (another list's cursor, a malformed one) is refused. */
export function decodeKeysetCursor(cursor: string, list: string, argument = 'after'): KeysetPosition {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    if (Array.isArray(value) && value.length === 4 && value[0] === 'k2' && value[1] === list && isOrderKey(value[2]) && typeof value[3] === 'string' && ROW_ID.test(value[3])) {
      return { key: value[2], id: value[3] };
    }
  } catch {
    // reported below
  }
  throw new ValidationError(`\`${argument}\` is not a cursor of this list`, argument);
}

/**
 * The page request of connection arguments for `list`: forward pagination, `first` in 0..maxSize.
 * Only an absent `after` (null or left out) is the first page: an empty one is a malformed cursor.
 */
export function pageRequest(args: { first?: number | null; after?: string | null; last?: number | null; before?: string | null }, list: string, maxSize = MAX_PAGE_SIZE): ListPageRequest {
  if ((args.last ?? null) !== null || (args.before ?? null) !== null) {
    throw new ValidationError('Lists page forward only: use `first` and `after`', args.last != null ? 'last' : 'before');
  }
  const first = args.first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(first) || first < 0 || first > maxSize) throw new ValidationError(`\`first\` must be between 0 and ${maxSize}`, 'first');
  return { list, first, after: args.after != null ? decodeKeysetCursor(args.after, list) : null };
}

/** Splits the `first + 1` rows a store read into the page and whether more follow. */
export function toPage<T>(rows: T[], request: PageRequest): Page<T> {
  return { rows: rows.slice(0, request.first), hasNextPage: rows.length > request.first };
}

/** The earliest time the database holds (PostgreSQL has no year 0), in ms. */
export const EARLIEST_STORABLE_TIME = Date.parse('0001-01-01T00:00:00Z');

/** A time the database holds and ISO writes with four digits: years 1 to 9999 (PostgreSQL has no year 0). */
export function isStorableTime(date: Date): boolean {
  const year = date.getUTCFullYear();
  return !Number.isNaN(date.getTime()) && year >= 1 && year <= 9999;
}

/** A keyset position whose key is a time (the list is ordered by a timestamp, then id). */
export function keysetTime(position: KeysetPosition): { key: Date; id: string } {
  const key = new Date(position.key);
  if (typeof position.key !== 'string' || !isStorableTime(key)) {
    throw new ValidationError('`after` is not a cursor of this list', 'after');
  }
  return { key, id: position.id };
}
