// The viewer's tenant and its settings.
import type { Tenant } from '../generated/prisma/client.js';
import type { Viewer } from '../domain/tenants/api-keys.js';
import { encodeTenantEventCursor } from '../realtime/cursors.js';
import { builder } from './builder.js';

export const TenantSettingsRef = builder.objectRef<Tenant>('TenantSettings').implement({
  description: 'The viewer’s tenant and its settings',
  fields: (t) => ({
    tenantName: t.exposeString('name', { description: 'The tenant’s name' }),
    lastEventCursor: t.string({
      nullable: true,
      description: 'Tenant cursor of the newest event; `tenantEvents(after: lastEventCursor)` delivers only what follows (null before the first event)',
      resolve: (tenant) => (tenant.eventSeq > 0n ? encodeTenantEventCursor(tenant.id, Number(tenant.eventSeq)) : null),
    }),
    allowSelfApproval: t.exposeBoolean('allowSelfApproval', {
      description: 'Whether an approver may approve or reject calls its own API key submitted (default false)',
    }),
  }),
});

export const ViewerRef = builder.objectRef<Viewer>('Viewer').implement({
  description: 'The API key a request is made with',
  fields: (t) => ({
    apiKeyId: t.exposeString('apiKeyId', { description: 'The key’s id' }),
    roles: t.exposeStringList('roles', { description: 'The roles the key carries (reader, submitter, approver, admin)' }),
    tenantId: t.exposeString('tenantId', { description: 'The raw id of the key’s tenant' }),
  }),
});
