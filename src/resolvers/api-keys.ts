// Root fields of the tenant's API keys (admin role): list, create, revoke, rotate.
import { NotFoundError, ValidationError } from '../model/errors.js';
import { builder } from '../schema/builder.js';
import { ApiKeyRef, IssuedApiKeyRef, RoleEnum } from '../schema/api-key.js';

builder.queryFields((t) => ({
  apiKeys: t.field({
    type: [ApiKeyRef],
    authScopes: { admin: true },
    description: 'The tenant’s API keys, newest first, revoked and expired ones included (admin role). Never the keys themselves.',
    resolve: (_root, _args, { services, viewer }) => services.apiKeys.listKeys(viewer.tenantId),
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: IssuedApiKeyRef,
    authScopes: { admin: true },
    description: 'Creates an API key for the tenant (admin role); the key is in the answer, once.',
    errors: { types: [ValidationError] },
    args: {
      name: t.arg.string({ description: 'A name for people, 1 to 100 characters', required: true }),
      roles: t.arg({ description: 'What the key may do (at least one role)', type: [RoleEnum], required: true }),
      expiresAt: t.arg({ type: 'DateTime', description: 'Refused from then on; absent: never expires' }),
    },
    resolve: (_root, args, { services, viewer }) => services.apiKeys.issueKey(viewer.tenantId, { name: args.name, roles: args.roles, expiresAt: args.expiresAt ?? null }),
  }),
  revokeApiKey: t.field({
    type: ApiKeyRef,
    authScopes: { admin: true },
    description:
      'Revokes a key (admin role), by id or prefix: within a second every request with it is refused, its WebSocket connections close with 4403 and its SSE streams end.',
    errors: { types: [NotFoundError, ValidationError] },
    args: { id: t.arg.string({ required: true, description: 'The key’s id or its prefix' }) },
    resolve: (_root, args, { services, viewer }) => services.apiKeys.revokeKey(viewer.tenantId, args.id),
  }),
  rotateApiKey: t.field({
    type: IssuedApiKeyRef,
    authScopes: { admin: true },
    description: 'Replaces a key by a new one with the same name, roles and expiry (admin role); the old key keeps working for `overlapSeconds`.',
    errors: { types: [NotFoundError, ValidationError] },
    args: {
      id: t.arg.string({ required: true, description: 'The key’s id or its prefix' }),
      overlapSeconds: t.arg.int({ required: true, description: '0 to 2592000 (30 days); 0 stops the old key at once' }),
    },
    resolve: (_root, args, { services, viewer }) => services.apiKeys.rotateKey(viewer.tenantId, args.id, args.overlapSeconds),
  }),
}));
