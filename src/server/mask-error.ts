// What a client sees of an error nobody expected: yoga's masked "Unexpected error." — except when
// the database connection was lost mid-request (a restart, a failover, a terminated backend), which
// is nobody's fault and passes with a retry — or a lock wait ran out behind other writers: then a
// typed, retryable SERVICE_UNAVAILABLE.
import { GraphQLError } from 'graphql';
import { maskError as maskUnexpected } from 'graphql-yoga';
import { DomainError } from '../model/errors.js';
import { isLockWaitTimeout, isTransientDatabaseError } from '../sql.js';

export function isDatabaseUnavailable(error: unknown): boolean {
  return isTransientDatabaseError(error) || isLockWaitTimeout(error);
}

export const RETRY_AFTER_MS = 500;

export function maskError(error: unknown, message: string, isDev?: boolean): Error {
  // A typed error thrown where no error type can answer (a list field, an argument): it passes as
  // it is, with its code in `extensions` (model/errors.ts), and is not logged as a fault.
  if (error instanceof GraphQLError && error.originalError instanceof DomainError) return error;
  if (isDatabaseUnavailable(error)) {
    const path = error instanceof GraphQLError ? error.path : undefined;
    return new GraphQLError('The database is briefly unavailable; the request changed nothing that a retry would repeat. Retry it.', {
      path,
      extensions: { code: 'SERVICE_UNAVAILABLE', retryable: true, retryAfterMs: RETRY_AFTER_MS },
    });
  }
  // A typed error thrown outside a result union (a query's bad argument, e.g. a foreign cursor) keeps its message and code.
  const domain = error instanceof DomainError ? error : error instanceof GraphQLError && error.originalError instanceof DomainError ? error.originalError : null;
  if (domain) return new GraphQLError(domain.message, { path: error instanceof GraphQLError ? error.path : undefined, extensions: domain.extensions });
  return maskUnexpected(error, message, isDev);
}
