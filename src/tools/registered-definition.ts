// The stored form of a tool a tenant registered (RegisteredTool.definition) and its reading back
// into a ToolDefinition. Writes are validated by the registration service; reads still fall back
// to defaults field by field, so a row written by an older version keeps working.
import type { RetryPolicy } from '../model/retry.js';
import type { ToolDefinition, ToolHints, ToolKind, ToolPolicy, ToolScheduling } from './types.js';

export type RegisteredKind = Extract<ToolKind, 'HTTP' | 'EXTERNAL'>;

export type StoredDefinition = Omit<ToolDefinition, 'name' | 'kind'>;

export const REGISTERED_DEFAULTS = {
  hints: { readonly: false, idempotent: false, destructive: false, openWorld: true, supportsBackground: false } satisfies ToolHints,
  policy: 'AUTO' as ToolPolicy,
  scheduling: 'PARALLEL' as ToolScheduling,
  timeoutMs: { HTTP: 30_000, EXTERNAL: 5 * 60_000 } satisfies Record<RegisteredKind, number>,
  retry: { maxAttempts: 1, backoff: { type: 'EXPONENTIAL', delayMs: 500, maxDelayMs: 30_000 } } satisfies RetryPolicy,
};

export function displayNameOf(name: string): string {
  return name
    .split('_')
    .filter(Boolean)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads a RegisteredTool row into the definition calls and clients see. */
export function definitionOfRow(row: { name: string; kind: string; definition: unknown; url: string | null }): ToolDefinition {
  const kind: RegisteredKind = row.kind === 'HTTP' ? 'HTTP' : 'EXTERNAL';
  const stored = isObject(row.definition) ? (row.definition as Partial<StoredDefinition>) : {};
  const backoff = { ...REGISTERED_DEFAULTS.retry.backoff, ...(isObject(stored.retry) && isObject(stored.retry.backoff) ? stored.retry.backoff : {}) };
  const definition: ToolDefinition = {
    name: row.name,
    displayName: typeof stored.displayName === 'string' ? stored.displayName : displayNameOf(row.name),
    description: typeof stored.description === 'string' ? stored.description : '',
    parametersSchema: isObject(stored.parametersSchema) ? stored.parametersSchema : { type: 'object' },
    hints: { ...REGISTERED_DEFAULTS.hints, ...(isObject(stored.hints) ? stored.hints : {}) },
    policy: stored.policy === 'REQUIRES_APPROVAL' ? 'REQUIRES_APPROVAL' : 'AUTO',
    scheduling: stored.scheduling === 'SERIAL' ? 'SERIAL' : 'PARALLEL',
    timeoutMs: typeof stored.timeoutMs === 'number' ? stored.timeoutMs : REGISTERED_DEFAULTS.timeoutMs[kind],
    retry: {
      maxAttempts: isObject(stored.retry) && typeof stored.retry.maxAttempts === 'number' ? stored.retry.maxAttempts : REGISTERED_DEFAULTS.retry.maxAttempts,
      backoff,
    },
    kind,
  };
  if (kind === 'HTTP' && row.url) definition.url = row.url;
  return definition;
}
