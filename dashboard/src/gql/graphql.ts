/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
/** How an attempt of a call ended */
export type AttemptEnd =
  /** The call was cancelled during it */
  | 'CANCELLED'
  /** The call failed with it */
  | 'FAILED'
  /** It failed with a retryable failure; a next attempt followed */
  | 'RETRIED'
  /** It has not ended yet */
  | 'RUNNING'
  /** The call succeeded with it */
  | 'SUCCEEDED';

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

/** The type of an event (its GraphQL type name) */
export type EventType =
  /** A SessionCreated event */
  | 'SessionCreated'
  /** A TaskCancelRequested event */
  | 'TaskCancelRequested'
  /** A TaskCreated event */
  | 'TaskCreated'
  /** A TaskFinished event */
  | 'TaskFinished'
  /** A TaskHeartbeat event */
  | 'TaskHeartbeat'
  /** A TaskOutput event */
  | 'TaskOutput'
  /** A TaskProgress event */
  | 'TaskProgress'
  /** A TaskReattached event */
  | 'TaskReattached'
  /** A TaskStarted event */
  | 'TaskStarted'
  /** A TaskStatus event */
  | 'TaskStatus'
  /** A ToolBatchCompleted event */
  | 'ToolBatchCompleted'
  /** A ToolCallApproved event */
  | 'ToolCallApproved'
  /** A ToolCallAwaitingApproval event */
  | 'ToolCallAwaitingApproval'
  /** A ToolCallAwaitingCompletion event */
  | 'ToolCallAwaitingCompletion'
  /** A ToolCallCompleted event */
  | 'ToolCallCompleted'
  /** A ToolCallProgress event */
  | 'ToolCallProgress'
  /** A ToolCallRetrying event */
  | 'ToolCallRetrying'
  /** A ToolCallStarted event */
  | 'ToolCallStarted';

/** Whether a failure may be retried */
export type RetryKind =
  /** It was safe to retry, but every allowed attempt has been made */
  | 'EXHAUSTED'
  /** Running the call again would not help, or could repeat a side effect */
  | 'NEVER'
  /** The call may run again (toolrun does, while attempts remain) */
  | 'SAFE';

/** Where a schedule stands */
export type ScheduleStatus =
  /** Enabled: it fires on its cron pattern or at its time */
  | 'ACTIVE'
  /** Canceled (cancelSchedule, or its monitor task canceled): it never fires again */
  | 'CANCELED'
  /** A one-shot schedule that fired */
  | 'FINISHED'
  /** Enabled but paused (pauseSchedule): it fires nothing until resumeSchedule */
  | 'PAUSED';

/** CRON: recurring (cronExpression); ONCE: one-shot (scheduledAt) */
export type ScheduleType =
  /** Fires on a recurring cron expression */
  | 'CRON'
  /** Fires once, at `scheduledAt` */
  | 'ONCE';

/** Sessions that match every given condition */
export type SessionFilter = {
  /** With an event after this time */
  activeAfter?: string | null | undefined;
  /** Created at or after this time (the window is `[createdAfter, createdBefore)`, as `queuedAfter`/`queuedBefore`: windows that meet lose nothing between them); with `createdBefore`, it must be before it (an empty or inverted window is a VALIDATION_FAILED error naming `createdAfter`) */
  createdAfter?: string | null | undefined;
  /** Created before this time (after `createdAfter`, when both are given) */
  createdBefore?: string | null | undefined;
  /** With (true) or without (false) calls awaiting approval */
  hasPendingApprovals?: boolean | null | undefined;
  /** The first hex digits of the session id (4 to 32; dashes ignored), e.g. the 8 the dashboard shows */
  idPrefix?: string | null | undefined;
  /** A JSON object the metadata contains (nested objects match key by key) */
  metadataContains?: unknown;
  /** ACTIVE: with a call that is not final yet; IDLE: without */
  status?: SessionStatus | null | undefined;
  /** Case-insensitive substring of the title */
  titleContains?: string | null | undefined;
};

/** Whether a session has work under way */
export type SessionStatus =
  /** A call is not final yet */
  | 'ACTIVE'
  /** Every call is final (or there is none) */
  | 'IDLE';

/** Which output stream a chunk of a run’s output came from */
export type TaskOutputStream =
  /** Standard error, logged as `[stderr]` */
  | 'STDERR'
  /** Standard output, logged as `[stdout]` */
  | 'STDOUT';

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

/** What kind of failure a call ended in */
export type ToolFailureClass =
  /** The tool ran and failed */
  | 'EXECUTION'
  /** A service the tool depends on failed or answered wrongly */
  | 'EXTERNAL'
  /** A fault in toolrun itself; the details are in the server log only */
  | 'INTERNAL'
  /** The call cannot work as asked: arguments its schema refuses, or a value the tool cannot use */
  | 'INVALID_REQUEST'
  /** The call was not allowed: an approver rejected it, or an address or path is refused */
  | 'PERMISSION_DENIED'
  /** A size or quota limit stopped the call */
  | 'RESOURCE_LIMIT'
  /** The call’s deadline passed before it finished */
  | 'TIMEOUT'
  /** The tool, or something it needs, is not available (an unknown or removed tool, a store not answering) */
  | 'UNAVAILABLE';

/** Who produced a failure or cancellation */
export type ToolFailureSource =
  /** A cancel request or a stop of the work */
  | 'CANCELLATION'
  /** A plugin of the agent runtime (kept from the seeds; toolrun’s own tools do not report it) */
  | 'PLUGIN'
  /** A policy decision, such as an approver’s rejection */
  | 'POLICY'
  /** toolrun itself (validation, deadlines, lost workers) */
  | 'RUNTIME'
  /** The tool’s own code or endpoint */
  | 'TOOL';

/** Where a tool comes from and how its calls run */
export type ToolKind =
  /** Ships with toolrun and runs on its workers */
  | 'BUILTIN'
  /** Registered by the tenant: each call waits for `completeToolCall` */
  | 'EXTERNAL'
  /** Registered by the tenant: each call is a signed POST to its endpoint */
  | 'HTTP'
  /** Listed by an MCP server the tenant registered; each call is its `tools/call` */
  | 'MCP';

/** Whether a tool’s calls run when submitted or wait for an approver */
export type ToolPolicy =
  /** Calls run when submitted */
  | 'AUTO'
  /** Calls wait in AWAITING_APPROVAL until an approver approves or rejects them */
  | 'REQUIRES_APPROVAL';

/** How a tool’s calls of one batch run relative to each other */
export type ToolScheduling =
  /** Concurrently with the batch’s other calls */
  | 'PARALLEL'
  /** One at a time with the batch’s other serial calls, in batch order */
  | 'SERIAL';

export type ViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type ViewerQuery = { viewer: { apiKeyId: string, roles: Array<string> }, tenantSettings: { tenantName: string } };

export type SessionRowFragment = { id: string, sessionId: string, title: string | null, createdAt: string, lastActivityAt: string, callCounts: { total: number, unfinished: number, awaitingApproval: number }, batches: { totalCount: number } };

export type SessionsQueryVariables = Exact<{
  first: number;
  after?: string | null | undefined;
  filter?: SessionFilter | null | undefined;
}>;


export type SessionsQuery = { sessions: { edges: Array<{ cursor: string, node: { id: string, sessionId: string, title: string | null, createdAt: string, lastActivityAt: string, callCounts: { total: number, unfinished: number, awaitingApproval: number }, batches: { totalCount: number } } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type SessionRowsQueryVariables = Exact<{
  ids: Array<string | number> | string | number;
}>;


export type SessionRowsQuery = { nodes: Array<
    | { __typename: 'Schedule' }
    | { __typename: 'Session', id: string, sessionId: string, title: string | null, createdAt: string, lastActivityAt: string, callCounts: { total: number, unfinished: number, awaitingApproval: number }, batches: { totalCount: number } }
    | { __typename: 'Task' }
    | { __typename: 'ToolBatch' }
    | { __typename: 'ToolCall' }
   | null> };

export type SessionTitlesQueryVariables = Exact<{
  ids: Array<string | number> | string | number;
}>;


export type SessionTitlesQuery = { nodes: Array<
    | { __typename: 'Schedule' }
    | { __typename: 'Session', id: string, sessionId: string, title: string | null }
    | { __typename: 'Task' }
    | { __typename: 'ToolBatch' }
    | { __typename: 'ToolCall' }
   | null> };

export type TenantCursorQueryVariables = Exact<{ [key: string]: never; }>;


export type TenantCursorQuery = { viewer: { tenantId: string }, tenantSettings: { lastEventCursor: string } };

export type BatchSummaryFragment = { batchId: string, status: ToolBatchStatus, callCount: number, pendingCount: number, createdAt: string, completedAt: string | null };

export type SessionViewQueryVariables = Exact<{
  id: string | number;
}>;


export type SessionViewQuery = { session: { id: string, sessionId: string, title: string | null, createdAt: string, metadata: unknown, lastEventCursor: string, recentEvents: Array<
      | { seq: number, type: string, at: string }
      | { seq: number, type: string, at: string }
      | { seq: number, type: string, at: string }
      | { seq: number, type: string, at: string }
      | { seq: number, type: string, at: string }
      | { seq: number, type: string, at: string }
      | { seq: number, type: string, at: string }
      | { seq: number, type: string, at: string }
      | { seq: number, type: string, at: string }
      | { seq: number, type: string, at: string }
      | { seq: number, type: string, at: string }
      | { batchId: string, seq: number, type: string, at: string }
      | { callId: string, batchId: string, seq: number, type: string, at: string }
      | { callId: string, batchId: string, seq: number, type: string, at: string }
      | { callId: string, batchId: string, seq: number, type: string, at: string }
      | { callId: string, batchId: string, seq: number, type: string, at: string }
      | { callId: string, batchId: string, seq: number, type: string, at: string }
      | { callId: string, batchId: string, seq: number, type: string, at: string }
      | { callId: string, batchId: string, seq: number, type: string, at: string }
    >, batches: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ batchId: string, status: ToolBatchStatus, callCount: number, pendingCount: number, createdAt: string, completedAt: string | null }> } } | null };

export type OlderBatchesQueryVariables = Exact<{
  id: string | number;
  after: string;
}>;


export type OlderBatchesQuery = { session: { id: string, batches: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ batchId: string, status: ToolBatchStatus, callCount: number, pendingCount: number, createdAt: string, completedAt: string | null }> } } | null };

export type NewestBatchesQueryVariables = Exact<{
  id: string | number;
}>;


export type NewestBatchesQuery = { session: { id: string, batches: { totalCount: number, nodes: Array<{ batchId: string, status: ToolBatchStatus, callCount: number, pendingCount: number, createdAt: string, completedAt: string | null }> } } | null };

export type BatchPageFragment = { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ batchId: string, status: ToolBatchStatus, callCount: number, pendingCount: number, createdAt: string, completedAt: string | null }> };

type ActivityEvent_CursorExpired_Fragment = { seq: number, type: string, at: string };

type ActivityEvent_SessionCreated_Fragment = { seq: number, type: string, at: string };

type ActivityEvent_TaskCancelRequested_Fragment = { seq: number, type: string, at: string };

type ActivityEvent_TaskCreated_Fragment = { seq: number, type: string, at: string };

type ActivityEvent_TaskFinished_Fragment = { seq: number, type: string, at: string };

type ActivityEvent_TaskHeartbeat_Fragment = { seq: number, type: string, at: string };

type ActivityEvent_TaskOutput_Fragment = { seq: number, type: string, at: string };

type ActivityEvent_TaskProgress_Fragment = { seq: number, type: string, at: string };

type ActivityEvent_TaskReattached_Fragment = { seq: number, type: string, at: string };

type ActivityEvent_TaskStarted_Fragment = { seq: number, type: string, at: string };

type ActivityEvent_TaskStatus_Fragment = { seq: number, type: string, at: string };

type ActivityEvent_ToolBatchCompleted_Fragment = { batchId: string, seq: number, type: string, at: string };

type ActivityEvent_ToolCallApproved_Fragment = { callId: string, batchId: string, seq: number, type: string, at: string };

type ActivityEvent_ToolCallAwaitingApproval_Fragment = { callId: string, batchId: string, seq: number, type: string, at: string };

type ActivityEvent_ToolCallAwaitingCompletion_Fragment = { callId: string, batchId: string, seq: number, type: string, at: string };

type ActivityEvent_ToolCallCompleted_Fragment = { callId: string, batchId: string, seq: number, type: string, at: string };

type ActivityEvent_ToolCallProgress_Fragment = { callId: string, batchId: string, seq: number, type: string, at: string };

type ActivityEvent_ToolCallRetrying_Fragment = { callId: string, batchId: string, seq: number, type: string, at: string };

type ActivityEvent_ToolCallStarted_Fragment = { callId: string, batchId: string, seq: number, type: string, at: string };

export type ActivityEventFragment =
  | ActivityEvent_CursorExpired_Fragment
  | ActivityEvent_SessionCreated_Fragment
  | ActivityEvent_TaskCancelRequested_Fragment
  | ActivityEvent_TaskCreated_Fragment
  | ActivityEvent_TaskFinished_Fragment
  | ActivityEvent_TaskHeartbeat_Fragment
  | ActivityEvent_TaskOutput_Fragment
  | ActivityEvent_TaskProgress_Fragment
  | ActivityEvent_TaskReattached_Fragment
  | ActivityEvent_TaskStarted_Fragment
  | ActivityEvent_TaskStatus_Fragment
  | ActivityEvent_ToolBatchCompleted_Fragment
  | ActivityEvent_ToolCallApproved_Fragment
  | ActivityEvent_ToolCallAwaitingApproval_Fragment
  | ActivityEvent_ToolCallAwaitingCompletion_Fragment
  | ActivityEvent_ToolCallCompleted_Fragment
  | ActivityEvent_ToolCallProgress_Fragment
  | ActivityEvent_ToolCallRetrying_Fragment
  | ActivityEvent_ToolCallStarted_Fragment
;

export type CallRowFragment = { callId: string, tool: string, status: ToolCallStatus, attempt: number, maxAttempts: number, position: number, queuedAt: string, startedAt: string | null, completedAt: string | null, durationMs: number | null, deadlineAt: string | null };

export type BatchHeadQueryVariables = Exact<{
  sessionId: string | number;
  batchId: string;
}>;


export type BatchHeadQuery = { toolBatch: { batchId: string, status: ToolBatchStatus, callCount: number, pendingCount: number, createdAt: string, completedAt: string | null } | null };

export type BatchCallsQueryVariables = Exact<{
  sessionId: string | number;
  batchId: string;
  after?: string | null | undefined;
}>;


export type BatchCallsQuery = { toolBatch: { batchId: string, status: ToolBatchStatus, callCount: number, pendingCount: number, createdAt: string, completedAt: string | null, calls: { pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ callId: string, tool: string, status: ToolCallStatus, attempt: number, maxAttempts: number, position: number, queuedAt: string, startedAt: string | null, completedAt: string | null, durationMs: number | null, deadlineAt: string | null }> } } | null };

export type CallDetailQueryVariables = Exact<{
  sessionId: string | number;
  callId: string;
}>;


export type CallDetailQuery = { toolCall: { args: unknown, outcome: unknown, rawOutput: string | null, timeoutMs: number, scheduling: ToolScheduling, decidedAt: string | null, cancelRequestedAt: string | null, callId: string, tool: string, status: ToolCallStatus, attempt: number, maxAttempts: number, position: number, queuedAt: string, startedAt: string | null, completedAt: string | null, durationMs: number | null, deadlineAt: string | null, output:
      | { __typename: 'ToolCancellation', message: string, source: ToolFailureSource }
      | { __typename: 'ToolFailure', class: ToolFailureClass, code: string, message: string, source: ToolFailureSource, retry: { kind: RetryKind, afterMs: number | null, attempts: number | null } }
      | { __typename: 'ToolSuccess', value: unknown }
     | null, modelReturn: { text: string } | null, attempts: Array<{ attempt: number, startedAt: string | null, durationMs: number | null, end: AttemptEnd, failure: { code: string, message: string } | null }> } | null };

export type SessionMessagesQueryVariables = Exact<{
  sessionId: string | number;
}>;


export type SessionMessagesQuery = { sessionMessages: Array<{ messageId: string, kind: string, text: string, createdAt: string }> };

export type SessionFilesQueryVariables = Exact<{
  sessionId: string | number;
  after?: string | null | undefined;
}>;


export type SessionFilesQuery = { sessionFiles: { pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ path: string, name: string, isDirectory: boolean, size: number, updatedAt: string }> } };

export type SessionFileContentQueryVariables = Exact<{
  sessionId: string | number;
  path: string;
}>;


export type SessionFileContentQuery = { sessionFile: { path: string, size: number, content: string | null } | null };

export type TaskRowFragment = { id: string, taskId: string, kind: string, title: string | null, tool: string | null, state: TaskState, stateDetail: string | null, summary: string | null, error: string | null, createdAt: string, startedAt: string | null, finishedAt: string | null, heartbeatAt: string | null, outputTail: string, outputTruncated: boolean, progress: { current: number | null, total: number | null, unit: string | null, label: string | null, message: string | null } | null };

export type TaskStreamHeadQueryVariables = Exact<{
  id: string | number;
}>;


export type TaskStreamHeadQuery = { session: { id: string, lastEventCursor: string } | null };

export type SessionTasksQueryVariables = Exact<{
  sessionId: string | number;
}>;


export type SessionTasksQuery = { tasks: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ id: string, taskId: string, kind: string, title: string | null, tool: string | null, state: TaskState, stateDetail: string | null, summary: string | null, error: string | null, createdAt: string, startedAt: string | null, finishedAt: string | null, heartbeatAt: string | null, outputTail: string, outputTruncated: boolean, progress: { current: number | null, total: number | null, unit: string | null, label: string | null, message: string | null } | null }> }, schedules: { nodes: Array<{ id: string, scheduleId: string, title: string, tool: string, type: ScheduleType, enabled: boolean, status: ScheduleStatus, pausedAt: string | null, cronExpression: string | null, scheduledAt: string | null, nextTriggerAt: string | null, lastTriggerAt: string | null }> } };

export type OlderTasksQueryVariables = Exact<{
  sessionId: string | number;
  after: string;
}>;


export type OlderTasksQuery = { tasks: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ id: string, taskId: string, kind: string, title: string | null, tool: string | null, state: TaskState, stateDetail: string | null, summary: string | null, error: string | null, createdAt: string, startedAt: string | null, finishedAt: string | null, heartbeatAt: string | null, outputTail: string, outputTruncated: boolean, progress: { current: number | null, total: number | null, unit: string | null, label: string | null, message: string | null } | null }> } };

export type TaskPageFragment = { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ id: string, taskId: string, kind: string, title: string | null, tool: string | null, state: TaskState, stateDetail: string | null, summary: string | null, error: string | null, createdAt: string, startedAt: string | null, finishedAt: string | null, heartbeatAt: string | null, outputTail: string, outputTruncated: boolean, progress: { current: number | null, total: number | null, unit: string | null, label: string | null, message: string | null } | null }> };

export type ToolsQueryVariables = Exact<{ [key: string]: never; }>;


export type ToolsQuery = { tools: Array<{ name: string, displayName: string, description: string, kind: ToolKind, parametersSchema: unknown, policy: ToolPolicy, scheduling: ToolScheduling, timeoutMs: number, capability: string | null, hints: { readonly: boolean, idempotent: boolean, destructive: boolean, openWorld: boolean, supportsBackground: boolean }, retry: { maxAttempts: number } }> };

export type AwaitingApprovalQueryVariables = Exact<{
  first: number;
  after?: string | null | undefined;
}>;


export type AwaitingApprovalQuery = { toolCalls: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ callId: string, tool: string, status: ToolCallStatus, args: unknown, queuedAt: string, batch: { batchId: string }, session: { id: string, sessionId: string, title: string | null } }> } };

export type SystemStatusQueryVariables = Exact<{ [key: string]: never; }>;


export type SystemStatusQuery = { systemStatus: { at: string, workersAlive: number, queues: Array<{ queue: string, waiting: number, active: number, delayed: number, failed: number }> | null, eventLag: { windowMs: number, messages: number, medianMs: number | null, maxMs: number | null, lastAt: string | null }, tenantCalls: { queued: number, awaitingApproval: number, running: number, pendingExternal: number } } };

export type CreateSessionMutationVariables = Exact<{
  title?: string | null | undefined;
}>;


export type CreateSessionMutation = { createSession:
    | { __typename: 'BaseError', code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'Session', id: string, sessionId: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type ExecuteBatchMutationVariables = Exact<{
  sessionId: string | number;
  calls: Array<ToolCallInput> | ToolCallInput;
}>;


export type ExecuteBatchMutation = { executeToolBatch:
    | { __typename: 'BaseError', code: ErrorCode, message: string }
    | { __typename: 'CallIdConflictError', code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'IdempotencyKeyReusedError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'ToolBatch', batchId: string, status: ToolBatchStatus, callCount: number, pendingCount: number, createdAt: string, completedAt: string | null }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type CancelBatchMutationVariables = Exact<{
  sessionId: string | number;
  batchId: string;
}>;


export type CancelBatchMutation = { cancelToolBatch:
    | { __typename: 'BaseError', code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'ToolBatch', batchId: string, status: ToolBatchStatus }
   };

export type CancelCallMutationVariables = Exact<{
  sessionId: string | number;
  callId: string;
}>;


export type CancelCallMutation = { cancelToolCall:
    | { __typename: 'BaseError', code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'ToolCall', callId: string, status: ToolCallStatus }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type ApproveCallMutationVariables = Exact<{
  sessionId: string | number;
  callId: string;
}>;


export type ApproveCallMutation = { approveToolCall:
    | { __typename: 'BaseError', code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'ToolCall', callId: string, status: ToolCallStatus }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type RejectCallMutationVariables = Exact<{
  sessionId: string | number;
  callId: string;
  reason: string;
}>;


export type RejectCallMutation = { rejectToolCall:
    | { __typename: 'BaseError', code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'ToolCall', callId: string, status: ToolCallStatus }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type CancelTaskMutationVariables = Exact<{
  id: string | number;
}>;


export type CancelTaskMutation = { cancelTask:
    | { __typename: 'BaseError', code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'Task', id: string, state: TaskState }
   };

export type PauseScheduleMutationVariables = Exact<{
  id: string | number;
}>;


export type PauseScheduleMutation = { pauseSchedule:
    | { __typename: 'BaseError', code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'Schedule', id: string, status: ScheduleStatus }
   };

export type ResumeScheduleMutationVariables = Exact<{
  id: string | number;
}>;


export type ResumeScheduleMutation = { resumeSchedule:
    | { __typename: 'BaseError', code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'Schedule', id: string, status: ScheduleStatus }
   };

export type TriggerScheduleMutationVariables = Exact<{
  id: string | number;
}>;


export type TriggerScheduleMutation = { triggerSchedule:
    | { __typename: 'BackgroundNotSupportedError', code: ErrorCode, message: string }
    | { __typename: 'BaseError', code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'InvalidArgumentsError', code: ErrorCode, message: string }
    | { __typename: 'InvalidStateError', code: ErrorCode, message: string }
    | { __typename: 'LimitExceededError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'Task', id: string, taskId: string }
    | { __typename: 'UnknownToolError', code: ErrorCode, message: string }
    | { __typename: 'ValidationError', code: ErrorCode, message: string }
   };

export type CancelScheduleMutationVariables = Exact<{
  id: string | number;
}>;


export type CancelScheduleMutation = { cancelSchedule:
    | { __typename: 'BaseError', code: ErrorCode, message: string }
    | { __typename: 'ForbiddenError', code: ErrorCode, message: string }
    | { __typename: 'NotFoundError', code: ErrorCode, message: string }
    | { __typename: 'Schedule', id: string, enabled: boolean }
   };

type CallEvent_CursorExpired_Fragment = { __typename: 'CursorExpired', oldestCursor: string, type: string, seq: number, cursor: string, at: string };

type CallEvent_SessionCreated_Fragment = { __typename: 'SessionCreated', type: string, seq: number, cursor: string, at: string };

type CallEvent_TaskCancelRequested_Fragment = { __typename: 'TaskCancelRequested', type: string, seq: number, cursor: string, at: string };

type CallEvent_TaskCreated_Fragment = { __typename: 'TaskCreated', type: string, seq: number, cursor: string, at: string };

type CallEvent_TaskFinished_Fragment = { __typename: 'TaskFinished', type: string, seq: number, cursor: string, at: string };

type CallEvent_TaskHeartbeat_Fragment = { __typename: 'TaskHeartbeat', type: string, seq: number, cursor: string, at: string };

type CallEvent_TaskOutput_Fragment = { __typename: 'TaskOutput', type: string, seq: number, cursor: string, at: string };

type CallEvent_TaskProgress_Fragment = { __typename: 'TaskProgress', type: string, seq: number, cursor: string, at: string };

type CallEvent_TaskReattached_Fragment = { __typename: 'TaskReattached', type: string, seq: number, cursor: string, at: string };

type CallEvent_TaskStarted_Fragment = { __typename: 'TaskStarted', type: string, seq: number, cursor: string, at: string };

type CallEvent_TaskStatus_Fragment = { __typename: 'TaskStatus', type: string, seq: number, cursor: string, at: string };

type CallEvent_ToolBatchCompleted_Fragment = { __typename: 'ToolBatchCompleted', batchId: string, total: number, succeeded: number, failed: number, cancelled: number, type: string, seq: number, cursor: string, at: string };

type CallEvent_ToolCallApproved_Fragment = { __typename: 'ToolCallApproved', callId: string, batchId: string, tool: string, type: string, seq: number, cursor: string, at: string };

type CallEvent_ToolCallAwaitingApproval_Fragment = { __typename: 'ToolCallAwaitingApproval', callId: string, batchId: string, tool: string, type: string, seq: number, cursor: string, at: string };

type CallEvent_ToolCallAwaitingCompletion_Fragment = { __typename: 'ToolCallAwaitingCompletion', callId: string, batchId: string, tool: string, type: string, seq: number, cursor: string, at: string };

type CallEvent_ToolCallCompleted_Fragment = { __typename: 'ToolCallCompleted', callId: string, batchId: string, tool: string, status: ToolCallStatus, durationMs: number, attempt: number, type: string, seq: number, cursor: string, at: string };

type CallEvent_ToolCallProgress_Fragment = { __typename: 'ToolCallProgress', callId: string, batchId: string, tool: string, type: string, seq: number, cursor: string, at: string, progress: { current: number | null, total: number | null, unit: string | null, label: string | null } };

type CallEvent_ToolCallRetrying_Fragment = { __typename: 'ToolCallRetrying', callId: string, batchId: string, tool: string, nextAttempt: number, delayMs: number, type: string, seq: number, cursor: string, at: string };

type CallEvent_ToolCallStarted_Fragment = { __typename: 'ToolCallStarted', callId: string, batchId: string, tool: string, attempt: number, type: string, seq: number, cursor: string, at: string };

export type CallEventFragment =
  | CallEvent_CursorExpired_Fragment
  | CallEvent_SessionCreated_Fragment
  | CallEvent_TaskCancelRequested_Fragment
  | CallEvent_TaskCreated_Fragment
  | CallEvent_TaskFinished_Fragment
  | CallEvent_TaskHeartbeat_Fragment
  | CallEvent_TaskOutput_Fragment
  | CallEvent_TaskProgress_Fragment
  | CallEvent_TaskReattached_Fragment
  | CallEvent_TaskStarted_Fragment
  | CallEvent_TaskStatus_Fragment
  | CallEvent_ToolBatchCompleted_Fragment
  | CallEvent_ToolCallApproved_Fragment
  | CallEvent_ToolCallAwaitingApproval_Fragment
  | CallEvent_ToolCallAwaitingCompletion_Fragment
  | CallEvent_ToolCallCompleted_Fragment
  | CallEvent_ToolCallProgress_Fragment
  | CallEvent_ToolCallRetrying_Fragment
  | CallEvent_ToolCallStarted_Fragment
;

export type ToolCallEventsSubscriptionVariables = Exact<{
  sessionId: string | number;
  after?: string | null | undefined;
}>;


export type ToolCallEventsSubscription = { toolCallEventBatches: { cursor: string, events: Array<
      | { __typename: 'CursorExpired', oldestCursor: string, type: string, seq: number, cursor: string, at: string }
      | { __typename: 'SessionCreated', type: string, seq: number, cursor: string, at: string }
      | { __typename: 'TaskCancelRequested', type: string, seq: number, cursor: string, at: string }
      | { __typename: 'TaskCreated', type: string, seq: number, cursor: string, at: string }
      | { __typename: 'TaskFinished', type: string, seq: number, cursor: string, at: string }
      | { __typename: 'TaskHeartbeat', type: string, seq: number, cursor: string, at: string }
      | { __typename: 'TaskOutput', type: string, seq: number, cursor: string, at: string }
      | { __typename: 'TaskProgress', type: string, seq: number, cursor: string, at: string }
      | { __typename: 'TaskReattached', type: string, seq: number, cursor: string, at: string }
      | { __typename: 'TaskStarted', type: string, seq: number, cursor: string, at: string }
      | { __typename: 'TaskStatus', type: string, seq: number, cursor: string, at: string }
      | { __typename: 'ToolBatchCompleted', batchId: string, total: number, succeeded: number, failed: number, cancelled: number, type: string, seq: number, cursor: string, at: string }
      | { __typename: 'ToolCallApproved', callId: string, batchId: string, tool: string, type: string, seq: number, cursor: string, at: string }
      | { __typename: 'ToolCallAwaitingApproval', callId: string, batchId: string, tool: string, type: string, seq: number, cursor: string, at: string }
      | { __typename: 'ToolCallAwaitingCompletion', callId: string, batchId: string, tool: string, type: string, seq: number, cursor: string, at: string }
      | { __typename: 'ToolCallCompleted', callId: string, batchId: string, tool: string, status: ToolCallStatus, durationMs: number, attempt: number, type: string, seq: number, cursor: string, at: string }
      | { __typename: 'ToolCallProgress', callId: string, batchId: string, tool: string, type: string, seq: number, cursor: string, at: string, progress: { current: number | null, total: number | null, unit: string | null, label: string | null } }
      | { __typename: 'ToolCallRetrying', callId: string, batchId: string, tool: string, nextAttempt: number, delayMs: number, type: string, seq: number, cursor: string, at: string }
      | { __typename: 'ToolCallStarted', callId: string, batchId: string, tool: string, attempt: number, type: string, seq: number, cursor: string, at: string }
    > } };

type TaskStreamEvent_CursorExpired_Fragment = { __typename: 'CursorExpired', oldestCursor: string, type: string, seq: number, cursor: string, at: string };

type TaskStreamEvent_SessionCreated_Fragment = { __typename: 'SessionCreated', type: string, seq: number, cursor: string, at: string };

type TaskStreamEvent_TaskCancelRequested_Fragment = { __typename: 'TaskCancelRequested', taskId: string, type: string, seq: number, cursor: string, at: string };

type TaskStreamEvent_TaskCreated_Fragment = { __typename: 'TaskCreated', taskId: string, state: TaskState, title: string | null, tool: string | null, type: string, seq: number, cursor: string, at: string };

type TaskStreamEvent_TaskFinished_Fragment = { __typename: 'TaskFinished', taskId: string, state: TaskState, summary: string | null, error: string | null, type: string, seq: number, cursor: string, at: string };

type TaskStreamEvent_TaskHeartbeat_Fragment = { __typename: 'TaskHeartbeat', taskId: string, type: string, seq: number, cursor: string, at: string };

type TaskStreamEvent_TaskOutput_Fragment = { __typename: 'TaskOutput', taskId: string, text: string, stream: TaskOutputStream, type: string, seq: number, cursor: string, at: string };

type TaskStreamEvent_TaskProgress_Fragment = { __typename: 'TaskProgress', taskId: string, type: string, seq: number, cursor: string, at: string, progress: { current: number | null, total: number | null, unit: string | null, label: string | null, message: string | null } };

type TaskStreamEvent_TaskReattached_Fragment = { __typename: 'TaskReattached', taskId: string, type: string, seq: number, cursor: string, at: string };

type TaskStreamEvent_TaskStarted_Fragment = { __typename: 'TaskStarted', taskId: string, type: string, seq: number, cursor: string, at: string };

type TaskStreamEvent_TaskStatus_Fragment = { __typename: 'TaskStatus', taskId: string, text: string, type: string, seq: number, cursor: string, at: string };

type TaskStreamEvent_ToolBatchCompleted_Fragment = { __typename: 'ToolBatchCompleted', type: string, seq: number, cursor: string, at: string };

type TaskStreamEvent_ToolCallApproved_Fragment = { __typename: 'ToolCallApproved', type: string, seq: number, cursor: string, at: string };

type TaskStreamEvent_ToolCallAwaitingApproval_Fragment = { __typename: 'ToolCallAwaitingApproval', type: string, seq: number, cursor: string, at: string };

type TaskStreamEvent_ToolCallAwaitingCompletion_Fragment = { __typename: 'ToolCallAwaitingCompletion', type: string, seq: number, cursor: string, at: string };

type TaskStreamEvent_ToolCallCompleted_Fragment = { __typename: 'ToolCallCompleted', type: string, seq: number, cursor: string, at: string };

type TaskStreamEvent_ToolCallProgress_Fragment = { __typename: 'ToolCallProgress', type: string, seq: number, cursor: string, at: string };

type TaskStreamEvent_ToolCallRetrying_Fragment = { __typename: 'ToolCallRetrying', type: string, seq: number, cursor: string, at: string };

type TaskStreamEvent_ToolCallStarted_Fragment = { __typename: 'ToolCallStarted', type: string, seq: number, cursor: string, at: string };

export type TaskStreamEventFragment =
  | TaskStreamEvent_CursorExpired_Fragment
  | TaskStreamEvent_SessionCreated_Fragment
  | TaskStreamEvent_TaskCancelRequested_Fragment
  | TaskStreamEvent_TaskCreated_Fragment
  | TaskStreamEvent_TaskFinished_Fragment
  | TaskStreamEvent_TaskHeartbeat_Fragment
  | TaskStreamEvent_TaskOutput_Fragment
  | TaskStreamEvent_TaskProgress_Fragment
  | TaskStreamEvent_TaskReattached_Fragment
  | TaskStreamEvent_TaskStarted_Fragment
  | TaskStreamEvent_TaskStatus_Fragment
  | TaskStreamEvent_ToolBatchCompleted_Fragment
  | TaskStreamEvent_ToolCallApproved_Fragment
  | TaskStreamEvent_ToolCallAwaitingApproval_Fragment
  | TaskStreamEvent_ToolCallAwaitingCompletion_Fragment
  | TaskStreamEvent_ToolCallCompleted_Fragment
  | TaskStreamEvent_ToolCallProgress_Fragment
  | TaskStreamEvent_ToolCallRetrying_Fragment
  | TaskStreamEvent_ToolCallStarted_Fragment
;

export type TaskEventsSubscriptionVariables = Exact<{
  sessionId: string | number;
  after?: string | null | undefined;
}>;


export type TaskEventsSubscription = { taskEventBatches: { cursor: string, events: Array<
      | { __typename: 'CursorExpired', oldestCursor: string, type: string, seq: number, cursor: string, at: string }
      | { __typename: 'SessionCreated', type: string, seq: number, cursor: string, at: string }
      | { __typename: 'TaskCancelRequested', taskId: string, type: string, seq: number, cursor: string, at: string }
      | { __typename: 'TaskCreated', taskId: string, state: TaskState, title: string | null, tool: string | null, type: string, seq: number, cursor: string, at: string }
      | { __typename: 'TaskFinished', taskId: string, state: TaskState, summary: string | null, error: string | null, type: string, seq: number, cursor: string, at: string }
      | { __typename: 'TaskHeartbeat', taskId: string, type: string, seq: number, cursor: string, at: string }
      | { __typename: 'TaskOutput', taskId: string, text: string, stream: TaskOutputStream, type: string, seq: number, cursor: string, at: string }
      | { __typename: 'TaskProgress', taskId: string, type: string, seq: number, cursor: string, at: string, progress: { current: number | null, total: number | null, unit: string | null, label: string | null, message: string | null } }
      | { __typename: 'TaskReattached', taskId: string, type: string, seq: number, cursor: string, at: string }
      | { __typename: 'TaskStarted', taskId: string, type: string, seq: number, cursor: string, at: string }
      | { __typename: 'TaskStatus', taskId: string, text: string, type: string, seq: number, cursor: string, at: string }
      | { __typename: 'ToolBatchCompleted', type: string, seq: number, cursor: string, at: string }
      | { __typename: 'ToolCallApproved', type: string, seq: number, cursor: string, at: string }
      | { __typename: 'ToolCallAwaitingApproval', type: string, seq: number, cursor: string, at: string }
      | { __typename: 'ToolCallAwaitingCompletion', type: string, seq: number, cursor: string, at: string }
      | { __typename: 'ToolCallCompleted', type: string, seq: number, cursor: string, at: string }
      | { __typename: 'ToolCallProgress', type: string, seq: number, cursor: string, at: string }
      | { __typename: 'ToolCallRetrying', type: string, seq: number, cursor: string, at: string }
      | { __typename: 'ToolCallStarted', type: string, seq: number, cursor: string, at: string }
    > } };

type TenantActivityEvent_CursorExpired_Fragment = { __typename: 'CursorExpired', oldestCursor: string, type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

type TenantActivityEvent_SessionCreated_Fragment = { __typename: 'SessionCreated', title: string | null, createdAt: string, type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

type TenantActivityEvent_TaskCancelRequested_Fragment = { __typename: 'TaskCancelRequested', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

type TenantActivityEvent_TaskCreated_Fragment = { __typename: 'TaskCreated', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

type TenantActivityEvent_TaskFinished_Fragment = { __typename: 'TaskFinished', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

type TenantActivityEvent_TaskHeartbeat_Fragment = { __typename: 'TaskHeartbeat', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

type TenantActivityEvent_TaskOutput_Fragment = { __typename: 'TaskOutput', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

type TenantActivityEvent_TaskProgress_Fragment = { __typename: 'TaskProgress', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

type TenantActivityEvent_TaskReattached_Fragment = { __typename: 'TaskReattached', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

type TenantActivityEvent_TaskStarted_Fragment = { __typename: 'TaskStarted', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

type TenantActivityEvent_TaskStatus_Fragment = { __typename: 'TaskStatus', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

type TenantActivityEvent_ToolBatchCompleted_Fragment = { __typename: 'ToolBatchCompleted', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

type TenantActivityEvent_ToolCallApproved_Fragment = { __typename: 'ToolCallApproved', callId: string, batchId: string, tool: string, type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

type TenantActivityEvent_ToolCallAwaitingApproval_Fragment = { __typename: 'ToolCallAwaitingApproval', callId: string, batchId: string, tool: string, args: unknown, type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

type TenantActivityEvent_ToolCallAwaitingCompletion_Fragment = { __typename: 'ToolCallAwaitingCompletion', callId: string, batchId: string, tool: string, type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

type TenantActivityEvent_ToolCallCompleted_Fragment = { __typename: 'ToolCallCompleted', callId: string, batchId: string, tool: string, type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

type TenantActivityEvent_ToolCallProgress_Fragment = { __typename: 'ToolCallProgress', callId: string, batchId: string, tool: string, type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

type TenantActivityEvent_ToolCallRetrying_Fragment = { __typename: 'ToolCallRetrying', callId: string, batchId: string, tool: string, type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

type TenantActivityEvent_ToolCallStarted_Fragment = { __typename: 'ToolCallStarted', callId: string, batchId: string, tool: string, type: string, cursor: string, tenantSeq: number, sessionId: string, at: string };

export type TenantActivityEventFragment =
  | TenantActivityEvent_CursorExpired_Fragment
  | TenantActivityEvent_SessionCreated_Fragment
  | TenantActivityEvent_TaskCancelRequested_Fragment
  | TenantActivityEvent_TaskCreated_Fragment
  | TenantActivityEvent_TaskFinished_Fragment
  | TenantActivityEvent_TaskHeartbeat_Fragment
  | TenantActivityEvent_TaskOutput_Fragment
  | TenantActivityEvent_TaskProgress_Fragment
  | TenantActivityEvent_TaskReattached_Fragment
  | TenantActivityEvent_TaskStarted_Fragment
  | TenantActivityEvent_TaskStatus_Fragment
  | TenantActivityEvent_ToolBatchCompleted_Fragment
  | TenantActivityEvent_ToolCallApproved_Fragment
  | TenantActivityEvent_ToolCallAwaitingApproval_Fragment
  | TenantActivityEvent_ToolCallAwaitingCompletion_Fragment
  | TenantActivityEvent_ToolCallCompleted_Fragment
  | TenantActivityEvent_ToolCallProgress_Fragment
  | TenantActivityEvent_ToolCallRetrying_Fragment
  | TenantActivityEvent_ToolCallStarted_Fragment
;

export type TenantActivitySubscriptionVariables = Exact<{
  after?: string | null | undefined;
  types?: Array<EventType> | EventType | null | undefined;
}>;


export type TenantActivitySubscription = { tenantEventBatches: { cursor: string, events: Array<
      | { __typename: 'CursorExpired', oldestCursor: string, type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
      | { __typename: 'SessionCreated', title: string | null, createdAt: string, type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
      | { __typename: 'TaskCancelRequested', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
      | { __typename: 'TaskCreated', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
      | { __typename: 'TaskFinished', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
      | { __typename: 'TaskHeartbeat', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
      | { __typename: 'TaskOutput', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
      | { __typename: 'TaskProgress', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
      | { __typename: 'TaskReattached', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
      | { __typename: 'TaskStarted', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
      | { __typename: 'TaskStatus', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
      | { __typename: 'ToolBatchCompleted', type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
      | { __typename: 'ToolCallApproved', callId: string, batchId: string, tool: string, type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
      | { __typename: 'ToolCallAwaitingApproval', callId: string, batchId: string, tool: string, args: unknown, type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
      | { __typename: 'ToolCallAwaitingCompletion', callId: string, batchId: string, tool: string, type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
      | { __typename: 'ToolCallCompleted', callId: string, batchId: string, tool: string, type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
      | { __typename: 'ToolCallProgress', callId: string, batchId: string, tool: string, type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
      | { __typename: 'ToolCallRetrying', callId: string, batchId: string, tool: string, type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
      | { __typename: 'ToolCallStarted', callId: string, batchId: string, tool: string, type: string, cursor: string, tenantSeq: number, sessionId: string, at: string }
    > } };

export const SessionRowFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"SessionRow"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Session"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"lastActivityAt"}},{"kind":"Field","name":{"kind":"Name","value":"callCounts"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"total"}},{"kind":"Field","name":{"kind":"Name","value":"unfinished"}},{"kind":"Field","name":{"kind":"Name","value":"awaitingApproval"}}]}},{"kind":"Field","name":{"kind":"Name","value":"batches"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"1"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}}]}}]}}]} as unknown as DocumentNode<SessionRowFragment, unknown>;
export const BatchSummaryFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BatchSummary"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatch"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"callCount"}},{"kind":"Field","name":{"kind":"Name","value":"pendingCount"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"completedAt"}}]}}]} as unknown as DocumentNode<BatchSummaryFragment, unknown>;
export const BatchPageFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BatchPage"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatchConnection"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"BatchSummary"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BatchSummary"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatch"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"callCount"}},{"kind":"Field","name":{"kind":"Name","value":"pendingCount"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"completedAt"}}]}}]} as unknown as DocumentNode<BatchPageFragment, unknown>;
export const ActivityEventFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ActivityEvent"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"callId"}},{"kind":"Field","name":{"kind":"Name","value":"batchId"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatchCompleted"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}}]}}]}}]} as unknown as DocumentNode<ActivityEventFragment, unknown>;
export const CallRowFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"CallRow"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCall"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"callId"}},{"kind":"Field","name":{"kind":"Name","value":"tool"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"attempt"}},{"kind":"Field","name":{"kind":"Name","value":"maxAttempts"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"queuedAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"completedAt"}},{"kind":"Field","name":{"kind":"Name","value":"durationMs"}},{"kind":"Field","name":{"kind":"Name","value":"deadlineAt"}}]}}]} as unknown as DocumentNode<CallRowFragment, unknown>;
export const TaskRowFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TaskRow"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Task"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"taskId"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"tool"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"stateDetail"}},{"kind":"Field","name":{"kind":"Name","value":"summary"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"heartbeatAt"}},{"kind":"Field","name":{"kind":"Name","value":"outputTail"}},{"kind":"Field","name":{"kind":"Name","value":"outputTruncated"}},{"kind":"Field","name":{"kind":"Name","value":"progress"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"current"}},{"kind":"Field","name":{"kind":"Name","value":"total"}},{"kind":"Field","name":{"kind":"Name","value":"unit"}},{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]} as unknown as DocumentNode<TaskRowFragment, unknown>;
export const TaskPageFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TaskPage"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TaskConnection"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TaskRow"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TaskRow"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Task"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"taskId"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"tool"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"stateDetail"}},{"kind":"Field","name":{"kind":"Name","value":"summary"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"heartbeatAt"}},{"kind":"Field","name":{"kind":"Name","value":"outputTail"}},{"kind":"Field","name":{"kind":"Name","value":"outputTruncated"}},{"kind":"Field","name":{"kind":"Name","value":"progress"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"current"}},{"kind":"Field","name":{"kind":"Name","value":"total"}},{"kind":"Field","name":{"kind":"Name","value":"unit"}},{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]} as unknown as DocumentNode<TaskPageFragment, unknown>;
export const CallEventFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"CallEvent"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"callId"}},{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"tool"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallStarted"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"attempt"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallCompleted"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"durationMs"}},{"kind":"Field","name":{"kind":"Name","value":"attempt"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallRetrying"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"nextAttempt"}},{"kind":"Field","name":{"kind":"Name","value":"delayMs"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallProgress"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"progress"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"current"}},{"kind":"Field","name":{"kind":"Name","value":"total"}},{"kind":"Field","name":{"kind":"Name","value":"unit"}},{"kind":"Field","name":{"kind":"Name","value":"label"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatchCompleted"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"total"}},{"kind":"Field","name":{"kind":"Name","value":"succeeded"}},{"kind":"Field","name":{"kind":"Name","value":"failed"}},{"kind":"Field","name":{"kind":"Name","value":"cancelled"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CursorExpired"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"oldestCursor"}}]}}]}}]} as unknown as DocumentNode<CallEventFragment, unknown>;
export const TaskStreamEventFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TaskStreamEvent"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TaskEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"taskId"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TaskStatus"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"text"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TaskProgress"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"progress"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"current"}},{"kind":"Field","name":{"kind":"Name","value":"total"}},{"kind":"Field","name":{"kind":"Name","value":"unit"}},{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TaskOutput"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"text"}},{"kind":"Field","name":{"kind":"Name","value":"stream"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TaskFinished"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"summary"}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TaskCreated"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"tool"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CursorExpired"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"oldestCursor"}}]}}]}}]} as unknown as DocumentNode<TaskStreamEventFragment, unknown>;
export const TenantActivityEventFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TenantActivityEvent"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"tenantSeq"}},{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"callId"}},{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"tool"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallAwaitingApproval"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"args"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionCreated"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CursorExpired"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"oldestCursor"}}]}}]}}]} as unknown as DocumentNode<TenantActivityEventFragment, unknown>;
export const ViewerDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Viewer"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"viewer"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"apiKeyId"}},{"kind":"Field","name":{"kind":"Name","value":"roles"}}]}},{"kind":"Field","name":{"kind":"Name","value":"tenantSettings"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tenantName"}}]}}]}}]} as unknown as DocumentNode<ViewerQuery, ViewerQueryVariables>;
export const SessionsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Sessions"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"filter"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"SessionFilter"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessions"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}},{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"Variable","name":{"kind":"Name","value":"filter"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"SessionRow"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"SessionRow"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Session"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"lastActivityAt"}},{"kind":"Field","name":{"kind":"Name","value":"callCounts"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"total"}},{"kind":"Field","name":{"kind":"Name","value":"unfinished"}},{"kind":"Field","name":{"kind":"Name","value":"awaitingApproval"}}]}},{"kind":"Field","name":{"kind":"Name","value":"batches"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"1"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}}]}}]}}]} as unknown as DocumentNode<SessionsQuery, SessionsQueryVariables>;
export const SessionRowsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"SessionRows"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"ids"}},"type":{"kind":"NonNullType","type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"nodes"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"ids"},"value":{"kind":"Variable","name":{"kind":"Name","value":"ids"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Session"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"SessionRow"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"SessionRow"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Session"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"lastActivityAt"}},{"kind":"Field","name":{"kind":"Name","value":"callCounts"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"total"}},{"kind":"Field","name":{"kind":"Name","value":"unfinished"}},{"kind":"Field","name":{"kind":"Name","value":"awaitingApproval"}}]}},{"kind":"Field","name":{"kind":"Name","value":"batches"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"1"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}}]}}]}}]} as unknown as DocumentNode<SessionRowsQuery, SessionRowsQueryVariables>;
export const SessionTitlesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"SessionTitles"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"ids"}},"type":{"kind":"NonNullType","type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"nodes"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"ids"},"value":{"kind":"Variable","name":{"kind":"Name","value":"ids"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Session"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"title"}}]}}]}}]}}]} as unknown as DocumentNode<SessionTitlesQuery, SessionTitlesQueryVariables>;
export const TenantCursorDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"TenantCursor"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"viewer"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tenantId"}}]}},{"kind":"Field","name":{"kind":"Name","value":"tenantSettings"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"lastEventCursor"}}]}}]}}]} as unknown as DocumentNode<TenantCursorQuery, TenantCursorQueryVariables>;
export const SessionViewDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"SessionView"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"session"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"metadata"}},{"kind":"Field","name":{"kind":"Name","value":"lastEventCursor"}},{"kind":"Field","name":{"kind":"Name","value":"recentEvents"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"count"},"value":{"kind":"IntValue","value":"200"}},{"kind":"Argument","name":{"kind":"Name","value":"types"},"value":{"kind":"ListValue","values":[{"kind":"EnumValue","value":"ToolCallStarted"},{"kind":"EnumValue","value":"ToolCallProgress"},{"kind":"EnumValue","value":"ToolCallRetrying"},{"kind":"EnumValue","value":"ToolCallCompleted"},{"kind":"EnumValue","value":"ToolCallAwaitingApproval"},{"kind":"EnumValue","value":"ToolCallApproved"},{"kind":"EnumValue","value":"ToolCallAwaitingCompletion"},{"kind":"EnumValue","value":"ToolBatchCompleted"}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ActivityEvent"}}]}},{"kind":"Field","name":{"kind":"Name","value":"batches"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"50"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"BatchPage"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BatchSummary"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatch"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"callCount"}},{"kind":"Field","name":{"kind":"Name","value":"pendingCount"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"completedAt"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ActivityEvent"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"callId"}},{"kind":"Field","name":{"kind":"Name","value":"batchId"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatchCompleted"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BatchPage"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatchConnection"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"BatchSummary"}}]}}]}}]} as unknown as DocumentNode<SessionViewQuery, SessionViewQueryVariables>;
export const OlderBatchesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"OlderBatches"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"session"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"batches"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"50"}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"BatchPage"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BatchSummary"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatch"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"callCount"}},{"kind":"Field","name":{"kind":"Name","value":"pendingCount"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"completedAt"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BatchPage"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatchConnection"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"BatchSummary"}}]}}]}}]} as unknown as DocumentNode<OlderBatchesQuery, OlderBatchesQueryVariables>;
export const NewestBatchesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"NewestBatches"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"session"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"batches"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"10"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"BatchSummary"}}]}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BatchSummary"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatch"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"callCount"}},{"kind":"Field","name":{"kind":"Name","value":"pendingCount"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"completedAt"}}]}}]} as unknown as DocumentNode<NewestBatchesQuery, NewestBatchesQueryVariables>;
export const BatchHeadDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"BatchHead"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"batchId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"toolBatch"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"batchId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"batchId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"BatchSummary"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BatchSummary"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatch"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"callCount"}},{"kind":"Field","name":{"kind":"Name","value":"pendingCount"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"completedAt"}}]}}]} as unknown as DocumentNode<BatchHeadQuery, BatchHeadQueryVariables>;
export const BatchCallsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"BatchCalls"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"batchId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"toolBatch"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"batchId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"batchId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"BatchSummary"}},{"kind":"Field","name":{"kind":"Name","value":"calls"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"1000"}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"CallRow"}}]}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BatchSummary"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatch"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"callCount"}},{"kind":"Field","name":{"kind":"Name","value":"pendingCount"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"completedAt"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"CallRow"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCall"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"callId"}},{"kind":"Field","name":{"kind":"Name","value":"tool"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"attempt"}},{"kind":"Field","name":{"kind":"Name","value":"maxAttempts"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"queuedAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"completedAt"}},{"kind":"Field","name":{"kind":"Name","value":"durationMs"}},{"kind":"Field","name":{"kind":"Name","value":"deadlineAt"}}]}}]} as unknown as DocumentNode<BatchCallsQuery, BatchCallsQueryVariables>;
export const CallDetailDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"CallDetail"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"callId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"toolCall"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"callId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"callId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"CallRow"}},{"kind":"Field","name":{"kind":"Name","value":"args"}},{"kind":"Field","name":{"kind":"Name","value":"outcome"}},{"kind":"Field","name":{"kind":"Name","value":"rawOutput"}},{"kind":"Field","name":{"kind":"Name","value":"timeoutMs"}},{"kind":"Field","name":{"kind":"Name","value":"scheduling"}},{"kind":"Field","name":{"kind":"Name","value":"decidedAt"}},{"kind":"Field","name":{"kind":"Name","value":"cancelRequestedAt"}},{"kind":"Field","name":{"kind":"Name","value":"output"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolSuccess"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolFailure"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"class"}},{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"retry"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"afterMs"}},{"kind":"Field","name":{"kind":"Name","value":"attempts"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCancellation"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"source"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"modelReturn"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"text"}}]}},{"kind":"Field","name":{"kind":"Name","value":"attempts"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"attempt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"durationMs"}},{"kind":"Field","name":{"kind":"Name","value":"end"}},{"kind":"Field","name":{"kind":"Name","value":"failure"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"CallRow"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCall"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"callId"}},{"kind":"Field","name":{"kind":"Name","value":"tool"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"attempt"}},{"kind":"Field","name":{"kind":"Name","value":"maxAttempts"}},{"kind":"Field","name":{"kind":"Name","value":"position"}},{"kind":"Field","name":{"kind":"Name","value":"queuedAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"completedAt"}},{"kind":"Field","name":{"kind":"Name","value":"durationMs"}},{"kind":"Field","name":{"kind":"Name","value":"deadlineAt"}}]}}]} as unknown as DocumentNode<CallDetailQuery, CallDetailQueryVariables>;
export const SessionMessagesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"SessionMessages"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessionMessages"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"messageId"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"text"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}}]}}]}}]} as unknown as DocumentNode<SessionMessagesQuery, SessionMessagesQueryVariables>;
export const SessionFilesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"SessionFiles"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessionFiles"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"200"}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"path"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"isDirectory"}},{"kind":"Field","name":{"kind":"Name","value":"size"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}}]}}]}}]}}]} as unknown as DocumentNode<SessionFilesQuery, SessionFilesQueryVariables>;
export const SessionFileContentDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"SessionFileContent"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"path"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sessionFile"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"path"},"value":{"kind":"Variable","name":{"kind":"Name","value":"path"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"path"}},{"kind":"Field","name":{"kind":"Name","value":"size"}},{"kind":"Field","name":{"kind":"Name","value":"content"}}]}}]}}]} as unknown as DocumentNode<SessionFileContentQuery, SessionFileContentQueryVariables>;
export const TaskStreamHeadDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"TaskStreamHead"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"session"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"lastEventCursor"}}]}}]}}]} as unknown as DocumentNode<TaskStreamHeadQuery, TaskStreamHeadQueryVariables>;
export const SessionTasksDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"SessionTasks"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tasks"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"50"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TaskPage"}}]}},{"kind":"Field","name":{"kind":"Name","value":"schedules"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"100"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"scheduleId"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"tool"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"enabled"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"pausedAt"}},{"kind":"Field","name":{"kind":"Name","value":"cronExpression"}},{"kind":"Field","name":{"kind":"Name","value":"scheduledAt"}},{"kind":"Field","name":{"kind":"Name","value":"nextTriggerAt"}},{"kind":"Field","name":{"kind":"Name","value":"lastTriggerAt"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TaskRow"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Task"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"taskId"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"tool"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"stateDetail"}},{"kind":"Field","name":{"kind":"Name","value":"summary"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"heartbeatAt"}},{"kind":"Field","name":{"kind":"Name","value":"outputTail"}},{"kind":"Field","name":{"kind":"Name","value":"outputTruncated"}},{"kind":"Field","name":{"kind":"Name","value":"progress"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"current"}},{"kind":"Field","name":{"kind":"Name","value":"total"}},{"kind":"Field","name":{"kind":"Name","value":"unit"}},{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TaskPage"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TaskConnection"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TaskRow"}}]}}]}}]} as unknown as DocumentNode<SessionTasksQuery, SessionTasksQueryVariables>;
export const OlderTasksDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"OlderTasks"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tasks"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"50"}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TaskPage"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TaskRow"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Task"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"taskId"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"tool"}},{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"stateDetail"}},{"kind":"Field","name":{"kind":"Name","value":"summary"}},{"kind":"Field","name":{"kind":"Name","value":"error"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"startedAt"}},{"kind":"Field","name":{"kind":"Name","value":"finishedAt"}},{"kind":"Field","name":{"kind":"Name","value":"heartbeatAt"}},{"kind":"Field","name":{"kind":"Name","value":"outputTail"}},{"kind":"Field","name":{"kind":"Name","value":"outputTruncated"}},{"kind":"Field","name":{"kind":"Name","value":"progress"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"current"}},{"kind":"Field","name":{"kind":"Name","value":"total"}},{"kind":"Field","name":{"kind":"Name","value":"unit"}},{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TaskPage"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TaskConnection"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TaskRow"}}]}}]}}]} as unknown as DocumentNode<OlderTasksQuery, OlderTasksQueryVariables>;
export const ToolsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Tools"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tools"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"displayName"}},{"kind":"Field","name":{"kind":"Name","value":"description"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"parametersSchema"}},{"kind":"Field","name":{"kind":"Name","value":"policy"}},{"kind":"Field","name":{"kind":"Name","value":"scheduling"}},{"kind":"Field","name":{"kind":"Name","value":"timeoutMs"}},{"kind":"Field","name":{"kind":"Name","value":"capability"}},{"kind":"Field","name":{"kind":"Name","value":"hints"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"readonly"}},{"kind":"Field","name":{"kind":"Name","value":"idempotent"}},{"kind":"Field","name":{"kind":"Name","value":"destructive"}},{"kind":"Field","name":{"kind":"Name","value":"openWorld"}},{"kind":"Field","name":{"kind":"Name","value":"supportsBackground"}}]}},{"kind":"Field","name":{"kind":"Name","value":"retry"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"maxAttempts"}}]}}]}}]}}]} as unknown as DocumentNode<ToolsQuery, ToolsQueryVariables>;
export const AwaitingApprovalDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"AwaitingApproval"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"toolCalls"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}},{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"status"},"value":{"kind":"ListValue","values":[{"kind":"EnumValue","value":"AWAITING_APPROVAL"}]}}]}},{"kind":"Argument","name":{"kind":"Name","value":"oldestFirst"},"value":{"kind":"BooleanValue","value":true}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"callId"}},{"kind":"Field","name":{"kind":"Name","value":"tool"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"args"}},{"kind":"Field","name":{"kind":"Name","value":"queuedAt"}},{"kind":"Field","name":{"kind":"Name","value":"batch"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}}]}},{"kind":"Field","name":{"kind":"Name","value":"session"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"title"}}]}}]}}]}}]}}]} as unknown as DocumentNode<AwaitingApprovalQuery, AwaitingApprovalQueryVariables>;
export const SystemStatusDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"SystemStatus"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"systemStatus"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"queues"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"queue"}},{"kind":"Field","name":{"kind":"Name","value":"waiting"}},{"kind":"Field","name":{"kind":"Name","value":"active"}},{"kind":"Field","name":{"kind":"Name","value":"delayed"}},{"kind":"Field","name":{"kind":"Name","value":"failed"}}]}},{"kind":"Field","name":{"kind":"Name","value":"workersAlive"}},{"kind":"Field","name":{"kind":"Name","value":"eventLag"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"windowMs"}},{"kind":"Field","name":{"kind":"Name","value":"messages"}},{"kind":"Field","name":{"kind":"Name","value":"medianMs"}},{"kind":"Field","name":{"kind":"Name","value":"maxMs"}},{"kind":"Field","name":{"kind":"Name","value":"lastAt"}}]}},{"kind":"Field","name":{"kind":"Name","value":"tenantCalls"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"queued"}},{"kind":"Field","name":{"kind":"Name","value":"awaitingApproval"}},{"kind":"Field","name":{"kind":"Name","value":"running"}},{"kind":"Field","name":{"kind":"Name","value":"pendingExternal"}}]}}]}}]}}]} as unknown as DocumentNode<SystemStatusQuery, SystemStatusQueryVariables>;
export const CreateSessionDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CreateSession"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"title"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createSession"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"title"},"value":{"kind":"Variable","name":{"kind":"Name","value":"title"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Session"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"sessionId"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Error"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<CreateSessionMutation, CreateSessionMutationVariables>;
export const ExecuteBatchDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"ExecuteBatch"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"calls"}},"type":{"kind":"NonNullType","type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallInput"}}}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"executeToolBatch"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"calls"},"value":{"kind":"Variable","name":{"kind":"Name","value":"calls"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatch"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"BatchSummary"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Error"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"BatchSummary"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatch"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"callCount"}},{"kind":"Field","name":{"kind":"Name","value":"pendingCount"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"completedAt"}}]}}]} as unknown as DocumentNode<ExecuteBatchMutation, ExecuteBatchMutationVariables>;
export const CancelBatchDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CancelBatch"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"batchId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cancelToolBatch"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"batchId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"batchId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatch"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Error"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<CancelBatchMutation, CancelBatchMutationVariables>;
export const CancelCallDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CancelCall"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"callId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cancelToolCall"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"callId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"callId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCall"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"callId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Error"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<CancelCallMutation, CancelCallMutationVariables>;
export const ApproveCallDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"ApproveCall"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"callId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"approveToolCall"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"callId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"callId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCall"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"callId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Error"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<ApproveCallMutation, ApproveCallMutationVariables>;
export const RejectCallDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"RejectCall"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"callId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"reason"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rejectToolCall"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"callId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"callId"}}},{"kind":"Argument","name":{"kind":"Name","value":"reason"},"value":{"kind":"Variable","name":{"kind":"Name","value":"reason"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCall"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"callId"}},{"kind":"Field","name":{"kind":"Name","value":"status"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Error"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<RejectCallMutation, RejectCallMutationVariables>;
export const CancelTaskDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CancelTask"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cancelTask"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Task"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"state"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Error"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<CancelTaskMutation, CancelTaskMutationVariables>;
export const PauseScheduleDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"PauseSchedule"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"pauseSchedule"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Schedule"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"status"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Error"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<PauseScheduleMutation, PauseScheduleMutationVariables>;
export const ResumeScheduleDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"ResumeSchedule"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"resumeSchedule"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Schedule"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"status"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Error"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<ResumeScheduleMutation, ResumeScheduleMutationVariables>;
export const TriggerScheduleDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"TriggerSchedule"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"triggerSchedule"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Task"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"taskId"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Error"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<TriggerScheduleMutation, TriggerScheduleMutationVariables>;
export const CancelScheduleDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CancelSchedule"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cancelSchedule"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Schedule"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"enabled"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Error"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<CancelScheduleMutation, CancelScheduleMutationVariables>;
export const ToolCallEventsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"ToolCallEvents"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"toolCallEventBatches"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"events"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"CallEvent"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"CallEvent"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"callId"}},{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"tool"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallStarted"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"attempt"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallCompleted"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"durationMs"}},{"kind":"Field","name":{"kind":"Name","value":"attempt"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallRetrying"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"nextAttempt"}},{"kind":"Field","name":{"kind":"Name","value":"delayMs"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallProgress"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"progress"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"current"}},{"kind":"Field","name":{"kind":"Name","value":"total"}},{"kind":"Field","name":{"kind":"Name","value":"unit"}},{"kind":"Field","name":{"kind":"Name","value":"label"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolBatchCompleted"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"total"}},{"kind":"Field","name":{"kind":"Name","value":"succeeded"}},{"kind":"Field","name":{"kind":"Name","value":"failed"}},{"kind":"Field","name":{"kind":"Name","value":"cancelled"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CursorExpired"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"oldestCursor"}}]}}]}}]} as unknown as DocumentNode<ToolCallEventsSubscription, ToolCallEventsSubscriptionVariables>;
export const TaskEventsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"TaskEvents"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"taskEventBatches"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sessionId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sessionId"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"events"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TaskStreamEvent"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TaskStreamEvent"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TaskEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"taskId"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TaskStatus"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"text"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TaskProgress"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"progress"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"current"}},{"kind":"Field","name":{"kind":"Name","value":"total"}},{"kind":"Field","name":{"kind":"Name","value":"unit"}},{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TaskOutput"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"text"}},{"kind":"Field","name":{"kind":"Name","value":"stream"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TaskFinished"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"summary"}},{"kind":"Field","name":{"kind":"Name","value":"error"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TaskCreated"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"state"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"tool"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CursorExpired"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"oldestCursor"}}]}}]}}]} as unknown as DocumentNode<TaskEventsSubscription, TaskEventsSubscriptionVariables>;
export const TenantActivityDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"TenantActivity"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"types"}},"type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"EventType"}}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"tenantEventBatches"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}},{"kind":"Argument","name":{"kind":"Name","value":"types"},"value":{"kind":"Variable","name":{"kind":"Name","value":"types"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"events"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TenantActivityEvent"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TenantActivityEvent"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"tenantSeq"}},{"kind":"Field","name":{"kind":"Name","value":"sessionId"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"callId"}},{"kind":"Field","name":{"kind":"Name","value":"batchId"}},{"kind":"Field","name":{"kind":"Name","value":"tool"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"ToolCallAwaitingApproval"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"args"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"SessionCreated"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}}]}},{"kind":"InlineFragment","typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"CursorExpired"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"oldestCursor"}}]}}]}}]} as unknown as DocumentNode<TenantActivitySubscription, TenantActivitySubscriptionVariables>;