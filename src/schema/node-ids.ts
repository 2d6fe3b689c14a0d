// `node(id:)` and `nodes(ids:)` as Relay clients expect them: an id that resolves to nothing —
// malformed, of no node type, not a uuid, another tenant's, deleted — is null, never an error.
import type { GraphQLResolveInfo } from 'graphql';
import { NotFoundError } from '../model/errors.js';
import { UUID_PATTERN } from '../model/ids.js';
import { checkFilterValues } from '../model/keyset.js';

const NODE_TYPES = new Set(['Session', 'ToolBatch', 'ToolCall', 'Task', 'Schedule']);
/** The typename of an id that can resolve to nothing. */
const NO_NODE = '';

interface DecodedId {
  typename: string;
  id: string;
}

/** Padded base64, as global ids are written (Pothos's own check). */
const BASE64 = /^(?:[\d+/A-Za-z]{4})*(?:[\d+/A-Za-z]{2}==|[\d+/A-Za-z]{3}=)?$/;

/**
 * Decodes a global id without throwing: ids that cannot name a node decode to NO_NODE. Pothos's
 * decodeGlobalID throws for them, and an error's stack costs ~50 µs: `nodes(ids:)` with a
 * request's worth of malformed ids held the process for seconds.
 */
export function decodeNodeId(globalID: string): DecodedId {
  if (BASE64.test(globalID)) {
    const text = Buffer.from(globalID, 'base64').toString();
    const colon = text.indexOf(':');
    const typename = text.slice(0, colon);
    const id = text.slice(colon + 1);
    if (colon > 0 && NODE_TYPES.has(typename) && UUID_PATTERN.test(id)) return { typename, id: id.toLowerCase() };
  }
  return { typename: NO_NODE, id: globalID };
}

async function orNullWhenMissing(value: unknown): Promise<unknown> {
  try {
    // A loader answers a missing row with a NotFoundError value.
    const node = await value;
    return node instanceof NotFoundError ? null : node;
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

type ResolveNode = (ids: DecodedId[]) => unknown;

export function resolveNode(_root: unknown, args: { id: DecodedId }, _context: unknown, _info: GraphQLResolveInfo, resolve: ResolveNode): Promise<unknown> {
  if (args.id.typename === NO_NODE) return Promise.resolve(null);
  return orNullWhenMissing(resolve([args.id]));
}

export async function resolveNodeList(_root: unknown, args: { ids: Array<DecodedId | null> }, _context: unknown, _info: GraphQLResolveInfo, resolve: ResolveNode): Promise<unknown[]> {
  checkFilterValues(args.ids.length, 'ids');
  // The plugin resolves `args.ids` itself (whatever is passed); nulls resolve to null.
  args.ids = args.ids.map((id) => (id && id.typename !== NO_NODE ? id : null));
  const nodes = (await resolve(args.ids as DecodedId[])) as unknown[];
  return Promise.all(nodes.map(orNullWhenMissing));
}
