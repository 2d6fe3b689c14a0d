import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin, { type AuthFailure, AuthScopeFailureType } from '@pothos/plugin-scope-auth';
import type { Role } from '../domain/tenants/api-keys.js';
import { DomainError, ForbiddenError, InvalidStateError, LimitExceededError, NotFoundError, ValidationError } from '../model/errors.js';
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
    nodesOnConnection: true,
    decodeGlobalID: decodeNodeId,
    nodeQueryOptions: { authScopes: { reader: true }, resolve: resolveNode as never },
    nodesQueryOptions: { authScopes: { reader: true }, resolve: resolveNodeList as never },
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
  // The specific classes come first: the plugin picks the first type an error is an instance of.
  errors: { defaultTypes: [NotFoundError, ValidationError, ForbiddenError, InvalidStateError, LimitExceededError, DomainError], directResult: true },
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
