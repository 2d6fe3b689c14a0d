// The GraphQL documents the CLI sends, with the shapes of their answers.
import { CliError } from './transport.js';
export const EVENT_FIELDS = `
  __typename cursor seq
  ... on ToolCallEvent { callId tool }
  ... on ToolCallStarted { attempt maxAttempts }
  ... on ToolCallProgress { attempt progress { current total unit label message } }
  ... on ToolCallCompleted {
    status durationMs attempt
    output { __typename ... on ToolSuccess { value } ... on ToolFailure { class code message } ... on ToolCancellation { message } }
  }
  ... on ToolCallAwaitingApproval { callId }
  ... on ToolCallApproved { decidedAt }
  ... on ToolCallAwaitingCompletion { attempt maxAttempts deadline }
  ... on ToolCallRetrying { attempt nextAttempt delayMs failure { class code message } }
  ... on ToolBatchCompleted { batchId total succeeded failed cancelled }
  ... on CursorExpired { message }
`;

export interface Progress {
  current: number | null;
  total: number | null;
  unit: string | null;
  label: string | null;
  message: string | null;
}

export type Output =
  | { __typename: 'ToolSuccess'; value: unknown }
  | { __typename: 'ToolFailure'; class: string; code: string; message: string }
  | { __typename: 'ToolCancellation'; message: string };

export interface CallEvent {
  __typename: string;
  cursor: string;
  seq: number;
  callId?: string;
  tool?: string;
  attempt?: number;
  maxAttempts?: number;
  progress?: Progress;
  status?: string;
  durationMs?: number;
  output?: Output;
  batchId?: string;
  message?: string;
  /** ToolCallRetrying: the attempt that comes next, after `delayMs`, and why the last one failed. */
  nextAttempt?: number;
  delayMs?: number;
  failure?: { class: string; code: string; message: string };
  /** ToolCallAwaitingCompletion: until when the call waits for its completion. */
  deadline?: string;
}

/** A session's call events, several per message (what arrived together is drawn once). */
export const TOOL_CALL_EVENTS = `subscription CliEvents($sessionId: ID!, $after: String) {
  toolCallEventBatches(sessionId: $sessionId, after: $after) { cursor events { ${EVENT_FIELDS} } }
}`;

export interface CallEvents {
  toolCallEventBatches: { cursor: string; events: CallEvent[] };
}

export const CREATE_SESSION = `mutation CliCreateSession($title: String) {
  createSession(title: $title) { __typename ... on Session { id lastEventCursor } ... on Error { code message } }
}`;

export const SESSION_CURSOR = `query CliSession($id: ID!) { session(id: $id) { id lastEventCursor } }`;

export const EXECUTE = `mutation CliExecute($sessionId: ID!, $calls: [ToolCallInput!]!) {
  executeToolBatch(sessionId: $sessionId, calls: $calls) {
    __typename ... on ToolBatch { batchId eventCursor } ... on Error { code message }
  }
}`;

const PAGE_INFO = 'pageInfo { hasNextPage endCursor }';

export interface PageInfo {
  hasNextPage: boolean;
  endCursor: string | null;
}

const CALL_FIELDS = 'callId tool status attempt durationMs queuedAt output { __typename ... on ToolFailure { class code } }';

export const SESSION_CALLS = `query CliCalls($id: ID!, $first: Int, $after: String) {
  session(id: $id) { id batches(first: $first, after: $after) { ${PAGE_INFO} nodes { batchId status calls(first: 100) { ${PAGE_INFO} nodes { ${CALL_FIELDS} } } } } }
}`;

/** The calls of one batch after the first page that SESSION_CALLS read (1,000 a page, the most a batch holds). */
export const BATCH_CALLS = `query CliBatchCalls($sessionId: ID!, $batchId: String!, $after: String) {
  toolBatch(sessionId: $sessionId, batchId: $batchId) { calls(first: 1000, after: $after) { ${PAGE_INFO} nodes { ${CALL_FIELDS} } } }
}`;

export const CANCEL_CALL = `mutation CliCancelCall($sessionId: ID!, $callId: String!) {
  cancelToolCall(sessionId: $sessionId, callId: $callId) { __typename ... on ToolCall { callId status cancelRequestedAt } ... on Error { code message } }
}`;

export const APPROVE_CALL = `mutation CliApproveCall($sessionId: ID!, $callId: String!) {
  approveToolCall(sessionId: $sessionId, callId: $callId) { __typename ... on ToolCall { callId status } ... on Error { code message } }
}`;

export const REJECT_CALL = `mutation CliRejectCall($sessionId: ID!, $callId: String!, $reason: String!) {
  rejectToolCall(sessionId: $sessionId, callId: $callId, reason: $reason) { __typename ... on ToolCall { callId status } ... on Error { code message } }
}`;

export const SESSION_TASKS = `query CliTasks($sessionId: ID!, $first: Int, $after: String) {
  tasks(sessionId: $sessionId, first: $first, after: $after) { ${PAGE_INFO} nodes { taskId kind state stateDetail title tool createdAt finishedAt } }
}`;

export const CANCEL_TASK = `mutation CliCancelTask($id: ID!) {
  cancelTask(id: $id) { __typename ... on Task { taskId state cancelRequestedAt } ... on Error { code message } }
}`;

/** A member of a result union: the object, or its Error member's message. */
export type Result<T> = (T & { __typename: string }) | { __typename: string; code: string; message: string };

/** The object of a result union, or a CliError with its Error member's code and message. */
export function unwrap<T>(result: Result<T>, typename: string): T {
  if (result.__typename === typename) return result as T;
  const error = result as { code?: string; message?: string };
  throw new CliError(`${error.code ?? result.__typename}: ${error.message ?? 'failed'}`);
}

const API_KEY_FIELDS = 'id prefix name roles active createdAt expiresAt revokedAt lastUsedAt';

export interface ApiKeyRow {
  id: string;
  prefix: string;
  name: string;
  roles: string[];
  active: boolean;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface IssuedKey {
  key: string;
  apiKey: ApiKeyRow;
  previous: ApiKeyRow | null;
}

export const API_KEYS = `query CliApiKeys { apiKeys { ${API_KEY_FIELDS} } }`;

export const CREATE_API_KEY = `mutation CliCreateApiKey($name: String!, $roles: [Role!]!, $expiresAt: DateTime) {
  createApiKey(name: $name, roles: $roles, expiresAt: $expiresAt) {
    __typename ... on IssuedApiKey { key apiKey { ${API_KEY_FIELDS} } previous { ${API_KEY_FIELDS} } } ... on Error { code message }
  }
}`;

export const REVOKE_API_KEY = `mutation CliRevokeApiKey($id: String!) {
  revokeApiKey(id: $id) { __typename ... on ApiKey { ${API_KEY_FIELDS} } ... on Error { code message } }
}`;

export const ROTATE_API_KEY = `mutation CliRotateApiKey($id: String!, $overlapSeconds: Int!) {
  rotateApiKey(id: $id, overlapSeconds: $overlapSeconds) {
    __typename ... on IssuedApiKey { key apiKey { ${API_KEY_FIELDS} } previous { ${API_KEY_FIELDS} } } ... on Error { code message }
  }
}`;
