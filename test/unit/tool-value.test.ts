// The tool value codec's bound on nesting: a value too deep for the recursive steps after it is a
// malformed value (a typed failure of the call), never a stack overflow.
import { describe, expect, it } from 'vitest';
import { decodeToolValue, MalformedToolValueError, MAX_TOOL_VALUE_DEPTH, toolValueOf } from '../../src/model/tool-value.js';

function nested(depth: number, wrap: (inner: unknown) => unknown): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level++) value = wrap(value);
  return value;
}

describe('tool value nesting', () => {
  for (const [shape, wrap] of [['arrays', (inner: unknown) => [inner]], ['objects', (inner: unknown) => ({ a: inner })]] as const) {
    it(`takes ${MAX_TOOL_VALUE_DEPTH} levels of ${shape} and refuses one more, or 100,000, as malformed`, () => {
      expect(toolValueOf(nested(MAX_TOOL_VALUE_DEPTH, wrap))).toEqual(nested(MAX_TOOL_VALUE_DEPTH, wrap));
      expect(decodeToolValue(nested(MAX_TOOL_VALUE_DEPTH, wrap))).toEqual(nested(MAX_TOOL_VALUE_DEPTH, wrap));
      for (const depth of [MAX_TOOL_VALUE_DEPTH + 1, 100_000]) {
        expect(() => toolValueOf(nested(depth, wrap))).toThrow(MalformedToolValueError);
        expect(() => decodeToolValue(nested(depth, wrap))).toThrow(MalformedToolValueError);
      }
    });
  }
});
