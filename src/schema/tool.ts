// Tool definitions, and the inputs and answers of registering tools of a tenant's own.
import type { RegisteredToolResult } from '../domain/tenants/registered-tools.js';
import { SIGNATURE_HEADER } from '../tools/http-tool.js';
import type { RetryPolicy } from '../model/retry.js';
import type { ToolDefinition, ToolHints } from '../tools/types.js';
import { builder } from './builder.js';

export const ToolKindEnum = builder.enumType('ToolKind', { values: ['BUILTIN', 'HTTP', 'EXTERNAL', 'MCP'] as const });
export const ToolPolicyEnum = builder.enumType('ToolPolicy', { values: ['AUTO', 'REQUIRES_APPROVAL'] as const });
export const ToolSchedulingEnum = builder.enumType('ToolScheduling', { values: ['PARALLEL', 'SERIAL'] as const });
export const BackoffTypeEnum = builder.enumType('BackoffType', { values: ['FIXED', 'EXPONENTIAL'] as const });

const ToolHintsRef = builder.objectRef<ToolHints>('ToolHints').implement({
  fields: (t) => ({
    readonly: t.exposeBoolean('readonly'),
    idempotent: t.exposeBoolean('idempotent'),
    destructive: t.exposeBoolean('destructive'),
    openWorld: t.exposeBoolean('openWorld'),
    supportsBackground: t.exposeBoolean('supportsBackground'),
  }),
});

const BackoffRef = builder.objectRef<RetryPolicy['backoff']>('Backoff').implement({
  fields: (t) => ({
    type: t.expose('type', { type: BackoffTypeEnum }),
    delayMs: t.exposeInt('delayMs'),
    maxDelayMs: t.exposeInt('maxDelayMs'),
  }),
});

export const RetryPolicyRef = builder.objectRef<RetryPolicy>('RetryPolicy').implement({
  fields: (t) => ({
    maxAttempts: t.exposeInt('maxAttempts'),
    backoff: t.expose('backoff', { type: BackoffRef }),
  }),
});

export const ToolDefinitionRef = builder.objectRef<ToolDefinition>('ToolDefinition').implement({
  description: 'A tool that calls of this tenant can use.',
  fields: (t) => ({
    name: t.exposeString('name'),
    displayName: t.exposeString('displayName'),
    description: t.exposeString('description'),
    kind: t.expose('kind', { type: ToolKindEnum }),
    capability: t.string({
      nullable: true,
      description:
        'The capability that contributes the tool (`background_execution` for spawn_background, present because background-capable tools are); null for the default built-ins and registered tools',
      resolve: (tool) => tool.capability ?? null,
    }),
    parametersSchema: t.expose('parametersSchema', { type: 'JSON', description: 'JSON Schema of the arguments' }),
    hints: t.expose('hints', { type: ToolHintsRef }),
    policy: t.expose('policy', { type: ToolPolicyEnum }),
    scheduling: t.expose('scheduling', { type: ToolSchedulingEnum }),
    timeoutMs: t.exposeInt('timeoutMs'),
    retry: t.expose('retry', { type: RetryPolicyRef }),
    url: t.string({ nullable: true, description: 'HTTP tools: the endpoint each call is POSTed to', resolve: (tool) => tool.url ?? null }),
    mcpServer: t.string({ nullable: true, description: 'MCP tools: the name of the MCP server that provides the tool', resolve: (tool) => tool.mcpServer ?? null }),
  }),
});

const ToolHintsInput = builder.inputType('ToolHintsInput', {
  description: 'Hints of a registered tool; an absent hint keeps its current (or default) value.',
  fields: (t) => ({
    readonly: t.boolean(),
    idempotent: t.boolean(),
    destructive: t.boolean(),
    openWorld: t.boolean(),
    supportsBackground: t.boolean(),
  }),
});

const BackoffInput = builder.inputType('BackoffInput', {
  fields: (t) => ({
    type: t.field({ type: BackoffTypeEnum }),
    delayMs: t.int(),
    maxDelayMs: t.int(),
  }),
});

export const RetryPolicyInput = builder.inputType('RetryPolicyInput', {
  fields: (t) => ({
    maxAttempts: t.int({ description: 'Attempts per call, 1 to 10 (default 1: no retries)' }),
    backoff: t.field({ type: BackoffInput }),
  }),
});

type InputFields = Parameters<NonNullable<Parameters<typeof builder.inputType>[1]['fields']>>[0];

const toolSpecFields = (t: InputFields) => ({
  displayName: t.string(),
  hints: t.field({ type: ToolHintsInput }),
  policy: t.field({ type: ToolPolicyEnum, description: 'REQUIRES_APPROVAL: every call waits for an approver (default AUTO)' }),
  scheduling: t.field({ type: ToolSchedulingEnum, description: 'Default PARALLEL' }),
  timeoutMs: t.int({ description: 'HTTP tools: deadline of one attempt (default 30 s). External tools: how long a call waits for its completion (default 5 min).' }),
  retry: t.field({ type: RetryPolicyInput }),
});

export const RegisterHttpToolInput = builder.inputType('RegisterHttpToolInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Unique per tenant, ^[a-z][a-z0-9_]{0,63}$, not a built-in name' }),
    description: t.string({ required: true }),
    parametersSchema: t.field({ type: 'JSON', required: true, description: 'JSON Schema of the arguments object' }),
    url: t.string({ required: true, description: 'http(s) endpoint the worker POSTs each call to' }),
    ...toolSpecFields(t),
  }),
});

export const RegisterExternalToolInput = builder.inputType('RegisterExternalToolInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Unique per tenant, ^[a-z][a-z0-9_]{0,63}$, not a built-in name' }),
    description: t.string({ required: true }),
    parametersSchema: t.field({ type: 'JSON', required: true, description: 'JSON Schema of the arguments object' }),
    ...toolSpecFields(t),
  }),
});

export const UpdateToolInput = builder.inputType('UpdateToolInput', {
  description: 'Changes to a registered tool; absent fields keep their value. The kind cannot change.',
  fields: (t) => ({
    description: t.string(),
    parametersSchema: t.field({ type: 'JSON' }),
    url: t.string({ description: 'HTTP tools only' }),
    ...toolSpecFields(t),
  }),
});

export const HttpToolRegistrationRef = builder.objectRef<RegisteredToolResult>('HttpToolRegistration').implement({
  description: 'A registered HTTP tool with its signing secret. The secret is shown here once and never again.',
  fields: (t) => ({
    tool: t.field({ type: ToolDefinitionRef, resolve: (result) => result.tool }),
    signingSecret: t.string({
      description: `Standard Webhooks secret (whsec_…) of the ${SIGNATURE_HEADER} header of every request (see the README); store it now`,
      resolve: (result) => result.signingSecret ?? '',
    }),
    signatureHeader: t.string({ resolve: () => SIGNATURE_HEADER }),
  }),
});
