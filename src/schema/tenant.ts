// The viewer's tenant and its settings.
import type { Tenant } from '../generated/prisma/client.js';
import { builder } from './builder.js';

export const TenantSettingsRef = builder.objectRef<Tenant>('TenantSettings').implement({
  fields: (t) => ({
    tenantName: t.exposeString('name'),
    allowSelfApproval: t.exposeBoolean('allowSelfApproval', {
      description: 'Whether an approver may approve or reject calls its own API key submitted (default false)',
    }),
  }),
});
