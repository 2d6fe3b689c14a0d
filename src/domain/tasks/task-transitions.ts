// State transitions of tasks (background runs and schedule monitors). Each runs inside an
// EventLog write — the session row is locked, so reading a task and then updating it is race
// free — and emits the events announcing it. Writes from a worker are fenced by attempt: once a
// run was re-attached (attempt + 1) or finished, a write of the superseded attempt changes
// nothing and reports `null`/`false`, which tells that worker to stop.
import type { Db } from '../../db.js';
import { Prisma, type Task } from '../../generated/prisma/client.js';
import {
  CANCELED_LINE,
  completionMessage,
  type FinishedState,
  type OutputStream,
  resultDocument,
  type RunArtifacts,
} from './background-output.js';
import type { EventDraft, EventPayloads, TaskEventType, ToolProgress } from '../../model/events.js';
import type { PrismaWriteScope } from '../event-log.js';
import { ToolFailureError } from '../../model/outcome.js';
import { displayable, toStorable } from '../../model/storable-json.js';
import { PrismaSessionFiles } from '../sessions/session-files.js';
import { BACKGROUND_RUN_MESSAGE } from '../sessions/sessions.js';

export const TASK_KINDS = { background: 'background_tool', monitor: 'monitor' } as const;
export type TaskState = Task['state'];
export const ACTIVE_TASK_STATES: readonly TaskState[] = ['QUEUED', 'RUNNING'];
export const FINISHED_TASK_STATES: readonly TaskState[] = ['SUCCEEDED', 'FAILED', 'CANCELED'];

/** What a background run's spec records (the monitor's adds the schedule). */
export interface BackgroundSpec {
  tool: string;
  args: Record<string, unknown>;
  title: string;
  signalOnCompletion: boolean;
  /** Informational only: recovery checks the live tool definition, never this. */
  reattachable: boolean;
  [key: string]: unknown;
}

export function specOf(task: Pick<Task, 'spec'>): BackgroundSpec {
  return task.spec as unknown as BackgroundSpec;
}

export function taskEvent<T extends TaskEventType>(type: T, task: Pick<Task, 'id' | 'sessionId' | 'kind' | 'runId'>, payload: Omit<EventPayloads[T], 'kind' | 'runId'>): EventDraft<T> {
  return { sessionId: task.sessionId, type, taskId: task.id, payload: { kind: task.kind, runId: task.runId, ...payload } } as EventDraft<T>;
}

/**
 * The session file store inside the write's transaction. Only single-statement operations
 * (writeFile, appendFile, mkdir, stat) are used through it, which a transaction client supports.
 */
export function filesIn(scope: Pick<PrismaWriteScope, 'tx'>, sessionId: string): PrismaSessionFiles {
  return new PrismaSessionFiles(scope.tx as unknown as Db, sessionId);
}

/**
 * Writes an artifact. A refusal of the file store (say, the session made `/.background` a file)
 * must not wedge the run's state change: it is detected before any statement fails, so the
 * transaction stays usable, and the run goes on without that artifact.
 */
async function writeArtifact(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!(error instanceof ToolFailureError)) throw error;
  }
}

export async function createTask(scope: PrismaWriteScope, data: Prisma.TaskUncheckedCreateInput): Promise<Task> {
  const task = await scope.tx.task.create({ data });
  scope.emit(
    taskEvent('TaskCreated', task, { state: task.state, stateDetail: task.stateDetail, title: task.title, tool: task.tool, attempt: task.attempt, scheduleId: task.scheduleId }),
  );
  return task;
}

/** The task, locked until the end of the write (so reading it, then updating it, is race free). */
async function lockedTask(scope: PrismaWriteScope, taskId: string): Promise<Task | null> {
  await scope.tx.$queryRawUnsafe(`SELECT id::text FROM task WHERE id = $1::uuid FOR UPDATE`, taskId);
  return scope.tx.task.findUnique({ where: { id: taskId } });
}

const STARTING = 'Starting';

/** QUEUED(attempt) → RUNNING on this worker; creates the (empty) output log. */
export async function claimTask(scope: PrismaWriteScope, taskId: string, attempt: number, workerId: string): Promise<Task | null> {
  const current = await lockedTask(scope, taskId);
  if (!current || current.state !== 'QUEUED' || current.attempt !== attempt || current.cancelRequestedAt) return null;
  const now = new Date();
  const task = await scope.tx.task.update({
    where: { id: taskId },
    data: { state: 'RUNNING', workerId, heartbeatAt: now, startedAt: now, stateDetail: STARTING },
  });
  if (task.logPath) await writeArtifact(() => filesIn(scope, task.sessionId).writeFile(task.logPath!, ''));
  scope.emit(taskEvent('TaskStarted', task, { attempt, workerId, logPath: task.logPath, resultPath: task.resultPath }));
  // The seed's first status of a run, before the tool reports its own.
  scope.emit(taskEvent('TaskStatus', task, { attempt, text: STARTING }));
  return task;
}

/**
 * Records that `attempt` is alive (with a TaskHeartbeat when `announce`). Null when the attempt is
 * superseded (re-attached, finished): nothing is written then. Otherwise tells whether cancellation
 * was requested.
 */
export async function recordHeartbeat(scope: PrismaWriteScope, taskId: string, attempt: number, announce: boolean): Promise<{ cancelRequested: boolean } | null> {
  const rows = await scope.tx.$queryRawUnsafe<Array<{ sessionId: string; kind: string; runId: string | null; cancelRequested: boolean; at: Date }>>(
    `UPDATE task SET heartbeat_at = now() WHERE id = $1::uuid AND attempt = $2 AND state = 'RUNNING'
     RETURNING session_id::text AS "sessionId", kind, run_id AS "runId", cancel_requested_at IS NOT NULL AS "cancelRequested", heartbeat_at AS at`,
    taskId,
    attempt,
  );
  const row = rows[0];
  if (!row) return null;
  if (announce) scope.emit(taskEvent('TaskHeartbeat', { id: taskId, sessionId: row.sessionId, kind: row.kind, runId: row.runId }, { attempt, at: row.at.toISOString() }));
  return { cancelRequested: row.cancelRequested };
}

export interface OutputChunk {
  stream: OutputStream;
  text: string;
}

/** What a running attempt reports between two flushes. */
export interface ActivityUpdate {
  stateDetail?: string;
  progress?: ToolProgress;
  output?: {
    tail: string;
    logChars: number;
    truncated: boolean;
    /** Appended to output.log. */
    logText: string;
    /** The output that reached the log, in order (consecutive chunks of one stream merged). */
    chunks: OutputChunk[];
    /** The stream whose output reached the log's cap in this update, when one did. */
    truncatedIn: OutputChunk['stream'] | null;
  };
}

function displayableProgress(progress: ToolProgress): ToolProgress {
  return Object.fromEntries(Object.entries(progress).map(([key, value]) => [key, typeof value === 'string' ? displayable(value) : value])) as ToolProgress;
}

/** Status text, progress and output of a running attempt; false when the attempt is superseded. */
export async function recordActivity(scope: PrismaWriteScope, taskId: string, attempt: number, update: ActivityUpdate): Promise<boolean> {
  const current = await lockedTask(scope, taskId);
  if (!current || current.state !== 'RUNNING' || current.attempt !== attempt) return false;
  const data: Prisma.TaskUpdateInput = { heartbeatAt: new Date() };
  // What a tool reports is shown as it is, never refused (the row holds neither NUL nor lone surrogates).
  const stateDetail = update.stateDetail === undefined ? undefined : displayable(update.stateDetail);
  const progress = update.progress === undefined ? undefined : displayableProgress(update.progress);
  if (stateDetail !== undefined) data.stateDetail = stateDetail;
  // In the codec's form, as every JSON column (db.ts restores it): a label starting with U+E000 is kept.
  if (progress !== undefined) data.progress = toStorable(progress) as Prisma.InputJsonValue;
  if (update.output) {
    data.outputTail = update.output.tail;
    data.outputSize = update.output.logChars;
    data.outputTruncated = update.output.truncated;
  }
  const task = await scope.tx.task.update({ where: { id: taskId }, data });
  if (update.output?.logText && task.logPath) await writeArtifact(() => filesIn(scope, task.sessionId).appendFile(task.logPath!, update.output!.logText));
  const emit = (draft: EventDraft) => scope.emit(draft);
  if (stateDetail !== undefined) emit(taskEvent('TaskStatus', task, { attempt, text: stateDetail }));
  if (progress !== undefined) emit(taskEvent('TaskProgress', task, { attempt, progress }));
  for (const chunk of update.output?.chunks ?? []) emit(taskEvent('TaskOutput', task, { attempt, stream: chunk.stream, text: chunk.text, truncated: false }));
  if (update.output?.truncatedIn) emit(taskEvent('TaskOutput', task, { attempt, stream: update.output.truncatedIn, text: '', truncated: true }));
  return true;
}

/** Records a cancellation request of a running task (idempotent); true when newly recorded. */
export async function requestTaskCancel(scope: PrismaWriteScope, taskId: string): Promise<boolean> {
  const current = await lockedTask(scope, taskId);
  if (!current || current.state !== 'RUNNING' || current.cancelRequestedAt) return false;
  const task = await scope.tx.task.update({ where: { id: taskId }, data: { cancelRequestedAt: new Date(), stateDetail: 'Cancel requested' } });
  scope.emit(taskEvent('TaskCancelRequested', task, { attempt: task.attempt }));
  return true;
}

export interface FinishInput {
  state: FinishedState;
  summary: string;
  error?: string | null;
  /** The run's result (success), written to result.json. */
  result?: unknown;
}

/** Which writer may finish the task: the worker of one attempt, or anyone while it is queued or active. */
export type FinishFence = { attempt: number } | { states: readonly TaskState[] };

/**
 * Ends a task. For a background run, also writes its artifacts (the log ends with the cancel
 * line when canceled; result.json) and, with signalOnCompletion, the session message.
 */
export async function finishTask(scope: PrismaWriteScope, taskId: string, fence: FinishFence, input: FinishInput): Promise<Task | null> {
  const current = await lockedTask(scope, taskId);
  if (!current || !ACTIVE_TASK_STATES.includes(current.state)) return null;
  if ('attempt' in fence ? current.state !== 'RUNNING' || current.attempt !== fence.attempt : !fence.states.includes(current.state)) return null;
  const detail = { SUCCEEDED: 'Completed', FAILED: 'Failed', CANCELED: 'Canceled' }[input.state];
  // A tool's own words, shown as they are (never refused for what the row cannot hold).
  const summary = displayable(input.summary);
  const error = input.error ? displayable(input.error) : null;
  const task = await scope.tx.task.update({
    where: { id: taskId },
    data: { state: input.state, summary, error, finishedAt: new Date(), stateDetail: detail },
  });
  if (task.kind === TASK_KINDS.background && task.logPath && task.resultPath && task.runId) {
    const files = filesIn(scope, task.sessionId);
    const { logPath, resultPath } = task;
    await writeArtifact(() => files.appendFile(logPath, input.state === 'CANCELED' ? `\n${CANCELED_LINE}\n` : ''));
    await writeArtifact(() => files.writeFile(resultPath, resultDocument(input.state, { result: input.result, error: error ?? undefined })));
    const spec = specOf(task);
    if (spec.signalOnCompletion) {
      const text = completionMessage(input.state, {
        runId: task.runId,
        title: task.title ?? spec.title,
        tool: task.tool ?? spec.tool,
        summary,
        resultPath: task.resultPath,
        logPath: task.logPath,
      });
      await scope.tx.sessionMessage.create({
        data: { sessionId: task.sessionId, kind: BACKGROUND_RUN_MESSAGE, text, data: { taskId: task.id, runId: task.runId, state: input.state } },
      });
    }
  }
  scope.emit(taskEvent('TaskFinished', task, {
      state: task.state,
      attempt: task.attempt,
      summary: task.summary,
      error: task.error,
      resultPath: task.resultPath,
      logPath: task.logPath,
    }),
  );
  return task;
}

/**
 * A lost attempt starts over as the next one, with new artifact paths; the old log keeps what
 * the lost attempt wrote, plus a line saying where the run went. Null when superseded.
 */
export async function reattachTask(scope: PrismaWriteScope, taskId: string, attempt: number, artifacts: RunArtifacts, reason: string): Promise<Task | null> {
  const current = await lockedTask(scope, taskId);
  if (!current || current.state !== 'RUNNING' || current.attempt !== attempt) return null;
  const task = await scope.tx.task.update({
    where: { id: taskId },
    data: {
      state: 'QUEUED',
      attempt: attempt + 1,
      runId: artifacts.runId,
      logPath: artifacts.logPath,
      resultPath: artifacts.resultPath,
      workerId: null,
      heartbeatAt: null,
      // `startedAt` is when the current attempt started: the next one has not yet.
      startedAt: null,
      progress: Prisma.DbNull,
      outputTail: '',
      outputSize: 0,
      outputTruncated: false,
      stateDetail: `Re-attaching: ${reason}`,
    },
  });
  if (current.logPath) {
    const oldLog = current.logPath;
    await writeArtifact(() => filesIn(scope, task.sessionId).appendFile(oldLog, `\n[system] ${reason}; re-attached as ${artifacts.runId} (attempt ${attempt + 1})\n`));
  }
  scope.emit(taskEvent('TaskReattached', task, {
      attempt: task.attempt,
      previousRunId: current.runId,
      reason,
      logPath: task.logPath,
      resultPath: task.resultPath,
    }),
  );
  return task;
}

/** A status line on a task that has no worker attempt of its own (a schedule's monitor). */
export async function setTaskStatus(scope: PrismaWriteScope, taskId: string, stateDetail: string): Promise<Task | null> {
  const current = await lockedTask(scope, taskId);
  if (!current || !ACTIVE_TASK_STATES.includes(current.state)) return null;
  const task = await scope.tx.task.update({ where: { id: taskId }, data: { stateDetail } });
  scope.emit(taskEvent('TaskStatus', task, { attempt: task.attempt, text: stateDetail }));
  return task;
}
