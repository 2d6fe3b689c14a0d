// Test-only tools, registered only with ENABLE_TEST_TOOLS (never in production): behaviours the
// built-ins deliberately do not have, such as a background-capable tool with side effects.
import type { BuiltinTool } from '../types.js';
import { defineBuiltinTool } from '../types.js';
import { abortableDelay } from '../builtin/delay.js';

/** Background-capable and NOT idempotent: each tick appends a line to a session file. */
export const testTicker = defineBuiltinTool({
  name: 'test_ticker',
  description: 'Test-only. Appends one line per tick to a session file (`path`, default /ticks.log), `intervalMs` apart, reporting progress. Has side effects, so it is not idempotent. Can run in the background.',
  parametersSchema: {
    type: 'object',
    properties: {
      ticks: { type: 'integer', minimum: 1, maximum: 100_000, default: 10 },
      intervalMs: { type: 'integer', minimum: 0, maximum: 60_000, default: 100 },
      path: { type: 'string', minLength: 1, maxLength: 1024, default: '/ticks.log' },
    },
    additionalProperties: false,
  },
  hints: { readonly: false, idempotent: false, supportsBackground: true },
  timeoutMs: 3_600_000,
  async execute(args, context) {
    const ticks = (args.ticks as number | undefined) ?? 10;
    const intervalMs = (args.intervalMs as number | undefined) ?? 100;
    const path = (args.path as string | undefined) ?? '/ticks.log';
    for (let tick = 1; tick <= ticks; tick++) {
      await context.files.appendFile(path, `tick ${tick} (attempt ${context.attempt})\n`);
      context.output('stdout', `tick ${tick}\n`);
      context.reportProgress({ current: tick, total: ticks, unit: 'ticks', label: 'ticking' });
      if (tick < ticks) await abortableDelay(intervalMs, context.signal);
    }
    return { ticks, summary: `Ticked ${ticks} times` };
  },
});

export const testTools: BuiltinTool[] = [testTicker];
