// Every user-facing error of toolrun, in one place. The GraphQL schema exposes each as a type
// (src/schema/errors.ts); anything thrown that is not one of these is masked.

/** Base of every expected, user-facing error. */
export class DomainError extends Error {
  override name = 'DomainError';
  readonly code: string = 'ERROR';
}

export class NotFoundError extends DomainError {
  override name = 'NotFoundError';
  override readonly code = 'NOT_FOUND';
  constructor(
    readonly resource: string,
    readonly id: string,
  ) {
    super(`${resource} \`${id}\` was not found`);
  }
}

export class ValidationError extends DomainError {
  override name = 'ValidationError';
  override readonly code = 'VALIDATION_FAILED';
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export class CallIdConflictError extends DomainError {
  override name = 'CallIdConflictError';
  override readonly code = 'CALL_ID_CONFLICT';
  constructor(readonly callIds: string[]) {
    super(`Call id${callIds.length > 1 ? 's' : ''} ${callIds.map((id) => `\`${id}\``).join(', ')} already used in this session`);
  }
}

export class IdempotencyKeyReusedError extends DomainError {
  override name = 'IdempotencyKeyReusedError';
  override readonly code = 'IDEMPOTENCY_KEY_REUSED';
  constructor(readonly idempotencyKey: string) {
    super(`Idempotency key \`${idempotencyKey}\` was already used for a different batch in this session`);
  }
}

export class LimitExceededError extends DomainError {
  override name = 'LimitExceededError';
  override readonly code = 'LIMIT_EXCEEDED';
  constructor(
    readonly limit: string,
    readonly max: number,
    message: string,
  ) {
    super(message);
  }
}

/** The target exists but is not in a state that allows the operation. */
export class InvalidStateError extends DomainError {
  override name = 'InvalidStateError';
  override readonly code = 'INVALID_STATE';
  constructor(
    message: string,
    readonly state: string,
  ) {
    super(message);
  }
}

export class ForbiddenError extends DomainError {
  override name = 'ForbiddenError';
  override readonly code = 'FORBIDDEN';
}
