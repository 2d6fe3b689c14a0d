// The root field that tells a client which key it uses and what that key may do.
import { builder } from '../schema/builder.js';
import { ViewerRef } from '../schema/viewer.js';

builder.queryFields((t) => ({
  viewer: t.field({
    type: ViewerRef,
    authScopes: { reader: true },
    description: 'The API key of this request: its roles and tenant',
    resolve: (_root, _args, { viewer }) => viewer,
  }),
}));
