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
