// What a client reports when it completes a call of an external tool.
import { builder } from './builder.js';
import { FailureClassEnum } from './outcome.js';

const CompletionRetryKindEnum = builder.enumType('CompletionRetryKind', {
  description: 'Whether a failure a client reports may be retried',
  values: {
    NEVER: { description: 'The call ends FAILED' },
    SAFE: { description: 'While attempts remain, the call waits for a completion again as its next attempt' },
  } as const,
});

const CompletionRetryInput = builder.inputType('CompletionRetryInput', {
  description: 'Whether and when a reported failure may be retried',
  fields: (t) => ({
    kind: t.field({ description: 'NEVER, or SAFE to let the call run again', type: CompletionRetryKindEnum, required: true }),
    afterMs: t.int({ description: 'SAFE: run the next attempt after this long (else the tool’s backoff)' }),
  }),
});

const CompletionFailureInput = builder.inputType('CompletionFailureInput', {
  description: 'A typed failure a client reports for a call of an external tool',
  fields: (t) => ({
    class: t.field({ description: 'What kind of failure', type: FailureClassEnum, required: true }),
    code: t.string({ required: true, description: 'Machine-readable, ^[a-z][a-z0-9_]{0,99}$' }),
    message: t.string({ description: 'What went wrong, for people', required: true }),
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
    failure: t.field({ description: 'Failure: the typed failure', type: CompletionFailureInput }),
    outcome: t.field({
      type: 'JSON',
      description: 'The whole outcome in the seeds’ JSON form, as ToolCall.outcome gives it: {"status": "success" | "failure" | "cancelled", "payload": …}',
    }),
  }),
});
