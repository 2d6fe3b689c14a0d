// Every user-facing error of toolrun, in one place. The GraphQL schema exposes each as a type
// (src/schema/errors.ts); anything thrown that is not one of these is masked.
import { firstCharacters, longerThan } from './text.js';

/**
 * Every `code` a user-facing error carries, with what it tells a client (the GraphQL enum
 * `ErrorCode`, whose values are these strings).
 */
export const ERROR_CODES = {
  NOT_FOUND: 'What the operation names does not exist, or is not visible to this tenant',
  VALIDATION_FAILED: 'An argument or input field is not acceptable; `field` names it when known',
  FORBIDDEN: 'The API key lacks the role the operation needs, or may not decide this call (self-approval)',
  INVALID_STATE: 'The target exists but its current state does not allow the operation',
  LIMIT_EXCEEDED: 'A limit or quota would be exceeded; `limit` and `max` say which',
  CALL_ID_CONFLICT: 'A call id of the batch is already used by another batch of the session',
  IDEMPOTENCY_KEY_REUSED: 'The idempotency key was used before for a batch with different calls',
  TOOL_NAME_CONFLICT: 'The tool name is a built-in’s, or the tenant already registered it',
  ALREADY_COMPLETED: 'The call already has its outcome; the completion changed nothing',
  DEADLINE_PASSED: 'The completion came after the call’s deadline; the call failed with TIMEOUT',
  UNKNOWN_TOOL: 'No tool of that name exists for this tenant',
  SPAWN_ITSELF: 'spawn_background cannot run itself in the background',
  NOT_BACKGROUND_CAPABLE: 'The tool does not support background runs',
  INVALID_ARGUMENTS: 'The arguments are not an object the tool’s parameters schema accepts',
  INVALID_SCHEDULE: 'The schedule cannot be used; `field` names the offending input',
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

/** Base of every expected, user-facing error; each subclass sets its `code`. */
export class DomainError extends Error {
  override name = 'DomainError';
  declare readonly code: ErrorCode;
  /** What a GraphQL error made of it carries (a field that cannot answer with an error type). */
  get extensions(): Record<string, unknown> {
    return { code: this.code };
  }
}

export class NotFoundError extends DomainError {
  override name = 'NotFoundError';
  override readonly code = 'NOT_FOUND';
  constructor(
    readonly resource: string,
    readonly id: string,
  ) {
    // The id as given may be as long as a request lets it be: the message quotes its start (all of it is resourceId).
    super(`${resource} \`${firstCharacters(id, QUOTED_ID_CHARACTERS)}${longerThan(id, QUOTED_ID_CHARACTERS) ? '…' : ''}\` was not found`);
  }
}

const QUOTED_ID_CHARACTERS = 200;

export class ValidationError extends DomainError {
  override name = 'ValidationError';
  override readonly code = 'VALIDATION_FAILED';
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
  override get extensions(): Record<string, unknown> {
    return this.field ? { code: this.code, field: this.field } : { code: this.code };
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

/** A tool name a tenant cannot register: a built-in's, or one the tenant already registered. */
export class ToolNameConflictError extends DomainError {
  override name = 'ToolNameConflictError';
  override readonly code = 'TOOL_NAME_CONFLICT';
  constructor(
    readonly toolName: string,
    readonly builtin: boolean,
  ) {
    super(builtin ? `\`${toolName}\` is the name of a built-in tool` : `A tool named \`${toolName}\` is already registered`);
  }
}

/** A completion for a call that already has its outcome; nothing was changed. */
export class CallAlreadyCompletedError extends DomainError {
  override name = 'CallAlreadyCompletedError';
  override readonly code = 'ALREADY_COMPLETED';
  constructor(
    readonly callId: string,
    readonly status: string,
  ) {
    super(`Call \`${callId}\` is already completed (${status})`);
  }
}

/** A completion that arrived after the call's deadline; the call has failed with TIMEOUT. */
export class DeadlinePassedError extends DomainError {
  override name = 'DeadlinePassedError';
  override readonly code = 'DEADLINE_PASSED';
  constructor(
    readonly callId: string,
    readonly deadline: Date,
  ) {
    super(`The deadline of call \`${callId}\` passed at ${deadline.toISOString()}; the call failed with TIMEOUT`);
  }
}

/** spawnBackground named a tool that does not exist for this tenant. */
export class UnknownToolError extends DomainError {
  override name = 'UnknownToolError';
  override readonly code = 'UNKNOWN_TOOL';
  constructor(readonly toolName: string) {
    super(`Unknown tool \`${toolName}\``);
  }
}

/** spawnBackground named a tool that cannot run in the background (or spawn_background itself). */
export class BackgroundNotSupportedError extends DomainError {
  override name = 'BackgroundNotSupportedError';
  override readonly code: 'SPAWN_ITSELF' | 'NOT_BACKGROUND_CAPABLE';
  constructor(
    readonly toolName: string,
    readonly reason: 'SELF' | 'NOT_BACKGROUND_CAPABLE',
    message?: string,
  ) {
    super(
      message ??
        (reason === 'SELF' ? `\`${toolName}\` cannot run itself in the background` : `Tool \`${toolName}\` does not support background execution`),
    );
    this.code = reason === 'SELF' ? 'SPAWN_ITSELF' : 'NOT_BACKGROUND_CAPABLE';
  }
}

/** The arguments of a background run: not a JSON object, or not valid for the tool's schema. */
export class InvalidArgumentsError extends DomainError {
  override name = 'InvalidArgumentsError';
  override readonly code = 'INVALID_ARGUMENTS';
  constructor(
    message: string,
    readonly toolName: string,
  ) {
    super(message);
  }
}

/** A schedule of a background run that cannot be used; `field` names the offending input. */
export class InvalidScheduleError extends DomainError {
  override name = 'InvalidScheduleError';
  override readonly code = 'INVALID_SCHEDULE';
  constructor(
    message: string,
    readonly field: 'schedule' | 'schedule.cronExpression' | 'schedule.scheduledAt' | 'schedule.timezone',
  ) {
    super(message);
  }
}

/**
 * The answer of a single-item lookup: null for what the viewer cannot see (a missing or foreign
 * id). Any other typed error (an ambiguous call id: the ValidationError on `sessionId` the
 * mutations answer too) is the answer, as a GraphQL error with its code; real faults still fail.
 */
export async function orNull<T>(lookup: () => Promise<T>): Promise<T | null> {
  try {
    return await lookup();
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}
