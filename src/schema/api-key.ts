// API keys as their tenant's admins see them: never the key itself, except once in
// `IssuedApiKey` when it is created or rotated.
import { type ApiKeyInfo, type Role, ROLES } from '../domain/tenants/api-keys.js';
import { builder } from './builder.js';

const ROLE_DESCRIPTIONS: Record<Role, string> = {
  reader: 'Queries and subscriptions (every key can read)',
  submitter: 'Run batches, spawn background runs, cancel, complete external calls',
  approver: 'Approve or reject calls waiting for approval',
  admin: 'Manage tools, MCP servers, API keys and tenant settings',
};

export const RoleEnum = builder.enumType('Role', {
  description: 'reader: queries and subscriptions; submitter: run batches, spawn, cancel; approver: decide others’ calls; admin: tools, keys, tenant settings',
  values: Object.fromEntries(ROLES.map((role) => [role, { value: role, description: ROLE_DESCRIPTIONS[role] }])) as Record<Role, { value: Role; description: string }>,
});

export const ApiKeyRef = builder.objectRef<ApiKeyInfo>('ApiKey').implement({
  description: 'An API key of the tenant, as its admins see it (never the key itself)',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The key’s id, to revoke or rotate it' }),
    name: t.exposeString('name', { description: 'A name for people, e.g. `dashboard`' }),
    prefix: t.exposeString('prefix', { description: 'The first characters of the key, to recognise it' }),
    roles: t.field({ description: 'What the key may do', type: [RoleEnum], resolve: (key) => key.roles as Array<(typeof ROLES)[number]> }),
    createdAt: t.expose('createdAt', { description: 'When the key was made', type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true, description: 'Refused from this time on (after a rotation: the end of the overlap)' }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true, description: 'When the key last authenticated a request, to the minute' }),
    revokedAt: t.expose('revokedAt', { description: 'When the key was revoked; null unless it was', type: 'DateTime', nullable: true }),
    rotatedAt: t.expose('rotatedAt', { description: 'When a rotation replaced the key (it works until expiresAt); a key is rotated once', type: 'DateTime', nullable: true }),
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
    apiKey: t.field({ description: 'The new key’s details', type: ApiKeyRef, resolve: (issued) => issued.info }),
    previous: t.field({
      type: ApiKeyRef,
      nullable: true,
      description: 'After a rotation: the old key, valid until its expiresAt',
      resolve: (issued) => issued.previous ?? null,
    }),
  }),
});
