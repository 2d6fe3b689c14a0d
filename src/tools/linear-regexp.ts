// Every regular expression a client or tenant chooses runs on RE2 (re2js, pure JavaScript): its
// matching time is linear in the input, whatever the pattern, so `^(a+)+$` cannot stall a process.
// RE2 has no backreferences or lookarounds; such a pattern is a typed error, not a slow match.
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

export interface LinearRegExp {
  test(text: string): boolean;
  /** The pattern and its flags: Ajv caches compiled patterns under this text, so it must tell them apart. */
  toString(): string;
}

/** Compiles a JavaScript-syntax pattern to RE2; throws (with RE2's reason) what RE2 cannot run. */
export function compileLinearRegExp(pattern: string, options: { ignoreCase?: boolean } = {}): LinearRegExp {
  const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern), options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  const text = `re2:${options.ignoreCase ? 'i' : ''}:${pattern}`;
  return { test: (input) => compiled.test(input), toString: () => text };
}

/** Ajv's `code.regExp`: JSON Schema `pattern` and `patternProperties` evaluated on RE2. */
export const ajvLinearRegExp: RegExpEngine = Object.assign((pattern: string, flags: string) => compileLinearRegExp(pattern, { ignoreCase: flags.includes('i') }), {
  // Only used by Ajv's standalone code generation, which toolrun does not use.
  code: 'require("re2js").RE2JS',
});
