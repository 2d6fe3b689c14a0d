// The commands that go through the API (every one but `keys`): run, watch, calls, tasks.
import {
  APPROVE_CALL,
  REJECT_CALL,
  BATCH_CALLS,
  CANCEL_CALL,
  CANCEL_TASK,
  type CallEvents,
  CREATE_SESSION,
  EXECUTE,
  type Output,
  type PageInfo,
  type Progress,
  type Result,
  SESSION_CALLS,
  SESSION_CURSOR,
  SESSION_TASKS,
  TOOL_CALL_EVENTS,
  unwrap,
} from './operations.js';
import { LiveBlock, mergeProgress, outputText, printable, progressBar, reconnectingLine, retryText, type Screen, table } from './render.js';
import { CliError, type Transport } from './transport.js';

async function sessionCursor(api: Transport, sessionId: string): Promise<string | null> {
  const { session } = await api.request<{ session: { lastEventCursor: string | null } | null }>(SESSION_CURSOR, { id: sessionId });
  if (!session) throw new CliError(`session ${sessionId} was not found`);
  return session.lastEventCursor;
}

/**
 * `run <tool> --args JSON [--session ID]`: submits one call (in a new session unless one is given),
 * shows its progress live and prints its outcome. Resolves with the exit status: 0 succeeded,
 * 1 failed or cancelled, 130 cancelled by Ctrl-C.
 */
export async function runTool(api: Transport, screen: Screen, options: { tool: string; args: unknown; sessionId?: string }): Promise<number> {
  let sessionId = options.sessionId;
  if (sessionId) {
    await sessionCursor(api, sessionId); // the session must exist (one line if not)
  } else {
    const created = await api.request<{ createSession: Result<{ id: string }> }>(CREATE_SESSION, { title: `toolrun run ${options.tool}` });
    sessionId = unwrap(created.createSession, 'Session').id;
    screen.write(`session ${sessionId}\n`);
  }
  const callId = `cli-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  // The call's line, below it after a Ctrl-C a line saying the call is being cancelled, and while the
  // stream resumes after a break, a line that says so.
  const block = new LiveBlock(screen);
  let shown = '';
  let reconnecting = false;
  let interrupted = false;
  const draw = () =>
    block.draw([shown, interrupted ? `${options.tool}  cancelling… (Ctrl-C again to stop watching; the cancel stands)` : '', reconnecting ? reconnectingLine(api.url) : ''].filter(Boolean));
  const show = (text: string) => {
    shown = text;
    draw();
  };
  let progress: Progress | null = null;
  let outcome: { status: string; output?: Output; durationMs?: number } | null = null;
  const submitted = await api.request<{ executeToolBatch: Result<{ batchId: string; eventCursor: string | null }> }>(EXECUTE, {
    sessionId,
    calls: [{ id: callId, tool: options.tool, args: options.args }],
  });
  const batch = unwrap(submitted.executeToolBatch, 'ToolBatch');
  const stopLink = api.onReconnecting((now) => {
    reconnecting = now;
    draw();
  });
  // Ctrl-C cancels the call and goes on watching it end (its grace, a value that wins it); a second
  // Ctrl-C stops watching at once, the cancel standing.
  const interrupt = () => {
    if (interrupted) process.exit(INTERRUPTED);
    interrupted = true;
    draw();
    api.request(CANCEL_CALL, { sessionId, callId }).catch((error: unknown) => {
      screen.write(`toolrun: the cancel was not sent: ${printable(error instanceof Error ? error.message : String(error))}\n`);
      process.exit(INTERRUPTED);
    });
  };
  process.on('SIGINT', interrupt);
  // From the cursor just before the batch's first event: none of the call's events can be missed,
  // even those of a call that ended at submission.
  const watching = api.subscribe<CallEvents>(TOOL_CALL_EVENTS, { sessionId, after: batch.eventCursor }, ({ toolCallEventBatches: { events } }) => {
    for (const event of events) {
      if (event.callId !== callId) continue;
      switch (event.__typename) {
        case 'ToolCallStarted':
          progress = null;
          show(`${options.tool}  started (attempt ${event.attempt}/${event.maxAttempts})`);
          break;
        case 'ToolCallProgress':
          progress = mergeProgress(progress, event.progress as Progress);
          show(`${options.tool}  ${progressBar(progress)}`);
          break;
        case 'ToolCallAwaitingApproval':
          show(`${options.tool}  awaiting approval: toolrun calls approve ${sessionId} ${callId}`);
          break;
        case 'ToolCallApproved':
          show(`${options.tool}  approved; queued to run`);
          break;
        case 'ToolCallAwaitingCompletion':
          show(`${options.tool}  waiting for its completion (attempt ${event.attempt}/${event.maxAttempts}, until ${event.deadline})`);
          break;
        case 'ToolCallRetrying':
          progress = null;
          show(`${options.tool}  ${retryText(event)}`);
          break;
        case 'ToolCallCompleted':
          outcome = { status: event.status!, output: event.output, durationMs: event.durationMs };
          return true;
      }
    }
    return false;
  });
  try {
    await watching;
  } finally {
    stopLink();
    process.off('SIGINT', interrupt);
  }
  const done = outcome as { status: string; output?: Output; durationMs?: number } | null;
  if (!done) throw new CliError('the event stream ended before the call completed');
  screen.write(`${done.status} in ${done.durationMs ?? 0} ms\n${outputText(done.output)}\n`);
  if (interrupted) return INTERRUPTED;
  return done.status === 'SUCCEEDED' ? 0 : 1;
}

/** The exit status of a command stopped by Ctrl-C (128 + SIGINT), as shells report one. */
const INTERRUPTED = 130;

interface WatchedCall {
  callId: string;
  tool: string;
  status: string;
  attempt: string;
  /** The progress of the current attempt, as its reports tell it so far. */
  progress: Progress | null;
  result: string;
}

/** `watch <session>`: a live table of the calls that move in the session from now on, until interrupted. */
export async function watchSession(api: Transport, screen: Screen, sessionId: string, options: { signal?: AbortSignal } = {}): Promise<void> {
  const calls = new Map<string, WatchedCall>();
  const block = new LiveBlock(screen);
  let reconnecting = false;
  const redraw = () => {
    const rows = [...calls.values()].map((call) => [call.callId, call.tool, call.status, call.attempt, call.progress ? progressBar(call.progress, 12) : '', call.result]);
    const lines = table(['CALL', 'TOOL', 'STATUS', 'ATTEMPT', 'PROGRESS', 'RESULT'], rows).trimEnd().split('\n');
    block.draw(reconnecting ? [...lines, reconnectingLine(api.url)] : lines);
  };
  // From the session's current cursor, so that a reconnect resumes there even before the first event.
  const after = await sessionCursor(api, sessionId);
  redraw();
  const stopLink = api.onReconnecting((now) => {
    reconnecting = now;
    redraw();
  });
  try {
    await api.subscribe<CallEvents>(TOOL_CALL_EVENTS, { sessionId, after }, ({ toolCallEventBatches: { events } }) => {
      if (options.signal?.aborted) return true;
      for (const event of events) {
        if (event.__typename === 'CursorExpired') {
          screen.write(`events before this point are no longer kept: ${printable(event.message ?? '')}\n`);
          continue;
        }
        if (!event.callId) continue;
        const call = calls.get(event.callId) ?? { callId: event.callId, tool: event.tool ?? '', status: 'QUEUED', attempt: '', progress: null, result: '' };
        calls.set(event.callId, call);
        switch (event.__typename) {
          case 'ToolCallStarted':
            call.status = 'RUNNING';
            call.attempt = `${event.attempt}/${event.maxAttempts}`;
            call.progress = null;
            call.result = '';
            break;
          case 'ToolCallProgress':
            call.progress = mergeProgress(call.progress, event.progress as Progress);
            break;
          case 'ToolCallAwaitingApproval':
            call.status = 'AWAITING_APPROVAL';
            break;
          case 'ToolCallApproved':
            // Approved, it waits in the queue for a worker like any call.
            call.status = 'QUEUED';
            break;
          case 'ToolCallAwaitingCompletion':
            call.status = 'PENDING_EXTERNAL';
            call.attempt = `${event.attempt}/${event.maxAttempts}`;
            break;
          case 'ToolCallRetrying':
            call.status = 'RETRYING';
            call.progress = null;
            call.result = retryText(event);
            break;
          case 'ToolCallCompleted':
            call.status = event.status!;
            call.result = `${event.durationMs} ms  ${outputText(event.output).slice(0, 60)}`;
            break;
        }
      }
      // Once per message: the events that arrived together are drawn together.
      redraw();
      return false;
    });
  } finally {
    stopLink();
  }
}

interface ListedCall {
  callId: string;
  tool: string;
  status: string;
  attempt: number;
  durationMs: number | null;
  queuedAt: string;
  output: { __typename: string; class?: string; code?: string } | null;
}

interface CallPage {
  pageInfo: PageInfo;
  nodes: ListedCall[];
}

interface SessionCallsAnswer {
  session: { batches: { pageInfo: PageInfo; nodes: Array<{ batchId: string; calls: CallPage }> } } | null;
}

/**
 * `calls list <session>`: every call of the session, its batches newest first and each batch's
 * calls in input order, read page after page (a long list is long, never cut short).
 */
export async function listCalls(api: Transport, screen: Screen, sessionId: string, batchesPerPage = 20): Promise<void> {
  const rows: string[][] = [];
  let after: string | null = null;
  do {
    // Typed by annotation: `after`, an argument here, is assigned from the answer (TS7022 otherwise).
    const { session }: SessionCallsAnswer = await api.request(SESSION_CALLS, {
      id: sessionId,
      first: batchesPerPage,
      after,
    });
    if (!session) throw new CliError(`session ${sessionId} was not found`);
    for (const batch of session.batches.nodes) {
      const calls = [...batch.calls.nodes];
      for (let page = batch.calls.pageInfo; page.hasNextPage; ) {
        const { toolBatch } = await api.request<{ toolBatch: { calls: CallPage } | null }>(BATCH_CALLS, { sessionId, batchId: batch.batchId, after: page.endCursor });
        if (!toolBatch) throw new CliError(`batch ${batch.batchId} of session ${sessionId} was not found`);
        calls.push(...toolBatch.calls.nodes);
        page = toolBatch.calls.pageInfo;
      }
      for (const call of calls) {
        rows.push([
          call.callId,
          call.tool,
          call.status,
          String(call.attempt),
          call.durationMs === null ? '' : `${call.durationMs} ms`,
          call.output?.__typename === 'ToolFailure' ? `${call.output.class}/${call.output.code}` : '',
          batch.batchId,
        ]);
      }
    }
    after = session.batches.pageInfo.hasNextPage ? session.batches.pageInfo.endCursor : null;
  } while (after);
  screen.write(table(['CALL', 'TOOL', 'STATUS', 'ATTEMPT', 'DURATION', 'FAILURE', 'BATCH'], rows));
}

export async function cancelCall(api: Transport, screen: Screen, sessionId: string, callId: string): Promise<void> {
  const { cancelToolCall } = await api.request<{ cancelToolCall: Result<{ callId: string; status: string; cancelRequestedAt: string | null }> }>(CANCEL_CALL, { sessionId, callId });
  const call = unwrap(cancelToolCall, 'ToolCall');
  screen.write(`${printable(call.callId)}  ${withCancelRequest(call.status, call.cancelRequestedAt)}\n`);
}

export async function approveCall(api: Transport, screen: Screen, sessionId: string, callId: string): Promise<void> {
  const { approveToolCall } = await api.request<{ approveToolCall: Result<{ callId: string; status: string }> }>(APPROVE_CALL, { sessionId, callId });
  const call = unwrap(approveToolCall, 'ToolCall');
  screen.write(`${printable(call.callId)}  ${call.status}\n`);
}

/** `calls reject <session> <call-id> --reason TEXT`: the call fails approval_rejected with the reason. */
export async function rejectCall(api: Transport, screen: Screen, sessionId: string, callId: string, reason: string): Promise<void> {
  const { rejectToolCall } = await api.request<{ rejectToolCall: Result<{ callId: string; status: string }> }>(REJECT_CALL, { sessionId, callId, reason });
  const call = unwrap(rejectToolCall, 'ToolCall');
  screen.write(`${printable(call.callId)}  ${call.status}\n`);
}

interface ListedTask {
  taskId: string;
  kind: string;
  state: string;
  stateDetail: string | null;
  title: string | null;
  tool: string | null;
  createdAt: string;
}

/** `tasks list <session>`: every background run and monitor of the session, newest first, read page after page. */
export async function listTasks(api: Transport, screen: Screen, sessionId: string, first = 100): Promise<void> {
  const rows: string[][] = [];
  let after: string | null = null;
  do {
    const { tasks }: { tasks: { pageInfo: PageInfo; nodes: ListedTask[] } } = await api.request(SESSION_TASKS, { sessionId, first, after });
    for (const task of tasks.nodes) rows.push([task.taskId, task.kind, task.state, task.tool ?? '', task.title ?? '', task.stateDetail ?? '', task.createdAt]);
    after = tasks.pageInfo.hasNextPage ? tasks.pageInfo.endCursor : null;
  } while (after);
  screen.write(table(['TASK', 'KIND', 'STATE', 'TOOL', 'TITLE', 'DETAIL', 'CREATED'], rows));
}

export async function cancelTask(api: Transport, screen: Screen, taskId: string): Promise<void> {
  const { cancelTask: result } = await api.request<{ cancelTask: Result<{ taskId: string; state: string; cancelRequestedAt: string | null }> }>(CANCEL_TASK, { id: taskId });
  const task = unwrap(result, 'Task');
  screen.write(`${task.taskId}  ${withCancelRequest(task.state, task.cancelRequestedAt)}\n`);
}

/** What a cancel found: a state it has not ended yet (the worker is stopping it), or one that had ended without it, says so. */
function withCancelRequest(state: string, cancelRequestedAt: string | null): string {
  if (state === 'RUNNING' && cancelRequestedAt) return `${state} (cancel requested; it ends when its worker stops it)`;
  // A call or run that ended otherwise before the cancel reached it: the answer is its outcome, unchanged.
  if (state === 'SUCCEEDED' || state === 'FAILED') return `${state} (it had already ended: nothing was cancelled)`;
  return state;
}
