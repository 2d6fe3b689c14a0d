// The GraphQL side of the error catalogue (src/model/errors.ts): an Error interface every
// expected error implements, so clients can always select `... on Error { message code }`.
import {
  BackgroundNotSupportedError,
  CallAlreadyCompletedError,
  CallIdConflictError,
  DeadlinePassedError,
  DomainError,
  ERROR_CODES,
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

export const ErrorCodeEnum = builder.enumType('ErrorCode', {
  description: 'What kind of error an `Error` is; the values are stable strings clients may compare',
  values: Object.fromEntries(Object.entries(ERROR_CODES).map(([code, description]) => [code, { value: code, description }])) as {
    [Code in keyof typeof ERROR_CODES]: { value: Code; description: string };
  },
});

export const ErrorInterface = builder.interfaceRef<DomainError>('Error').implement({
  description: 'An expected error an operation answers with instead of its result; every error type implements it',
  fields: (t) => ({
    message: t.exposeString('message', { description: 'What went wrong, in a sentence for people' }),
    code: t.expose('code', { type: ErrorCodeEnum, description: 'What kind of error this is, for programs' }),
  }),
});

builder.objectType(DomainError, {
  name: 'BaseError',
  description: 'An error with no type of its own in this operation’s result: its `code` says what it is',
  interfaces: [ErrorInterface],
});

builder.objectType(NotFoundError, {
  name: 'NotFoundError',
  description: 'Something the operation names does not exist, or belongs to another tenant',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    resource: t.exposeString('resource', { description: 'The kind of thing that was looked for, e.g. `Session` or `Call`' }),
    resourceId: t.exposeString('id', { description: 'The id or name that was looked for, as given' }),
  }),
});

builder.objectType(ValidationError, {
  name: 'ValidationError',
  description: 'An argument or input field is not acceptable; nothing was changed',
  interfaces: [ErrorInterface],
  fields: (t) => ({ field: t.exposeString('field', { nullable: true, description: 'Path of the offending argument or input field (e.g. `retry.maxAttempts`), when one is to blame' }) }),
});

builder.objectType(CallIdConflictError, {
  name: 'CallIdConflictError',
  description: 'Call ids of the batch are already used by another batch of the session; nothing was submitted',
  interfaces: [ErrorInterface],
  fields: (t) => ({ callIds: t.exposeStringList('callIds', { description: 'The call ids already in use' }) }),
});

builder.objectType(IdempotencyKeyReusedError, {
  name: 'IdempotencyKeyReusedError',
  description: 'The idempotency key was already used in this session for a batch with different calls',
  interfaces: [ErrorInterface],
  fields: (t) => ({ idempotencyKey: t.exposeString('idempotencyKey', { description: 'The key that was reused' }) }),
});

builder.objectType(LimitExceededError, {
  name: 'LimitExceededError',
  description: 'The operation would exceed a limit; nothing was created',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    limit: t.exposeString('limit', { description: 'Which limit, e.g. `background_runs_per_session`' }),
    max: t.exposeInt('max', { description: 'The value of that limit' }),
  }),
});

builder.objectType(InvalidStateError, {
  name: 'InvalidStateError',
  description: 'The target exists but is not in a state that allows the operation',
  interfaces: [ErrorInterface],
  fields: (t) => ({ state: t.exposeString('state', { description: 'The target’s current state (e.g. a call’s status)' }) }),
});

builder.objectType(ForbiddenError, {
  name: 'ForbiddenError',
  description: 'The API key may not do this: it lacks the needed role, or it submitted the call it tries to decide',
  interfaces: [ErrorInterface],
});

builder.objectType(ToolNameConflictError, {
  name: 'ToolNameConflictError',
  description: 'The tool name cannot be registered: a built-in has it, or the tenant already registered it',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    toolName: t.exposeString('toolName', { description: 'The refused name' }),
    builtin: t.exposeBoolean('builtin', { description: 'The name is a built-in tool’s (else the tenant already registered it)' }),
  }),
});

builder.objectType(CallAlreadyCompletedError, {
  name: 'CallAlreadyCompletedError',
  description: 'The call already has its outcome; the completion changed nothing',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    callId: t.exposeString('callId', { description: 'The call that was to be completed' }),
    callStatus: t.exposeString('status', { description: 'The status the call ended in' }),
  }),
});

builder.objectType(DeadlinePassedError, {
  name: 'DeadlinePassedError',
  description: 'The completion came after the call’s deadline; the call failed with TIMEOUT instead',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    callId: t.exposeString('callId', { description: 'The call that was to be completed' }),
    deadline: t.expose('deadline', { type: 'DateTime', description: 'When the call’s deadline passed' }),
  }),
});

// Refusals of spawnBackground (DESIGN.md §4); limits use LimitExceededError.
builder.objectType(UnknownToolError, {
  name: 'UnknownToolError',
  description: 'No tool of this name exists for the tenant',
  interfaces: [ErrorInterface],
  fields: (t) => ({ toolName: t.exposeString('toolName', { description: 'The name that was asked for' }) }),
});

builder.objectType(BackgroundNotSupportedError, {
  name: 'BackgroundNotSupportedError',
  description: 'code SPAWN_ITSELF: the target is spawn_background; code NOT_BACKGROUND_CAPABLE: the tool does not support background runs',
  interfaces: [ErrorInterface],
  fields: (t) => ({ toolName: t.exposeString('toolName', { description: 'The tool that cannot run in the background' }) }),
});

builder.objectType(InvalidArgumentsError, {
  name: 'InvalidArgumentsError',
  description: 'The arguments are not an object, or not valid for the tool’s parameters schema',
  interfaces: [ErrorInterface],
  fields: (t) => ({ toolName: t.exposeString('toolName', { description: 'The tool whose schema refused them' }) }),
});

builder.objectType(InvalidScheduleError, {
  name: 'InvalidScheduleError',
  description: 'The schedule cannot be used: its shape, its time, its cron expression or its timezone',
  interfaces: [ErrorInterface],
  fields: (t) => ({ field: t.exposeString('field', { description: 'The offending input, e.g. `schedule.cronExpression`' }) }),
});
