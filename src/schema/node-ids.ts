// `node(id:)` and `nodes(ids:)` as Relay clients expect them: an id that resolves to nothing —
// malformed, of no node type, not a uuid, another tenant's, deleted — is null, never an error.
import { decodeGlobalID } from '@pothos/plugin-relay';
import type { GraphQLResolveInfo } from 'graphql';
import { NotFoundError } from '../model/errors.js';
import { UUID_PATTERN } from '../model/ids.js';

const NODE_TYPES = new Set(['Session', 'ToolBatch', 'ToolCall', 'Task', 'Schedule']);
/** The typename of an id that can resolve to nothing. */
const NO_NODE = '';

interface DecodedId {
  typename: string;
  id: string;
}

/** Decodes a global id without throwing: ids that cannot name a node decode to NO_NODE. */
export function decodeNodeId(globalID: string): DecodedId {
  try {
    const decoded = decodeGlobalID(globalID);
    if (NODE_TYPES.has(decoded.typename) && UUID_PATTERN.test(decoded.id)) return { typename: decoded.typename, id: decoded.id.toLowerCase() };
  } catch {
    // not a global id
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
  // The plugin resolves `args.ids` itself (whatever is passed); nulls resolve to null.
  args.ids = args.ids.map((id) => (id && id.typename !== NO_NODE ? id : null));
  const nodes = (await resolve(args.ids as DecodedId[])) as unknown[];
  return Promise.all(nodes.map(orNullWhenMissing));
}
