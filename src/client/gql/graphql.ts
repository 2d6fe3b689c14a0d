/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
/** What kind of error an `Error` is; the values are stable strings clients may compare */
export type ErrorCode =
  /** The call already has its outcome; the completion changed nothing */
  | 'ALREADY_COMPLETED'
  /** A call id of the batch is already used by another batch of the session */
  | 'CALL_ID_CONFLICT'
  /** The completion came after the call’s deadline; the call failed with TIMEOUT */
  | 'DEADLINE_PASSED'
  /** The API key lacks the role the operation needs, or may not decide this call (self-approval) */
  | 'FORBIDDEN'
  /** The idempotency key was used before for a batch with different calls */
  | 'IDEMPOTENCY_KEY_REUSED'
  /** The arguments are not an object the tool’s parameters schema accepts */
  | 'INVALID_ARGUMENTS'
  /** The schedule cannot be used; `field` names the offending input */
  | 'INVALID_SCHEDULE'
  /** The target exists but its current state does not allow the operation */
  | 'INVALID_STATE'
  /** A limit or quota would be exceeded; `limit` and `max` say which */
  | 'LIMIT_EXCEEDED'
  /** The tool does not support background runs */
  | 'NOT_BACKGROUND_CAPABLE'
  /** What the operation names does not exist, or is not visible to this tenant */
  | 'NOT_FOUND'
  /** spawn_background cannot run itself in the background */
  | 'SPAWN_ITSELF'
  /** The tool name is a built-in’s, or the tenant already registered it */
  | 'TOOL_NAME_CONFLICT'
  /** No tool of that name exists for this tenant */
  | 'UNKNOWN_TOOL'
  /** An argument or input field is not acceptable; `field` names it when known */
  | 'VALIDATION_FAILED';

/** QUEUED → RUNNING → SUCCEEDED | FAILED | CANCELED (a run re-attached after worker loss is QUEUED again, with the next attempt) */
export type TaskState =
  /** Cancelled before or while it ran */
  | 'CANCELED'
  /** Finished with an error */
  | 'FAILED'
  /** Waiting for a worker */
  | 'QUEUED'
  /** Running on a worker (a monitor: its schedule is active) */
  | 'RUNNING'
  /** Finished with a result */
  | 'SUCCEEDED';

/** A batch is COMPLETED once every call of it is final */
export type ToolBatchStatus =
  /** Every call is final */
  | 'COMPLETED'
  /** Some calls are not final yet */
  | 'RUNNING';

/** One call of a batch to submit */
export type ToolCallInput = {
  /** Arguments object, validated against the tool’s JSON Schema */
  args?: unknown;
  /** Client call id, unique in the session, 1 to 256 printable ASCII characters without spaces; assigned by the server when absent */
  id?: string | null | undefined;
  /** Deadline of this call, up to the configured maximum */
  timeoutMs?: number | null | undefined;
  /** Name of the tool to call (see `tools`). An unknown one (any name longer than 64 characters, the most a tool's name has, is unknown) ends the call UNAVAILABLE; one longer than 256 is a ValidationError naming it */
  tool: string;
};

/** Where a call stands; SUCCEEDED, FAILED and CANCELLED are final */
export type ToolCallStatus =
  /** Waiting for an approver (the tool requires approval) */
  | 'AWAITING_APPROVAL'
  /** Cancelled before or while it ran */
  | 'CANCELLED'
  /** Finished with a typed failure */
  | 'FAILED'
  /** Waiting for `completeToolCall` (an external tool) */
  | 'PENDING_EXTERNAL'
  /** Waiting for a worker */
  | 'QUEUED'
  /** Running on a worker */
  | 'RUNNING'
  /** Finished with a value */
  | 'SUCCEEDED';

export type ClientExecuteToolBatchMutationVariables = Exact<{
  sessionId: string | number;
  calls: Array<ToolCallInput> | ToolCallInput;
  idempotencyKey?: string | null | undefined;
  timeoutMs?: number | null | undefined;
}>;


export type ClientExecuteToolBatchMutation = { executeToolBatch:
    | { __typename: 'BaseError', message: string, code: ErrorCode }
    | { __typename: 'CallIdConflictError', message: string, code: ErrorCode }
    | { __typename: 'ForbiddenError', message: string, code: ErrorCode }
    | { __typename: 'IdempotencyKeyReusedError', message: string, code: ErrorCode }
    | { __typename: 'NotFoundError', message: string, code: ErrorCode }
    | { __typename: 'ToolBatch', id: string, batchId: string, status: ToolBatchStatus, callCount: number, eventCursor: string | null }
    | { __typename: 'ValidationError', message: string, code: ErrorCode }
   };

export type ClientSpawnBackgroundMutationVariables = Exact<{
  sessionId: string | number;
  tool: string;
  args: unknown;
  title?: string | null | undefined;
}>;


export type ClientSpawnBackgroundMutation = { spawnBackground:
    | { __typename: 'BackgroundNotSupportedError', message: string, code: ErrorCode }
    | { __typename: 'BackgroundRun', taskId: string, runId: string, status: TaskState, eventCursor: string | null }
    | { __typename: 'BaseError', message: string, code: ErrorCode }
    | { __typename: 'ForbiddenError', message: string, code: ErrorCode }
    | { __typename: 'InvalidArgumentsError', message: string, code: ErrorCode }
    | { __typename: 'InvalidScheduleError', message: string, code: ErrorCode }
    | { __typename: 'LimitExceededError', message: string, code: ErrorCode }
    | { __typename: 'NotFoundError', message: string, code: ErrorCode }
    | { __typename: 'ScheduledMonitor', scheduleId: string, taskId: string }
    | { __typename: 'UnknownToolError', message: string, code: ErrorCode }
    | { __typename: 'ValidationError', message: string, code: ErrorCode }
   };

type ClientCallEvent_CursorExpired_Fragment = { __typename: 'CursorExpired', oldestCursor: string, type: string, cursor: string, seq: number, at: string };

type ClientCallEvent_SessionCreated_Fragment = { __typename: 'SessionCreated', type: string, cursor: string, seq: number, at: string };

type ClientCallEvent_TaskCancelRequested_Fragment = { __typename: 'TaskCancelRequested', type: string, cursor: string, seq: number, at: string };

type ClientCallEvent_TaskCreated_Fragment = { __typename: 'TaskCreated', type: string, cursor: string, seq: number, at: string };

type ClientCallEvent_TaskFinished_Fragment = { __typename: 'TaskFinished', type: string, cursor: string, seq: number, at: string };

type ClientCallEvent_TaskHeartbeat_Fragment = { __typename: 'TaskHeartbeat', type: string, cursor: string, seq: number, at: string };

type ClientCallEvent_TaskOutput_Fragment = { __typename: 'TaskOutput', type: string, cursor: string, seq: number, at: string };

type ClientCallEvent_TaskProgress_Fragment = { __typename: 'TaskProgress', type: string, cursor: string, seq: number, at: string };

type ClientCallEvent_TaskReattached_Fragment = { __typename: 'TaskReattached', type: string, cursor: string, seq: number, at: string };

type ClientCallEvent_TaskStarted_Fragment = { __typename: 'TaskStarted', type: string, cursor: string, seq: number, at: string };

type ClientCallEvent_TaskStatus_Fragment = { __typename: 'TaskStatus', type: string, cursor: string, seq: number, at: string };

type ClientCallEvent_ToolBatchCompleted_Fragment = { __typename: 'ToolBatchCompleted', batchId: string, total: number, succeeded: number, failed: number, cancelled: number, type: string, cursor: string, seq: number, at: string };

type ClientCallEvent_ToolCallApproved_Fragment = { __typename: 'ToolCallApproved', batchId: string, callId: string, tool: string, type: string, cursor: string, seq: number, at: string };

type ClientCallEvent_ToolCallAwaitingApproval_Fragment = { __typename: 'ToolCallAwaitingApproval', batchId: string, callId: string, tool: string, type: string, cursor: string, seq: number, at: string };

type ClientCallEvent_ToolCallAwaitingCompletion_Fragment = { __typename: 'ToolCallAwaitingCompletion', batchId: string, callId: string, tool: string, type: string, cursor: string, seq: number, at: string };

type ClientCallEvent_ToolCallCompleted_Fragment = { __typename: 'ToolCallCompleted', batchId: string, callId: string, tool: string, status: ToolCallStatus, outcome: unknown, type: string, cursor: string, seq: number, at: string };

type ClientCallEvent_ToolCallProgress_Fragment = { __typename: 'ToolCallProgress', batchId: string, callId: string, tool: string, type: string, cursor: string, seq: number, at: string };

type ClientCallEvent_ToolCallRetrying_Fragment = { __typename: 'ToolCallRetrying', batchId: string, callId: string, tool: string, type: string, cursor: string, seq: number, at: string };

type ClientCallEvent_ToolCallStarted_Fragment = { __typename: 'ToolCallStarted', batchId: string, callId: string, tool: string, type: string, cursor: string, seq: number, at: string };

export type ClientCallEventFragment =
  | ClientCallEvent_CursorExpired_Fragment
  | ClientCallEvent_SessionCreated_Fragment
  | ClientCallEvent_TaskCancelRequested_Fragment
  | ClientCallEvent_TaskCreated_Fragment
  | ClientCallEvent_TaskFinished_Fragment
  | ClientCallEvent_TaskHeartbeat_Fragment
  | ClientCallEvent_TaskOutput_Fragment
  | ClientCallEvent_TaskProgress_Fragment
  | ClientCallEvent_TaskReattached_Fragment
  | ClientCallEvent_TaskStarted_Fragment
  | ClientCallEvent_TaskStatus_Fragment
  | ClientCallEvent_ToolBatchCompleted_Fragment
  | ClientCallEvent_ToolCallApproved_Fragment
  | ClientCallEvent_ToolCallAwaitingApproval_Fragment
  | ClientCallEvent_ToolCallAwaitingCompletion_Fragment
  | ClientCallEvent_ToolCallCompleted_Fragment
  | ClientCallEvent_ToolCallProgress_Fragment
  | ClientCallEvent_ToolCallRetrying_Fragment
  | ClientCallEvent_ToolCallStarted_Fragment
;

export type ClientToolCallEventsSubscriptionVariables = Exact<{
  sessionId: string | number;
  batchId?: string | null | undefined;
  after?: string | null | undefined;
  completeWhenDone?: boolean | null | undefined;
}>;


export type ClientToolCallEventsSubscription = { toolCallEvents:
    | { __typename: 'CursorExpired', oldestCursor: string, type: string, cursor: string, seq: number, at: string }
    | { __typename: 'SessionCreated', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'TaskCancelRequested', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'TaskCreated', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'TaskFinished', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'TaskHeartbeat', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'TaskOutput', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'TaskProgress', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'TaskReattached', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'TaskStarted', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'TaskStatus', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'ToolBatchCompleted', batchId: string, total: number, succeeded: number, failed: number, cancelled: number, type: string, cursor: string, seq: number, at: string }
    | { __typename: 'ToolCallApproved', batchId: string, callId: string, tool: string, type: string, cursor: string, seq: number, at: string }
    | { __typename: 'ToolCallAwaitingApproval', batchId: string, callId: string, tool: string, type: string, cursor: string, seq: number, at: string }
    | { __typename: 'ToolCallAwaitingCompletion', batchId: string, callId: string, tool: string, type: string, cursor: string, seq: number, at: string }
    | { __typename: 'ToolCallCompleted', batchId: string, callId: string, tool: string, status: ToolCallStatus, outcome: unknown, type: string, cursor: string, seq: number, at: string }
    | { __typename: 'ToolCallProgress', batchId: string, callId: string, tool: string, type: string, cursor: string, seq: number, at: string }
    | { __typename: 'ToolCallRetrying', batchId: string, callId: string, tool: string, type: string, cursor: string, seq: number, at: string }
    | { __typename: 'ToolCallStarted', batchId: string, callId: string, tool: string, type: string, cursor: string, seq: number, at: string }
   };

export type ClientToolCallEventBatchesSubscriptionVariables = Exact<{
  sessionId: string | number;
  batchId?: string | null | undefined;
  after?: string | null | undefined;
  completeWhenDone?: boolean | null | undefined;
}>;


export type ClientToolCallEventBatchesSubscription = { toolCallEventBatches: { cursor: string, events: Array<
      | { __typename: 'CursorExpired', oldestCursor: string, type: string, cursor: string, seq: number, at: string }
      | { __typename: 'SessionCreated', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'TaskCancelRequested', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'TaskCreated', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'TaskFinished', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'TaskHeartbeat', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'TaskOutput', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'TaskProgress', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'TaskReattached', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'TaskStarted', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'TaskStatus', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'ToolBatchCompleted', batchId: string, total: number, succeeded: number, failed: number, cancelled: number, type: string, cursor: string, seq: number, at: string }
      | { __typename: 'ToolCallApproved', batchId: string, callId: string, tool: string, type: string, cursor: string, seq: number, at: string }
      | { __typename: 'ToolCallAwaitingApproval', batchId: string, callId: string, tool: string, type: string, cursor: string, seq: number, at: string }
      | { __typename: 'ToolCallAwaitingCompletion', batchId: string, callId: string, tool: string, type: string, cursor: string, seq: number, at: string }
      | { __typename: 'ToolCallCompleted', batchId: string, callId: string, tool: string, status: ToolCallStatus, outcome: unknown, type: string, cursor: string, seq: number, at: string }
      | { __typename: 'ToolCallProgress', batchId: string, callId: string, tool: string, type: string, cursor: string, seq: number, at: string }
      | { __typename: 'ToolCallRetrying', batchId: string, callId: string, tool: string, type: string, cursor: string, seq: number, at: string }
      | { __typename: 'ToolCallStarted', batchId: string, callId: string, tool: string, type: string, cursor: string, seq: number, at: string }
    > } };

type ClientTaskEvent_CursorExpired_Fragment = { __typename: 'CursorExpired', oldestCursor: string, type: string, cursor: string, seq: number, at: string };

type ClientTaskEvent_SessionCreated_Fragment = { __typename: 'SessionCreated', type: string, cursor: string, seq: number, at: string };

type ClientTaskEvent_TaskCancelRequested_Fragment = { __typename: 'TaskCancelRequested', type: string, cursor: string, seq: number, at: string };

type ClientTaskEvent_TaskCreated_Fragment = { __typename: 'TaskCreated', type: string, cursor: string, seq: number, at: string };

type ClientTaskEvent_TaskFinished_Fragment = { __typename: 'TaskFinished', state: TaskState, summary: string | null, error: string | null, type: string, cursor: string, seq: number, at: string };

type ClientTaskEvent_TaskHeartbeat_Fragment = { __typename: 'TaskHeartbeat', type: string, cursor: string, seq: number, at: string };

type ClientTaskEvent_TaskOutput_Fragment = { __typename: 'TaskOutput', type: string, cursor: string, seq: number, at: string };

type ClientTaskEvent_TaskProgress_Fragment = { __typename: 'TaskProgress', type: string, cursor: string, seq: number, at: string };

type ClientTaskEvent_TaskReattached_Fragment = { __typename: 'TaskReattached', type: string, cursor: string, seq: number, at: string };

type ClientTaskEvent_TaskStarted_Fragment = { __typename: 'TaskStarted', type: string, cursor: string, seq: number, at: string };

type ClientTaskEvent_TaskStatus_Fragment = { __typename: 'TaskStatus', type: string, cursor: string, seq: number, at: string };

type ClientTaskEvent_ToolBatchCompleted_Fragment = { __typename: 'ToolBatchCompleted', type: string, cursor: string, seq: number, at: string };

type ClientTaskEvent_ToolCallApproved_Fragment = { __typename: 'ToolCallApproved', type: string, cursor: string, seq: number, at: string };

type ClientTaskEvent_ToolCallAwaitingApproval_Fragment = { __typename: 'ToolCallAwaitingApproval', type: string, cursor: string, seq: number, at: string };

type ClientTaskEvent_ToolCallAwaitingCompletion_Fragment = { __typename: 'ToolCallAwaitingCompletion', type: string, cursor: string, seq: number, at: string };

type ClientTaskEvent_ToolCallCompleted_Fragment = { __typename: 'ToolCallCompleted', type: string, cursor: string, seq: number, at: string };

type ClientTaskEvent_ToolCallProgress_Fragment = { __typename: 'ToolCallProgress', type: string, cursor: string, seq: number, at: string };

type ClientTaskEvent_ToolCallRetrying_Fragment = { __typename: 'ToolCallRetrying', type: string, cursor: string, seq: number, at: string };

type ClientTaskEvent_ToolCallStarted_Fragment = { __typename: 'ToolCallStarted', type: string, cursor: string, seq: number, at: string };

export type ClientTaskEventFragment =
  | ClientTaskEvent_CursorExpired_Fragment
  | ClientTaskEvent_SessionCreated_Fragment
  | ClientTaskEvent_TaskCancelRequested_Fragment
  | ClientTaskEvent_TaskCreated_Fragment
  | ClientTaskEvent_TaskFinished_Fragment
  | ClientTaskEvent_TaskHeartbeat_Fragment
  | ClientTaskEvent_TaskOutput_Fragment
  | ClientTaskEvent_TaskProgress_Fragment
  | ClientTaskEvent_TaskReattached_Fragment
  | ClientTaskEvent_TaskStarted_Fragment
  | ClientTaskEvent_TaskStatus_Fragment
  | ClientTaskEvent_ToolBatchCompleted_Fragment
  | ClientTaskEvent_ToolCallApproved_Fragment
  | ClientTaskEvent_ToolCallAwaitingApproval_Fragment
  | ClientTaskEvent_ToolCallAwaitingCompletion_Fragment
  | ClientTaskEvent_ToolCallCompleted_Fragment
  | ClientTaskEvent_ToolCallProgress_Fragment
  | ClientTaskEvent_ToolCallRetrying_Fragment
  | ClientTaskEvent_ToolCallStarted_Fragment
;

export type ClientTaskEventsSubscriptionVariables = Exact<{
  taskId: string | number;
  after?: string | null | undefined;
  completeWhenDone?: boolean | null | undefined;
}>;


export type ClientTaskEventsSubscription = { taskEvents:
    | { __typename: 'CursorExpired', oldestCursor: string, type: string, cursor: string, seq: number, at: string }
    | { __typename: 'SessionCreated', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'TaskCancelRequested', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'TaskCreated', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'TaskFinished', state: TaskState, summary: string | null, error: string | null, type: string, cursor: string, seq: number, at: string }
    | { __typename: 'TaskHeartbeat', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'TaskOutput', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'TaskProgress', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'TaskReattached', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'TaskStarted', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'TaskStatus', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'ToolBatchCompleted', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'ToolCallApproved', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'ToolCallAwaitingApproval', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'ToolCallAwaitingCompletion', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'ToolCallCompleted', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'ToolCallProgress', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'ToolCallRetrying', type: string, cursor: string, seq: number, at: string }
    | { __typename: 'ToolCallStarted', type: string, cursor: string, seq: number, at: string }
   };

export type ClientTaskEventBatchesSubscriptionVariables = Exact<{
  taskId: string | number;
  after?: string | null | undefined;
  completeWhenDone?: boolean | null | undefined;
}>;


export type ClientTaskEventBatchesSubscription = { taskEventBatches: { cursor: string, events: Array<
      | { __typename: 'CursorExpired', oldestCursor: string, type: string, cursor: string, seq: number, at: string }
      | { __typename: 'SessionCreated', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'TaskCancelRequested', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'TaskCreated', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'TaskFinished', state: TaskState, summary: string | null, error: string | null, type: string, cursor: string, seq: number, at: string }
      | { __typename: 'TaskHeartbeat', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'TaskOutput', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'TaskProgress', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'TaskReattached', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'TaskStarted', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'TaskStatus', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'ToolBatchCompleted', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'ToolCallApproved', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'ToolCallAwaitingApproval', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'ToolCallAwaitingCompletion', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'ToolCallCompleted', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'ToolCallProgress', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'ToolCallRetrying', type: string, cursor: string, seq: number, at: string }
      | { __typename: 'ToolCallStarted', type: string, cursor: string, seq: number, at: string }
    > } };

export type ClientBatchStatusQueryVariables = Exact<{
  sessionId: string | number;
  batchId: string;
}>;


export type ClientBatchStatusQuery = { toolBatch: { status: ToolBatchStatus } | null };

export type ClientTaskStateQueryVariables = Exact<{
  id: string | number;
}>;


export type ClientTaskStateQuery = { task: { state: TaskState } | null };

export type ClientSessionHeadQueryVariables = Exact<{
  id: string | number;
}>;


export type ClientSessionHeadQuery = { session: { lastEventCursor: string } | null };

export type ClientTaskSessionHeadQueryVariables = Exact<{
  id: string | number;
}>;


export type ClientTaskSessionHeadQuery = { task: { session: { lastEventCursor: string } } | null };

export const ClientCallEventFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ClientCallEvent"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"callId"}},{"kind":"Field","name":{"kind":"Name","value":"tool"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallCompleted"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"outcome"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatchCompleted"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"total"}},{"kind":"Field","name":{"kind":"Name","value":"succeeded"}},{"kind":"Field","name":{"kind":"Name","value":"failed"}},{"kind":"Field","name":{"kind":"Name","value":"cancelled"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CursorExpired"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"oldestCursor"}}]}}]}}]} as unknown as DocumentNode<ClientCallEventFragment, unknown>;
export const ClientTaskEventFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ClientTaskEvent"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TaskFinished"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"summary"}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CursorExpired"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"oldestCursor"}}]}}]}}]} as unknown as DocumentNode<ClientTaskEventFragment, unknown>;
export const ClientExecuteToolBatchDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"ClientExecuteToolBatch"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"calls"}},"type":{"kind":"NonNullType","type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallInput"}}}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"idempotencyKey"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"timeoutMs"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"executeToolBatch"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"calls"},"value":{"kind":"Variable","name":{"kind":"Name","value":"calls"}}},{"kind":"Argument","name":{"kind":"Name","value":"idempotencyKey"},"value":{"kind":"Variable","name":{"kind":"Name","value":"idempotencyKey"}}},{"kind":"Argument","name":{"kind":"Name","value":"timeoutMs"},"value":{"kind":"Variable","name":{"kind":"Name","value":"timeoutMs"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatch"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"callCount"}},{"kind":"Field","name":{"kind":"Name","value":"eventCursor"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Error"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"code"}}]}}]}}]}}]} as unknown as DocumentNode<ClientExecuteToolBatchMutation, ClientExecuteToolBatchMutationVariables>;
export const ClientSpawnBackgroundDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"ClientSpawnBackground"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"tool"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"args"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"JSON"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"title"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"spawnBackground"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"tool"},"value":{"kind":"Variable","name":{"kind":"Name","value":"tool"}}},{"kind":"Argument","name":{"kind":"Name","value":"args"},"value":{"kind":"Variable","name":{"kind":"Name","value":"args"}}},{"kind":"Argument","name":{"kind":"Name","value":"title"},"value":{"kind":"Variable","name":{"kind":"Name","value":"title"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"BackgroundRun"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"taskId"}},{"kind":"Field","name":{"kind":"Name","value":"runId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"eventCursor"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ScheduledMonitor"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"scheduleId"}},{"kind":"Field","name":{"kind":"Name","value":"taskId"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Error"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"code"}}]}}]}}]}}]} as unknown as DocumentNode<ClientSpawnBackgroundMutation, ClientSpawnBackgroundMutationVariables>;
export const ClientToolCallEventsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"ClientToolCallEvents"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"batchId"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"completeWhenDone"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Boolean"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"toolCallEvents"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"batchId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"batchId"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}},{"kind":"Argument","name":{"kind":"Name","value":"completeWhenDone"},"value":{"kind":"Variable","name":{"kind":"Name","value":"completeWhenDone"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ClientCallEvent"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ClientCallEvent"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"callId"}},{"kind":"Field","name":{"kind":"Name","value":"tool"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallCompleted"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"outcome"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatchCompleted"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"total"}},{"kind":"Field","name":{"kind":"Name","value":"succeeded"}},{"kind":"Field","name":{"kind":"Name","value":"failed"}},{"kind":"Field","name":{"kind":"Name","value":"cancelled"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CursorExpired"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"oldestCursor"}}]}}]}}]} as unknown as DocumentNode<ClientToolCallEventsSubscription, ClientToolCallEventsSubscriptionVariables>;
export const ClientToolCallEventBatchesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"ClientToolCallEventBatches"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"batchId"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"completeWhenDone"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Boolean"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"toolCallEventBatches"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"batchId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"batchId"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}},{"kind":"Argument","name":{"kind":"Name","value":"completeWhenDone"},"value":{"kind":"Variable","name":{"kind":"Name","value":"completeWhenDone"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"events"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ClientCallEvent"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ClientCallEvent"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"callId"}},{"kind":"Field","name":{"kind":"Name","value":"tool"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallCompleted"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"outcome"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatchCompleted"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"total"}},{"kind":"Field","name":{"kind":"Name","value":"succeeded"}},{"kind":"Field","name":{"kind":"Name","value":"failed"}},{"kind":"Field","name":{"kind":"Name","value":"cancelled"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CursorExpired"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"oldestCursor"}}]}}]}}]} as unknown as DocumentNode<ClientToolCallEventBatchesSubscription, ClientToolCallEventBatchesSubscriptionVariables>;
export const ClientTaskEventsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"ClientTaskEvents"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"taskId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"completeWhenDone"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Boolean"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"taskEvents"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"taskId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"taskId"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}},{"kind":"Argument","name":{"kind":"Name","value":"completeWhenDone"},"value":{"kind":"Variable","name":{"kind":"Name","value":"completeWhenDone"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ClientTaskEvent"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ClientTaskEvent"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TaskFinished"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"summary"}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CursorExpired"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"oldestCursor"}}]}}]}}]} as unknown as DocumentNode<ClientTaskEventsSubscription, ClientTaskEventsSubscriptionVariables>;
export const ClientTaskEventBatchesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"ClientTaskEventBatches"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"taskId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"completeWhenDone"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Boolean"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"taskEventBatches"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"taskId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"taskId"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}},{"kind":"Argument","name":{"kind":"Name","value":"completeWhenDone"},"value":{"kind":"Variable","name":{"kind":"Name","value":"completeWhenDone"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"events"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ClientTaskEvent"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ClientTaskEvent"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TaskFinished"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"summary"}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CursorExpired"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"oldestCursor"}}]}}]}}]} as unknown as DocumentNode<ClientTaskEventBatchesSubscription, ClientTaskEventBatchesSubscriptionVariables>;
export const ClientBatchStatusDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ClientBatchStatus"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"batchId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"toolBatch"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"batchId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"batchId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}}]}}]}}]} as unknown as DocumentNode<ClientBatchStatusQuery, ClientBatchStatusQueryVariables>;
export const ClientTaskStateDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ClientTaskState"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"task"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}}]}}]}}]} as unknown as DocumentNode<ClientTaskStateQuery, ClientTaskStateQueryVariables>;
export const ClientSessionHeadDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ClientSessionHead"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"session"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"lastEventCursor"}}]}}]}}]} as unknown as DocumentNode<ClientSessionHeadQuery, ClientSessionHeadQueryVariables>;
export const ClientTaskSessionHeadDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ClientTaskSessionHead"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"task"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"session"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"lastEventCursor"}}]}}]}}]}}]} as unknown as DocumentNode<ClientTaskSessionHeadQuery, ClientTaskSessionHeadQueryVariables>;