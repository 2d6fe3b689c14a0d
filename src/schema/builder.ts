import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { DomainError, ForbiddenError, InvalidStateError, LimitExceededError, NotFoundError, ValidationError } from '../model/errors.js';
import type { GraphQLContext } from './context.js';

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  AuthScopes: { authenticated: boolean; approver: boolean };
  Scalars: {
    JSON: { Input: unknown; Output: unknown };
    DateTime: { Input: Date; Output: Date | string };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [RelayPlugin, ScopeAuthPlugin, ErrorsPlugin, DataloaderPlugin],
  defaultFieldNullability: false,
  relay: { clientMutationId: 'omit', cursorType: 'String', nodesOnConnection: true },
  scopeAuth: {
    authorizeOnSubscribe: true,
    authScopes: (context) => ({
      authenticated: Boolean(context.viewer),
      approver: context.viewer?.roles.includes('approver') ?? false,
    }),
  },
  // The specific classes come first: the plugin picks the first type an error is an instance of.
  errors: { defaultTypes: [NotFoundError, ValidationError, ForbiddenError, InvalidStateError, LimitExceededError, DomainError], directResult: true },
});
