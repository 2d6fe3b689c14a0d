import {
  FAILURE_CLASSES,
  FAILURE_SOURCES,
  formatOutputText,
  modelParts,
  rawValue,
  type RetryDisposition,
  seedModelReturn,
  successValue,
  type ToolCallOutput,
  type ToolCancellation,
  type ToolFailure,
} from '../model/outcome.js';
import { type AttachmentRef, canonicalMime, encodeToolValue, type Json, type ModelPart } from '../model/tool-value.js';
import { builder } from './builder.js';

export const FailureClassEnum = builder.enumType('ToolFailureClass', { values: FAILURE_CLASSES });
export const FailureSourceEnum = builder.enumType('ToolFailureSource', { values: FAILURE_SOURCES });
export const RetryKindEnum = builder.enumType('RetryKind', { values: ['NEVER', 'SAFE', 'EXHAUSTED'] as const });

const RetryRef = builder.objectRef<RetryDisposition>('RetryDisposition').implement({
  fields: (t) => ({
    kind: t.expose('kind', { type: RetryKindEnum }),
    afterMs: t.int({ nullable: true, resolve: (retry) => (retry.kind === 'SAFE' ? (retry.afterMs ?? null) : null) }),
    attempts: t.int({ nullable: true, resolve: (retry) => (retry.kind === 'EXHAUSTED' ? retry.attempts : null) }),
  }),
});

export const ToolSuccessRef = builder.objectRef<Extract<ToolCallOutput, { status: 'SUCCESS' }>>('ToolSuccess').implement({
  fields: (t) => ({
    value: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The tool value in the seeds’ wire form (JSON; an attachment is an object tagged `$lash_tool_value`)',
      resolve: (output) => encodeToolValue(successValue(output)),
    }),
  }),
});

const RAW_DESCRIPTION = 'The raw value behind the message (a tool value in the seeds’ wire form), when there is one';

/** A failure's or cancellation's raw value in the wire form, or null. */
function wireRaw(stored: Json | undefined): unknown {
  const raw = rawValue(stored);
  return raw === undefined ? null : encodeToolValue(raw);
}

export const ToolFailureRef = builder.objectRef<ToolFailure>('ToolFailure').implement({
  fields: (t) => ({
    class: t.expose('class', { type: FailureClassEnum }),
    code: t.exposeString('code'),
    message: t.exposeString('message'),
    source: t.expose('source', { type: FailureSourceEnum }),
    retry: t.expose('retry', { type: RetryRef }),
    raw: t.field({ type: 'JSON', nullable: true, description: RAW_DESCRIPTION, resolve: (value) => wireRaw(value.raw) }),
  }),
});

export const ToolCancellationRef = builder.objectRef<ToolCancellation>('ToolCancellation').implement({
  fields: (t) => ({
    message: t.exposeString('message'),
    source: t.expose('source', { type: FailureSourceEnum }),
    raw: t.field({ type: 'JSON', nullable: true, description: RAW_DESCRIPTION, resolve: (value) => wireRaw(value.raw) }),
  }),
});

type OutputMember = Extract<ToolCallOutput, { status: 'SUCCESS' }> | (ToolFailure & { __output: 'FAILURE' }) | (ToolCancellation & { __output: 'CANCELLED' });

/** Flattens a stored output into the union member that represents it. */
export function outputMember(output: ToolCallOutput): OutputMember {
  if (output.status === 'SUCCESS') return output;
  if (output.status === 'FAILURE') return { ...output.failure, __output: 'FAILURE' };
  return { ...output.cancellation, __output: 'CANCELLED' };
}

export const ToolCallOutputUnion = builder.unionType('ToolCallOutput', {
  types: [ToolSuccessRef, ToolFailureRef, ToolCancellationRef],
  resolveType: (member) => {
    const tagged = member as OutputMember;
    if ('status' in tagged && tagged.status === 'SUCCESS') return ToolSuccessRef;
    return '__output' in tagged && tagged.__output === 'FAILURE' ? ToolFailureRef : ToolCancellationRef;
  },
});

const AttachmentRefType = builder.objectRef<AttachmentRef>('AttachmentRef').implement({
  description: 'A reference to an attachment (the seeds’ AttachmentRef); in toolrun its id is the path of a session file.',
  fields: (t) => ({
    attachmentId: t.exposeString('id'),
    mediaType: t.string({ description: 'Canonical MIME type, e.g. image/png', resolve: (ref) => canonicalMime(ref.mediaType) }),
    byteLen: t.exposeFloat('byteLen', { description: 'Size in bytes' }),
    width: t.exposeInt('width', { nullable: true }),
    height: t.exposeInt('height', { nullable: true }),
    label: t.exposeString('label', { nullable: true }),
    path: t.exposeString('id', { deprecationReason: 'Use attachmentId' }),
    size: t.exposeFloat('byteLen', { deprecationReason: 'Use byteLen' }),
  }),
});

const ModelPartTypeEnum = builder.enumType('ModelReturnPartType', { values: ['TEXT', 'ATTACHMENT'] as const });

const ModelPartRef = builder.objectRef<ModelPart>('ModelReturnPart').implement({
  fields: (t) => ({
    type: t.expose('type', { type: ModelPartTypeEnum }),
    text: t.string({ nullable: true, resolve: (part) => (part.type === 'TEXT' ? part.text : null) }),
    attachment: t.field({ type: AttachmentRefType, nullable: true, resolve: (part) => (part.type === 'ATTACHMENT' ? part.attachment : null) }),
  }),
});

export const ModelReturnRef = builder.objectRef<{ callId: string; tool: string; output: ToolCallOutput }>('ModelReturn').implement({
  description: "What a model sees of a finished call: text parts and attachment parts.",
  fields: (t) => ({
    callId: t.exposeString('callId'),
    toolName: t.exposeString('tool'),
    text: t.string({
      description: 'The seeds’ `format_tool_output_content`: a string value as it is, any other value as JSON (keys sorted, floats as floats), or the failure/cancellation text',
      resolve: ({ output }) => formatOutputText(output),
    }),
    parts: t.field({ type: [ModelPartRef], resolve: ({ output }) => modelParts(output) }),
    json: t.field({
      type: 'JSON',
      description: 'This return in the seeds’ JSON form (ModelToolReturn): {"call_id", "tool_name", "parts": [{"type": "text", "text"} | {"type": "attachment", …}]}',
      resolve: ({ callId, tool, output }) => seedModelReturn(callId, tool, output),
    }),
  }),
});
