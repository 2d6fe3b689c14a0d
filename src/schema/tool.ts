// Tool definitions, and the inputs and answers of registering tools of a tenant's own.
import type { RegisteredToolResult } from '../domain/tenants/registered-tools.js';
import { SIGNATURE_HEADER } from '../tools/http-tool.js';
import type { RetryPolicy } from '../model/retry.js';
import type { ToolDefinition, ToolHints } from '../tools/types.js';
import { builder } from './builder.js';

export const ToolKindEnum = builder.enumType('ToolKind', {
  description: 'Where a tool comes from and how its calls run',
  values: {
    BUILTIN: { description: 'Ships with toolrun and runs on its workers' },
    HTTP: { description: 'Registered by the tenant: each call is a signed POST to its endpoint' },
    EXTERNAL: { description: 'Registered by the tenant: each call waits for `completeToolCall`' },
    MCP: { description: 'Listed by an MCP server the tenant registered; each call is its `tools/call`' },
  } as const,
});
export const ToolPolicyEnum = builder.enumType('ToolPolicy', {
  description: 'Whether a tool’s calls run when submitted or wait for an approver',
  values: {
    AUTO: { description: 'Calls run when submitted' },
    REQUIRES_APPROVAL: { description: 'Calls wait in AWAITING_APPROVAL until an approver approves or rejects them' },
  } as const,
});
export const ToolSchedulingEnum = builder.enumType('ToolScheduling', {
  description: 'How a tool’s calls of one batch run relative to each other',
  values: {
    PARALLEL: { description: 'Concurrently with the batch’s other calls' },
    SERIAL: { description: 'One at a time with the batch’s other serial calls, in batch order' },
  } as const,
});
export const BackoffTypeEnum = builder.enumType('BackoffType', {
  description: 'How the wait between attempts grows',
  values: { FIXED: { description: 'The same delay before every retry' }, EXPONENTIAL: { description: 'The delay doubles with each retry, up to its maximum' } } as const,
});

const ToolHintsRef = builder.objectRef<ToolHints>('ToolHints').implement({
  description: 'What a tool says about its calls’ effects; toolrun re-runs a lost call only when it is readonly or idempotent',
  fields: (t) => ({
    readonly: t.exposeBoolean('readonly', { description: 'The tool only reads: running it twice changes nothing' }),
    idempotent: t.exposeBoolean('idempotent', { description: 'Running a call twice has the effect of running it once' }),
    destructive: t.exposeBoolean('destructive', { description: 'The tool may delete or overwrite data' }),
    openWorld: t.exposeBoolean('openWorld', { description: 'The tool reaches beyond toolrun (the web, other services)' }),
    supportsBackground: t.exposeBoolean('supportsBackground', { description: 'The tool can run as a background run (`spawnBackground`)' }),
  }),
});

const BackoffRef = builder.objectRef<RetryPolicy['backoff']>('Backoff').implement({
  description: 'The wait between a call’s attempts',
  fields: (t) => ({
    type: t.expose('type', { description: 'Fixed or exponential', type: BackoffTypeEnum }),
    delayMs: t.exposeInt('delayMs', { description: 'Delay before the first retry, in milliseconds' }),
    maxDelayMs: t.exposeInt('maxDelayMs', { description: 'Longest delay between attempts, in milliseconds' }),
  }),
});

export const RetryPolicyRef = builder.objectRef<RetryPolicy>('RetryPolicy').implement({
  description: 'How often and when a failed call safe to retry runs again',
  fields: (t) => ({
    maxAttempts: t.exposeInt('maxAttempts', { description: 'Attempts per call in all (1: no retries)' }),
    backoff: t.expose('backoff', { description: 'The wait between attempts', type: BackoffRef }),
  }),
});

export const ToolDefinitionRef = builder.objectRef<ToolDefinition>('ToolDefinition').implement({
  description: 'A tool that calls of this tenant can use.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The name calls use' }),
    displayName: t.exposeString('displayName', { description: 'A name for people' }),
    description: t.exposeString('description', { description: 'What the tool does, for a model or a person choosing it' }),
    kind: t.expose('kind', { description: 'Where the tool comes from', type: ToolKindEnum }),
    capability: t.string({
      nullable: true,
      description:
        'The capability that contributes the tool (`background_execution` for spawn_background, present because background-capable tools are); null for the default built-ins and registered tools',
      resolve: (tool) => tool.capability ?? null,
    }),
    parametersSchema: t.expose('parametersSchema', { type: 'JSON', description: 'JSON Schema of the arguments' }),
    hints: t.expose('hints', { description: 'What the tool says about its effects', type: ToolHintsRef }),
    policy: t.expose('policy', { description: 'Whether calls wait for an approver', type: ToolPolicyEnum }),
    scheduling: t.expose('scheduling', { description: 'Whether calls of a batch run concurrently or in turn', type: ToolSchedulingEnum }),
    timeoutMs: t.int({
      description: 'Default deadline of each attempt (external tools: of the wait for a completion), in milliseconds, at most the deployment’s MAX_CALL_TIMEOUT_MS (what a call gets)',
      resolve: (tool, _args, { services }) => Math.min(tool.timeoutMs, services.config.MAX_CALL_TIMEOUT_MS),
    }),
    retry: t.expose('retry', { description: 'How failed calls safe to retry run again', type: RetryPolicyRef }),
    url: t.string({ nullable: true, description: 'HTTP tools: the endpoint each call is POSTed to', resolve: (tool) => tool.url ?? null }),
    mcpServer: t.string({ nullable: true, description: 'MCP tools: the name of the MCP server that provides the tool', resolve: (tool) => tool.mcpServer ?? null }),
  }),
});

const ToolHintsInput = builder.inputType('ToolHintsInput', {
  description: 'Hints of a registered tool; an absent hint keeps its current (or default) value.',
  fields: (t) => ({
    readonly: t.boolean({ description: 'The tool only reads: running it twice changes nothing (default false)' }),
    idempotent: t.boolean({ description: 'Running a call twice has the effect of running it once (default false)' }),
    destructive: t.boolean({ description: 'The tool may delete or overwrite data (default false)' }),
    openWorld: t.boolean({ description: 'The tool reaches beyond toolrun (the web, other services) (default false)' }),
    supportsBackground: t.boolean({ description: 'The tool can run as a background run (`spawnBackground`) (default false)' }),
  }),
});

const BackoffInput = builder.inputType('BackoffInput', {
  description: 'The wait between attempts of a registered tool’s calls',
  fields: (t) => ({
    type: t.field({ description: 'Fixed or exponential (default EXPONENTIAL)', type: BackoffTypeEnum }),
    delayMs: t.int({ description: 'Delay before the first retry, in milliseconds' }),
    maxDelayMs: t.int({ description: 'Longest delay between attempts, in milliseconds (at least delayMs)' }),
  }),
});

export const RetryPolicyInput = builder.inputType('RetryPolicyInput', {
  description: 'How often and when a registered tool’s failed calls run again (failures safe to retry only)',
  fields: (t) => ({
    maxAttempts: t.int({ description: 'Attempts per call, 1 to 10 (default 1: no retries)' }),
    backoff: t.field({ description: 'The wait between attempts', type: BackoffInput }),
  }),
});

type InputFields = Parameters<NonNullable<Parameters<typeof builder.inputType>[1]['fields']>>[0];

const toolSpecFields = (t: InputFields) => ({
  displayName: t.string({ description: 'A name for people (default: the name)' }),
  hints: t.field({ description: 'What the tool says about its effects', type: ToolHintsInput }),
  policy: t.field({ type: ToolPolicyEnum, description: 'REQUIRES_APPROVAL: every call waits for an approver (default AUTO)' }),
  scheduling: t.field({ type: ToolSchedulingEnum, description: 'Default PARALLEL' }),
  timeoutMs: t.int({ description: 'HTTP tools: deadline of one attempt (default 30 s). External tools: how long a call waits for its completion (default 5 min).' }),
  retry: t.field({ description: 'How failed calls safe to retry run again (default: no retries)', type: RetryPolicyInput }),
});

export const RegisterHttpToolInput = builder.inputType('RegisterHttpToolInput', {
  description: 'A tool whose calls the workers POST, signed, to an endpoint of the tenant',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Unique per tenant, ^[a-z][a-z0-9_]{0,63}$, not a built-in name' }),
    description: t.string({ description: 'What the tool does, for a model or a person choosing it', required: true }),
    parametersSchema: t.field({ type: 'JSON', required: true, description: 'JSON Schema of the arguments object' }),
    url: t.string({ required: true, description: 'http(s) endpoint the worker POSTs each call to' }),
    ...toolSpecFields(t),
  }),
});

export const RegisterExternalToolInput = builder.inputType('RegisterExternalToolInput', {
  description: 'A tool whose calls wait until a client completes them with `completeToolCall`',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Unique per tenant, ^[a-z][a-z0-9_]{0,63}$, not a built-in name' }),
    description: t.string({ description: 'What the tool does, for a model or a person choosing it', required: true }),
    parametersSchema: t.field({ type: 'JSON', required: true, description: 'JSON Schema of the arguments object' }),
    ...toolSpecFields(t),
  }),
});

export const UpdateToolInput = builder.inputType('UpdateToolInput', {
  description: 'Changes to a registered tool; absent fields keep their value. The kind cannot change.',
  fields: (t) => ({
    description: t.string({ description: 'What the tool does' }),
    parametersSchema: t.field({ description: 'JSON Schema of the arguments object', type: 'JSON' }),
    url: t.string({ description: 'HTTP tools only' }),
    ...toolSpecFields(t),
  }),
});

export const HttpToolRegistrationRef = builder.objectRef<RegisteredToolResult>('HttpToolRegistration').implement({
  description: 'A registered HTTP tool with its signing secret. The secret is shown here once and never again.',
  fields: (t) => ({
    tool: t.field({ description: 'The tool as registered', type: ToolDefinitionRef, resolve: (result) => result.tool }),
    signingSecret: t.string({
      description: `Standard Webhooks secret (whsec_…) of the ${SIGNATURE_HEADER} header of every request (see the README); store it now`,
      resolve: (result) => result.signingSecret ?? '',
    }),
    signatureHeader: t.string({ description: 'Name of the HTTP header that carries the signature', resolve: () => SIGNATURE_HEADER }),
  }),
});
