// The outcome model of a tool call (port of the seeds' ToolCallOutput, seed 004): success with a
// tool value, a typed failure, or a cancellation. This module owns the stored (JSON) form, the
// seeds' JSON form of outcomes (`{"status": "success|failure|cancelled", "payload": …}`) that
// runtimes built on the seeds decode unchanged, and the model-facing projection.
import { ValidationError } from './errors.js';
import { cutAt } from './text.js';
import {
  attachmentRefJson,
  collectAttachments,
  decodeStoredValue,
  decodeToolValue,
  encodeStoredValue,
  encodeToolValue,
  isJsonObject,
  type Json,
  MalformedToolValueError,
  type ModelPart,
  modelPartsOfValue,
  type ToolValue,
  toolValueOf,
  toolValueText,
} from './tool-value.js';
import { longerThan } from './text.js';

export const FAILURE_CLASSES = [
  'INVALID_REQUEST',
  'UNAVAILABLE',
  'PERMISSION_DENIED',
  'TIMEOUT',
  'EXECUTION',
  'EXTERNAL',
  'RESOURCE_LIMIT',
  'INTERNAL',
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

export const FAILURE_SOURCES = ['RUNTIME', 'TOOL', 'PLUGIN', 'POLICY', 'CANCELLATION'] as const;
export type FailureSource = (typeof FAILURE_SOURCES)[number];

export type RetryDisposition =
  | { kind: 'NEVER' }
  | { kind: 'SAFE'; afterMs?: number }
  | { kind: 'EXHAUSTED'; attempts: number };

/** `raw` is a tool value in its stored form. */
export interface ToolFailure {
  class: FailureClass;
  code: string;
  message: string;
  source: FailureSource;
  retry: RetryDisposition;
  raw?: Json;
}

/** `raw` is a tool value in its stored form. */
export interface ToolCancellation {
  message: string;
  source: FailureSource;
  raw?: Json;
}

/** The stored form. `value` is a stored tool value; `rawOutput` is the seeds' raw output sidecar. */
export type ToolCallOutput =
  | { status: 'SUCCESS'; value: Json; rawOutput?: string }
  | { status: 'FAILURE'; failure: ToolFailure }
  | { status: 'CANCELLED'; cancellation: ToolCancellation };

export const INTERNAL_ERROR_MESSAGE = 'An internal error occurred while executing the tool';
export const INTERNAL_ERROR_CODE = 'internal_error';
export const CANCELLED_MESSAGE = 'tool call cancelled';

/** Thrown by tools (and the runtime) to end a call with a typed failure; `raw` is any tool value. */
export class ToolFailureError extends Error {
  override name = 'ToolFailureError';
  readonly failure: ToolFailure;
  constructor(failure: Partial<Omit<ToolFailure, 'raw'>> & Pick<ToolFailure, 'class' | 'code' | 'message'> & { raw?: unknown }) {
    super(failure.message);
    const { raw, ...rest } = failure;
    this.failure = { source: 'TOOL', retry: { kind: 'NEVER' }, ...rest };
    if (raw !== undefined) this.failure.raw = encodeStoredValue(toolValueOf(raw));
  }
}

export function failure(
  cls: FailureClass,
  code: string,
  message: string,
  options: { source?: FailureSource; retry?: RetryDisposition; raw?: ToolValue } = {},
): ToolFailure {
  const result: ToolFailure = { class: cls, code, message, source: options.source ?? 'RUNTIME', retry: options.retry ?? { kind: 'NEVER' } };
  if (options.raw !== undefined) result.raw = encodeStoredValue(options.raw);
  return result;
}

const RAW_OUTPUT_KEY = '_raw_output';
const RAW_OUTPUT_SCALAR_KEY = '_raw_output_scalar';

/**
 * The seeds' raw output sidecar (002): a `_raw_output` key of an object result is taken out
 * (kept as the call's raw output when it is a string), and the scalar carrier
 * `{"_raw_output_scalar": x}` that remains of a non-object result is unwrapped to `x`.
 */
export function takeRawOutput(value: ToolValue): { value: ToolValue; rawOutput?: string } {
  if (!isJsonObject(value) || !Object.prototype.hasOwnProperty.call(value, RAW_OUTPUT_KEY)) return { value };
  const { [RAW_OUTPUT_KEY]: raw, ...rest } = value;
  if (typeof raw !== 'string') return { value: rest };
  const keys = Object.keys(rest);
  return { value: keys.length === 1 && keys[0] === RAW_OUTPUT_SCALAR_KEY ? (rest[RAW_OUTPUT_SCALAR_KEY] as ToolValue) : rest, rawOutput: raw };
}

function successOf(value: ToolValue): ToolCallOutput {
  const taken = takeRawOutput(value);
  const output: ToolCallOutput = { status: 'SUCCESS', value: encodeStoredValue(taken.value) };
  if (taken.rawOutput !== undefined) output.rawOutput = taken.rawOutput;
  return output;
}

export const outputs = {
  /** A tool's result (a JavaScript value; tags are not interpreted). */
  success: (value: unknown): ToolCallOutput => successOf(toolValueOf(value)),
  /** A value that already is a tool value (decoded from the wire form). */
  successValue: (value: ToolValue): ToolCallOutput => successOf(value),
  /**
   * A failure as clients and the model see it: an INTERNAL one says only that an internal error
   * occurred (the seeds' internal errors are hidden from the model, their details logged), whoever
   * reported it — a tool, the runtime or a client completing an external call.
   */
  failure: (value: ToolFailure): ToolCallOutput => {
    if (value.class !== 'INTERNAL' || (value.code === INTERNAL_ERROR_CODE && value.message === INTERNAL_ERROR_MESSAGE && value.raw === undefined)) return { status: 'FAILURE', failure: value };
    // The reporter's own code is a detail too (it may name what broke): the generic one is shown.
    const { raw: _details, ...shown } = value;
    return { status: 'FAILURE', failure: { ...shown, code: INTERNAL_ERROR_CODE, message: INTERNAL_ERROR_MESSAGE } };
  },
  cancelled: (message = CANCELLED_MESSAGE, source: FailureSource = 'CANCELLATION'): ToolCallOutput => ({
    status: 'CANCELLED',
    cancellation: { message, source },
  }),
  // A tool id is not checked before this (any id may be asked for), so the message quotes at most 100 characters of it.
  unavailable: (tool: string): ToolCallOutput =>
    outputs.failure(failure('UNAVAILABLE', 'tool_unavailable', `Tool id \`${tool.length > 100 ? `${cutAt(tool, 100)}…` : tool}\` is unavailable in this session`)),
  internal: (): ToolCallOutput => outputs.failure(failure('INTERNAL', INTERNAL_ERROR_CODE, INTERNAL_ERROR_MESSAGE)),
};

export function callStatusOf(output: ToolCallOutput): 'SUCCEEDED' | 'FAILED' | 'CANCELLED' {
  return output.status === 'SUCCESS' ? 'SUCCEEDED' : output.status === 'FAILURE' ? 'FAILED' : 'CANCELLED';
}

/** Reads a stored output. Stored outputs are written only by this module, so this is a cast. */
export function parseOutput(json: unknown): ToolCallOutput | null {
  if (json === null || json === undefined) return null;
  return json as ToolCallOutput;
}

export function successValue(output: Extract<ToolCallOutput, { status: 'SUCCESS' }>): ToolValue {
  return decodeStoredValue(output.value);
}

/** A stored `raw` as a tool value. */
export function rawValue(raw: Json | undefined): ToolValue | undefined {
  return raw === undefined ? undefined : decodeStoredValue(raw);
}

// --- the seeds' JSON form --------------------------------------------------------------------

const wireRaw = (raw: Json | undefined): { [key: string]: Json } => (raw === undefined ? {} : { raw: encodeToolValue(decodeStoredValue(raw)) });

function retryJson(retry: RetryDisposition): Json {
  if (retry.kind === 'NEVER') return { type: 'never' };
  if (retry.kind === 'EXHAUSTED') return { type: 'exhausted', attempts: retry.attempts };
  return retry.afterMs === undefined ? { type: 'safe' } : { type: 'safe', after_ms: retry.afterMs };
}

export function failureJson(value: ToolFailure): Json {
  return { class: value.class.toLowerCase(), code: value.code, message: value.message, source: value.source.toLowerCase(), retry: retryJson(value.retry), ...wireRaw(value.raw) };
}

/** The outcome as the seeds serialize `ToolCallOutcome`: `{"status": "success|failure|cancelled", "payload": …}`. */
export function seedOutcome(output: ToolCallOutput): Json {
  switch (output.status) {
    case 'SUCCESS':
      return { status: 'success', payload: encodeToolValue(successValue(output)) };
    case 'FAILURE':
      return { status: 'failure', payload: failureJson(output.failure) };
    case 'CANCELLED':
      return { status: 'cancelled', payload: { message: output.cancellation.message, source: output.cancellation.source.toLowerCase(), ...wireRaw(output.cancellation.raw) } };
  }
}

/**
 * The result as the tool registry of seed 002 reports it (`ToolResult`): a failure or a
 * cancellation is packaged as `{"error": message}` in `result` and also set as `error`.
 */
export function seedToolResult(callId: string, output: ToolCallOutput): Json {
  const base = { tool_call_id: callId, images: null, connection_required: null };
  if (output.status === 'SUCCESS') return { ...base, result: encodeToolValue(successValue(output)), error: null, raw_output: output.rawOutput ?? null };
  const message = output.status === 'FAILURE' ? output.failure.message : output.cancellation.message;
  return { ...base, result: { error: message }, error: message, raw_output: null };
}

const FAILURE_CODE_PATTERN = /^[a-z][a-z0-9_]{0,99}$/;
const MAX_FAILURE_MESSAGE_CHARS = 16_000;
const MAX_RETRY_AFTER_MS = 3_600_000;

/** Checks a failure reported by a client (the GraphQL input or the seeds' JSON form). */
export function checkReportedFailure(value: ToolFailure, field: string): ToolFailure {
  if (!FAILURE_CODE_PATTERN.test(value.code)) throw new ValidationError(`${field}.code must match ${FAILURE_CODE_PATTERN.source}`, `${field}.code`);
  if (longerThan(value.message, MAX_FAILURE_MESSAGE_CHARS)) {
    throw new ValidationError(`${field}.message must be at most ${MAX_FAILURE_MESSAGE_CHARS} characters`, `${field}.message`);
  }
  const afterMs = value.retry.kind === 'SAFE' ? value.retry.afterMs : undefined;
  if (afterMs !== undefined && (!Number.isInteger(afterMs) || afterMs < 0 || afterMs > MAX_RETRY_AFTER_MS)) {
    throw new ValidationError(`${field}.retry afterMs must be an integer from 0 to ${MAX_RETRY_AFTER_MS}`, `${field}.retry`);
  }
  return value;
}

function enumOf<T extends string>(values: readonly T[], given: unknown, field: string): T {
  const match = typeof given === 'string' ? values.find((value) => value.toLowerCase() === given) : undefined;
  if (!match) throw new ValidationError(`${field} must be one of ${values.map((value) => `"${value.toLowerCase()}"`).join(', ')}`, field);
  return match;
}

function stringField(object: Record<string, unknown>, key: string, field: string): string {
  const value = object[key];
  if (typeof value !== 'string') throw new ValidationError(`${field}.${key} must be a string`, `${field}.${key}`);
  return value;
}

function parseRaw(object: Record<string, unknown>, field: string): { raw?: Json } {
  if (object.raw === undefined || object.raw === null) return {};
  return { raw: encodeStoredValue(decodeWire(object.raw, `${field}.raw`)) };
}

function decodeWire(json: unknown, field: string): ToolValue {
  try {
    return decodeToolValue(json);
  } catch (error) {
    if (error instanceof MalformedToolValueError) throw new ValidationError(`${field} is not a valid tool value: ${error.message}`, field);
    throw error;
  }
}

function parseRetry(json: unknown, field: string): RetryDisposition {
  if (!isJsonObject(json)) throw new ValidationError(`${field} must be an object with a \`type\``, field);
  const type = json.type;
  if (type === 'never') return { kind: 'NEVER' };
  if (type === 'safe') {
    if (json.after_ms === undefined || json.after_ms === null) return { kind: 'SAFE' };
    if (typeof json.after_ms !== 'number') throw new ValidationError(`${field}.after_ms must be a number`, `${field}.after_ms`);
    return { kind: 'SAFE', afterMs: json.after_ms };
  }
  if (type === 'exhausted') {
    if (typeof json.attempts !== 'number' || !Number.isInteger(json.attempts) || json.attempts < 0) {
      throw new ValidationError(`${field}.attempts must be a non-negative integer`, `${field}.attempts`);
    }
    return { kind: 'EXHAUSTED', attempts: json.attempts };
  }
  throw new ValidationError(`${field}.type must be one of "never", "safe", "exhausted"`, `${field}.type`);
}

/** Reads an outcome sent in the seeds' JSON form; bad input is a ValidationError naming the field. */
export function parseSeedOutcome(json: unknown, field = 'outcome'): ToolCallOutput {
  if (!isJsonObject(json)) throw new ValidationError(`${field} must be an object {"status", "payload"}`, field);
  const status = json.status;
  const payload = json.payload;
  if (status !== 'success' && status !== 'failure' && status !== 'cancelled') {
    throw new ValidationError(`${field}.status must be one of "success", "failure", "cancelled"`, `${field}.status`);
  }
  if (payload === undefined) throw new ValidationError(`${field}.payload is missing`, `${field}.payload`);
  const at = `${field}.payload`;
  if (status === 'success') return outputs.successValue(decodeWire(payload, at));
  if (!isJsonObject(payload)) throw new ValidationError(`${at} must be an object`, at);
  if (status === 'cancelled') {
    return {
      status: 'CANCELLED',
      cancellation: { message: stringField(payload, 'message', at), source: enumOf(FAILURE_SOURCES, payload.source, `${at}.source`), ...parseRaw(payload, at) },
    };
  }
  const reported: ToolFailure = {
    class: enumOf(FAILURE_CLASSES, payload.class, `${at}.class`),
    code: stringField(payload, 'code', at),
    message: stringField(payload, 'message', at),
    source: enumOf(FAILURE_SOURCES, payload.source, `${at}.source`),
    retry: parseRetry(payload.retry, `${at}.retry`),
    ...parseRaw(payload, at),
  };
  return outputs.failure(checkReportedFailure(reported, at));
}

// --- the model's view -----------------------------------------------------------------------

/**
 * The text a model sees for an output (the seeds' `format_tool_output_content`): a string as it is,
 * any other value as serde_json's text of its wire form. It agrees with `modelParts` except where
 * the seed's two differ: an attachment (a part there, its tagged JSON here) and a user object
 * using the tag key (shown as it is there, escaped here).
 */
export function formatOutputText(output: ToolCallOutput): string {
  switch (output.status) {
    case 'SUCCESS': {
      const value = successValue(output);
      return typeof value === 'string' ? value : toolValueText(value);
    }
    case 'FAILURE':
      return output.failure.message ? `[Tool execution failed]\n${output.failure.message}` : '[Tool execution failed]';
    case 'CANCELLED':
      return output.cancellation.message ? `[Tool execution cancelled]\n${output.cancellation.message}` : '[Tool execution cancelled]';
  }
}

/** The model-facing projection (the seeds' `model_parts_from_tool_output`): text parts and attachment parts. */
export function modelParts(output: ToolCallOutput): ModelPart[] {
  if (output.status === 'SUCCESS') return modelPartsOfValue(successValue(output));
  const parts: ModelPart[] = [{ type: 'TEXT', text: formatOutputText(output) }];
  const raw = output.status === 'FAILURE' ? output.failure.raw : output.cancellation.raw;
  if (raw !== undefined) for (const attachment of collectAttachments(decodeStoredValue(raw))) parts.push({ type: 'ATTACHMENT', attachment });
  return parts;
}

/** The seeds' `ModelToolReturn` JSON: `{"call_id", "tool_name", "parts": [{"type": "text", "text"} | {"type": "attachment", …ref}]}`. */
export function seedModelReturn(callId: string, tool: string, output: ToolCallOutput): Json {
  return {
    call_id: callId,
    tool_name: tool,
    parts: modelParts(output).map((part): Json => (part.type === 'TEXT' ? { type: 'text', text: part.text } : { type: 'attachment', ...attachmentRefJson(part.attachment) })),
  };
}
