// The API key a request is made with: what a client (the dashboard) needs to know about itself.
import { ROLES, type Role, type Viewer } from '../domain/tenants/api-keys.js';
import { builder } from './builder.js';
import { TenantSettingsRef } from './tenant.js';

export const RoleEnum = builder.enumType('Role', {
  description: 'What an API key may do: every key reads; submitter starts and cancels work, approver decides approvals, admin manages tools and settings',
  values: Object.fromEntries(ROLES.map((role) => [role.toUpperCase(), { value: role, description: `The ${role} role` }])) as Record<Uppercase<Role>, { value: Role; description: string }>,
});

export const ViewerRef = builder.objectRef<Viewer>('Viewer').implement({
  description: 'The API key of the request and its tenant',
  fields: (t) => ({
    apiKeyId: t.exposeString('apiKeyId', { description: 'Id of the API key (not the key itself)' }),
    roles: t.field({
      type: [RoleEnum],
      description: 'The roles of the key; `reader` is always there',
      resolve: (viewer): Role[] => ['reader', ...viewer.roles.filter((role) => role !== 'reader')],
    }),
    tenant: t.field({
      type: TenantSettingsRef,
      description: 'The tenant the key belongs to',
      resolve: (viewer, _args, { services }) => services.apiKeys.tenant(viewer.tenantId),
    }),
  }),
});
