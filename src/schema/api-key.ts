// API keys as their tenant's admins see them: never the key itself, except once in
// `IssuedApiKey` when it is created or rotated.
import { type ApiKeyInfo, ROLES } from '../domain/tenants/api-keys.js';
import { builder } from './builder.js';

export const RoleEnum = builder.enumType('Role', {
  description: 'reader: queries and subscriptions; submitter: run batches, spawn, cancel; approver: decide others’ calls; admin: tools, keys, tenant settings',
  values: ROLES,
});

export const ApiKeyRef = builder.objectRef<ApiKeyInfo>('ApiKey').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    prefix: t.exposeString('prefix', { description: 'The first characters of the key, to recognise it' }),
    roles: t.field({ type: [RoleEnum], resolve: (key) => key.roles as Array<(typeof ROLES)[number]> }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true, description: 'Refused from this time on (after a rotation: the end of the overlap)' }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true, description: 'When the key last authenticated a request, to the minute' }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    active: t.boolean({
      description: 'Neither revoked nor expired',
      resolve: (key) => !key.revokedAt && (!key.expiresAt || key.expiresAt.getTime() > Date.now()),
    }),
  }),
});

export const IssuedApiKeyRef = builder.objectRef<{ key: string; info: ApiKeyInfo; previous?: ApiKeyInfo }>('IssuedApiKey').implement({
  description: 'A new key. `key` is shown here once and never again: only its hash is stored.',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'Send it as `Authorization: Bearer <key>`; store it now' }),
    apiKey: t.field({ type: ApiKeyRef, resolve: (issued) => issued.info }),
    previous: t.field({
      type: ApiKeyRef,
      nullable: true,
      description: 'After a rotation: the old key, valid until its expiresAt',
      resolve: (issued) => issued.previous ?? null,
    }),
  }),
});
