import { graphql } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql.js';
import { ERROR_CODES } from '../../src/model/errors.js';

/** Answers an introspection query on the real schema (introspection needs no context). */
async function introspect<T>(source: string): Promise<T> {
  const result = await graphql({ schema, source });
  expect(result.errors).toBeUndefined();
  return result.data as T;
}

async function membersOf(union: string): Promise<string[]> {
  const data = await introspect<{ __type: { possibleTypes: Array<{ name: string }> } | null }>(`{ __type(name: "${union}") { possibleTypes { name } } }`);
  return data.__type!.possibleTypes.map((type) => type.name).sort();
}

describe('the error contract', () => {
  it('gives Error.code the enum of every code, with the strings clients compare', async () => {
    const data = await introspect<{ __type: { fields: Array<{ name: string; type: { kind: string; ofType: { name: string; kind: string } } }> } }>(
      '{ __type(name: "Error") { fields { name type { kind ofType { name kind } } } } }',
    );
    expect(data.__type.fields.find((field) => field.name === 'code')?.type).toEqual({ kind: 'NON_NULL', ofType: { name: 'ErrorCode', kind: 'ENUM' } });
    const codes = await introspect<{ __type: { enumValues: Array<{ name: string }> } }>('{ __type(name: "ErrorCode") { enumValues { name } } }');
    expect(codes.__type.enumValues.map((value) => value.name).sort()).toEqual(Object.keys(ERROR_CODES).sort());
    expect(codes.__type.enumValues.map((value) => value.name)).toEqual(expect.arrayContaining(['NOT_FOUND', 'VALIDATION_FAILED', 'FORBIDDEN', 'CALL_ID_CONFLICT']));
  });

  it('lists in each mutation’s result only the errors it can answer', async () => {
    // ForbiddenError (a missing role) and BaseError (any typed error without a member of its own) are in every union.
    const always = ['BaseError', 'ForbiddenError'];
    expect(await membersOf('MutationExecuteToolBatchResult')).toEqual(
      [...always, 'CallIdConflictError', 'IdempotencyKeyReusedError', 'NotFoundError', 'ToolBatch', 'ValidationError'].sort(),
    );
    expect(await membersOf('MutationCancelToolBatchResult')).toEqual([...always, 'NotFoundError', 'ToolBatch'].sort());
    expect(await membersOf('MutationCreateSessionResult')).toEqual([...always, 'Session', 'ValidationError'].sort());
    expect(await membersOf('MutationApproveToolCallResult')).toEqual([...always, 'InvalidStateError', 'NotFoundError', 'ToolCall', 'ValidationError'].sort());
    expect(await membersOf('MutationCompleteToolCallResult')).toEqual(
      [...always, 'CallAlreadyCompletedError', 'DeadlinePassedError', 'InvalidStateError', 'NotFoundError', 'ToolCall', 'ValidationError'].sort(),
    );
    expect(await membersOf('MutationRegisterHttpToolResult')).toEqual([...always, 'HttpToolRegistration', 'ToolNameConflictError', 'ValidationError'].sort());
    expect(await membersOf('MutationRemoveMcpServerResult')).toEqual([...always, 'McpServer', 'NotFoundError'].sort());
    expect(await membersOf('MutationPauseScheduleResult')).toEqual([...always, 'InvalidStateError', 'NotFoundError', 'Schedule'].sort());
  });

  it('gives every mutation a result union with ForbiddenError and BaseError', async () => {
    const data = await introspect<{ __schema: { mutationType: { fields: Array<{ name: string; type: { kind: string; ofType: { name: string; kind: string } | null } }> } } }>(
      '{ __schema { mutationType { fields { name type { kind ofType { name kind } } } } } }',
    );
    for (const field of data.__schema.mutationType.fields) {
      expect(field.type.ofType?.kind, field.name).toBe('UNION');
      expect(await membersOf(field.type.ofType!.name), field.name).toEqual(expect.arrayContaining(['BaseError', 'ForbiddenError']));
    }
  });
});
