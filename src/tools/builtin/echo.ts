import { defineBuiltinTool } from '../types.js';

export const echo = defineBuiltinTool({
  name: 'echo',
  description: 'Returns its arguments unchanged: `text` (a string) and/or `value` (any JSON value). Useful for testing.',
  parametersSchema: {
    type: 'object',
    properties: {
      text: { type: 'string', description: 'Text to echo back' },
      value: { description: 'Any JSON value to echo back' },
    },
    additionalProperties: false,
  },
  hints: { readonly: true, idempotent: true },
  timeoutMs: 5000,
  async execute(args) {
    const result: Record<string, unknown> = {};
    if ('text' in args) result.text = args.text;
    if ('value' in args) result.value = args.value;
    return result;
  },
});
