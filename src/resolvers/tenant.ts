import { ForbiddenError } from '../model/errors.js';
import type { GraphQLContext } from '../schema/context.js';

export function tenantSettings(context: GraphQLContext) {
  return context.services.apiKeys.tenant(context.viewer.tenantId);
}

export function updateTenantSettings(context: GraphQLContext, args: { allowSelfApproval?: boolean | null }) {
  if (!context.viewer.roles.includes('admin')) throw new ForbiddenError('Changing tenant settings needs an API key with the admin role');
  if (args.allowSelfApproval === undefined || args.allowSelfApproval === null) return tenantSettings(context);
  return context.services.apiKeys.setAllowSelfApproval(context.viewer.tenantId, args.allowSelfApproval);
}
