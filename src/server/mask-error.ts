// What a client sees of an error nobody expected: yoga's masked "Unexpected error." — except when
// the database connection was lost mid-request (a restart, a failover, a terminated backend), which
// is nobody's fault and passes with a retry: then a typed, retryable SERVICE_UNAVAILABLE.
import { GraphQLError } from 'graphql';
import { maskError as maskUnexpected } from 'graphql-yoga';
import { isTransientDatabaseError } from '../sql.js';

/** Prisma's codes for a lost, unreachable or exhausted database connection. */
const PRISMA_CONNECTION_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

function causes(error: unknown): unknown[] {
  const seen: unknown[] = [];
  const queue = [error];
  while (queue.length > 0 && seen.length < 10) {
    const next = queue.shift();
    if (next === null || typeof next !== 'object' || seen.includes(next)) continue;
    seen.push(next);
    const record = next as { originalError?: unknown; cause?: unknown; meta?: { driverAdapterError?: { cause?: unknown } } };
    queue.push(record.originalError, record.cause, record.meta?.driverAdapterError?.cause);
  }
  return seen;
}

export function isDatabaseUnavailable(error: unknown): boolean {
  return causes(error).some((cause) => {
    const record = cause as { code?: unknown; originalCode?: unknown };
    if (typeof record.code === 'string' && PRISMA_CONNECTION_CODES.has(record.code)) return true;
    if (typeof record.originalCode === 'string' && isTransientDatabaseError({ code: record.originalCode })) return true;
    return isTransientDatabaseError(cause);
  });
}

export const RETRY_AFTER_MS = 500;

export function maskError(error: unknown, message: string, isDev?: boolean): Error {
  if (isDatabaseUnavailable(error)) {
    const path = error instanceof GraphQLError ? error.path : undefined;
    return new GraphQLError('The database is briefly unavailable; the request changed nothing that a retry would repeat. Retry it.', {
      path,
      extensions: { code: 'SERVICE_UNAVAILABLE', retryable: true, retryAfterMs: RETRY_AFTER_MS },
    });
  }
  return maskUnexpected(error, message, isDev);
}
