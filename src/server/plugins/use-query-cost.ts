// The cost of an operation: how many objects it may return. Every object-typed field costs one per
// parent it can appear under; a list field with `first` (a connection or a paged list) multiplies
// what is below it by `first` (its default page when absent), so a dashboard page of 50 sessions
// with 20 batches of 20 calls passes and the same query for 100 × 100 × 1,000 fails. Refused
// operations get a GraphQL error with code QUERY_TOO_COSTLY, before any resolver runs.
import {
  type ArgumentNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  getOperationAST,
  GraphQLError,
  type GraphQLField,
  type GraphQLOutputType,
  type GraphQLSchema,
  Kind,
  type SelectionSetNode,
  valueFromASTUntyped,
} from 'graphql';
import { DEFAULT_PAGE_SIZE } from '../../model/keyset.js';
import type { OperationCheck } from './use-operation-checks.js';

export const QUERY_TOO_COSTLY = 'QUERY_TOO_COSTLY';
const PAGE_SIZE_ARGUMENTS = new Set(['first', 'count']);
/** Arguments that size the lists of the object a field returns (`toolCallEventBatches`: its message's events). */
const ITEMS_ARGUMENTS = new Set(['maxEvents']);

/** Refuses an operation that may return more than `maxCost` objects. */
export function queryCostCheck(maxCost: number): OperationCheck {
  return (args) => {
    const cost = operationCost(args.schema, args.document, args.operationName ?? undefined, args.variableValues ?? {});
    if (cost <= maxCost) return null;
    return new GraphQLError(`The operation may return ${Math.ceil(cost)} objects, more than the limit of ${maxCost}: ask for smaller pages (first) or fewer nested lists`, {
      extensions: { code: QUERY_TOO_COSTLY, cost: Math.ceil(cost), maxCost },
    });
  };
}

export function operationCost(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined, variables: Record<string, unknown>): number {
  const operation = getOperationAST(document, operationName);
  if (!operation) return 0;
  const root = operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  if (!root || operation.selectionSet.selections.every((selection) => selection.kind === Kind.FIELD && selection.name.value.startsWith('__'))) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);

  /** `listSize`: how many items a list of `type` that takes no size argument holds. */
  const costOf = (type: Composite, selectionSet: SelectionSetNode, depth: number, listSize = DEFAULT_PAGE_SIZE): number => {
    if (depth > 64) return Number.POSITIVE_INFINITY;
    let total = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith('__') || !selection.selectionSet) continue;
        const field = fieldOf(type, selection.name.value);
        if (!field) continue;
        const { named, isList } = unwrap(field.type);
        if (!isComposite(named)) continue;
        // `first` sizes a page; `count` a list of the newest (Session.recentEvents), whose default is its own.
        const sizeArgument = field.args.find((argument) => PAGE_SIZE_ARGUMENTS.has(argument.name));
        const first = sizeArgument && selection.arguments?.find((argument) => argument.name.value === sizeArgument.name);
        const firstValue = first ? Number(valueFromASTUntyped(first.value, variables)) : typeof sizeArgument?.defaultValue === 'number' ? sizeArgument.defaultValue : null;
        const isPaged = sizeArgument !== undefined;
        // Variables are not coerced yet: a value that is no Int (a string, 1e300) is priced as a default
        // page and left to execution, which refuses it as BAD_USER_INPUT.
        const multiplier = isPaged ? (firstValue !== null && isInt32(firstValue) ? Math.max(firstValue, 1) : DEFAULT_PAGE_SIZE) : 1;
        const childCost = costOf(named, selection.selectionSet, depth + 1, itemsOf(field, selection.arguments, variables));
        // Lists of a connection (edges, nodes) are its page; other lists without `first` count as `listSize`.
        const size = isList && !type.name.endsWith('Connection') ? listSize : 1;
        // A paged plain list (not a connection) returns `multiplier` objects of its own.
        total += isPaged ? 1 + multiplier * (isList ? 1 + childCost : childCost) : 1 + size * childCost;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition ? (schema.getType(selection.typeCondition.name.value) as Composite | undefined) : type;
        if (on) total += costOf(on, selection.selectionSet, depth + 1, listSize);
      } else {
        const fragment = fragments.get(selection.name.value);
        const on = fragment ? (schema.getType(fragment.typeCondition.name.value) as Composite | undefined) : undefined;
        if (fragment && on) total += costOf(on, fragment.selectionSet, depth + 1, listSize);
      }
    }
    return total;
  };
  return costOf(root as Composite, operation.selectionSet, 0);
}

/** How many items the lists of what `field` returns hold: its `maxEvents` as given (or its default), else a default page. */
function itemsOf(field: GraphQLField<unknown, unknown>, given: readonly ArgumentNode[] | undefined, variables: Record<string, unknown>): number {
  const argument = field.args.find((candidate) => ITEMS_ARGUMENTS.has(candidate.name));
  if (!argument) return DEFAULT_PAGE_SIZE;
  const node = given?.find((candidate) => candidate.name.value === argument.name);
  const asked = node ? valueFromASTUntyped(node.value, variables) : null;
  // Null or absent: the field's default (`maxEvents: null` is its default of 100).
  const value = asked == null ? argument.defaultValue : Number(asked);
  return typeof value === 'number' && isInt32(value) ? Math.max(value, 1) : DEFAULT_PAGE_SIZE;
}

/** What GraphQL's Int can hold. */
function isInt32(value: number): boolean {
  return Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31;
}

// Structural checks rather than graphql-js' instanceof ones: the schema's types may come from the
// other (CommonJS or ESM) copy of graphql-js.
type Composite = { name: string; getFields?: () => Record<string, GraphQLField<unknown, unknown>> };

function fieldOf(type: Composite, name: string): GraphQLField<unknown, unknown> | undefined {
  return type.getFields?.()[name];
}

function unwrap(type: GraphQLOutputType): { named: Composite & { getFields?: unknown; getTypes?: unknown; getInterfaces?: unknown }; isList: boolean } {
  let current: unknown = type;
  let isList = false;
  for (;;) {
    const wrapped = current as { ofType?: unknown; constructor: { name: string } };
    if (!wrapped.ofType) break;
    if (wrapped.constructor.name === 'GraphQLList') isList = true;
    current = wrapped.ofType;
  }
  return { named: current as Composite, isList };
}

function isComposite(type: { getFields?: unknown; getTypes?: unknown }): boolean {
  return typeof type.getFields === 'function' || typeof type.getTypes === 'function';
}
