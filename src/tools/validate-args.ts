// Validates tool arguments against the tool's JSON Schema (Ajv 8). Compiled validators are
// cached by tool name and a stable hash of the schema, so a re-registered tool with a changed
// schema gets a fresh validator and an unchanged one is never recompiled.
import { createHash } from 'node:crypto';
import { Ajv, type AnySchema, type ErrorObject, type FuncKeywordDefinition, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { stringify } from 'safe-stable-stringify';
import { ajvLinearRegExp, chargeSchemaEvaluation, PatternBudget, PatternBudgetExceeded, SchemaBudgetExceeded, withPatternBudget } from './linear-regexp.js';
import type { ToolDefinition } from './types.js';

export type ValidationResult = { ok: true } | { ok: false; message: string };

const MAX_CACHED_VALIDATORS = 1000;
const MAX_REPORTED_ERRORS = 10;
/**
 * Steps of RE2 matching (a pattern's instructions × a string's length) that checking the args of one
 * batch may take: about 0.15 s here at worst. Its calls share them (`patternBudget()`), so a
 * tenant's long strings against a large `pattern` cannot hold the API's thread for long.
 */
export const PATTERN_STEPS_PER_BATCH = 50_000_000;

/** The budget for the patterns of one batch's args (its calls share it; a spawned run has its own). */
export const patternBudget = () => new PatternBudget(PATTERN_STEPS_PER_BATCH);

// ajv-formats is CommonJS; depending on the loader its default export is the plugin or a namespace.
const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? (addFormatsModule as unknown as FormatsPlugin);

type AnyAjv = Ajv | Ajv2019 | Ajv2020;

/** A keyword's function says why it failed in its `errors` (Ajv reads them after each call). */
type Reporting = { errors?: Partial<ErrorObject>[] };

/** A JSON value's text with its keys sorted: two values are deep-equal (as Ajv's `equal` says) exactly when their texts are. */
const canonical = (value: unknown): string => stringify(value) ?? 'undefined';

/**
 * `uniqueItems` in time linear in the array's size. Ajv's own compares every pair of items when
 * they may be objects or arrays: 20,000 items (170 kB of args) held the API's thread for seconds,
 * every tenant's requests with it.
 */
const uniqueItemsKeyword: FuncKeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  errors: true,
  validate: function uniqueItems(this: void, schema: boolean, data: unknown[]): boolean {
    if (!schema) return true;
    const seen = new Map<string, number>();
    for (let i = 0; i < data.length; i++) {
      const text = canonical(data[i]);
      const j = seen.get(text);
      if (j !== undefined) {
        (uniqueItems as Reporting).errors = [{ keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`, params: { i, j } }];
        return false;
      }
      seen.set(text, i);
    }
    return true;
  },
};

/**
 * `enum` looked up in a set: Ajv's own compares the value with every allowed one (and compiles
 * them into one expression), so a tenant's long enum against many values cost their product.
 */
const enumKeyword: FuncKeywordDefinition = {
  keyword: 'enum',
  schemaType: 'array',
  errors: true,
  compile: (allowedValues: unknown[]) => {
    if (allowedValues.length === 0) throw new Error('enum must have non-empty array');
    const allowed = new Set(allowedValues.map(canonical));
    const check = (data: unknown): boolean => {
      if (allowed.has(canonical(data))) return true;
      (check as Reporting).errors = [{ keyword: 'enum', message: 'must be equal to one of the allowed values', params: { allowedValues } }];
      return false;
    };
    return check;
  },
};

/**
 * What one call of a compiled schema function costs, in pattern steps: Ajv compiles the root and
 * each `$ref` it does not inline into a function, and a call costs up to about 1.5 µs (against ~3 ns
 * a step). A batch's budget then holds 100,000 calls, about 0.15 s.
 */
const STEPS_PER_SCHEMA_CALL = 500;

/** Keywords (counted through subschemas) of a referenced schema Ajv copies into the referring code rather than calls. */
const MAX_INLINED_KEYWORDS = 16;

/**
 * What an error kept costs (an object with its path and params, made, kept, then collected: about
 * 0.5–1 µs) and a branch of `anyOf`/`oneOf` or another subschema Ajv inlines with its own error
 * mark (~15 ns). Inlined, a schema's branches cost nothing as calls, yet 500 `anyOf` branches that
 * all fail against 100,000 items made 5×10⁷ errors: a minute on the API's thread, then out of memory.
 */
const STEPS_PER_ERROR = 250;
const STEPS_PER_SUBSCHEMA = 5;

/** Where each function Ajv generates starts: `return function validate12(data, {instancePath="", …}={}){`. */
const FUNCTION_START = /return function validate\d+\(data, \{.*?\}=\{\}\)\{/;
/** An error kept (Ajv's addError with allErrors): `if(vErrors === null){vErrors = [err3];}else {vErrors.push(err3);}errors++;`. */
const ERROR_KEPT = /(\{vErrors\.push\(err\d+\);\}errors\+\+;)/g;
/** A subschema's start that marks the errors before it (`const _errs5 = errors;`): each branch of anyOf/oneOf, not, if, contains, items. */
const SUBSCHEMA_MARK = /(const _errs\d+ = errors;)/g;

/**
 * Code that runs once per item or property costs in proportion to its length: a schema of 3,000
 * passing keywords under `items` is one function too large for V8 to optimise (~140 ns a keyword),
 * and 100,000 items took a minute on the API's thread with no call, error or branch to charge. So a
 * function's call and each pass of each loop in it are also charged a step per this many characters
 * of the code they may run, not counting the code that builds errors (most of it, and charged as
 * errors when it runs): a small schema's loop pays a few steps an item.
 */
const CHARS_PER_STEP = 2;

/** A loop Ajv generates, up to its body's `{`: `for(let i0=0; i0<len0; i0++){`, `for(const key0 in data0){`, `for(;i1--;){`. */
const LOOP_HEAD = /^for\([^"{}]*?\)\{/;
/** The code that builds and keeps one error: `const err3 = {instancePath, …};if(vErrors === null){…}errors++;`. */
const ERROR_BUILT = /const err\d+ = \{.*?errors\+\+;/g;

/**
 * Makes each generated function charge its call, its errors and its marked subschemas to the budget
 * in force (`self` is the Ajv instance in its scope), and each pass of each loop by its length
 * (`chargeLoops`). The patterns could only also match inside a string literal holding that very
 * code (a property named so), where the inserted call would be text: no code runs from it.
 */
function chargeEachCall(source: string): string {
  if (!FUNCTION_START.test(source)) throw new Error('Ajv generated a validation function toolrun cannot charge (has Ajv changed its code?)');
  const length = codeLengths(source);
  return chargeLoops(source, length)
    .replace(FUNCTION_START, (start) => `${start}self.chargeSchemaEvaluation(${STEPS_PER_SCHEMA_CALL + Math.ceil(length[source.length]! / CHARS_PER_STEP)});`)
    .replace(ERROR_KEPT, `$1self.chargeSchemaEvaluation(${STEPS_PER_ERROR});`)
    .replace(SUBSCHEMA_MARK, `$1self.chargeSchemaEvaluation(${STEPS_PER_SUBSCHEMA});`);
}

/** `length[i]`: how many of the first `i` characters are code that is not error building. */
function codeLengths(source: string): Uint32Array {
  const length = new Uint32Array(source.length + 1);
  let errorEnd = 0;
  const errors = source.matchAll(ERROR_BUILT);
  let next = errors.next();
  for (let i = 0; i < source.length; i++) {
    if (!next.done && i === next.value.index) {
      errorEnd = i + next.value[0].length;
      next = errors.next();
    }
    length[i + 1] = length[i]! + (i < errorEnd ? 0 : 1);
  }
  return length;
}

/**
 * Inserts, at the start of each loop's body, the charge of one pass: its body's length in steps.
 * Scans the code once, outside its string literals (Ajv writes them as JSON strings; a tenant's
 * property names and values reach the code only inside them), matching braces with a stack.
 */
function chargeLoops(source: string, length: Uint32Array): string {
  const bodies: Array<{ open: number; close: number }> = [];
  const open: number[] = [];
  const loopBodies = new Set<number>();
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '"') {
      for (i++; i < source.length && source[i] !== '"'; i++) if (source[i] === '\\') i++;
    } else if (c === '{') {
      open.push(i);
    } else if (c === '}') {
      const start = open.pop();
      if (start !== undefined && loopBodies.has(start)) bodies.push({ open: start, close: i });
    } else if (c === 'f' && !/[\w$]/.test(source[i - 1] ?? '')) {
      const head = LOOP_HEAD.exec(source.slice(i, i + 200));
      if (head) loopBodies.add(i + head[0].length - 1);
    }
  }
  if (bodies.length === 0) return source;
  bodies.sort((a, b) => a.open - b.open);
  let out = '';
  let from = 0;
  for (const body of bodies) {
    const steps = Math.max(1, Math.ceil((length[body.close]! - length[body.open]!) / CHARS_PER_STEP));
    out += `${source.slice(from, body.open + 1)}self.chargeSchemaEvaluation(${steps});`;
    from = body.open + 1;
  }
  return out + source.slice(from);
}

function createAjv<T extends AnyAjv>(AjvClass: new (options: ConstructorParameters<typeof Ajv>[0]) => T): T {
  // strict: false tolerates vendor keywords (x-*, examples in odd places) in registered schemas.
  // Patterns run on RE2 (linear time): a tenant's `pattern` cannot stall the process validating it.
  // Each evaluation of a compiled (sub)schema is charged too: `$ref`s that fan out cannot either.
  // Only small schemas are inlined where they are referenced (`inlineRefs`): Ajv inlines any schema
  // without refs by default, so 200 refs to one of 200 properties (14 kB) made 40,000 properties of
  // code, seconds to compile on the API's thread (a little more ran it out of memory).
  // ownProperties: args are judged by what was sent; without it a property named like an inherited
  // member (`toString`, `constructor`) counts as present: `{}` failed `type` and passed `required`.
  const ajv = new AjvClass({
    allErrors: true,
    ownProperties: true,
    strict: false,
    logger: false,
    validateFormats: true,
    inlineRefs: MAX_INLINED_KEYWORDS,
    code: { regExp: ajvLinearRegExp, process: chargeEachCall },
  });
  Object.assign(ajv, { chargeSchemaEvaluation });
  addFormats(ajv);
  for (const keyword of [uniqueItemsKeyword, enumKeyword]) ajv.removeKeyword(keyword.keyword as string).addKeyword(keyword);
  return ajv;
}

let instances: { draft7: Ajv; draft2019: Ajv2019; draft2020: Ajv2020 } | undefined;

function ajvFor(schema: unknown): AnyAjv {
  instances ??= { draft7: createAjv(Ajv), draft2019: createAjv(Ajv2019), draft2020: createAjv(Ajv2020) };
  const dialect = typeof schema === 'object' && schema !== null ? (schema as { $schema?: unknown }).$schema : undefined;
  if (typeof dialect === 'string' && dialect.includes('2020-12')) return instances.draft2020;
  if (typeof dialect === 'string' && dialect.includes('2019-09')) return instances.draft2019;
  return instances.draft7;
}

/**
 * A copy without the top-level `$id`: Ajv keys compiled schemas by `$id` and refuses a second
 * schema with the same id, and two tools may well reuse one.
 */
function withoutId(schema: unknown): AnySchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema as AnySchema;
  const { $id: _id, ...rest } = schema as Record<string, unknown>;
  return rest;
}

interface CacheEntry {
  validate: ValidateFunction;
  ajv: AnyAjv;
  schema: AnySchema;
}

const cache = new Map<string, CacheEntry>();

function compile(schema: unknown): CacheEntry {
  const ajv = ajvFor(schema);
  const copy = withoutId(schema);
  // Compiling a schema's patterns draws on a budget of its own (a tenant's schema may hold many).
  return { validate: withPatternBudget(patternBudget(), () => ajv.compile(copy)), ajv, schema: copy };
}

function cached(key: string, schema: unknown): CacheEntry {
  const hit = cache.get(key);
  if (hit) {
    // Refresh recency (Map iteration order is insertion order).
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const entry = compile(schema);
  cache.set(key, entry);
  if (cache.size > MAX_CACHED_VALIDATORS) {
    const [oldestKey, oldest] = cache.entries().next().value as [string, CacheEntry];
    cache.delete(oldestKey);
    oldest.ajv.removeSchema(oldest.schema);
  }
  return entry;
}

// Built-in tools keep one schema object for the life of the process; hashing it once per object
// rather than once per call (registered tools' schemas are new objects per load, and hashed anew).
const hashes = new WeakMap<object, string>();

function schemaHash(schema: unknown): string {
  const known = typeof schema === 'object' && schema !== null ? hashes.get(schema) : undefined;
  if (known) return known;
  const hash = createHash('sha256')
    .update(stringify(schema) ?? 'undefined')
    .digest('base64url');
  if (typeof schema === 'object' && schema !== null) hashes.set(schema, hash);
  return hash;
}

function describe(error: ErrorObject): string {
  const where = `args${error.instancePath}`;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return `${where} must NOT have additional property '${String(params.additionalProperty)}'`;
    case 'enum':
      return `${where} ${error.message ?? 'is invalid'}: ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
    case 'const':
      return `${where} must be equal to ${JSON.stringify(params.allowedValue)}`;
    default:
      return `${where} ${error.message ?? 'is invalid'}`;
  }
}

export function formatErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return 'args are invalid';
  // `if`/`anyOf` add a summary error on top of the specific ones; the specific ones say more.
  const specific = errors.filter((error) => !['if', 'anyOf', 'oneOf'].includes(error.keyword) || errors.length === 1);
  const messages = [...new Set((specific.length > 0 ? specific : errors).map(describe))];
  const shown = messages.slice(0, MAX_REPORTED_ERRORS);
  const more = messages.length - shown.length;
  return more > 0 ? `${shown.join('; ')}; and ${more} more` : shown.join('; ');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Validates a call's args against its tool's parameters schema, its patterns' matching charged to `budget`. Args must be a JSON object. */
export function validateArgs(definition: Pick<ToolDefinition, 'name' | 'parametersSchema'>, args: unknown, budget = patternBudget()): ValidationResult {
  if (!isPlainObject(args)) return { ok: false, message: 'args must be an object' };
  let entry: CacheEntry;
  try {
    entry = cached(`${definition.name}:${schemaHash(definition.parametersSchema)}`, definition.parametersSchema);
  } catch (error) {
    return { ok: false, message: `the parameters schema of tool \`${definition.name}\` is invalid: ${(error as Error).message}` };
  }
  let valid: boolean;
  try {
    valid = withPatternBudget(budget, () => entry.validate(args) as boolean);
  } catch (error) {
    if (error instanceof PatternBudgetExceeded) {
      return {
        ok: false,
        message: `checking them against the patterns of the schema of \`${definition.name}\` takes too long (a pattern of ${error.instructions} RE2 instructions against a string of ${error.inputLength} characters, beyond what one batch's args may take): send shorter strings`,
      };
    }
    if (error instanceof SchemaBudgetExceeded) {
      return {
        ok: false,
        message: `checking them against the schema of \`${definition.name}\` takes too long (its subschemas are evaluated or fail more often than one batch's args may take: \`$ref\`s that fan out, many branches against many items, or args that large)`,
      };
    }
    // A schema that refers to itself without consuming the value (`$ref: "#"` beside `type`) recurses without end.
    if (!(error instanceof RangeError)) throw error;
    return { ok: false, message: `the parameters schema of tool \`${definition.name}\` cannot be evaluated for these args: it refers to itself without end, or nests too deeply` };
  }
  if (valid) return { ok: true };
  return { ok: false, message: formatErrors(entry.validate.errors) };
}

/**
 * Returns why a JSON Schema cannot be used as a tool's parameters schema, or null when it can:
 * it must compile and describe an object (`type: "object"`, when a type is given).
 */
export function compileSchemaOrError(schema: unknown): string | null {
  if (!isPlainObject(schema)) return 'the parameters schema must be a JSON object';
  if (schema.type !== undefined && schema.type !== 'object') return 'the parameters schema must describe an object (type: "object")';
  const ajv = ajvFor(schema);
  const copy = withoutId(schema);
  try {
    // The empty object is the least any call may send: a schema that cannot even evaluate it (it
    // refers to itself without end) would refuse every call.
    withPatternBudget(patternBudget(), () => ajv.compile(copy)({}));
    return null;
  } catch (error) {
    if (error instanceof RangeError) return 'the parameters schema refers to itself without end (a `$ref` that never consumes the value), or nests too deeply to compile (thousands of `anyOf` branches)';
    if (error instanceof SchemaBudgetExceeded) return 'the parameters schema takes too long to evaluate even for {} (more than one batch\'s args may take): its `$ref`s fan out';
    return (error as Error).message;
  } finally {
    ajv.removeSchema(copy);
  }
}
