// MCP servers registered as tool sources, and the inputs of registering and changing them.
import type { McpServerSettings } from '../tools/mcp-definition.js';
import type { McpServerView } from '../domain/tenants/mcp-servers.js';
import { builder } from './builder.js';
import { RetryPolicyInput, RetryPolicyRef, ToolDefinitionRef, ToolPolicyEnum, ToolSchedulingEnum } from './tool.js';

const McpServerSettingsRef = builder.objectRef<McpServerSettings>('McpServerSettings').implement({
  description: 'What every tool of the server gets.',
  fields: (t) => ({
    policy: t.expose('policy', { description: 'Whether calls of its tools wait for an approver', type: ToolPolicyEnum }),
    scheduling: t.expose('scheduling', { description: 'Whether calls of its tools in one batch run concurrently or in turn', type: ToolSchedulingEnum }),
    timeoutMs: t.exposeInt('timeoutMs', { description: 'Deadline of one attempt of a call, in milliseconds' }),
    retry: t.expose('retry', { description: 'How failed calls safe to retry run again', type: RetryPolicyRef }),
  }),
});

export const McpServerRef = builder.objectRef<McpServerView>('McpServer').implement({
  description: 'An MCP server registered as a tool source: its tools appear in `tools` as `<name>__<tool>`.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The server’s name, the prefix of its tools’ names' }),
    url: t.exposeString('url', { description: 'Its Streamable HTTP endpoint' }),
    headerNames: t.exposeStringList('headerNames', { description: 'Names of the headers sent with every request (their values are never shown)' }),
    hasBearerToken: t.exposeBoolean('hasBearerToken', { description: 'Whether a bearer token is stored for it (the token is never shown)' }),
    settings: t.expose('settings', { description: 'What every tool of the server gets', type: McpServerSettingsRef }),
    tools: t.field({ type: [ToolDefinitionRef], description: 'Its tools as last listed', resolve: (server) => server.tools }),
    listedAt: t.field({ type: 'DateTime', nullable: true, description: 'When its tools were last listed', resolve: (server) => server.listedAt }),
  }),
});

type InputFields = Parameters<NonNullable<Parameters<typeof builder.inputType>[1]['fields']>>[0];

const settingsFields = (t: InputFields) => ({
  policy: t.field({ type: ToolPolicyEnum, description: 'REQUIRES_APPROVAL: every call of its tools waits for an approver (default AUTO)' }),
  scheduling: t.field({ type: ToolSchedulingEnum, description: 'Default PARALLEL' }),
  timeoutMs: t.int({ description: 'Deadline of one attempt of a call (default 60 s)' }),
  retry: t.field({ type: RetryPolicyInput, description: 'Attempts per call (default 3: transport failures and 5xx are retried)' }),
  bearerToken: t.string({ description: 'Sent as `Authorization: Bearer <token>`; stored like HTTP tool secrets, never shown again' }),
  headers: t.field({ type: 'JSON', description: 'Header names to values sent with every request; values stored like HTTP tool secrets, never shown again' }),
});

export const RegisterMcpServerInput = builder.inputType('RegisterMcpServerInput', {
  description: 'An MCP server to use as a tool source, and what its tools get',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Unique per tenant, up to 24 characters: lowercase words joined by single underscores' }),
    url: t.string({ required: true, description: 'The server’s Streamable HTTP endpoint (http or https; reached under the HTTP tool address settings)' }),
    ...settingsFields(t),
  }),
});

export const UpdateMcpServerInput = builder.inputType('UpdateMcpServerInput', {
  description: 'Changes to an MCP server; absent fields keep their value. A new url or credentials list its tools again.',
  fields: (t) => ({
    url: t.string({ description: 'A new Streamable HTTP endpoint (its tools are listed again)' }),
    ...settingsFields(t),
  }),
});
