import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin, { type AuthFailure, AuthScopeFailureType } from '@pothos/plugin-scope-auth';
import type { Role } from '../domain/tenants/api-keys.js';
import { DomainError, ForbiddenError } from '../model/errors.js';
import type { GraphQLContext } from './context.js';
import { decodeNodeId, resolveNode, resolveNodeList } from './node-ids.js';

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  /** The roles an API key can carry; every root field states the one it needs (src/resolvers/). */
  AuthScopes: Record<Role, boolean>;
  Scalars: {
    JSON: { Input: unknown; Output: unknown };
    DateTime: { Input: Date; Output: Date | string };
  };
  DefaultFieldNullability: false;
}>({
  // The errors plugin wraps scope-auth, so a missing role is the ForbiddenError member of a
  // mutation's result union rather than a top-level error.
  plugins: [RelayPlugin, ErrorsPlugin, ScopeAuthPlugin, DataloaderPlugin],
  defaultFieldNullability: false,
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodesOnConnection: { description: 'The items of the page, without their cursors' },
    decodeGlobalID: decodeNodeId,
    nodeQueryOptions: {
      authScopes: { reader: true },
      description: 'The object a global id names, or null when it names nothing this key may see',
      args: { id: { description: 'A global (Relay) id, as any object’s `id` field gives it' } },
      resolve: resolveNode as never,
    },
    nodesQueryOptions: {
      authScopes: { reader: true },
      description: 'The objects some global ids name, in the same order, null for each that names nothing this key may see',
      args: { ids: { description: 'Global (Relay) ids, as objects’ `id` fields give them' } },
      resolve: resolveNodeList as never,
    },
    nodeTypeOptions: { description: 'An object that can be fetched again by its global id with `node(id:)`' },
    idFieldOptions: { description: 'Global (Relay) id of this object, accepted by `node(id:)` and by arguments taking its id' },
    pageInfoTypeOptions: { description: 'Where a page sits in its list, and the cursors to fetch the next one' },
    hasNextPageFieldOptions: { description: 'More items follow this page: fetch them with `after: endCursor`' },
    hasPreviousPageFieldOptions: { description: 'Items come before this page (it was fetched with a cursor)' },
    startCursorFieldOptions: { description: 'Cursor of the first item of the page, null when the page is empty' },
    endCursorFieldOptions: { description: 'Cursor of the last item of the page, to pass as `after` for the next page; null when the page is empty' },
    edgesFieldOptions: { description: 'The items of the page, each with its cursor' },
    pageInfoFieldOptions: { description: 'Cursors and whether more items follow' },
    cursorFieldOptions: { description: 'Opaque position of this item, to pass as `after` to continue after it' },
    nodeFieldOptions: { description: 'The item' },
    firstArgOptions: { description: 'Page size: how many items to return after `after` (each list states its default and maximum)' },
    afterArgOptions: { description: 'Cursor of the item after which the page starts (from `pageInfo.endCursor` or an edge); null or absent: the first page (an empty string is no cursor: VALIDATION_FAILED)' },
    lastArgOptions: { description: 'Backward pages: how many items before `before` (lists that page forward only refuse it)' },
    beforeArgOptions: { description: 'Cursor of the item before which a backward page ends (lists that page forward only refuse it)' },
    defaultConnectionTypeOptions: { description: 'One page of a list, with its cursors' },
    defaultEdgeTypeOptions: { description: 'One item of a page, with its cursor' },
  },
  scopeAuth: {
    authorizeOnSubscribe: true,
    // Unauthenticated requests are refused before execution, so a viewer is always there, and
    // every key may read.
    authScopes: ({ viewer }) => ({
      reader: true,
      submitter: viewer.roles.includes('submitter'),
      approver: viewer.roles.includes('approver'),
      admin: viewer.roles.includes('admin'),
    }),
    unauthorizedError: (_parent, _context, info, result) =>
      new ForbiddenError(`\`${info.fieldName}\` needs an API key with the ${requiredRole(result.failure) ?? 'required'} role`),
  },
  // Every mutation can be refused for a missing role (ForbiddenError); each lists the other errors
  // it can answer (src/resolvers/). A typed error it does not list still answers typed, as
  // BaseError with its code: the plugin picks the most specific listed class an error is an
  // instance of, and every typed error is a DomainError.
  errors: {
    defaultTypes: [ForbiddenError, DomainError],
    directResult: true,
    defaultUnionOptions: { description: 'The mutation’s result, or the typed error it answered instead (every error implements `Error`)' },
  },
});

function requiredRole(failure: AuthFailure): string | null {
  if (failure.kind === AuthScopeFailureType.AuthScope) return failure.scope;
  if (failure.kind === AuthScopeFailureType.AnyAuthScopes || failure.kind === AuthScopeFailureType.AllAuthScopes) {
    for (const child of failure.failures) {
      const role = requiredRole(child);
      if (role) return role;
    }
  }
  return null;
}
