// Every regular expression a client or tenant chooses runs on RE2 (re2js, pure JavaScript): its
// matching time is linear in the input, whatever the pattern, so `^(a+)+$` cannot stall a process.
// RE2 has no backreferences or lookarounds; such a pattern is a typed error, not a slow match.
// Linear is not cheap: a match costs about the pattern's program size times the input's length,
// and a tenant's schema may hold a pattern of thousands of instructions. So a pattern's program is
// capped, and a match on the API's thread (argument validation) draws on a `PatternBudget`.
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

/** RE2 instructions a pattern may compile to: `[a-z0-9._%+-]+@…` takes about 60, `(a|b){1000}` 3,000. */
export const MAX_PATTERN_INSTRUCTIONS = 10_000;
/** Characters of a pattern: compiling costs about its program size, which grows with its length (a `{1000}` each). */
export const MAX_PATTERN_LENGTH = 1_000;
/** What compiling one instruction costs, in matching steps (measured: ~1.8 µs against ~3 ns). */
const COMPILE_STEPS_PER_INSTRUCTION = 600;

export interface LinearRegExp {
  test(text: string): boolean;
  /** The pattern and its flags: Ajv caches compiled patterns under this text, so it must tell them apart. */
  toString(): string;
}

/** Thrown by a match (or a compile: `inputLength` null) that would overdraw the budget in force. */
export class PatternBudgetExceeded extends Error {
  constructor(readonly instructions: number, readonly inputLength: number | null) {
    super(
      inputLength === null
        ? `its patterns are too large together (compiling them exceeds the budget for patterns; this one has ${instructions} RE2 instructions)`
        : `matching a pattern of ${instructions} RE2 instructions against ${inputLength} characters exceeds the budget for patterns`,
    );
  }
}

/** Steps of pattern matching (instructions × characters) a piece of work may spend; shared by what it validates. */
export class PatternBudget {
  readonly initial: number;
  constructor(public remaining: number) {
    this.initial = remaining;
  }
}

let current: PatternBudget | null = null;

/** Runs `fn` (synchronous) with every match charged to `budget`. */
export function withPatternBudget<T>(budget: PatternBudget, fn: () => T): T {
  const outer = current;
  current = budget;
  try {
    return fn();
  } finally {
    current = outer;
  }
}

/** Compiles a JavaScript-syntax pattern to RE2; throws (with RE2's reason) what RE2 cannot run, or a program too large. */
export function compileLinearRegExp(pattern: string, options: { ignoreCase?: boolean } = {}): LinearRegExp {
  if (pattern.length > MAX_PATTERN_LENGTH) throw new Error(`the pattern is too long: ${pattern.length} characters, at most ${MAX_PATTERN_LENGTH} are accepted`);
  const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern), options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  const instructions = compiled.re2Input.prog.inst.length;
  if (instructions > MAX_PATTERN_INSTRUCTIONS) {
    throw new Error(`the pattern is too large: it compiles to ${instructions} RE2 instructions, at most ${MAX_PATTERN_INSTRUCTIONS} are accepted`);
  }
  if (current) {
    const cost = instructions * COMPILE_STEPS_PER_INSTRUCTION;
    if (cost > current.remaining) throw new PatternBudgetExceeded(instructions, null);
    current.remaining -= cost;
  }
  const text = `re2:${options.ignoreCase ? 'i' : ''}:${pattern}`;
  return {
    test: (input) => {
      if (current) {
        const cost = instructions * (input.length + 1);
        if (cost > current.remaining) throw new PatternBudgetExceeded(instructions, input.length);
        current.remaining -= cost;
      }
      return compiled.test(input);
    },
    toString: () => text,
  };
}

/** Ajv's `code.regExp`: JSON Schema `pattern` and `patternProperties` evaluated on RE2. */
export const ajvLinearRegExp: RegExpEngine = Object.assign((pattern: string, flags: string) => compileLinearRegExp(pattern, { ignoreCase: flags.includes('i') }), {
  // Only used by Ajv's standalone code generation, which toolrun does not use.
  code: 'require("re2js").RE2JS',
});

/**
 * Thrown when evaluating a schema would overdraw the budget in force: `$ref`s that fan out (a
 * schema with two refs to one that holds two refs to …) double the work at each level, so 2 kB of
 * schema could hold the thread for minutes whatever the args.
 */
export class SchemaBudgetExceeded extends Error {
  constructor() {
    super('evaluating the schema takes more than the budget allows');
  }
}

/** Charges one evaluation of a compiled (sub)schema, `steps` matching steps, to the budget in force (none: free). */
export function chargeSchemaEvaluation(steps: number): void {
  if (!current) return;
  if (steps > current.remaining) throw new SchemaBudgetExceeded();
  current.remaining -= steps;
}
