// Tool values are JSON plus references to session files. On the wire a reference is an object
// tagged with a reserved key; a user object that happens to use that key is escaped, so every
// JSON value round-trips and a malformed tagged object is rejected rather than guessed at.

export const TOOL_VALUE_TAG = '$toolrun_value';
const ATTACHMENT_TAG = 'attachment';
const OBJECT_TAG = 'object';

export interface AttachmentRef {
  path: string;
  mediaType?: string;
  size?: number;
}

export class Attachment {
  constructor(readonly ref: AttachmentRef) {}
}

export type ToolValue = null | boolean | number | string | Attachment | ToolValue[] | { [key: string]: ToolValue };
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export class MalformedToolValueError extends Error {
  override name = 'MalformedToolValueError';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Attachment);
}

/** Encodes a tool value into its JSON wire form. */
export function encodeToolValue(value: unknown): Json {
  if (value === null || value === undefined) return null;
  if (value instanceof Attachment) return { [TOOL_VALUE_TAG]: ATTACHMENT_TAG, ref: { ...value.ref } as unknown as Json };
  if (Array.isArray(value)) return value.map(encodeToolValue);
  switch (typeof value) {
    case 'boolean':
    case 'string':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new MalformedToolValueError('non-finite number is not a valid tool value');
      return value;
    case 'bigint':
      return Number(value);
    case 'object': {
      if (value instanceof Date) return value.toISOString();
      const entries: { [key: string]: Json } = {};
      for (const [key, entry] of Object.entries(value)) {
        if (entry !== undefined) entries[key] = encodeToolValue(entry);
      }
      return TOOL_VALUE_TAG in entries ? { [TOOL_VALUE_TAG]: OBJECT_TAG, entries } : entries;
    }
    default:
      throw new MalformedToolValueError(`a ${typeof value} is not a valid tool value`);
  }
}

/** Decodes the JSON wire form; throws MalformedToolValueError on a malformed tagged object. */
export function decodeToolValue(json: unknown): ToolValue {
  if (json === null || json === undefined) return null;
  if (Array.isArray(json)) return json.map(decodeToolValue);
  if (typeof json === 'number') {
    if (!Number.isFinite(json)) throw new MalformedToolValueError('non-finite number is not a valid tool value');
    return json;
  }
  if (typeof json === 'boolean' || typeof json === 'string') return json;
  if (!isPlainObject(json)) throw new MalformedToolValueError('not a JSON value');
  if (!(TOOL_VALUE_TAG in json)) return decodeEntries(json);
  const tag = json[TOOL_VALUE_TAG];
  const keys = Object.keys(json);
  if (typeof tag !== 'string') throw new MalformedToolValueError('reserved tool value tag must be a string');
  if (tag === ATTACHMENT_TAG) {
    const ref = json.ref;
    if (keys.length !== 2 || !isPlainObject(ref) || typeof ref.path !== 'string') {
      throw new MalformedToolValueError('malformed attachment tool value');
    }
    const attachment: AttachmentRef = { path: ref.path };
    if (typeof ref.mediaType === 'string') attachment.mediaType = ref.mediaType;
    if (typeof ref.size === 'number') attachment.size = ref.size;
    return new Attachment(attachment);
  }
  if (tag === OBJECT_TAG) {
    if (keys.length !== 2 || !isPlainObject(json.entries)) {
      throw new MalformedToolValueError('malformed escaped object tool value');
    }
    return decodeEntries(json.entries);
  }
  throw new MalformedToolValueError(`unknown reserved tool value tag \`${tag}\``);
}

function decodeEntries(entries: Record<string, unknown>): { [key: string]: ToolValue } {
  const out: { [key: string]: ToolValue } = {};
  for (const [key, entry] of Object.entries(entries)) out[key] = decodeToolValue(entry);
  return out;
}

export function collectAttachments(value: ToolValue, into: AttachmentRef[] = []): AttachmentRef[] {
  if (value instanceof Attachment) into.push(value.ref);
  else if (Array.isArray(value)) value.forEach((entry) => collectAttachments(entry, into));
  else if (value !== null && typeof value === 'object') Object.values(value).forEach((entry) => collectAttachments(entry, into));
  return into;
}

export type ModelPart = { type: 'TEXT'; text: string } | { type: 'ATTACHMENT'; attachment: AttachmentRef };

/** The model-facing parts of a value: text for JSON, attachment parts where references stand. */
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
    } else if (entry !== null && typeof entry === 'object') {
      pushText('{');
      Object.keys(entry)
        .sort()
        .forEach((key, index) => {
          if (index > 0) pushText(',');
          pushText(`${JSON.stringify(key)}:`);
          walk(entry[key] as ToolValue);
        });
      pushText('}');
    } else pushText(JSON.stringify(entry));
  };
  if (typeof value === 'string') pushText(value);
  else walk(value);
  return parts;
}
