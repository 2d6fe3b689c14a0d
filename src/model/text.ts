// How limits count text: in characters (Unicode code points), as JSON Schema's maxLength does and
// as people do — a surrogate pair (an emoji, a CJK extension character) is one, not two.

/** The most characters of a name a client chooses for what it stores: a call id, an idempotency key, a metadata key. */
export const MAX_IDENTIFIER_LENGTH = 256;

/** The code points of `text` (a lone surrogate counts as one). */
export function characters(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/** The first `max` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair. */
export function cutAt(text: string, max: number): string {
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** The first `max` characters (code points) of `text`: a surrogate pair is never split. */
export function firstCharacters(text: string, max: number): string {
  if (text.length <= max) return text;
  let units = 0;
  for (let kept = 0; kept < max && units < text.length; kept++) {
    const code = text.charCodeAt(units);
    units += code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(units + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return text.slice(0, units);
}

/** Whether `text` has more than `max` characters (without counting when its UTF-16 length says it cannot). */
export function longerThan(text: string, max: number): boolean {
  return text.length > max && characters(text) > max;
}
