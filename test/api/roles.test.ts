// The role × operation matrix: every root field of the schema (found by introspection, so a field
// added later is covered, or fails here until it states its role) is called with a key of each
// role alone. A key may run a field iff the field needs `reader` or exactly the key's role; any
// other key gets FORBIDDEN (a top-level error, or the ForbiddenError member of a result union).
import { randomUUID } from 'node:crypto';
import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isScalarType,
  isUnionType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '../../src/domain/tenants/api-keys.js';
import { schema } from '../../src/graphql.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

type Operation = 'query' | 'mutation' | 'subscription';

function requiredRole(field: GraphQLField<unknown, unknown>): Role | null {
  const scopes = (field.extensions as { pothosOptions?: { authScopes?: Record<string, boolean> } }).pothosOptions?.authScopes;
  if (!scopes || typeof scopes !== 'object') return null;
  const roles = Object.entries(scopes).filter(([, on]) => on === true).map(([role]) => role as Role);
  return roles.length === 1 && ROLES.includes(roles[0]!) ? roles[0]! : null;
}

/** A value of the type that passes GraphQL's own checks (the resolver may still refuse it). */
function sample(type: GraphQLInputType): string {
  if (isNonNullType(type)) return sample(type.ofType);
  if (isListType(type)) return `[${sample(type.ofType)}]`;
  if (isEnumType(type)) return type.getValues()[0]!.name;
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields()).filter((field) => isNonNullType(field.type));
    return `{${fields.map((field) => `${field.name}: ${sample(field.type)}`).join(', ')}}`;
  }
  if (isScalarType(type)) {
    switch (type.name) {
      case 'ID':
        return JSON.stringify(randomUUID());
      case 'Int':
      case 'Float':
        return '1';
      case 'Boolean':
        return 'true';
      case 'JSON':
        return '{}';
      case 'DateTime':
        return JSON.stringify(new Date(Date.now() + 3600_000).toISOString());
      default:
        return '"x"';
    }
  }
  throw new Error(`no sample for ${String(type)}`);
}

function documentFor(operation: Operation, field: GraphQLField<unknown, unknown>): string {
  const args = field.args.filter((arg: GraphQLArgument) => isNonNullType(arg.type));
  const argText = args.length ? `(${args.map((arg) => `${arg.name}: ${sample(arg.type)}`).join(', ')})` : '';
  const named = getNamedType(field.type);
  const selection = isLeafType(named) ? '' : isUnionType(named) ? '{ __typename ... on Error { code } }' : '{ __typename }';
  return `${operation} { ${field.name}${argText} ${selection} }`;
}

const rootFields = (['query', 'mutation', 'subscription'] as const).flatMap((operation) => {
  const type = operation === 'query' ? schema.getQueryType() : operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  return Object.values(type!.getFields()).map((field) => ({ operation, field }));
});

describe('roles', () => {
  let toolrun: Toolrun;
  const keys = {} as Record<Role, string>;

  beforeAll(async () => {
    toolrun = await startToolrun({}, { worker: false });
    const tenant = (await toolrun.services.apiKeys.tenant(toolrun.tenantId)).name;
    for (const role of ROLES) keys[role] = (await toolrun.services.apiKeys.createKey(tenant, { name: role, roles: [role] })).key;
  });
  afterAll(() => toolrun?.close());

  it('every root field states exactly one role', () => {
    const missing = rootFields.filter(({ field }) => requiredRole(field) === null).map(({ operation, field }) => `${operation}.${field.name}`);
    expect(missing).toEqual([]);
  });

  it('queries and subscriptions need reader, except the admin-only list of API keys', () => {
    for (const { operation, field } of rootFields) {
      if (operation === 'mutation') expect(requiredRole(field), field.name).not.toBe('reader');
      else expect(requiredRole(field), field.name).toBe(field.name === 'apiKeys' ? 'admin' : 'reader');
    }
  });

  /** Whether the answer refused the operation for want of a role. */
  async function forbidden(operation: Operation, document: string, key: string): Promise<boolean> {
    if (operation !== 'subscription') {
      const result = await toolrun.request(document, undefined, key);
      const data = result.data as Record<string, { __typename?: string; code?: string } | null> | null | undefined;
      const member = data ? Object.values(data)[0] : null;
      return member?.__typename === 'ForbiddenError' || (result.errors ?? []).some((error) => error.extensions?.code === 'FORBIDDEN');
    }
    // Over SSE: the first message is an error (unknown session, or a missing role) or an event.
    const response = await toolrun.endpoint.fetch(toolrun.endpoint.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: document }),
    });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    return text.includes('"FORBIDDEN"');
  }

  it.each(ROLES)('a %s key runs exactly the fields its role allows', async (role) => {
    const wrong: string[] = [];
    for (const { operation, field } of rootFields) {
      const needed = requiredRole(field);
      const allowed = needed === 'reader' || needed === role;
      const refused = await forbidden(operation, documentFor(operation, field), keys[role]);
      if (refused === allowed) wrong.push(`${operation}.${field.name} (needs ${needed}): ${refused ? 'refused' : 'allowed'}`);
    }
    expect(wrong).toEqual([]);
  });
});
