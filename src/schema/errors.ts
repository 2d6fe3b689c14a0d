// The GraphQL side of the error catalogue (src/model/errors.ts): an Error interface every
// expected error implements, so clients can always select `... on Error { message code }`.
import {
  BackgroundNotSupportedError,
  CallAlreadyCompletedError,
  CallIdConflictError,
  DeadlinePassedError,
  DomainError,
  ForbiddenError,
  IdempotencyKeyReusedError,
  InvalidArgumentsError,
  InvalidScheduleError,
  InvalidStateError,
  LimitExceededError,
  NotFoundError,
  ToolNameConflictError,
  UnknownToolError,
  ValidationError,
} from '../model/errors.js';
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

builder.objectType(ToolNameConflictError, {
  name: 'ToolNameConflictError',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    toolName: t.exposeString('toolName'),
    builtin: t.exposeBoolean('builtin', { description: 'The name is a built-in tool’s (else the tenant already registered it)' }),
  }),
});

builder.objectType(CallAlreadyCompletedError, {
  name: 'CallAlreadyCompletedError',
  interfaces: [ErrorInterface],
  fields: (t) => ({ callId: t.exposeString('callId'), callStatus: t.exposeString('status') }),
});

builder.objectType(DeadlinePassedError, {
  name: 'DeadlinePassedError',
  interfaces: [ErrorInterface],
  fields: (t) => ({ callId: t.exposeString('callId'), deadline: t.expose('deadline', { type: 'DateTime' }) }),
});

// Refusals of spawnBackground (DESIGN.md §4); limits use LimitExceededError.
builder.objectType(UnknownToolError, {
  name: 'UnknownToolError',
  interfaces: [ErrorInterface],
  fields: (t) => ({ toolName: t.exposeString('toolName') }),
});

builder.objectType(BackgroundNotSupportedError, {
  name: 'BackgroundNotSupportedError',
  description: 'code SPAWN_ITSELF: the target is spawn_background; code NOT_BACKGROUND_CAPABLE: the tool does not support background runs',
  interfaces: [ErrorInterface],
  fields: (t) => ({ toolName: t.exposeString('toolName') }),
});

builder.objectType(InvalidArgumentsError, {
  name: 'InvalidArgumentsError',
  interfaces: [ErrorInterface],
  fields: (t) => ({ toolName: t.exposeString('toolName') }),
});

builder.objectType(InvalidScheduleError, {
  name: 'InvalidScheduleError',
  interfaces: [ErrorInterface],
  fields: (t) => ({ field: t.exposeString('field') }),
});
