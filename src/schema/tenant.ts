// The viewer's tenant and its settings.
import type { LimitName, TenantLimits } from '../domain/tenants/tenant-limits.js';
import type { Tenant } from '../generated/prisma/client.js';
import type { Viewer } from '../domain/tenants/api-keys.js';
import { encodeTenantEventCursor } from '../realtime/cursors.js';
import { builder } from './builder.js';

const LIMIT_DESCRIPTIONS: Record<LimitName, string> = {
  runningCalls: 'Calls of the tenant running at once across every worker (0: no limit beyond the workers’ slots)',
  backgroundRuns: 'Queued or running background runs of the tenant across every session',
  sessionFileBytes: 'UTF-8 bytes one session’s file store may hold',
  sessionFiles: 'Entries (files and directories) one session’s file store may hold',
  tenantFileBytes: 'UTF-8 bytes all the tenant’s session file stores may hold together',
  tenantFiles: 'Entries all the tenant’s session file stores may hold together',
};

export const TenantLimitsRef = builder.objectRef<TenantLimits>('TenantLimits').implement({
  description: 'Limits of the tenant: the deployment’s defaults, or lower values the tenant set for itself.',
  fields: (t) => ({
    runningCalls: t.exposeInt('runningCalls', { description: LIMIT_DESCRIPTIONS.runningCalls }),
    backgroundRuns: t.exposeInt('backgroundRuns', { description: LIMIT_DESCRIPTIONS.backgroundRuns }),
    sessionFileBytes: t.exposeFloat('sessionFileBytes', { description: LIMIT_DESCRIPTIONS.sessionFileBytes }),
    sessionFiles: t.exposeInt('sessionFiles', { description: LIMIT_DESCRIPTIONS.sessionFiles }),
    tenantFileBytes: t.exposeFloat('tenantFileBytes', { description: LIMIT_DESCRIPTIONS.tenantFileBytes }),
    tenantFiles: t.exposeInt('tenantFiles', { description: LIMIT_DESCRIPTIONS.tenantFiles }),
  }),
});

export const TenantLimitsInput = builder.inputType('TenantLimitsInput', {
  description:
    'The tenant’s own limits: each from 1 to the deployment’s default (a tenant can lower its limits, not raise them); null goes back to the default, an absent field keeps its value.',
  fields: (t) => ({
    runningCalls: t.int({ description: LIMIT_DESCRIPTIONS.runningCalls }),
    backgroundRuns: t.int({ description: LIMIT_DESCRIPTIONS.backgroundRuns }),
    sessionFileBytes: t.float({ description: LIMIT_DESCRIPTIONS.sessionFileBytes }),
    sessionFiles: t.int({ description: LIMIT_DESCRIPTIONS.sessionFiles }),
    tenantFileBytes: t.float({ description: LIMIT_DESCRIPTIONS.tenantFileBytes }),
    tenantFiles: t.int({ description: LIMIT_DESCRIPTIONS.tenantFiles }),
  }),
});

export const FileUsageRef = builder.objectRef<{ bytes: number; files: number }>('FileUsage').implement({
  description: 'What file stores hold now.',
  fields: (t) => ({
    bytes: t.exposeFloat('bytes', { description: 'UTF-8 bytes of content' }),
    files: t.exposeInt('files', { description: 'Entries: files and directories' }),
  }),
});

export const TenantSettingsRef = builder.objectRef<Tenant>('TenantSettings').implement({
  description: 'The viewer’s tenant and its settings',
  fields: (t) => ({
    tenantName: t.exposeString('name', { description: 'The tenant’s name' }),
    lastEventCursor: t.string({
      description: 'Tenant cursor of the newest event (before the first one: the tenant’s start); `tenantEvents(after: lastEventCursor)` delivers everything that follows, with no gap',
      resolve: (tenant) => encodeTenantEventCursor(tenant.id, Number(tenant.eventSeq)),
    }),
    allowSelfApproval: t.exposeBoolean('allowSelfApproval', {
      description: 'Whether an approver may approve or reject calls its own API key submitted (default false)',
    }),
    limits: t.field({
      type: TenantLimitsRef,
      description: 'The limits that apply to the tenant now',
      resolve: (tenant, _args, { services }) => services.tenantLimits.effective(tenant.id),
    }),
    fileUsage: t.field({
      type: FileUsageRef,
      description: 'What all the tenant’s session file stores hold (counted against `limits.tenantFileBytes` and `limits.tenantFiles`)',
      resolve: (tenant, _args, { services }) => services.sessions.tenantFileUsage(tenant.id),
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
