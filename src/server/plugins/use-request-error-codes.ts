import type { Plugin } from '@envelop/core';
import { isAsyncIterable } from '@envelop/core';
import type { ExecutionResult } from 'graphql';
import { BAD_USER_INPUT } from './use-input-limits.js';

/**
 * Gives a code to the errors that refuse a whole request before any field runs (a variable of the
 * wrong type, a missing operation name): graphql-js raises them without one, and every error a
 * client gets is to carry `extensions.code`.
 */
export function useRequestErrorCodes(): Plugin {
  const withCodes = (result: ExecutionResult) => {
    if (result.data !== undefined) return;
    for (const error of result.errors ?? []) {
      if (error.extensions.code === undefined) (error.extensions as Record<string, unknown>).code = BAD_USER_INPUT;
    }
  };
  return {
    onExecute: () => ({ onExecuteDone: ({ result }) => void (isAsyncIterable(result) ? undefined : withCodes(result)) }),
    onSubscribe: () => ({ onSubscribeResult: ({ result }) => void (isAsyncIterable(result) ? undefined : withCodes(result)) }),
  };
}
