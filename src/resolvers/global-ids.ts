import { decodeGlobalID } from '@pothos/plugin-relay';
import { NotFoundError } from '../model/errors.js';
import { UUID_PATTERN } from '../model/ids.js';

/**
 * Accepts a Relay global id of `typename` or the raw uuid, and returns the uuid. Anything else
 * is indistinguishable from an id that does not exist.
 */
export function localId(value: string, typename: string): string {
  if (UUID_PATTERN.test(value)) return value.toLowerCase();
  try {
    const decoded = decodeGlobalID(value);
    if (decoded.typename === typename && UUID_PATTERN.test(decoded.id)) return decoded.id.toLowerCase();
  } catch {
    // fall through
  }
  throw new NotFoundError(typename, value);
}
