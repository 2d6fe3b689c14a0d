import { isAsyncIterable } from '@envelop/core';
import type { ExecutionResult } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { BAD_USER_INPUT } from './use-input-limits.js';

/** The parameters yoga's request parsers decode with JSON.parse (a GET's query string, a form's body). */
const JSON_PARAMS = ['variables', 'extensions'] as const;

/** Which JSON parameter of the request's query string is no JSON; null when the query string has none (a form's body). */
function malformedParam(request: Request): string | null {
  const params = new URL(request.url).searchParams;
  for (const name of JSON_PARAMS) {
    const text = params.get(name);
    if (!text) continue;
    try {
      JSON.parse(text);
    } catch {
      return name;
    }
  }
  return null;
}

/**
 * Gives a code to the errors that refuse a whole request before any field runs (a variable of the
 * wrong type, a missing operation name): graphql-js raises them without one, and every error a
 * client gets is to carry `extensions.code`. `variables` or `extensions` that are no JSON (a GET's
 * query string, a form's body) are refused as yoga refuses other malformed parameters (400,
 * BAD_REQUEST): its parser lets JSON.parse's SyntaxError through, which was a 500.
 */
export function useRequestErrorCodes(): Plugin {
  const withCodes = (result: ExecutionResult) => {
    if (result.data !== undefined) return;
    for (const error of result.errors ?? []) {
      if (error.extensions.code === undefined) (error.extensions as Record<string, unknown>).code = BAD_USER_INPUT;
    }
  };
  return {
    onRequestParse: ({ requestParser, setRequestParser }) => {
      if (!requestParser) return;
      setRequestParser(async (request) => {
        try {
          return await requestParser(request);
        } catch (error) {
          if (!(error instanceof SyntaxError)) throw error;
          const name = malformedParam(request);
          throw createGraphQLError(`${name ? `\`${name}\`` : '`variables` or `extensions`'} is not JSON: ${error.message}`, {
            extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
          });
        }
      });
    },
    onExecute: () => ({ onExecuteDone: ({ result }) => void (isAsyncIterable(result) ? undefined : withCodes(result)) }),
    onSubscribe: () => ({ onSubscribeResult: ({ result }) => void (isAsyncIterable(result) ? undefined : withCodes(result)) }),
  };
}
