// What a client reports when it completes a call of an external tool.
import { builder } from './builder.js';
import { FailureClassEnum } from './outcome.js';

const CompletionRetryKindEnum = builder.enumType('CompletionRetryKind', { values: ['NEVER', 'SAFE'] as const });

const CompletionRetryInput = builder.inputType('CompletionRetryInput', {
  fields: (t) => ({
    kind: t.field({ type: CompletionRetryKindEnum, required: true }),
    afterMs: t.int({ description: 'SAFE: run the next attempt after this long (else the tool’s backoff)' }),
  }),
});

const CompletionFailureInput = builder.inputType('CompletionFailureInput', {
  fields: (t) => ({
    class: t.field({ type: FailureClassEnum, required: true }),
    code: t.string({ required: true, description: 'Machine-readable, ^[a-z][a-z0-9_]{0,99}$' }),
    message: t.string({ required: true }),
    retry: t.field({
      type: CompletionRetryInput,
      description: 'Default NEVER. SAFE with attempts left: the call waits for a completion again as its next attempt.',
    }),
  }),
});

export const ToolCallResultInput = builder.inputType('ToolCallResultInput', {
  description: 'Exactly one of `value`, `failure` and `outcome`.',
  fields: (t) => ({
    value: t.field({ type: 'JSON', description: 'Success: the tool value in the seeds’ wire form (attachments tagged `$lash_tool_value`)' }),
    failure: t.field({ type: CompletionFailureInput }),
    outcome: t.field({
      type: 'JSON',
      description: 'The whole outcome in the seeds’ JSON form, as ToolCall.outcome gives it: {"status": "success" | "failure" | "cancelled", "payload": …}',
    }),
  }),
});
