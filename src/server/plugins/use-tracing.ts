// A span per GraphQL operation when tracing is on (telemetry/tracing.ts): the root of the trace of
// what the operation starts (a submitted batch's jobs carry its context to the worker). Nothing is
// done when tracing is off.
import type { Plugin } from '@envelop/core';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { getOperationAST } from 'graphql';
import { inSpan, tracingEnabled } from '../../telemetry/tracing.js';

export function useTracing(): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (!tracingEnabled) return;
      const operation = getOperationAST(args.document, args.operationName);
      const type = operation?.operation ?? 'unknown';
      const name = operation?.name?.value ?? args.operationName ?? undefined;
      setExecuteFn((executeArgs) =>
        inSpan(
          `graphql.${type}${name ? ` ${name}` : ''}`,
          { kind: SpanKind.SERVER, attributes: { 'graphql.operation.type': type, ...(name ? { 'graphql.operation.name': name } : {}) } },
          async (span) => {
            const result = await executeFn(executeArgs);
            if ('errors' in result && result.errors?.length) {
              span.setStatus({ code: SpanStatusCode.ERROR, message: result.errors.map((error: { message: string }) => error.message).join('; ') });
            }
            return result;
          },
        ),
      );
    },
  };
}
