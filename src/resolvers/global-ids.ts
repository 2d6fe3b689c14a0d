import { decodeGlobalID } from '@pothos/plugin-relay';
import { NotFoundError } from '../model/errors.js';
import { UUID_PATTERN } from '../model/ids.js';

/**
 * Accepts a Relay global id of `typename` or the raw uuid, and returns the uuid. Anything else
 * is indistinguishable from an id that does not exist.
 */
export function localId(value: string | number, typename: string): string {
  const text = String(value);
  if (UUID_PATTERN.test(text)) return text.toLowerCase();
  try {
    const decoded = decodeGlobalID(text);
    if (decoded.typename === typename && UUID_PATTERN.test(decoded.id)) return decoded.id.toLowerCase();
  } catch {
    // fall through
  }
  throw new NotFoundError(typename, text);
}

/**
 * An optional id argument: its uuid, or null when absent. An empty string is not absent: it is an id
 * that names nothing, like any other malformed one (a filter by it must not become no filter).
 */
export function optionalLocalId(value: string | number | null | undefined, typename: string): string | null {
  return value === undefined || value === null ? null : localId(value, typename);
}
