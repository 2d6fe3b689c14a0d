// Root fields of tools: the catalogue, and managing the tools a tenant registers (admin role).
import { NotFoundError, ToolNameConflictError, ValidationError } from '../model/errors.js';
import { builder } from '../schema/builder.js';
import { HttpToolRegistrationRef, RegisterExternalToolInput, RegisterHttpToolInput, ToolDefinitionRef, UpdateToolInput } from '../schema/tool.js';

builder.queryFields((t) => ({
  tools: t.field({
    description: 'Every tool calls of this tenant can use: built-in, HTTP, external and MCP-sourced',
    type: [ToolDefinitionRef],
    authScopes: { reader: true },
    resolve: (_root, _args, { services, viewer }) => services.registry.list(viewer.tenantId),
  }),
  tool: t.field({
    description: 'A tool by its name; null when the tenant has none of that name',
    type: ToolDefinitionRef,
    nullable: true,
    authScopes: { reader: true },
    args: { name: t.arg.string({ description: 'The tool’s name', required: true }) },
    resolve: async (_root, args, { services, viewer }) => (await services.registry.resolve(viewer.tenantId, args.name))?.definition ?? null,
  }),
}));

builder.mutationFields((t) => ({
  registerHttpTool: t.field({
    type: HttpToolRegistrationRef,
    authScopes: { admin: true },
    description: 'Registers an HTTP tool for this tenant (admin role). Returns its signing secret, once.',
    errors: { types: [ToolNameConflictError, ValidationError] },
    args: { input: t.arg({ description: 'The tool to register', type: RegisterHttpToolInput, required: true }) },
    resolve: (_root, args, { services, viewer }) => services.registeredTools.registerHttp(viewer.tenantId, args.input),
  }),
  registerExternalTool: t.field({
    type: ToolDefinitionRef,
    authScopes: { admin: true },
    description: 'Registers an external tool for this tenant (admin role): its calls wait in PENDING_EXTERNAL until completeToolCall or their deadline.',
    errors: { types: [ToolNameConflictError, ValidationError] },
    args: { input: t.arg({ description: 'The tool to register', type: RegisterExternalToolInput, required: true }) },
    resolve: async (_root, args, { services, viewer }) => (await services.registeredTools.registerExternal(viewer.tenantId, args.input)).tool,
  }),
  updateTool: t.field({
    type: ToolDefinitionRef,
    authScopes: { admin: true },
    description: 'Changes a registered tool (admin role). Attempts that start afterwards use the new URL; a call’s arguments, timeout and attempts are fixed at submission.',
    errors: { types: [NotFoundError, ValidationError] },
    args: { name: t.arg.string({ description: 'The registered tool’s name', required: true }), input: t.arg({ description: 'What to change', type: UpdateToolInput, required: true }) },
    resolve: async (_root, args, { services, viewer }) => (await services.registeredTools.update(viewer.tenantId, args.name, args.input)).tool,
  }),
  rotateToolSigningSecret: t.field({
    type: HttpToolRegistrationRef,
    authScopes: { admin: true },
    description:
      'Gives an HTTP tool a new signing secret (admin role), returned once; the old one keeps signing beside it (a second `webhook-signature` entry) for `overlapSeconds` (default 0: stops at once).',
    errors: { types: [NotFoundError, ValidationError] },
    args: { name: t.arg.string({ description: 'The HTTP tool’s name', required: true }), overlapSeconds: t.arg.int({ description: '0 to 2592000 (30 days); during the overlap of a previous rotation only 0, which stops every older secret at once' }) },
    resolve: (_root, args, { services, viewer }) => services.registeredTools.rotateSigningSecret(viewer.tenantId, args.name, args.overlapSeconds ?? 0),
  }),
  removeTool: t.field({
    type: ToolDefinitionRef,
    authScopes: { admin: true },
    description: 'Removes a registered tool (admin role) and returns its last definition. Calls that have not started yet complete UNAVAILABLE.',
    errors: { types: [NotFoundError, ValidationError] },
    args: { name: t.arg.string({ description: 'The registered tool’s name', required: true }) },
    resolve: async (_root, args, { services, viewer }) => (await services.registeredTools.remove(viewer.tenantId, args.name)).tool,
  }),
}));
