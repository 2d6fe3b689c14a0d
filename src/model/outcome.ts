// The outcome model of a tool call (port of the seeds' ToolCallOutput): success with a tool value,
// a typed failure, or a cancellation. This module owns the stored (JSON) form and the
// model-facing projection.
import { collectAttachments, decodeToolValue, encodeToolValue, type Json, type ModelPart, modelPartsOfValue } from './tool-value.js';

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

export interface ToolFailure {
  class: FailureClass;
  code: string;
  message: string;
  source: FailureSource;
  retry: RetryDisposition;
  raw?: Json;
}

export interface ToolCancellation {
  message: string;
  source: FailureSource;
}

export type ToolCallOutput =
  | { status: 'SUCCESS'; value: Json }
  | { status: 'FAILURE'; failure: ToolFailure }
  | { status: 'CANCELLED'; cancellation: ToolCancellation };

export const INTERNAL_ERROR_MESSAGE = 'An internal error occurred while executing the tool';
export const CANCELLED_MESSAGE = 'tool call cancelled';

/** Thrown by tools (and the runtime) to end a call with a typed failure. */
export class ToolFailureError extends Error {
  override name = 'ToolFailureError';
  readonly failure: ToolFailure;
  constructor(failure: Partial<ToolFailure> & Pick<ToolFailure, 'class' | 'code' | 'message'>) {
    super(failure.message);
    this.failure = { source: 'TOOL', retry: { kind: 'NEVER' }, ...failure };
  }
}

export function failure(
  cls: FailureClass,
  code: string,
  message: string,
  options: { source?: FailureSource; retry?: RetryDisposition; raw?: Json } = {},
): ToolFailure {
  const result: ToolFailure = { class: cls, code, message, source: options.source ?? 'RUNTIME', retry: options.retry ?? { kind: 'NEVER' } };
  if (options.raw !== undefined) result.raw = options.raw;
  return result;
}

export const outputs = {
  success: (value: unknown): ToolCallOutput => ({ status: 'SUCCESS', value: encodeToolValue(value) }),
  failure: (value: ToolFailure): ToolCallOutput => ({ status: 'FAILURE', failure: value }),
  cancelled: (message = CANCELLED_MESSAGE, source: FailureSource = 'CANCELLATION'): ToolCallOutput => ({
    status: 'CANCELLED',
    cancellation: { message, source },
  }),
  unavailable: (tool: string): ToolCallOutput =>
    outputs.failure(failure('UNAVAILABLE', 'tool_unavailable', `Tool \`${tool}\` is unavailable in this session`)),
  internal: (): ToolCallOutput => outputs.failure(failure('INTERNAL', 'internal_error', INTERNAL_ERROR_MESSAGE)),
};

export function callStatusOf(output: ToolCallOutput): 'SUCCEEDED' | 'FAILED' | 'CANCELLED' {
  return output.status === 'SUCCESS' ? 'SUCCEEDED' : output.status === 'FAILURE' ? 'FAILED' : 'CANCELLED';
}

/** Reads a stored output. Stored outputs are written only by this module, so this is a cast. */
export function parseOutput(json: unknown): ToolCallOutput | null {
  if (json === null || json === undefined) return null;
  return json as ToolCallOutput;
}

/** The text a model sees for an output (the seeds' format_tool_output_content). */
export function formatOutputText(output: ToolCallOutput): string {
  switch (output.status) {
    case 'SUCCESS':
      return typeof output.value === 'string' ? output.value : JSON.stringify(output.value);
    case 'FAILURE':
      return output.failure.message ? `[Tool execution failed]\n${output.failure.message}` : '[Tool execution failed]';
    case 'CANCELLED':
      return output.cancellation.message ? `[Tool execution cancelled]\n${output.cancellation.message}` : '[Tool execution cancelled]';
  }
}

/** The model-facing projection: text parts and attachment parts. */
export function modelParts(output: ToolCallOutput): ModelPart[] {
  if (output.status === 'SUCCESS') return modelPartsOfValue(decodeToolValue(output.value));
  const parts: ModelPart[] = [{ type: 'TEXT', text: formatOutputText(output) }];
  if (output.status === 'FAILURE' && output.failure.raw !== undefined) {
    for (const attachment of collectAttachments(decodeToolValue(output.failure.raw))) parts.push({ type: 'ATTACHMENT', attachment });
  }
  return parts;
}
