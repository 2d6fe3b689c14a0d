// The tool value codec's bound on nesting: a value too deep for the recursive steps after it is a
// malformed value (a typed failure of the call), never a stack overflow.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeToolValue, jsonText, MalformedToolValueError, MAX_TOOL_VALUE_DEPTH, toolValueOf } from '../../src/model/tool-value.js';

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

describe('jsonText', () => {
  // Anything but plain JSON (here a class instance, written as an empty object) makes jsonText take
  // its general path for the whole value: the direct path for plain JSON must write the same text.
  class Opaque {}
  const general = (value: unknown) => jsonText([new Opaque(), value]).slice('[{},'.length, -1);

  it('writes plain JSON as its general path does (sorted keys, integers as integers, floats as serde does)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonText(value)).toBe(general(value));
      }),
      { numRuns: 500 },
    );
    const sample = { b: [1, -0, 1.5, 1e21, 2 ** 60, -(2 ** 63), 0.1], a: { '\u{1F600}': 'x', é: null, z: true }, $toolrun: 'as is' };
    expect(jsonText(sample)).toBe(general(sample));
    expect(jsonText(sample)).toBe('{"$toolrun":"as is","a":{"z":true,"é":null,"\u{1F600}":"x"},"b":[1,0,1.5,1e21,1152921504606846976,-9223372036854775808,0.1]}');
  });

  it('refuses what the general path refuses, the same way', () => {
    let deep: unknown = 1;
    for (let level = 0; level <= MAX_TOOL_VALUE_DEPTH; level++) deep = [deep];
    expect(() => jsonText(deep)).toThrow(MalformedToolValueError);
    expect(() => jsonText({ n: Number.NaN })).toThrow(MalformedToolValueError);
  });
});
