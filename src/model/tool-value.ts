// Tool values (port of the seeds' ToolValue, seed 004): JSON plus references to attachments.
// A value has three encodings:
// - the wire form, exactly as the seeds serialize it: an attachment is an object tagged with the
//   reserved key `$lash_tool_value`; a user object that happens to use that key is escaped, so
//   every value round-trips, and a malformed tagged object is rejected rather than guessed at;
// - the stored form, toolrun's rows: the same scheme under toolrun's own key `$toolrun_value`
//   (rows written before the port keep decoding), which also marks floats whose value is
//   integral, because JSON in PostgreSQL and JavaScript keeps no difference between 8 and 8.0;
// - text: what serde_json prints for the wire form (keys sorted, floats printed as floats).

export const TOOL_VALUE_TAG = '$lash_tool_value';
export const STORED_VALUE_TAG = '$toolrun_value';
const ATTACHMENT_TAG = 'attachment';
const OBJECT_TAG = 'object';
const FLOAT_TAG = 'float';
const REF_KEY = 'ref';
const ENTRIES_KEY = 'entries';

export const IMAGE_MEDIA_TYPES = ['png', 'jpeg', 'gif', 'webp', 'bmp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];
/** The seeds' MediaType: only images exist there. */
export interface MediaType {
  kind: 'image';
  type: ImageMediaType;
}

/** The seeds' AttachmentRef. In toolrun an attachment's id is the path of a session file. */
export interface AttachmentRef {
  id: string;
  mediaType: MediaType;
  byteLen: number;
  width?: number;
  height?: number;
  label?: string;
}

export class Attachment {
  constructor(readonly ref: AttachmentRef) {}
}

/** A number the tool produced as a float (an f64): `float(8)` prints as `8.0`, as in the seeds. */
export class Float {
  constructor(readonly value: number) {}
}
export const float = (value: number): Float => new Float(value);

export type ToolValue = null | boolean | number | string | Float | Attachment | ToolValue[] | { [key: string]: ToolValue };
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export class MalformedToolValueError extends Error {
  override name = 'MalformedToolValueError';
}

const malformed = (message: string) => new MalformedToolValueError(message);

/**
 * How deep a tool value may nest. What a tool answers is encoded, stored and shown to the model by
 * recursive steps; a value nested thousands of levels deep would exhaust the stack on the way
 * (found: an HTTP tool's 5,000-level answer surfaced as a stack overflow).
 */
export const MAX_TOOL_VALUE_DEPTH = 256;

function within(depth: number): number {
  if (depth >= MAX_TOOL_VALUE_DEPTH) throw malformed(`the value nests deeper than ${MAX_TOOL_VALUE_DEPTH} levels`);
  return depth + 1;
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Attachment) && !(value instanceof Float);
}

const hasKey = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key);

function finite(value: number): number {
  if (!Number.isFinite(value)) throw malformed('non-finite number is not a valid tool value');
  return value;
}

/** A tool's JavaScript result as a tool value. Like the seeds' `From<Value>`, no tag is interpreted. */
export function toolValueOf(value: unknown, depth = 0): ToolValue {
  if (value === null || value === undefined) return null;
  if (value instanceof Attachment) return value;
  if (value instanceof Float) return new Float(finite(value.value));
  if (Array.isArray(value)) {
    const next = within(depth);
    return value.map((entry) => toolValueOf(entry, next));
  }
  switch (typeof value) {
    case 'boolean':
    case 'string':
      return value;
    case 'number':
      return finite(value);
    case 'bigint':
      return Number(value);
    case 'object': {
      if (value instanceof Date) return value.toISOString();
      const next = within(depth);
      const entries = Object.entries(value).filter(([, entry]) => entry !== undefined);
      return Object.fromEntries(entries.map(([key, entry]) => [key, toolValueOf(entry, next)]));
    }
    default:
      throw malformed(`a ${typeof value} is not a valid tool value`);
  }
}

// --- attachment references ---------------------------------------------------------------

/** The wire (and stored) form of a reference: the seeds' AttachmentRef, snake_case. */
export function attachmentRefJson(ref: AttachmentRef): { [key: string]: Json } {
  const json: { [key: string]: Json } = { id: ref.id, media_type: { kind: ref.mediaType.kind, type: ref.mediaType.type }, byte_len: ref.byteLen };
  if (ref.width !== undefined) json.width = ref.width;
  if (ref.height !== undefined) json.height = ref.height;
  if (ref.label !== undefined) json.label = ref.label;
  return json;
}

function unsignedInteger(value: unknown, field: string, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw malformed(`attachment ref \`${field}\` must be an integer from 0 to ${max}`);
  }
  return value;
}

/** Reads the seeds' AttachmentRef (unknown fields are ignored, as serde does). */
export function parseAttachmentRef(json: unknown): AttachmentRef {
  if (!isJsonObject(json)) throw malformed('attachment ref must be an object');
  if (typeof json.id !== 'string') throw malformed('attachment ref `id` must be a string');
  const media = json.media_type;
  if (!isJsonObject(media) || media.kind !== 'image' || !IMAGE_MEDIA_TYPES.includes(media.type as ImageMediaType)) {
    throw malformed(`attachment ref \`media_type\` must be {"kind": "image", "type": ${IMAGE_MEDIA_TYPES.map((type) => `"${type}"`).join(' | ')}}`);
  }
  const ref: AttachmentRef = { id: json.id, mediaType: { kind: 'image', type: media.type as ImageMediaType }, byteLen: unsignedInteger(json.byte_len, 'byte_len', Number.MAX_SAFE_INTEGER) };
  if (json.width !== undefined && json.width !== null) ref.width = unsignedInteger(json.width, 'width', 0xffff_ffff);
  if (json.height !== undefined && json.height !== null) ref.height = unsignedInteger(json.height, 'height', 0xffff_ffff);
  if (json.label !== undefined && json.label !== null) {
    if (typeof json.label !== 'string') throw malformed('attachment ref `label` must be a string');
    ref.label = json.label;
  }
  return ref;
}

export function canonicalMime(mediaType: MediaType): string {
  return `image/${mediaType.type}`;
}

function mediaTypeOfMime(mime: unknown): MediaType | null {
  if (typeof mime !== 'string') return null;
  const type = mime.trim().toLowerCase().replace(/^image\/jpg$/, 'image/jpeg');
  const match = /^image\/([a-z]+)$/.exec(type);
  return match && IMAGE_MEDIA_TYPES.includes(match[1] as ImageMediaType) ? { kind: 'image', type: match[1] as ImageMediaType } : null;
}

// --- the wire form (seed 004's Serialize / Deserialize) ----------------------------------------

/** Encodes a value into the seeds' wire form. */
export function encodeToolValue(value: ToolValue): Json {
  if (value instanceof Attachment) return { [TOOL_VALUE_TAG]: ATTACHMENT_TAG, [REF_KEY]: attachmentRefJson(value.ref) };
  if (value instanceof Float) return value.value;
  if (Array.isArray(value)) return value.map(encodeToolValue);
  if (isJsonObject(value)) {
    const entries = Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, encodeToolValue(entry)]));
    return hasKey(entries, TOOL_VALUE_TAG) ? { [TOOL_VALUE_TAG]: OBJECT_TAG, [ENTRIES_KEY]: entries } : entries;
  }
  return value as null | boolean | number | string;
}

/** Decodes the seeds' wire form; throws MalformedToolValueError (with the seeds' messages) on a malformed tagged object. */
export function decodeToolValue(json: unknown): ToolValue {
  return decodeTagged(json, TOOL_VALUE_TAG, (ref) => new Attachment(parseAttachmentRef(ref)), false);
}

function decodeTagged(json: unknown, tagKey: string, attachment: (ref: unknown) => ToolValue, stored: boolean, depth = 0): ToolValue {
  if (json === null || json === undefined) return null;
  if (typeof json === 'object') depth = within(depth);
  const decode = (entry: unknown): ToolValue => decodeTagged(entry, tagKey, attachment, stored, depth);
  if (Array.isArray(json)) return json.map(decode);
  if (typeof json === 'number') return finite(json);
  if (typeof json === 'boolean' || typeof json === 'string') return json;
  if (!isJsonObject(json)) throw malformed('not a JSON value');
  const decodeEntries = (entries: Record<string, unknown>) => Object.fromEntries(Object.entries(entries).map(([key, entry]) => [key, decode(entry)]));
  if (!hasKey(json, tagKey)) return decodeEntries(json);
  const tag = json[tagKey];
  const size = Object.keys(json).length;
  if (typeof tag !== 'string') throw malformed('reserved tool value tag must be a string');
  if (tag === ATTACHMENT_TAG) {
    if (size !== 2 || !hasKey(json, REF_KEY)) throw malformed('malformed attachment tool value');
    return attachment(json[REF_KEY]);
  }
  if (tag === OBJECT_TAG) {
    if (size !== 2 || !hasKey(json, ENTRIES_KEY)) throw malformed('malformed escaped object tool value');
    const entries = json[ENTRIES_KEY];
    if (!isJsonObject(entries)) throw malformed('escaped object entries must be an object');
    return decodeEntries(entries);
  }
  if (stored && tag === FLOAT_TAG && size === 2 && typeof json.value === 'number') return new Float(json.value);
  throw malformed(`unknown reserved tool value tag \`${tag}\``);
}

// --- the stored form ------------------------------------------------------------------------

/** Encodes a value for toolrun's rows. */
export function encodeStoredValue(value: ToolValue): Json {
  if (value instanceof Attachment) return { [STORED_VALUE_TAG]: ATTACHMENT_TAG, [REF_KEY]: attachmentRefJson(value.ref) };
  if (value instanceof Float) return Number.isInteger(value.value) ? { [STORED_VALUE_TAG]: FLOAT_TAG, value: value.value } : value.value;
  if (Array.isArray(value)) return value.map(encodeStoredValue);
  if (isJsonObject(value)) {
    const entries = Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, encodeStoredValue(entry)]));
    return hasKey(entries, STORED_VALUE_TAG) ? { [STORED_VALUE_TAG]: OBJECT_TAG, [ENTRIES_KEY]: entries } : entries;
  }
  return value as null | boolean | number | string;
}

/** Decodes a stored value, including references stored before the port (`{path, mediaType?, size?}`). */
export function decodeStoredValue(json: unknown): ToolValue {
  return decodeTagged(json, STORED_VALUE_TAG, storedAttachment, true);
}

function storedAttachment(ref: unknown): ToolValue {
  if (isJsonObject(ref) && typeof ref.path === 'string' && !('id' in ref)) {
    const mediaType = mediaTypeOfMime(ref.mediaType);
    // The seeds only know image attachments; an older reference to another kind of file stays data.
    if (!mediaType) return toolValueOf(ref);
    return new Attachment({ id: ref.path, mediaType, byteLen: typeof ref.size === 'number' ? ref.size : 0 });
  }
  return new Attachment(parseAttachmentRef(ref));
}

export function collectAttachments(value: ToolValue, into: AttachmentRef[] = []): AttachmentRef[] {
  if (value instanceof Attachment) into.push(value.ref);
  else if (Array.isArray(value)) value.forEach((entry) => collectAttachments(entry, into));
  else if (isJsonObject(value)) Object.values(value).forEach((entry) => collectAttachments(entry as ToolValue, into));
  return into;
}

// --- text ---------------------------------------------------------------------------------

/**
 * Orders strings by code point, as Rust's `String` ordering (a BTreeMap's key order) does;
 * JavaScript's default sort compares UTF-16 code units and puts U+E000..U+FFFF after astral
 * characters.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x !== y) return codeUnitRank(x) - codeUnitRank(y);
  }
  return a.length - b.length;
}

function codeUnitRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  return unit >= 0xe000 ? unit - 0x800 : unit;
}

/** An f64 as Rust's serde_json prints it (the `ryu` crate's shortest form): `8.0`, `0.1`, `1e-7`, `1.5e300`. */
export function formatFloat(value: number): string {
  finite(value);
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const sign = value < 0 ? '-' : '';
  const [mantissa, exponentText] = Math.abs(value).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const length = digits.length;
  const kk = Number(exponentText) + 1; // 10^(kk-1) <= |value| < 10^kk
  const k = kk - length;
  let text: string;
  if (k >= 0 && kk <= 16) text = `${digits}${'0'.repeat(k)}.0`;
  else if (kk > 0 && kk <= 16) text = `${digits.slice(0, kk)}.${digits.slice(kk)}`;
  else if (kk > -5 && kk <= 0) text = `0.${'0'.repeat(-kk)}${digits}`;
  else if (length === 1) text = `${digits}e${kk - 1}`;
  else text = `${digits[0]}.${digits.slice(1)}e${kk - 1}`;
  return sign + text;
}

const I64_MIN = -(2 ** 63);
const U64_LIMIT = 2 ** 64;

/**
 * A JSON number as serde_json prints it. An integral number is read as an integer (as serde_json
 * reads `8`); a tool that means a float says so with `float()`.
 */
export function formatNumber(value: number): string {
  // A safe integer's shortest digits (String's) are its exact ones; larger ones need BigInt's.
  if (Number.isSafeInteger(value)) return String(value);
  if (Number.isInteger(value) && value >= I64_MIN && value < U64_LIMIT) return BigInt(value).toString();
  return formatFloat(value);
}

/** serde_json's text of a value's wire form: compact, or pretty (two-space indent) like `to_string_pretty`. */
export function toolValueText(value: ToolValue, pretty = false): string {
  const out: string[] = [];
  writeValue(value, out, pretty ? '\n' : null, true);
  return out.join('');
}

/**
 * serde_json's text of plain JSON (a `serde_json::Value`: keys sorted, integral numbers as
 * integers, floats as floats). Unlike a tool value, an object that uses the reserved key is
 * written as it is, not escaped.
 */
export function jsonText(json: unknown, pretty = false): string {
  if (!pretty) {
    const text = plainJsonText(json, 0);
    if (text !== null) return text;
  }
  const out: string[] = [];
  writeValue(toolValueOf(json), out, pretty ? '\n' : null, false);
  return out.join('');
}

/**
 * jsonText's compact text of a value made only of what JSON.parse makes (null, booleans, finite
 * numbers, strings, arrays, plain objects) — the batch id hashes every call's arguments this way —
 * written directly; null for anything else (which the general path writes or refuses).
 */
function plainJsonText(value: unknown, depth: number): string | null {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return Number.isFinite(value) ? formatNumber(value) : null;
    case 'object': {
      if (value === null) return 'null';
      if (depth >= MAX_TOOL_VALUE_DEPTH) return null;
      if (Array.isArray(value)) {
        let text = '[';
        for (let index = 0; index < value.length; index++) {
          const entry = plainJsonText(value[index], depth + 1);
          if (entry === null) return null;
          text += index === 0 ? entry : `,${entry}`;
        }
        return `${text}]`;
      }
      const prototype = Object.getPrototypeOf(value) as unknown;
      if (prototype !== Object.prototype && prototype !== null) return null;
      const keys = Object.keys(value).sort(compareCodePoints);
      let text = '{';
      for (let index = 0; index < keys.length; index++) {
        const entry = plainJsonText((value as Record<string, unknown>)[keys[index]!], depth + 1);
        if (entry === null) return null;
        text += `${index === 0 ? '' : ','}${JSON.stringify(keys[index])}:${entry}`;
      }
      return `${text}}`;
    }
    default:
      return null;
  }
}

/** `escape`: write a tool value's wire form (objects that use the reserved key escaped), else plain JSON. */
function writeValue(value: ToolValue, out: string[], newline: string | null, escape: boolean): void {
  if (value === null) out.push('null');
  else if (typeof value === 'boolean') out.push(String(value));
  else if (typeof value === 'number') out.push(formatNumber(value));
  else if (typeof value === 'string') out.push(JSON.stringify(value));
  else if (value instanceof Float) out.push(formatFloat(value.value));
  else if (value instanceof Attachment) writeObject([[TOOL_VALUE_TAG, ATTACHMENT_TAG], [REF_KEY, toolValueOf(attachmentRefJson(value.ref))]], out, newline, escape);
  else if (Array.isArray(value)) {
    if (value.length === 0) {
      out.push('[]');
      return;
    }
    const inner = newline === null ? null : `${newline}  `;
    out.push('[');
    value.forEach((entry, index) => {
      if (index > 0) out.push(',');
      if (inner !== null) out.push(inner);
      writeValue(entry, out, inner, escape);
    });
    if (newline !== null) out.push(newline);
    out.push(']');
  } else {
    if (escape && hasKey(value, TOOL_VALUE_TAG)) writeObject([[TOOL_VALUE_TAG, OBJECT_TAG], [ENTRIES_KEY, value]], out, newline, escape, true);
    else writeObject(Object.entries(value), out, newline, escape);
  }
}

function writeObject(entries: Array<[string, ToolValue]>, out: string[], newline: string | null, escape: boolean, escapedEntries = false): void {
  if (entries.length === 0) {
    out.push('{}');
    return;
  }
  const inner = newline === null ? null : `${newline}  `;
  out.push('{');
  [...entries]
    .sort(([a], [b]) => compareCodePoints(a, b))
    .forEach(([key, entry], index) => {
      if (index > 0) out.push(',');
      if (inner !== null) out.push(inner);
      out.push(JSON.stringify(key), inner === null ? ':' : ': ');
      // The entries of an escaped object are written as they are: they are not escaped again.
      if (escapedEntries && key === ENTRIES_KEY) writeObject(Object.entries(entry as Record<string, ToolValue>), out, inner, escape);
      else writeValue(entry, out, inner, escape);
    });
  if (newline !== null) out.push(newline);
  out.push('}');
}

// --- the model's view -----------------------------------------------------------------------

export type ModelPart = { type: 'TEXT'; text: string } | { type: 'ATTACHMENT'; attachment: AttachmentRef };

/**
 * The model-facing parts of a value (the seeds' `model_parts`): a string as it is, an attachment
 * as an attachment part, anything else as compact JSON text (keys sorted, objects never escaped)
 * with attachment parts where references stand.
 */
export function modelPartsOfValue(value: ToolValue): ModelPart[] {
  const parts: ModelPart[] = [];
  const pushText = (text: string) => {
    if (!text) return;
    const last = parts.at(-1);
    if (last?.type === 'TEXT') last.text += text;
    else parts.push({ type: 'TEXT', text });
  };
  const walk = (entry: ToolValue): void => {
    if (entry instanceof Attachment) parts.push({ type: 'ATTACHMENT', attachment: entry.ref });
    else if (Array.isArray(entry)) {
      pushText('[');
      entry.forEach((item, index) => {
        if (index > 0) pushText(',');
        walk(item);
      });
      pushText(']');
    } else if (isJsonObject(entry)) {
      pushText('{');
      Object.keys(entry)
        .sort(compareCodePoints)
        .forEach((key, index) => {
          if (index > 0) pushText(',');
          pushText(`${JSON.stringify(key)}:`);
          walk(entry[key] as ToolValue);
        });
      pushText('}');
    } else pushText(toolValueText(entry));
  };
  if (typeof value === 'string') pushText(value);
  else walk(value);
  return parts;
}
