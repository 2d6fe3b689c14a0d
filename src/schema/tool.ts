import { ToolNameConflictError } from '../domain/errors.js';
import type { RegisteredToolResult } from '../domain/registered-tools.js';
import { registerExternalTool, registerHttpTool, removeTool, rotateToolSigningSecret, updateTool } from '../resolvers/tools.js';
import { SIGNATURE_HEADER } from '../tools/http-tool.js';
import type { ToolDefinition, ToolHints, RetryPolicy } from '../tools/types.js';
import { builder } from './builder.js';

export const ToolKindEnum = builder.enumType('ToolKind', { values: ['BUILTIN', 'HTTP', 'EXTERNAL'] as const });
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

const RetryPolicyRef = builder.objectRef<RetryPolicy>('RetryPolicy').implement({
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
  }),
});

builder.queryFields((t) => ({
  tools: t.field({
    type: [ToolDefinitionRef],
    authScopes: { authenticated: true },
    resolve: (_root, _args, context) => context.services.registry.list(context.viewer.tenantId),
  }),
  tool: t.field({
    type: ToolDefinitionRef,
    nullable: true,
    authScopes: { authenticated: true },
    args: { name: t.arg.string({ required: true }) },
    resolve: async (_root, args, context) => (await context.services.registry.resolve(context.viewer.tenantId, args.name))?.definition ?? null,
  }),
}));

// Tools a tenant registers at run time (HTTP and external tools). Managing them needs the admin role.

builder.objectField(ToolDefinitionRef, 'url', (t) =>
  t.string({ nullable: true, description: 'HTTP tools: the endpoint each call is POSTed to', resolve: (tool) => tool.url ?? null }),
);

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

const RetryPolicyInput = builder.inputType('RetryPolicyInput', {
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

const RegisterHttpToolInput = builder.inputType('RegisterHttpToolInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Unique per tenant, ^[a-z][a-z0-9_]{0,63}$, not a built-in name' }),
    description: t.string({ required: true }),
    parametersSchema: t.field({ type: 'JSON', required: true, description: 'JSON Schema of the arguments object' }),
    url: t.string({ required: true, description: 'http(s) endpoint the worker POSTs each call to' }),
    ...toolSpecFields(t),
  }),
});

const RegisterExternalToolInput = builder.inputType('RegisterExternalToolInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Unique per tenant, ^[a-z][a-z0-9_]{0,63}$, not a built-in name' }),
    description: t.string({ required: true }),
    parametersSchema: t.field({ type: 'JSON', required: true, description: 'JSON Schema of the arguments object' }),
    ...toolSpecFields(t),
  }),
});

const UpdateToolInput = builder.inputType('UpdateToolInput', {
  description: 'Changes to a registered tool; absent fields keep their value. The kind cannot change.',
  fields: (t) => ({
    description: t.string(),
    parametersSchema: t.field({ type: 'JSON' }),
    url: t.string({ description: 'HTTP tools only' }),
    ...toolSpecFields(t),
  }),
});

const HttpToolRegistrationRef = builder.objectRef<RegisteredToolResult>('HttpToolRegistration').implement({
  description: 'A registered HTTP tool with its signing secret. The secret is shown here once and never again.',
  fields: (t) => ({
    tool: t.field({ type: ToolDefinitionRef, resolve: (result) => result.tool }),
    signingSecret: t.string({
      description: `Key of the ${SIGNATURE_HEADER} HMAC-SHA256 signature of every request (see the README); store it now`,
      resolve: (result) => result.signingSecret ?? '',
    }),
    signatureHeader: t.string({ resolve: () => SIGNATURE_HEADER }),
  }),
});

builder.mutationFields((t) => ({
  registerHttpTool: t.field({
    type: HttpToolRegistrationRef,
    authScopes: { authenticated: true },
    description: 'Registers an HTTP tool for this tenant (admin role). Returns its signing secret, once.',
    errors: { types: [ToolNameConflictError] },
    args: { input: t.arg({ type: RegisterHttpToolInput, required: true }) },
    resolve: (_root, args, context) => registerHttpTool(context, args.input),
  }),
  registerExternalTool: t.field({
    type: ToolDefinitionRef,
    authScopes: { authenticated: true },
    description: 'Registers an external tool for this tenant (admin role): its calls wait in PENDING_EXTERNAL until completeToolCall or their deadline.',
    errors: { types: [ToolNameConflictError] },
    args: { input: t.arg({ type: RegisterExternalToolInput, required: true }) },
    resolve: (_root, args, context) => registerExternalTool(context, args.input),
  }),
  updateTool: t.field({
    type: ToolDefinitionRef,
    authScopes: { authenticated: true },
    description: 'Changes a registered tool (admin role). Attempts that start afterwards use the new URL; a call’s arguments, timeout and attempts are fixed at submission.',
    errors: {},
    args: { name: t.arg.string({ required: true }), input: t.arg({ type: UpdateToolInput, required: true }) },
    resolve: (_root, args, context) => updateTool(context, args.name, args.input),
  }),
  rotateToolSigningSecret: t.field({
    type: HttpToolRegistrationRef,
    authScopes: { authenticated: true },
    description: 'Gives an HTTP tool a new signing secret (admin role), returned once; the old one stops being used at once.',
    errors: {},
    args: { name: t.arg.string({ required: true }) },
    resolve: (_root, args, context) => rotateToolSigningSecret(context, args.name),
  }),
  removeTool: t.field({
    type: ToolDefinitionRef,
    authScopes: { authenticated: true },
    description: 'Removes a registered tool (admin role) and returns its last definition. Calls that have not started yet complete UNAVAILABLE.',
    errors: {},
    args: { name: t.arg.string({ required: true }) },
    resolve: (_root, args, context) => removeTool(context, args.name),
  }),
}));
