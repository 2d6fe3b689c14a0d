// Root fields of MCP servers as tool sources: reading them (reader) and managing them (admin role).
import { NotFoundError, ValidationError } from '../model/errors.js';
import { builder } from '../schema/builder.js';
import { McpServerRef, RegisterMcpServerInput, UpdateMcpServerInput } from '../schema/mcp-server.js';

builder.queryFields((t) => ({
  mcpServers: t.field({
    type: [McpServerRef],
    authScopes: { reader: true },
    description: 'The MCP servers this tenant registered as tool sources',
    resolve: (_root, _args, { services, viewer }) => services.mcpServers.list(viewer.tenantId),
  }),
}));

builder.mutationFields((t) => ({
  registerMcpServer: t.field({
    type: McpServerRef,
    authScopes: { admin: true },
    description: 'Registers an MCP server as a tool source (admin role): connects, lists its tools and adds them to `tools` as `<name>__<tool>`.',
    errors: { types: [ValidationError] },
    args: { input: t.arg({ description: 'The server to register', type: RegisterMcpServerInput, required: true }) },
    resolve: (_root, args, { services, viewer }) => services.mcpServers.register(viewer.tenantId, args.input),
  }),
  updateMcpServer: t.field({
    type: McpServerRef,
    authScopes: { admin: true },
    description: 'Changes an MCP server (admin role). Calls submitted afterwards get the new policy, scheduling, timeout and retries.',
    errors: { types: [NotFoundError, ValidationError] },
    args: { name: t.arg.string({ description: 'The server’s name', required: true }), input: t.arg({ description: 'What to change', type: UpdateMcpServerInput, required: true }) },
    resolve: (_root, args, { services, viewer }) => services.mcpServers.update(viewer.tenantId, args.name, args.input),
  }),
  refreshMcpServer: t.field({
    type: McpServerRef,
    authScopes: { admin: true },
    description: 'Lists the tools of an MCP server again now (admin role); tools it no longer lists make new calls UNAVAILABLE.',
    errors: { types: [NotFoundError, ValidationError] },
    args: { name: t.arg.string({ description: 'The server’s name', required: true }) },
    resolve: (_root, args, { services, viewer }) => services.mcpServers.refresh(viewer.tenantId, args.name),
  }),
  removeMcpServer: t.field({
    type: McpServerRef,
    authScopes: { admin: true },
    description: 'Removes an MCP server and its tools (admin role); calls of them that have not started end UNAVAILABLE.',
    errors: { types: [NotFoundError] },
    args: { name: t.arg.string({ description: 'The server’s name', required: true }) },
    resolve: (_root, args, { services, viewer }) => services.mcpServers.remove(viewer.tenantId, args.name),
  }),
}));
