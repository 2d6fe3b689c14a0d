// PostgreSQL cannot store U+0000 in text or jsonb, nor a lone UTF-16 surrogate in jsonb. Tool
// outputs and client input may hold either (a binary file fetched by web_fetch, a JSON string with
// "\u0000"), so every string that goes into the database passes through this codec: a string that
// PostgreSQL could not hold — or that starts with the marker — is stored as the marker followed by an
// escaped form, and restored exactly when read. Every other string is stored as it is, so the codec
// costs one regular-expression test per value on the common path.

/** A private-use character: never produced by the escape of a storable string, so decoding is unambiguous. */
export const STORABLE_MARK = '\uE000';

const UNSTORABLE_CHAR = /[\u0000\uE000\uD800-\uDFFF]/;
/** In JSON text: an escaped NUL, an escaped (hence lone) surrogate, or the marker itself. */
const UNSTORABLE_IN_JSON = /\\u0000|\\ud[89a-f][0-9a-f]{2}|\uE000/i;

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Whether PostgreSQL can store `text` as it is and reading it back needs no decoding. */
function isPlain(text: string): boolean {
  if (!UNSTORABLE_CHAR.test(text)) return true;
  if (text.includes('\u0000') || text.startsWith(STORABLE_MARK)) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isHigh(code)) {
      if (!isLow(text.charCodeAt(i + 1))) return false;
      i++;
    } else if (isLow(code)) return false;
  }
  return true;
}

/** The storable form of a string. */
export function toStorableText(text: string): string {
  if (isPlain(text)) return text;
  let out = STORABLE_MARK;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    const code = text.charCodeAt(i);
    if (code === 0) out += `${STORABLE_MARK}0`;
    else if (char === STORABLE_MARK) out += STORABLE_MARK + STORABLE_MARK;
    else if (isHigh(code) && isLow(text.charCodeAt(i + 1))) {
      out += char + text[i + 1]!;
      i++;
    } else if (isHigh(code) || isLow(code)) out += `${STORABLE_MARK}u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return out;
}

/** The original string of a stored one. */
export function fromStorableText(text: string): string {
  if (!text.startsWith(STORABLE_MARK)) return text;
  let out = '';
  for (let i = 1; i < text.length; i++) {
    const char = text[i]!;
    if (char !== STORABLE_MARK) {
      out += char;
      continue;
    }
    const next = text[i + 1];
    if (next === '0') {
      out += '\u0000';
      i += 1;
    } else if (next === 'u') {
      out += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
      i += 5;
    } else {
      out += STORABLE_MARK;
      i += 1;
    }
  }
  return out;
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((entry) => mapStrings(entry, map));
  if (value !== null && typeof value === 'object') {
    // fromEntries defines each key as its own property; assigning `__proto__` would set the prototype and lose the key.
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [map(key), mapStrings(entry, map)]));
  }
  return value;
}

/** JSON text of `value` that PostgreSQL's jsonb accepts, restorable with `parseStoredJson`. */
export function toStorableJson(value: unknown): string {
  const json = JSON.stringify(value === undefined ? null : value);
  if (!UNSTORABLE_IN_JSON.test(json)) return json;
  return JSON.stringify(mapStrings(value, toStorableText));
}

/** The storable form of a JSON value (for drivers that serialise it themselves, e.g. Prisma). */
export function toStorable<T>(value: T): T {
  const json = JSON.stringify(value === undefined ? null : value);
  if (!UNSTORABLE_IN_JSON.test(json)) return value;
  return mapStrings(value, toStorableText) as T;
}

/** Restores a value read back from the database (already parsed). */
export function fromStorable<T>(value: T): T {
  if (value === null || typeof value !== 'object') return (typeof value === 'string' ? fromStorableText(value) : value) as T;
  return JSON.stringify(value).includes(STORABLE_MARK) ? (mapStrings(value, fromStorableText) as T) : value;
}

/** Parses jsonb text from the database and restores it. */
export function parseStoredJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return text.includes(STORABLE_MARK) ? mapStrings(value, fromStorableText) : value;
}

/** A UTF-16 surrogate without its pair: no Unicode text holds one (with the u flag a pair is one code point, not Cs). */
export const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;

/** Why a string cannot be accepted where it is stored as plain text (U+0000, a lone surrogate), or null. */
export function unacceptableText(text: string): string | null {
  if (text.includes('\u0000')) return 'contains U+0000 (NUL), which is not accepted';
  if (LONE_SURROGATE.test(text)) return 'contains a lone UTF-16 surrogate (not valid Unicode), which is not accepted';
  return null;
}

/**
 * Text for a column shown as it is (a run's status, summary, log): U+0000 and lone surrogates, which
 * PostgreSQL cannot hold there, become U+FFFD — what a tool reports is never refused for them.
 */
export function displayable(text: string): string {
  return text.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATES, '\uFFFD');
}
