import {
  FAILURE_CLASSES,
  FAILURE_SOURCES,
  type FailureClass,
  type FailureSource,
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

const FAILURE_CLASS_DESCRIPTIONS: Record<FailureClass, string> = {
  INVALID_REQUEST: 'The call cannot work as asked: arguments its schema refuses, or a value the tool cannot use',
  UNAVAILABLE: 'The tool, or something it needs, is not available (an unknown or removed tool, a store not answering)',
  PERMISSION_DENIED: 'The call was not allowed: an approver rejected it, or an address or path is refused',
  TIMEOUT: 'The call’s deadline passed before it finished',
  RESOURCE_LIMIT: 'A size or quota limit stopped the call',
  EXECUTION: 'The tool ran and failed',
  EXTERNAL: 'A service the tool depends on failed or answered wrongly',
  INTERNAL: 'A fault in toolrun itself; the details are in the server log only',
};
const FAILURE_SOURCE_DESCRIPTIONS: Record<FailureSource, string> = {
  RUNTIME: 'toolrun itself (validation, deadlines, lost workers)',
  TOOL: 'The tool’s own code or endpoint',
  PLUGIN: 'A plugin of the agent runtime (kept from the seeds; toolrun’s own tools do not report it)',
  POLICY: 'A policy decision, such as an approver’s rejection',
  CANCELLATION: 'A cancel request or a stop of the work',
};

export const FailureClassEnum = builder.enumType('ToolFailureClass', {
  description: 'What kind of failure a call ended in',
  values: Object.fromEntries(FAILURE_CLASSES.map((name) => [name, { value: name, description: FAILURE_CLASS_DESCRIPTIONS[name] }])) as Record<FailureClass, { value: FailureClass; description: string }>,
});
export const FailureSourceEnum = builder.enumType('ToolFailureSource', {
  description: 'Who produced a failure or cancellation',
  values: Object.fromEntries(FAILURE_SOURCES.map((name) => [name, { value: name, description: FAILURE_SOURCE_DESCRIPTIONS[name] }])) as Record<FailureSource, { value: FailureSource; description: string }>,
});
export const RetryKindEnum = builder.enumType('RetryKind', {
  description: 'Whether a failure may be retried',
  values: {
    NEVER: { description: 'Running the call again would not help, or could repeat a side effect' },
    SAFE: { description: 'The call may run again (toolrun does, while attempts remain)' },
    EXHAUSTED: { description: 'It was safe to retry, but every allowed attempt has been made' },
  } as const,
});

const RetryRef = builder.objectRef<RetryDisposition>('RetryDisposition').implement({
  description: 'Whether and when a failure may be retried',
  fields: (t) => ({
    kind: t.expose('kind', { description: 'Whether the failure may be retried', type: RetryKindEnum }),
    afterMs: t.int({ description: 'SAFE: wait at least this long (ms) before the next attempt, when the tool said so', nullable: true, resolve: (retry) => (retry.kind === 'SAFE' ? (retry.afterMs ?? null) : null) }),
    attempts: t.int({ description: 'EXHAUSTED: how many attempts were made', nullable: true, resolve: (retry) => (retry.kind === 'EXHAUSTED' ? retry.attempts : null) }),
  }),
});

export const ToolSuccessRef = builder.objectRef<Extract<ToolCallOutput, { status: 'SUCCESS' }>>('ToolSuccess').implement({
  description: 'A call that finished with a value',
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
  description: 'A call that finished with a typed failure',
  fields: (t) => ({
    class: t.expose('class', { description: 'What kind of failure', type: FailureClassEnum }),
    code: t.exposeString('code', { description: 'A short machine-readable reason, e.g. `http_503` or `approval_rejected`' }),
    message: t.exposeString('message', { description: 'What went wrong, for people' }),
    source: t.expose('source', { description: 'Who produced the failure', type: FailureSourceEnum }),
    retry: t.expose('retry', { description: 'Whether the failure may be retried', type: RetryRef }),
    raw: t.field({ type: 'JSON', nullable: true, description: RAW_DESCRIPTION, resolve: (value) => wireRaw(value.raw) }),
  }),
});

export const ToolCancellationRef = builder.objectRef<ToolCancellation>('ToolCancellation').implement({
  description: 'A call that was cancelled before or while it ran',
  fields: (t) => ({
    message: t.exposeString('message', { description: 'Why the call was cancelled, for people' }),
    source: t.expose('source', { description: 'Who cancelled it', type: FailureSourceEnum }),
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
  description: 'How a call ended: a value, a failure or a cancellation',
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
    attachmentId: t.exposeString('id', { description: 'Id of the attachment: the path of a session file' }),
    mediaType: t.string({ description: 'Canonical MIME type, e.g. image/png', resolve: (ref) => canonicalMime(ref.mediaType) }),
    byteLen: t.exposeFloat('byteLen', { description: 'Size in bytes' }),
    width: t.exposeInt('width', { description: 'Width in pixels, for images when known', nullable: true }),
    height: t.exposeInt('height', { description: 'Height in pixels, for images when known', nullable: true }),
    label: t.exposeString('label', { description: 'A label for people, when the tool gave one', nullable: true }),
    path: t.exposeString('id', { description: 'Former name of `attachmentId`', deprecationReason: 'Use attachmentId' }),
    size: t.exposeFloat('byteLen', { description: 'Former name of `byteLen`', deprecationReason: 'Use byteLen' }),
  }),
});

const ModelPartTypeEnum = builder.enumType('ModelReturnPartType', {
  description: 'What a part of a model return holds',
  values: { TEXT: { description: 'Text, in `text`' }, ATTACHMENT: { description: 'An attachment, in `attachment`' } } as const,
});

const ModelPartRef = builder.objectRef<ModelPart>('ModelReturnPart').implement({
  description: 'One part of what a model sees of a call: text or an attachment',
  fields: (t) => ({
    type: t.expose('type', { description: 'Which of `text` and `attachment` this part holds', type: ModelPartTypeEnum }),
    text: t.string({ description: 'TEXT: the text', nullable: true, resolve: (part) => (part.type === 'TEXT' ? part.text : null) }),
    attachment: t.field({ description: 'ATTACHMENT: the attachment', type: AttachmentRefType, nullable: true, resolve: (part) => (part.type === 'ATTACHMENT' ? part.attachment : null) }),
  }),
});

export const ModelReturnRef = builder.objectRef<{ callId: string; tool: string; output: ToolCallOutput }>('ModelReturn').implement({
  description: "What a model sees of a finished call: text parts and attachment parts.",
  fields: (t) => ({
    callId: t.exposeString('callId', { description: 'The call this return answers' }),
    toolName: t.exposeString('tool', { description: 'The tool that was called' }),
    text: t.string({
      description: 'The seeds’ `format_tool_output_content`: a string value as it is, any other value as JSON (keys sorted, floats as floats), or the failure/cancellation text',
      resolve: ({ output }) => formatOutputText(output),
    }),
    parts: t.field({ description: 'The return as text and attachment parts, in order', type: [ModelPartRef], resolve: ({ output }) => modelParts(output) }),
    json: t.field({
      type: 'JSON',
      description: 'This return in the seeds’ JSON form (ModelToolReturn): {"call_id", "tool_name", "parts": [{"type": "text", "text"} | {"type": "attachment", …}]}',
      resolve: ({ callId, tool, output }) => seedModelReturn(callId, tool, output),
    }),
  }),
});
