import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyString } from '../support/arbitraries.js';
import { fromStorable, fromStorableText, parseStoredJson, STORABLE_MARK, toStorable, toStorableJson, toStorableText } from '../../src/model/storable-json.js';

const tricky = fc.oneof(
  fc.string(),
  anyString(),
  fc.constantFrom('a\u0000b', 'x\ud800y', '\udc00', '\ud83d\ude00', STORABLE_MARK, `${STORABLE_MARK}0`, `${STORABLE_MARK}u0041`, '\u0000', ''),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, tricky, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(tricky, tie('value'), { maxKeys: 4 }),
})).value;

describe('storable JSON', () => {
  it('round-trips every string, and leaves storable strings untouched', () => {
    fc.assert(
      fc.property(tricky, (text) => {
        const stored = toStorableText(text);
        expect(stored).not.toContain('\u0000');
        expect(fromStorableText(stored)).toBe(text);
        if (!/[\u0000\uE000\uD800-\uDFFF]/.test(text)) expect(stored).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps a `__proto__` key of an object whose keys it must escape (as its own key, not the prototype)', () => {
    const value = JSON.parse('{"\\u0000": 1, "__proto__": {"polluted": true}}') as Record<string, unknown>;
    for (const restored of [parseStoredJson(toStorableJson(value)), fromStorable(toStorable(value))] as Array<Record<string, unknown>>) {
      expect(Object.keys(restored)).toEqual(['\u0000', '__proto__']);
      expect(Object.getPrototypeOf(restored)).toBe(Object.prototype);
      expect(JSON.stringify(restored)).toBe(JSON.stringify(value));
    }
  });

  it('round-trips every JSON value through its stored text and through its stored value', () => {
    fc.assert(
      fc.property(json, (value) => {
        const normal = JSON.parse(JSON.stringify(value)) as unknown;
        expect(parseStoredJson(toStorableJson(value))).toEqual(normal);
        expect(fromStorable(toStorable(normal))).toEqual(normal);
      }),
      { numRuns: 2000 },
    );
  });
});
