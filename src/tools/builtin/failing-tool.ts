// A tool that fails on request, so clients can test their error paths: any failure class, code,
// message and retry disposition, an internal error (whose message the runtime must mask), a
// delay before failing, and success from a given attempt on (to exercise retries).
import { FAILURE_CLASSES, type FailureClass, ToolFailureError } from '../../model/outcome.js';
import { defineBuiltinTool } from '../types.js';
import { abortableDelay } from './delay.js';

export const failingTool = defineBuiltinTool({
  name: 'failing_tool',
  description:
    'Fails as requested, for testing error handling: `class` (default EXECUTION), `code` (default intentional_failure), `message`, `retry` (NEVER or SAFE; SAFE failures are retried up to 3 attempts), `retryAfterMs` (the delay of a SAFE retry), `delayMs` (wait before failing), `internal` (throw an untyped error; clients only see a generic internal error), `succeedOnAttempt` (succeed from that attempt on).',
  parametersSchema: {
    type: 'object',
    properties: {
      class: { type: 'string', enum: [...FAILURE_CLASSES], default: 'EXECUTION' },
      code: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[a-z][a-z0-9_]*$', default: 'intentional_failure' },
      message: { type: 'string', maxLength: 2000, default: 'failing_tool failed as requested' },
      retry: { type: 'string', enum: ['NEVER', 'SAFE'], default: 'NEVER' },
      retryAfterMs: { type: 'integer', minimum: 0, maximum: 600_000, description: 'With retry SAFE: wait this long before the next attempt' },
      delayMs: { type: 'integer', minimum: 0, maximum: 600_000, description: 'Wait this long before failing (honours cancellation)' },
      internal: { type: 'boolean', default: false, description: 'Throw a plain Error instead of a typed failure' },
      succeedOnAttempt: { type: 'integer', minimum: 1, description: 'Succeed when the attempt number reaches this' },
    },
    additionalProperties: false,
  },
  hints: { readonly: true, idempotent: true },
  retry: { maxAttempts: 3, backoff: { type: 'FIXED', delayMs: 50, maxDelayMs: 50 } },
  timeoutMs: 30_000,
  async execute(args, context) {
    if (typeof args.delayMs === 'number' && args.delayMs > 0) await abortableDelay(args.delayMs, context.signal);
    if (typeof args.succeedOnAttempt === 'number' && context.attempt >= args.succeedOnAttempt) {
      return { succeededOnAttempt: context.attempt };
    }
    const message = typeof args.message === 'string' ? args.message : 'failing_tool failed as requested';
    if (args.internal === true) {
      // Deliberately untyped: the runtime must log this and show clients only a generic message.
      throw new Error(`failing_tool internal error (must not reach the client): ${message}`);
    }
    throw new ToolFailureError({
      class: (args.class as FailureClass | undefined) ?? 'EXECUTION',
      code: (args.code as string | undefined) ?? 'intentional_failure',
      message,
      retry: args.retry !== 'SAFE' ? { kind: 'NEVER' } : typeof args.retryAfterMs === 'number' ? { kind: 'SAFE', afterMs: args.retryAfterMs } : { kind: 'SAFE' },
    });
  },
});
