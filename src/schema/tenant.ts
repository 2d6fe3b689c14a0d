// The viewer's tenant and its settings.
import type { Tenant } from '../generated/prisma/client.js';
import { tenantSettings, updateTenantSettings } from '../resolvers/tenant.js';
import { builder } from './builder.js';

const TenantSettingsRef = builder.objectRef<Tenant>('TenantSettings').implement({
  fields: (t) => ({
    tenantName: t.exposeString('name'),
    allowSelfApproval: t.exposeBoolean('allowSelfApproval', {
      description: 'Whether an approver may approve or reject calls its own API key submitted (default false)',
    }),
  }),
});

builder.queryFields((t) => ({
  tenantSettings: t.field({
    type: TenantSettingsRef,
    authScopes: { authenticated: true },
    resolve: (_root, _args, context) => tenantSettings(context),
  }),
}));

builder.mutationFields((t) => ({
  updateTenantSettings: t.field({
    type: TenantSettingsRef,
    authScopes: { authenticated: true },
    description: 'Changes the settings of the viewer’s tenant (admin role); absent fields keep their value.',
    errors: {},
    args: { allowSelfApproval: t.arg.boolean() },
    resolve: (_root, args, context) => updateTenantSettings(context, args),
  }),
}));
