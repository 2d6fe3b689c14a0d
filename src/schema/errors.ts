// The GraphQL side of the error catalogue (src/domain/errors.ts): an Error interface every
// expected error implements, so clients can always select `... on Error { message code }`.
import {
  CallIdConflictError,
  DomainError,
  ForbiddenError,
  IdempotencyKeyReusedError,
  InvalidStateError,
  LimitExceededError,
  NotFoundError,
  ValidationError,
} from '../domain/errors.js';
import { builder } from './builder.js';

export const ErrorInterface = builder.interfaceRef<DomainError>('Error').implement({
  fields: (t) => ({
    message: t.exposeString('message'),
    code: t.exposeString('code'),
  }),
});

builder.objectType(DomainError, { name: 'BaseError', interfaces: [ErrorInterface] });

builder.objectType(NotFoundError, {
  name: 'NotFoundError',
  interfaces: [ErrorInterface],
  fields: (t) => ({ resource: t.exposeString('resource'), resourceId: t.exposeString('id') }),
});

builder.objectType(ValidationError, {
  name: 'ValidationError',
  interfaces: [ErrorInterface],
  fields: (t) => ({ field: t.exposeString('field', { nullable: true }) }),
});

builder.objectType(CallIdConflictError, {
  name: 'CallIdConflictError',
  interfaces: [ErrorInterface],
  fields: (t) => ({ callIds: t.exposeStringList('callIds') }),
});

builder.objectType(IdempotencyKeyReusedError, {
  name: 'IdempotencyKeyReusedError',
  interfaces: [ErrorInterface],
  fields: (t) => ({ idempotencyKey: t.exposeString('idempotencyKey') }),
});

builder.objectType(LimitExceededError, {
  name: 'LimitExceededError',
  interfaces: [ErrorInterface],
  fields: (t) => ({ limit: t.exposeString('limit'), max: t.exposeInt('max') }),
});

builder.objectType(InvalidStateError, {
  name: 'InvalidStateError',
  interfaces: [ErrorInterface],
  fields: (t) => ({ state: t.exposeString('state') }),
});

builder.objectType(ForbiddenError, { name: 'ForbiddenError', interfaces: [ErrorInterface] });

export const COMMON_ERRORS = [NotFoundError, ValidationError];
