// Seed 002's failing_tool: without arguments it fails with the seed's message "Tool execution
// failed". Its optional arguments let clients test their error paths: any failure class, code,
// message, raw value and retry disposition, an internal error (whose message the runtime must
// mask), a delay before failing, and success from a given attempt on (to exercise retries).
import { FAILURE_CLASSES, type FailureClass, ToolFailureError } from '../../model/outcome.js';
import { decodeToolValue, MalformedToolValueError, type ToolValue } from '../../model/tool-value.js';
import { defineBuiltinTool } from '../types.js';
import { abortableDelay } from './delay.js';

export const DEFAULT_FAILURE_MESSAGE = 'Tool execution failed';

export const failingTool = defineBuiltinTool({
  name: 'failing_tool',
  description: 'A tool that always fails (for testing error handling)',
  parametersSchema: {
    type: 'object',
    properties: {
      class: { type: 'string', enum: [...FAILURE_CLASSES], default: 'EXECUTION', description: 'Failure class' },
      code: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[a-z][a-z0-9_]*$', default: 'intentional_failure', description: 'Failure code' },
      message: { type: 'string', maxLength: 2000, default: DEFAULT_FAILURE_MESSAGE, description: 'Failure message' },
      raw: { description: 'The failure’s raw value (a tool value in its wire form)' },
      retry: { type: 'string', enum: ['NEVER', 'SAFE'], default: 'NEVER', description: 'SAFE failures are retried up to 3 attempts' },
      retryAfterMs: { type: 'integer', minimum: 0, maximum: 600_000, description: 'With retry SAFE: wait this long before the next attempt' },
      delayMs: { type: 'integer', minimum: 0, maximum: 600_000, description: 'Wait this long before failing (honours cancellation)' },
      internal: { type: 'boolean', default: false, description: 'Throw a plain Error instead of a typed failure; clients only see a generic internal error' },
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
    const message = typeof args.message === 'string' ? args.message : DEFAULT_FAILURE_MESSAGE;
    if (args.internal === true) {
      // Deliberately untyped: the runtime must log this and show clients only a generic message.
      throw new Error(`failing_tool internal error (must not reach the client): ${message}`);
    }
    let raw: ToolValue | undefined;
    try {
      raw = args.raw === undefined ? undefined : decodeToolValue(args.raw);
    } catch (error) {
      if (!(error instanceof MalformedToolValueError)) throw error;
      throw new ToolFailureError({ class: 'INVALID_REQUEST', code: 'invalid_raw', message: `raw is not a valid tool value: ${error.message}` });
    }
    throw new ToolFailureError({
      class: (args.class as FailureClass | undefined) ?? 'EXECUTION',
      code: (args.code as string | undefined) ?? 'intentional_failure',
      message,
      retry: args.retry !== 'SAFE' ? { kind: 'NEVER' } : typeof args.retryAfterMs === 'number' ? { kind: 'SAFE', afterMs: args.retryAfterMs } : { kind: 'SAFE' },
      ...(raw !== undefined ? { raw } : {}),
    });
  },
});
