// The background-run tools: `spawn_background` (the same spawn as the spawnBackground mutation,
// reached through the call's context) and `report_progress` (deterministic steps that report
// status, output and progress — a background-capable tool to watch and test against).
import { ToolFailureError } from '../../model/outcome.js';
import { defineBuiltinTool } from '../types.js';
import { abortableDelay } from './delay.js';

// Seed 002's spawn_background: its name, description, argument schema, outputs and messages are
// what models see. It comes from the `background_execution` capability, as in the seed.
export const spawnBackground = defineBuiltinTool({
  name: 'spawn_background',
  description:
    'Run a background-capable built-in tool asynchronously. Returns immediately and signals the session when the background run completes.',
  parametersSchema: {
    type: 'object',
    properties: {
      tool: { type: 'string', description: 'Name of the built-in tool to execute in the background' },
      args: { type: 'object', description: 'Arguments to pass to the target tool' },
      title: { type: 'string', description: 'Optional human-readable label for the background run' },
      schedule: {
        type: 'object',
        description: 'Optional session schedule. When provided, this creates a scheduled monitor instead of starting the run immediately.',
        properties: {
          cron_expression: {
            type: 'string',
            description: "Standard 5-field cron expression for recurring runs (e.g. '*/10 * * * *' for every 10 minutes)",
          },
          scheduled_at: { type: 'string', description: "ISO 8601 datetime for a one-shot run (e.g. '2026-04-16T15:30:00Z')" },
          timezone: { type: 'string', description: 'IANA timezone for the schedule. Default: UTC' },
        },
        additionalProperties: false,
      },
      signal_on_completion: {
        type: 'boolean',
        description: 'Send a synthetic user message back to the session when the run completes',
        default: true,
      },
    },
    required: ['tool', 'args'],
    additionalProperties: false,
  },
  capability: 'background_execution',
  checksOwnArguments: true,
  async execute(args, context) {
    if (!context.spawnBackground) {
      throw new ToolFailureError({ class: 'UNAVAILABLE', code: 'background_unavailable', message: 'spawn_background is not available here (a background run cannot spawn further runs)' });
    }
    return context.spawnBackground(args);
  },
});

export const reportProgress = defineBuiltinTool({
  name: 'report_progress',
  description:
    'Works through `steps` deterministic steps, `intervalMs` apart: for each it sets its status text, writes a line of output (plus `outputChars` filler characters, to exercise output caps) and reports progress. `failAtStep` makes it fail at that step (with `failMessage`). Honours cancellation. Can run in the background.',
  parametersSchema: {
    type: 'object',
    properties: {
      steps: { type: 'integer', minimum: 1, maximum: 10_000, default: 5 },
      intervalMs: { type: 'integer', minimum: 0, maximum: 60_000, default: 100 },
      label: { type: 'string', minLength: 1, maxLength: 200, default: 'step' },
      stream: { type: 'string', enum: ['stdout', 'stderr'], default: 'stdout' },
      outputChars: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0, description: 'Filler characters of output per step' },
      failAtStep: { type: 'integer', minimum: 1, description: 'Fail (EXECUTION, step_failed) at this step' },
      failMessage: { type: 'string', minLength: 1, maxLength: 2000, description: 'The message of that failure' },
      summary: { type: 'string', maxLength: 2000, description: 'Summary of the result' },
    },
    additionalProperties: false,
  },
  hints: { readonly: true, idempotent: true, supportsBackground: true },
  timeoutMs: 3_600_000,
  async execute(args, context) {
    const steps = (args.steps as number | undefined) ?? 5;
    const intervalMs = (args.intervalMs as number | undefined) ?? 100;
    const label = (args.label as string | undefined) ?? 'step';
    const stream = args.stream === 'stderr' ? 'stderr' : 'stdout';
    const filler = (args.outputChars as number | undefined) ?? 0;
    for (let step = 1; step <= steps; step++) {
      if (context.signal.aborted) throw context.signal.reason;
      context.status(`${label} ${step}/${steps}`);
      context.output(stream, `${label} ${step}/${steps}\n`);
      if (filler > 0) context.output(stream, `${'0123456789'.repeat(Math.ceil(filler / 10)).slice(0, filler)}\n`);
      context.reportProgress({ current: step, total: steps, unit: 'steps', label });
      if (args.failAtStep === step) {
        const message = (args.failMessage as string | undefined) ?? `${label} ${step}/${steps} failed as requested`;
        throw new ToolFailureError({ class: 'EXECUTION', code: 'step_failed', message });
      }
      if (step < steps && intervalMs > 0) await abortableDelay(intervalMs, context.signal);
    }
    return { steps, summary: (args.summary as string | undefined) ?? `Completed ${steps} ${label}${steps === 1 ? '' : 's'}` };
  },
});
