// What every operation's input must satisfy before anything recurses into it or stores it: JSON
// (variables and literals) nested at most `maxJsonDepth` levels, no string or key PostgreSQL
// cannot hold as text (U+0000, a lone UTF-16 surrogate) — except inside a tool call's `args` and
// a background run's (`spawnBackground(args:)`), which are stored losslessly (model/storable-json.ts)
// and reach the tool exactly —, no
// `__proto__` key, no number a double cannot hold (1e400: it would overflow to infinity), and at most
// `maxCallsPerRequest` tool calls across every `executeToolBatch` of the request (aliases
// included). The walk uses its own stack, so a value nested 10,000 deep is refused, not a stack
// overflow. Refusals are GraphQL errors with `extensions.code` and the offending `field`.
import type { Plugin } from '@envelop/core';
import type { OperationCheck } from './use-operation-checks.js';
import { unacceptableText } from '../../model/storable-json.js';
import {
  type ArgumentNode,
  type DocumentNode,
  type ExecutionArgs,
  type FragmentDefinitionNode,
  getOperationAST,
  GraphQLError,
  Kind,
  visit,
  type SelectionSetNode,
  type TypeNode,
  type ValueNode,
} from 'graphql';

export interface InputLimits {
  maxJsonDepth: number;
  maxCallsPerRequest: number;
  /** Selection sets may nest this deep (MAX_QUERY_DEPTH); with maxJsonDepth, it bounds the nesting of a document's text. */
  maxQueryDepth: number;
}

export const BAD_USER_INPUT = 'BAD_USER_INPUT';

/** A number past what a double holds (1e400): JSON has no infinity, and no store or tool could take it. */
const NOT_FINITE = 'is a number too large to represent (it overflows to infinity)';

function refuse(field: string, why: string, code = BAD_USER_INPUT): GraphQLError {
  return new GraphQLError(`${field} ${why}`, { extensions: { code, field } });
}

function fieldPath(base: string, key: string | number): string {
  return typeof key === 'number' ? `${base}[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

/** The tool call input type: its `args` may hold any string. */
const TOOL_CALL_INPUT = 'ToolCallInput';
/** Fields whose argument (named here) is a tool's arguments object, kept losslessly: it may hold any string. */
const TOOL_ARGS_ARGUMENTS = new Map([['spawnBackground', 'args']]);

/**
 * Checks a JSON value (a variable's value) without recursion. `toolCalls`: the value is a list of
 * tool calls (or one), whose `args` may hold any text; `anyText`: the value is a tool call's `args`.
 */
export function checkJsonInput(value: unknown, field: string, maxDepth: number, toolCalls = false, anyText = false): GraphQLError | null {
  const stack: JsonNode[] = [{ value, parent: null, key: null, depth: 0, anyText, call: toolCalls && !Array.isArray(value) }];
  if (toolCalls && Array.isArray(value)) {
    const list = stack.pop()!;
    if (value.length > 0 && 1 > maxDepth) return refuse(field, `is nested deeper than ${maxDepth} levels`);
    for (let index = value.length - 1; index >= 0; index--) stack.push({ value: value[index], parent: list, key: index, depth: 1, anyText: false, call: true });
  }
  while (stack.length > 0) {
    const node = stack.pop()!;
    const { value: current, depth, anyText, call } = node;
    if (typeof current === 'string') {
      const why = anyText ? null : unacceptableText(current);
      if (why) return refuse(pathOf(field, node), why);
      continue;
    }
    if (typeof current === 'number' && !Number.isFinite(current)) return refuse(pathOf(field, node), NOT_FINITE);
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > maxDepth) return refuse(pathOf(field, node), `is nested deeper than ${maxDepth} levels`);
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--) stack.push({ value: current[index], parent: node, key: index, depth: depth + 1, anyText, call: false });
      continue;
    }
    for (const key of Object.keys(current)) {
      const child: JsonNode = { value: (current as Record<string, unknown>)[key], parent: node, key, depth: depth + 1, anyText: anyText || (call && key === 'args'), call: false };
      if (key === '__proto__') return refuse(pathOf(field, child), 'is a key that is not accepted (`__proto__`)');
      const why = anyText ? null : unacceptableText(key);
      if (why) return refuse(pathOf(field, child), `(a key) ${why}`);
      stack.push(child);
    }
  }
  return null;
}

/** A value met while checking a JSON input; its path is spelled out only for a refusal. */
interface JsonNode {
  value: unknown;
  parent: JsonNode | null;
  key: string | number | null;
  depth: number;
  anyText: boolean;
  call: boolean;
}

function pathOf(field: string, node: JsonNode): string {
  const keys: Array<string | number> = [];
  for (let at: JsonNode | null = node; at && at.key !== null; at = at.parent) keys.push(at.key);
  return keys.reduceRight<string>((path, key) => fieldPath(path, key), field);
}

/**
 * Checks the literal values of a document (arguments and defaults) without recursion. Counts in
 * `toolArgsUses` how often each variable is given as a literal tool call's `args`.
 */
export function checkDocumentInput(document: DocumentNode, maxDepth: number, toolArgsUses = new Map<string, number>()): GraphQLError | null {
  const stack: Array<{ node: ValueNode; path: string; depth: number; anyText?: boolean; calls?: boolean; call?: boolean }> = [];
  const pushArguments = (args: readonly ArgumentNode[] | undefined, owner: string, fieldName: string) => {
    for (const arg of args ?? []) {
      stack.push({
        node: arg.value,
        path: `${owner}(${arg.name.value}:)`,
        depth: 0,
        calls: fieldName === 'executeToolBatch' && arg.name.value === 'calls',
        anyText: TOOL_ARGS_ARGUMENTS.get(fieldName) === arg.name.value,
      });
    }
  };
  const selectionSets: Array<{ set: SelectionSetNode; owner: string }> = [];
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) {
      for (const variable of definition.variableDefinitions ?? []) {
        if (variable.defaultValue) stack.push({ node: variable.defaultValue, path: `$${variable.variable.name.value}`, depth: 0 });
      }
    }
    if (definition.kind === Kind.OPERATION_DEFINITION || definition.kind === Kind.FRAGMENT_DEFINITION) selectionSets.push({ set: definition.selectionSet, owner: '' });
  }
  while (selectionSets.length > 0) {
    const { set, owner } = selectionSets.pop()!;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = `${owner}${owner ? '.' : ''}${selection.alias?.value ?? selection.name.value}`;
        pushArguments(selection.arguments, name, selection.name.value);
        if (selection.selectionSet) selectionSets.push({ set: selection.selectionSet, owner: name });
      } else if (selection.kind === Kind.INLINE_FRAGMENT) selectionSets.push({ set: selection.selectionSet, owner });
    }
  }
  while (stack.length > 0) {
    const { node, path, depth, anyText = false, calls = false, call = calls && node.kind === Kind.OBJECT } = stack.pop()!;
    if (node.kind === Kind.VARIABLE && anyText) toolArgsUses.set(node.name.value, (toolArgsUses.get(node.name.value) ?? 0) + 1);
    else if (node.kind === Kind.STRING || node.kind === Kind.ENUM) {
      const why = anyText ? null : unacceptableText(node.value);
      if (why) return refuse(path, why);
    } else if ((node.kind === Kind.FLOAT || node.kind === Kind.INT) && !Number.isFinite(Number(node.value))) {
      return refuse(path, NOT_FINITE);
    } else if (node.kind === Kind.LIST || node.kind === Kind.OBJECT) {
      if (depth + 1 > maxDepth) return refuse(path, `is nested deeper than ${maxDepth} levels`);
      if (node.kind === Kind.LIST) node.values.forEach((value, index) => stack.push({ node: value, path: fieldPath(path, index), depth: depth + 1, anyText, call: calls && value.kind === Kind.OBJECT }));
      else {
        for (const field of node.fields) {
          const fieldName = field.name.value;
          const keyPath = fieldPath(path, fieldName);
          if (fieldName === '__proto__') return refuse(keyPath, 'is a key that is not accepted (`__proto__`)');
          stack.push({ node: field.value, path: keyPath, depth: depth + 1, anyText: anyText || (call && fieldName === 'args') });
        }
      }
    }
  }
  return null;
}

/**
 * How deep `{`, `[` and `(` nest in a document's text (strings and comments skipped). The parser
 * recurses per level, so this is checked before it runs.
 */
export function textNesting(source: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === '#') {
      while (i < source.length && source[i] !== '\n' && source[i] !== '\r') i++;
    } else if (char === '"') {
      if (source.startsWith('"""', i)) {
        i += 3;
        while (i < source.length && !source.startsWith('"""', i)) i += source.startsWith('\\"""', i) ? 4 : 1;
        i += 2;
      } else {
        i++;
        while (i < source.length && source[i] !== '"' && source[i] !== '\n') i += source[i] === '\\' ? 2 : 1;
      }
    } else if (char === '{' || char === '[' || char === '(') {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (char === '}' || char === ']' || char === ')') depth--;
  }
  return deepest;
}

/** Tool calls the operation submits: the `calls` of every `executeToolBatch` it selects, aliases and fragments included. */
export function countSubmittedCalls(args: Pick<ExecutionArgs, 'document' | 'operationName' | 'variableValues'>): number {
  const operation = getOperationAST(args.document, args.operationName ?? undefined);
  if (!operation || operation.operation !== 'mutation') return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of args.document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const variables = (args.variableValues ?? {}) as Record<string, unknown>;
  let count = 0;
  const visited = new Set<string>();
  const sets: SelectionSetNode[] = [operation.selectionSet];
  while (sets.length > 0) {
    for (const selection of sets.pop()!.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) sets.push(selection.selectionSet);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (fragment && !visited.has(fragment.name.value)) {
          visited.add(fragment.name.value);
          sets.push(fragment.selectionSet);
        }
      } else if (selection.name.value === 'executeToolBatch') {
        const calls = selection.arguments?.find((arg) => arg.name.value === 'calls')?.value;
        if (calls?.kind === Kind.LIST) count += calls.values.length;
        else if (calls?.kind === Kind.VARIABLE) {
          const value = variables[calls.name.value];
          count += Array.isArray(value) ? value.length : value === undefined || value === null ? 0 : 1;
        } else if (calls) count += 1;
      }
    }
  }
  return count;
}

function namedTypeOf(type: TypeNode): string {
  return type.kind === Kind.NAMED_TYPE ? type.name.value : namedTypeOf(type.type);
}

/** How many times each variable is used in the document (its definition aside). */
function variableUses(document: DocumentNode): Map<string, number> {
  const uses = new Map<string, number>();
  visit(document, {
    Variable(node, _key, parent) {
      if ((parent as { kind?: string } | undefined)?.kind !== Kind.VARIABLE_DEFINITION) uses.set(node.name.value, (uses.get(node.name.value) ?? 0) + 1);
    },
  });
  return uses;
}

/** The first reason the operation's input is refused, or null. */
export function checkOperationInput(args: Pick<ExecutionArgs, 'document' | 'operationName' | 'variableValues'>, limits: InputLimits): GraphQLError | null {
  const operation = getOperationAST(args.document, args.operationName ?? undefined);
  const toolCallVariables = new Set(
    (operation?.variableDefinitions ?? []).filter((definition) => namedTypeOf(definition.type) === TOOL_CALL_INPUT).map((definition) => definition.variable.name.value),
  );
  const toolArgsUses = new Map<string, number>();
  const error = checkDocumentInput(args.document, limits.maxJsonDepth, toolArgsUses);
  if (error) return error;
  const uses = toolArgsUses.size > 0 ? variableUses(args.document) : new Map<string, number>();
  for (const [name, value] of Object.entries((args.variableValues ?? {}) as Record<string, unknown>)) {
    // A variable used only as tool calls' `args` may hold any text, as a literal there may.
    const onlyToolArgs = toolArgsUses.has(name) && toolArgsUses.get(name) === uses.get(name);
    const variableError = checkJsonInput(value, `$${name}`, limits.maxJsonDepth, toolCallVariables.has(name), onlyToolArgs);
    if (variableError) return variableError;
  }
  const calls = countSubmittedCalls(args);
  if (calls > limits.maxCallsPerRequest) {
    return new GraphQLError(`The request submits ${calls} tool calls; at most ${limits.maxCallsPerRequest} are accepted per request (across every executeToolBatch and alias)`, {
      extensions: { code: 'LIMIT_EXCEEDED', limit: 'MAX_CALLS_PER_REQUEST', max: limits.maxCallsPerRequest },
    });
  }
  return null;
}

/** Refuses an operation whose input breaks the limits (see above). */
export function inputLimitsCheck(limits: InputLimits): OperationCheck {
  return (args) => checkOperationInput(args, limits);
}

/** Refuses, while parsing, a document whose brackets nest deeper than any operation within the limits needs. */
export function useInputLimits(limits: InputLimits): Plugin {
  // Selections, one argument list, then a JSON literal; a little room for list and input-object types.
  const maxNesting = limits.maxQueryDepth + limits.maxJsonDepth + 4;
  return {
    onParse: ({ params }) => {
      const source = typeof params.source === 'string' ? params.source : params.source.body;
      if (textNesting(source) > maxNesting) {
        throw new GraphQLError(`The document nests brackets deeper than ${maxNesting} levels`, { extensions: { code: BAD_USER_INPUT, http: { status: 400 } } });
      }
    },
  };
}
