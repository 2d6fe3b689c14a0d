// The event catalogue: every event a session's log holds, by type name, with its payload. The
// writers (domain/sessions/sessions.ts, domain/calls/call-transitions.ts,
// domain/tasks/task-transitions.ts), the GraphQL event types (schema/events.ts,
// schema/task-events.ts) and the stream filters all read it from here.
import type { TaskState } from '../generated/prisma/client.js';
import type { ToolCallOutput, ToolFailure } from './outcome.js';

/** What a running tool reports about how far it got. */
export interface ToolProgress {
  current?: number;
  total?: number;
  unit?: string;
  label?: string;
  message?: string;
}

interface OfCall {
  tool: string;
}

interface OfTask {
  /** `background_tool` or `monitor`. */
  kind: string;
  runId: string | null;
}

export interface EventPayloads {
  /** A session's first event (seq 1), written with its row; sessions created before it existed have none. */
  SessionCreated: { title: string | null; metadata: unknown; createdAt: string };
  /** Only for an attempt that really starts (its call's `startedAt` is set); a call that ends without running gets only ToolCallCompleted. */
  ToolCallStarted: OfCall & { attempt: number; maxAttempts: number; startedAt: string };
  ToolCallProgress: OfCall & { attempt: number; progress: ToolProgress };
  ToolCallRetrying: OfCall & { attempt: number; failure: ToolFailure; delayMs: number; nextAttempt: number };
  ToolCallCompleted: OfCall & {
    status: 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
    output: ToolCallOutput;
    attempt: number;
    durationMs: number;
    completedAt: string;
  };
  ToolCallAwaitingApproval: OfCall & { args: unknown };
  ToolCallApproved: OfCall & { decidedAt: string };
  ToolCallAwaitingCompletion: OfCall & { args: unknown; attempt: number; maxAttempts: number; timeoutMs: number; deadline: string };
  ToolBatchCompleted: { total: number; succeeded: number; failed: number; cancelled: number; completedAt: string };
  /** `stateDetail`: the status text at creation (`Queued` for a run); absent in events written before it was recorded. */
  TaskCreated: OfTask & { state: TaskState; stateDetail?: string | null; title: string | null; tool: string | null; attempt: number; scheduleId: string | null };
  TaskStarted: OfTask & { attempt: number; workerId: string; logPath: string | null; resultPath: string | null };
  TaskStatus: OfTask & { attempt: number; text: string };
  TaskProgress: OfTask & { attempt: number; progress: ToolProgress };
  TaskOutput: OfTask & { attempt: number; stream: 'stdout' | 'stderr'; text: string; truncated: boolean };
  TaskHeartbeat: OfTask & { attempt: number; at: string };
  TaskCancelRequested: OfTask & { attempt: number };
  TaskReattached: OfTask & { attempt: number; previousRunId: string | null; reason: string; logPath: string | null; resultPath: string | null };
  TaskFinished: OfTask & {
    state: TaskState;
    attempt: number;
    summary: string | null;
    error: string | null;
    resultPath: string | null;
    logPath: string | null;
  };
  /** Never stored: a stream yields it instead of events older than the retention. */
  CursorExpired: { message: string; oldestCursor: string };
}

export type EventType = keyof EventPayloads;
/** The events of the session itself. */
export const SESSION_EVENT_TYPES = ['SessionCreated'] as const satisfies readonly EventType[];
/** The events of one call, and of one batch. */
export const CALL_EVENT_TYPES = [
  'ToolCallStarted',
  'ToolCallProgress',
  'ToolCallRetrying',
  'ToolCallCompleted',
  'ToolCallAwaitingApproval',
  'ToolCallApproved',
  'ToolCallAwaitingCompletion',
  'ToolBatchCompleted',
] as const satisfies readonly EventType[];
export const TASK_EVENT_TYPES = [
  'TaskCreated',
  'TaskStarted',
  'TaskStatus',
  'TaskProgress',
  'TaskOutput',
  'TaskHeartbeat',
  'TaskCancelRequested',
  'TaskReattached',
  'TaskFinished',
] as const satisfies readonly EventType[];
export type CallEventType = Exclude<(typeof CALL_EVENT_TYPES)[number], 'ToolBatchCompleted'>;
export type TaskEventType = (typeof TASK_EVENT_TYPES)[number];
/** The types the event log stores. */
export type StoredEventType = Exclude<EventType, 'CursorExpired'>;

interface Envelope {
  tenantId: string;
  sessionId: string;
  /** Dense per session: commit order. */
  seq: number;
  /** Dense per tenant: the tenant-wide commit order. */
  tenantSeq: number;
  batchId: string | null;
  callId: string | null;
  taskId: string | null;
  createdAt: string;
}

/** An event as the log stores and streams deliver it. */
export type SessionEvent<T extends EventType = EventType> = T extends EventType ? Envelope & { type: T; payload: EventPayloads[T] } : never;

/** An event a transition emits; the event log gives it its sequences and time. */
export type EventDraft<T extends StoredEventType = StoredEventType> = T extends StoredEventType
  ? { sessionId: string; type: T; batchId?: string | null; callId?: string | null; taskId?: string | null; payload: EventPayloads[T] }
  : never;

export function isEventOf<T extends EventType>(types: readonly T[], event: SessionEvent): event is SessionEvent<T> {
  return (types as readonly EventType[]).includes(event.type);
}
