import { describe, expect, it } from 'vitest';
import { characters, cutAt, firstCharacters, longerThan } from '../../src/model/text.js';

describe('characters', () => {
  it('counts code points: a surrogate pair is one, a lone surrogate one', () => {
    expect(characters('')).toBe(0);
    expect(characters('abc')).toBe(3);
    expect(characters('a\u{1F600}b')).toBe(3);
    expect(characters('\u{20000}'.repeat(300))).toBe(300);
    expect(characters('\ud800')).toBe(1);
    expect(characters('\udc00\ud800')).toBe(2);
    expect(characters('x\ud800')).toBe(2);
  });

  it('longerThan agrees with the count', () => {
    expect(longerThan('\u{20000}'.repeat(500), 500)).toBe(false);
    expect(longerThan('\u{20000}'.repeat(501), 500)).toBe(true);
    expect(longerThan('a'.repeat(501), 500)).toBe(true);
    expect(longerThan('a'.repeat(500), 500)).toBe(false);
  });
});

describe('cutAt', () => {
  it('cuts at a UTF-16 length, never inside a surrogate pair', () => {
    expect(cutAt('abcdef', 3)).toBe('abc');
    expect(cutAt('ab\u{1F389}cd', 3)).toBe('ab');
    expect(cutAt('ab\u{1F389}cd', 4)).toBe('ab\u{1F389}');
    expect(cutAt('ab', 5)).toBe('ab');
  });
});

describe('firstCharacters', () => {
  it('keeps the first code points, a surrogate pair whole, a lone surrogate as one', () => {
    expect(firstCharacters('abcdef', 3)).toBe('abc');
    expect(firstCharacters('ab\u{1F389}cd', 3)).toBe('ab\u{1F389}');
    expect(firstCharacters('\u{1F389}'.repeat(5), 2)).toBe('\u{1F389}\u{1F389}');
    expect(firstCharacters('a\ud800bc', 3)).toBe('a\ud800b');
    expect(firstCharacters('ab', 5)).toBe('ab');
    expect(characters(firstCharacters('x'.repeat(199) + '\u{1F600}'.repeat(3), 200))).toBe(200);
  });
});
