import type { GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql.js';

/** The role each mutation needs (DESIGN.md §7); queries and subscriptions need `reader` unless listed. */
const MUTATION_ROLES: Record<string, string> = {
  createSession: 'submitter',
  executeToolBatch: 'submitter',
  cancelToolBatch: 'submitter',
  cancelToolCall: 'submitter',
  completeToolCall: 'submitter',
  spawnBackground: 'submitter',
  cancelTask: 'submitter',
  cancelSchedule: 'submitter',
  pauseSchedule: 'submitter',
  resumeSchedule: 'submitter',
  triggerSchedule: 'submitter',
  approveToolCall: 'approver',
  rejectToolCall: 'approver',
  registerHttpTool: 'admin',
  registerExternalTool: 'admin',
  updateTool: 'admin',
  rotateToolSigningSecret: 'admin',
  removeTool: 'admin',
  registerMcpServer: 'admin',
  updateMcpServer: 'admin',
  refreshMcpServer: 'admin',
  removeMcpServer: 'admin',
  updateTenantSettings: 'admin',
  createApiKey: 'admin',
  revokeApiKey: 'admin',
  rotateApiKey: 'admin',
};
/** Queries that need more than `reader`. */
const QUERY_ROLES: Record<string, string> = { apiKeys: 'admin' };

function scopesOf(type: GraphQLObjectType | null | undefined): Record<string, unknown> {
  return Object.fromEntries(
    Object.values(type!.getFields()).map((field) => [field.name, (field.extensions as { pothosOptions?: { authScopes?: unknown } }).pothosOptions?.authScopes]),
  );
}

describe('root fields', () => {
  it('each state the one role they need', () => {
    for (const [name, scopes] of Object.entries({ ...scopesOf(schema.getQueryType()), ...scopesOf(schema.getSubscriptionType()) })) {
      expect(scopes, name).toEqual({ [QUERY_ROLES[name] ?? 'reader']: true });
    }
    const mutations = scopesOf(schema.getMutationType());
    expect(Object.keys(mutations).sort()).toEqual(Object.keys(MUTATION_ROLES).sort());
    for (const [name, scopes] of Object.entries(mutations)) expect(scopes, name).toEqual({ [MUTATION_ROLES[name]!]: true });
  });
});
