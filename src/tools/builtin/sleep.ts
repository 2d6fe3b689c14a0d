import { defineBuiltinTool } from '../types.js';

export const MAX_SLEEP_MS = 3_600_000;

export const sleep = defineBuiltinTool({
  name: 'sleep',
  description:
    'Waits `ms` milliseconds (at most one hour), reporting progress every `progressIntervalMs` (default 100). Stops at once when cancelled (unless `ignoreAbort`). Can run in the background.',
  parametersSchema: {
    type: 'object',
    properties: {
      ms: { type: 'integer', minimum: 0, maximum: MAX_SLEEP_MS, description: 'How long to wait, in milliseconds' },
      progressIntervalMs: { type: 'integer', minimum: 10, maximum: 60_000, default: 100, description: 'How often to report progress' },
      ignoreAbort: {
        type: 'boolean',
        default: false,
        description: 'Sleep on when cancelled or timed out, like a tool that finishes its side effect anyway (to test how the runtime records it)',
      },
    },
    required: ['ms'],
    additionalProperties: false,
  },
  hints: { readonly: true, idempotent: true, supportsBackground: true },
  // Long enough for the longest sleep; the runtime still clamps it to its configured maximum.
  timeoutMs: MAX_SLEEP_MS + 60_000,
  async execute(args, context) {
    const ms = args.ms as number;
    const interval = (args.progressIntervalMs as number | undefined) ?? 100;
    const signal = args.ignoreAbort === true ? new AbortController().signal : context.signal;
    if (signal.aborted) throw signal.reason;
    const started = Date.now();
    const report = (current: number) => context.reportProgress({ current, total: ms, unit: 'ms', label: 'sleeping' });
    await new Promise<void>((resolve, reject) => {
      const ticker = setInterval(() => report(Math.min(ms, Date.now() - started)), interval);
      const finish = () => {
        clearInterval(ticker);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        finish();
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        finish();
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    report(ms);
    return { sleptMs: ms };
  },
});
