import { type GraphQLNamedType, isEnumType, isInputObjectType, isInterfaceType, isIntrospectionType, isObjectType, isSpecifiedScalarType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql.js';

/** Every element of a named type that a client sees (a union or custom scalar has only itself), as `Type`, `Type.field`, `Type.field(arg)` or `Enum.VALUE`, with its description. */
function elementsOf(type: GraphQLNamedType): [string, string | null | undefined][] {
  const elements: [string, string | null | undefined][] = [[type.name, type.description]];
  if (isObjectType(type) || isInterfaceType(type)) {
    for (const field of Object.values(type.getFields())) {
      elements.push([`${type.name}.${field.name}`, field.description]);
      for (const arg of field.args) elements.push([`${type.name}.${field.name}(${arg.name})`, arg.description]);
    }
  } else if (isInputObjectType(type)) {
    for (const field of Object.values(type.getFields())) elements.push([`${type.name}.${field.name}`, field.description]);
  } else if (isEnumType(type)) {
    for (const value of type.getValues()) elements.push([`${type.name}.${value.name}`, value.description]);
  }
  return elements;
}

describe('the GraphQL schema', () => {
  it('describes every type, field, argument, input field and enum value', () => {
    const types = Object.values(schema.getTypeMap()).filter((type) => !isIntrospectionType(type) && !isSpecifiedScalarType(type));
    const elements = types.flatMap(elementsOf);
    const undescribed = elements.filter(([, description]) => !description?.trim()).map(([name]) => name);
    // Checked against something real: the walk sees the schema's root types and enum values.
    expect(elements.map(([name]) => name)).toEqual(expect.arrayContaining(['Query', 'Mutation.executeToolBatch(sessionId)', 'ToolCallStatus.QUEUED']));
    expect(undescribed, `${undescribed.length} of ${elements.length} elements have no description:\n${undescribed.join('\n')}`).toEqual([]);
  });
});
