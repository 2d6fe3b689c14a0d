// The checks an operation passes before it runs (its input, its cost), as envelop hooks on execute
// and subscribe. A graphql-ws subscription does not subscribe through envelop (server/graphql-ws.ts
// executes its events itself, shared among subscribers), so it asks `refusalOf` the same checks.
import type { Plugin } from '@envelop/core';
import type { ExecutionArgs, GraphQLError } from 'graphql';

/** A refusal of the operation, or null when it may run. */
export type OperationCheck = (args: Pick<ExecutionArgs, 'schema' | 'document' | 'operationName' | 'variableValues'>) => GraphQLError | null;

/** The first refusal among the checks, in order. */
export function refusalOf(checks: readonly OperationCheck[], args: Parameters<OperationCheck>[0]): GraphQLError | null {
  for (const check of checks) {
    const refusal = check(args);
    if (refusal) return refusal;
  }
  return null;
}

export function useOperationChecks(checks: readonly OperationCheck[]): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const refusal = refusalOf(checks, args);
      if (refusal) setResultAndStopExecution({ errors: [refusal] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const refusal = refusalOf(checks, args);
      if (refusal) setResultAndStopExecution({ errors: [refusal] });
    },
  };
}
