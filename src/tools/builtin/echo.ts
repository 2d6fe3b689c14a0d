import { defineBuiltinTool } from '../types.js';

// Seed 002's echo tool: its schema, its output, and `length` in UTF-8 bytes (Rust's `str::len`).
export const echo = defineBuiltinTool({
  name: 'echo',
  description: 'Echo back the provided message. Useful for testing tool execution.',
  parametersSchema: {
    type: 'object',
    properties: {
      message: { type: 'string', description: 'The message to echo back' },
    },
    required: ['message'],
    additionalProperties: false,
  },
  hints: { readonly: true, idempotent: true },
  timeoutMs: 5000,
  async execute(args) {
    const message = typeof args.message === 'string' ? args.message : '';
    return { echoed: message, length: Buffer.byteLength(message, 'utf8') };
  },
});
