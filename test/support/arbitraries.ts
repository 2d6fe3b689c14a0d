// fast-check arbitraries more than one test file uses.
import fc from 'fast-check';

/**
 * Any string of up to `maxLength` characters, each a UTF-16 code unit (lone surrogates and NUL
 * included) or any code point: the space of `fc.string({ unit: 'binary' })`, which on creation
 * maps every code point to tokenise its dangerous samples, three seconds of CPU per test process.
 */
export function anyString(maxLength = 20): fc.Arbitrary<string> {
  const character = fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)), weight: 3 },
    { arbitrary: fc.integer({ min: 0, max: 0x10ffff }).map((point) => String.fromCodePoint(point)), weight: 1 },
  );
  return fc.array(character, { maxLength }).map((characters) => characters.join(''));
}
