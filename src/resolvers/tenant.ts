// Root fields of the viewer's tenant and its settings.
import { ValidationError } from '../model/errors.js';
import { builder } from '../schema/builder.js';
import { TenantLimitsInput, TenantSettingsRef, ViewerRef } from '../schema/tenant.js';

builder.queryFields((t) => ({
  viewer: t.field({
    type: ViewerRef,
    authScopes: { reader: true },
    description: 'The API key of this request, with its roles (what a client may offer)',
    resolve: (_root, _args, { viewer }) => viewer,
  }),
  tenantSettings: t.field({
    description: 'The viewer’s tenant: its settings, limits and file usage',
    type: TenantSettingsRef,
    authScopes: { reader: true },
    resolve: (_root, _args, { services, viewer }) => services.apiKeys.tenant(viewer.tenantId),
  }),
}));

builder.mutationFields((t) => ({
  updateTenantSettings: t.field({
    type: TenantSettingsRef,
    authScopes: { admin: true },
    description: 'Changes the settings of the viewer’s tenant (admin role); absent fields keep their value.',
    errors: { types: [ValidationError] },
    args: { allowSelfApproval: t.arg.boolean({ description: 'Whether an approver may decide calls its own key submitted' }), limits: t.arg({ description: 'Lower limits for the tenant (null fields go back to the defaults)', type: TenantLimitsInput }) },
    resolve: async (_root, args, { services, viewer }) => {
      if (args.limits) await services.tenantLimits.update(viewer.tenantId, args.limits);
      return args.allowSelfApproval === undefined || args.allowSelfApproval === null
        ? services.apiKeys.tenant(viewer.tenantId)
        : services.apiKeys.setAllowSelfApproval(viewer.tenantId, args.allowSelfApproval);
    },
  }),
}));
