import { isEnumType, isInterfaceType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { CALL_EVENT_TYPES, type EventType, SESSION_EVENT_TYPES, TASK_EVENT_TYPES } from '../../src/model/events.js';
import { schema } from '../../src/graphql.js';

describe('the event catalogue', () => {
  it('has exactly one GraphQL type per event type, each a SessionEvent', () => {
    const catalogue: EventType[] = [...SESSION_EVENT_TYPES, ...CALL_EVENT_TYPES, ...TASK_EVENT_TYPES, 'CursorExpired'];
    const sessionEvent = schema.getType('SessionEvent');
    if (!isInterfaceType(sessionEvent)) throw new Error('SessionEvent is not an interface');
    const implementations = schema.getPossibleTypes(sessionEvent).map((type) => type.name);
    expect(implementations.sort()).toEqual([...catalogue].sort());
  });

  it('marks call events ToolCallEvent and task events TaskEvent', () => {
    const members = (name: string) => {
      const type = schema.getType(name);
      if (!isInterfaceType(type)) throw new Error(`${name} is not an interface`);
      return schema.getPossibleTypes(type).map((member) => member.name).sort();
    };
    expect(members('ToolCallEvent')).toEqual(CALL_EVENT_TYPES.filter((type) => type !== 'ToolBatchCompleted').sort());
    expect(members('TaskEvent')).toEqual([...TASK_EVENT_TYPES].sort());
  });

  it('lets `tenantEvents(types:)` name every stored event type', () => {
    const enumType = schema.getType('EventType');
    if (!isEnumType(enumType)) throw new Error('EventType is not an enum');
    expect(enumType.getValues().map((value) => value.name).sort()).toEqual([...SESSION_EVENT_TYPES, ...CALL_EVENT_TYPES, ...TASK_EVENT_TYPES].sort());
  });
});
