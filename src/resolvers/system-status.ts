// The Health page's query.
import { builder } from '../schema/builder.js';
import { SystemStatusRef } from '../schema/system-status.js';

builder.queryFields((t) => ({
  systemStatus: t.field({
    type: SystemStatusRef,
    authScopes: { reader: true },
    description:
      'Queue depths, workers alive and event lag of the deployment (totals only: no other tenant’s work is named), and the viewer’s tenant’s unfinished calls (reader role; a status page may poll it every few seconds)',
    resolve: (_root, _args, { services, viewer }) => services.systemStatus.read(viewer.tenantId),
  }),
}));
