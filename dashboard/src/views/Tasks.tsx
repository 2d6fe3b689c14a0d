// Background tasks of a session (progress, status text, log tail, heartbeat age, cancel) and its
// schedules (pause, resume, run now, cancel). Task events move progress and status at once and reload the rows (their log tail is
// the server's, so no output line is shown twice).
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useClient, useMutation, useQuery } from 'urql';
import { RoleButton } from '../components/RoleButton.js';
import { visibleText } from '../components/visible-text.js';
import { StatusBadge, age, time } from '../components/Status.js';
import { errorText, type Link, READ_RETRY_MS, refusalOf, sessionStartCursor, useReadAgainWhileAway, watch } from '../data/connection.js';
import {
  CancelScheduleDocument,
  CancelTaskDocument,
  OlderTasksDocument,
  PauseScheduleDocument,
  ResumeScheduleDocument,
  SessionTasksDocument,
  type SessionTasksQuery,
  type TaskRowFragment,
  TaskEventsDocument,
  TaskStreamHeadDocument,
  TriggerScheduleDocument,
} from '../gql/graphql.js';

const ACTIVE = new Set(['QUEUED', 'RUNNING']);

/** Tasks read past the first page (older ones, on demand), and where the next page starts. */
interface OlderTasks {
  tasks: TaskRowFragment[];
  after: string | null;
  loading: boolean;
  error: string | null;
}

export function TasksPanel({ link, sessionId, after }: { link: Link; sessionId: string; after: string | null }) {
  const client = useClient();
  const [{ data, error }, refetch] = useQuery({ query: SessionTasksDocument, variables: { sessionId }, requestPolicy: 'network-only' });
  useReadAgainWhileAway(error, refetch);
  const [older, setOlder] = useState<OlderTasks | null>(null);
  const [live, setLive] = useState<Record<string, Partial<TaskRowFragment>>>({});
  const [now, setNow] = useState(Date.now());
  const reload = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);

  // Where the stream starts: the session view's snapshot cursor, or, once that fell out of the event
  // retention (CursorExpired), the session's head read again before the tasks are.
  const [from, setFrom] = useState(after);
  useEffect(() => setFrom(after), [after]);
  useEffect(() => {
    let stopped = false;
    let retry: ReturnType<typeof setTimeout> | undefined;
    // The watch ends on CursorExpired: the tasks are read again and followed from the session's head,
    // read before them (nothing between the two is missed).
    const resync = () => {
      void client
        .query(TaskStreamHeadDocument, { id: sessionId }, { requestPolicy: 'network-only' })
        .toPromise()
        .then((result) => {
          if (stopped) return;
          // A session without events yet (created before SessionCreated existed) starts at its first.
          const session = result.data?.session;
          const head = session ? (session.lastEventCursor ?? sessionStartCursor(sessionId)) : null;
          if (!head) {
            retry = setTimeout(resync, READ_RETRY_MS);
            return;
          }
          refetch({ requestPolicy: 'network-only' });
          setFrom(head);
        });
    };
    const stop = watch(link, TaskEventsDocument, { sessionId, after: from ?? sessionStartCursor(sessionId) }, {
      onEvents: (events) => {
        setLive((current) => {
          const next = { ...current };
          for (const event of events) {
            if (!('taskId' in event)) continue;
            const patch = { ...next[event.taskId] };
            if (event.__typename === 'TaskProgress') patch.progress = event.progress;
            if (event.__typename === 'TaskStatus') patch.stateDetail = event.text;
            if (event.__typename === 'TaskHeartbeat') patch.heartbeatAt = event.at;
            if (event.__typename === 'TaskStarted') patch.state = 'RUNNING';
            if (event.__typename === 'TaskFinished') patch.state = event.state;
            next[event.taskId] = patch;
          }
          return next;
        });
        // At most one reload per 250 ms, however often events come (heartbeats of many tasks would
        // push a debounced reload back forever, and a new task would never show).
        reload.current ??= setTimeout(() => {
          reload.current = undefined;
          refetch({ requestPolicy: 'network-only' });
        }, 250);
      },
      onExpired: resync,
    });
    return () => {
      stopped = true;
      clearTimeout(retry);
      stop();
    };
  }, [link, client, sessionId, from, refetch]);
  useEffect(() => () => clearTimeout(reload.current), []);

  const firstPage = data?.tasks;
  // The next page starts after the last task read (the first page's until older ones were read).
  const nextAfter = older ? older.after : firstPage?.pageInfo.hasNextPage ? (firstPage.pageInfo.endCursor ?? null) : null;
  // A page of older tasks toolrun did not answer is read again (as its message says), while the panel is shown.
  const olderRetry = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const panelShown = useRef(true);
  useEffect(() => {
    panelShown.current = true;
    return () => {
      panelShown.current = false;
      clearTimeout(olderRetry.current);
    };
  }, []);
  const readOlder = (kept: TaskRowFragment[], after: string) => {
    void client
      .query(OlderTasksDocument, { sessionId, after }, { requestPolicy: 'network-only' })
      .toPromise()
      .then((result) => {
        if (!panelShown.current) return;
        const page = result.data?.tasks;
        if (!page) {
          const away = Boolean(result.error?.networkError);
          if (away) olderRetry.current = setTimeout(() => readOlder(kept, after), READ_RETRY_MS);
          return setOlder({ tasks: kept, after, loading: away, error: result.error ? errorText(result.error) : 'toolrun did not answer' });
        }
        setOlder({ tasks: [...kept, ...page.nodes], after: page.pageInfo.hasNextPage ? (page.pageInfo.endCursor ?? null) : null, loading: false, error: null });
      });
  };
  const showOlder = () => {
    if (!firstPage || !nextAfter || older?.loading) return;
    // The first page as it is now is kept with them: tasks created later push its last ones off the page read again.
    const kept = older?.tasks ?? firstPage.nodes;
    setOlder({ tasks: kept, after: nextAfter, loading: true, error: null });
    readOlder(kept, nextAfter);
  };

  if (error) return <p role="alert">{errorText(error)}</p>;
  // Not "No background tasks" before toolrun has said so.
  if (!firstPage) return <p>Loading tasks and schedules…</p>;
  // Newest first, as read; a task read again on the first page replaces what an older read said of it.
  const read = new Map<string, TaskRowFragment>();
  for (const task of [...(firstPage?.nodes ?? []), ...(older?.tasks ?? [])]) if (!read.has(task.taskId)) read.set(task.taskId, task);
  const total = Math.max(firstPage?.totalCount ?? 0, read.size);
  const tasks = [...read.values()].map((task) => {
    const patch = live[task.taskId];
    // A reloaded row is newer than the events it was reloaded for; a finished state always wins.
    if (!patch || !ACTIVE.has(task.state)) return task;
    return { ...task, ...patch, outputTail: task.outputTail };
  });
  const schedules = data?.schedules.nodes ?? [];
  return (
    <div>
      <h2>Background tasks</h2>
      {tasks.length === 0 ? <p>No background tasks.</p> : <p className="subtle" data-task-total={total}>{total > tasks.length ? `The ${tasks.length} newest of ${total} tasks` : `${total} task${total === 1 ? '' : 's'}`}</p>}
      <ul className="tasks">
        {tasks.map((task) => (
          <TaskCard key={task.taskId} task={task} now={now} />
        ))}
      </ul>
      {older?.error ? <p role="alert">Reading older tasks failed: {older.error}</p> : null}
      {nextAfter ? (
        <button type="button" disabled={older?.loading ?? false} onClick={showOlder}>
          {older?.loading ? 'Loading…' : `Show older tasks (${total - tasks.length} more)`}
        </button>
      ) : null}
      <h2>Schedules</h2>
      {schedules.length === 0 ? <p>No schedules.</p> : null}
      <table className="grid">
        {schedules.length ? (
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">Tool</th>
              <th scope="col">When</th>
              <th scope="col">Next</th>
              <th scope="col">Last</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
        ) : null}
        <tbody>
          {schedules.map((schedule) => (
            <ScheduleRow key={schedule.id} schedule={schedule} onChange={() => refetch({ requestPolicy: 'network-only' })} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function TaskCard({ task, now }: { task: TaskRowFragment; now: number }) {
  const [, cancel] = useMutation(CancelTaskDocument);
  const [refusal, setRefusal] = useState<string | null>(null);
  const progress = task.progress;
  const percent = progress?.total ? Math.min(100, Math.round(((progress.current ?? 0) / progress.total) * 100)) : null;
  return (
    <li className="task" data-task-id={task.taskId} data-state={task.state}>
      <div className="task-head">
        <strong>{visibleText(task.title || task.tool || task.kind)}</strong> <StatusBadge status={task.state} />
        <span className="subtle">
          {' '}
          {/* A finished task's last heartbeat only grows older: its end is what counts. */}
          {ACTIVE.has(task.state) ? `heartbeat ${age(task.heartbeatAt, now)} · started ${time(task.startedAt)}` : `started ${time(task.startedAt)} · finished ${time(task.finishedAt)}`}
        </span>
        {ACTIVE.has(task.state) ? (
          <RoleButton role="SUBMITTER" type="button" className="small" onClick={() => void cancel({ id: task.id }).then((result) => setRefusal(refusalOf(result)))} aria-label={`Cancel task ${task.title ?? task.taskId}`}>
            Cancel
          </RoleButton>
        ) : null}
      </div>
      {progress ? (
        <div className="progress">
          <label>
            <span className="subtle">
              {progress.label ?? 'progress'}: {progress.current ?? 0}
              {progress.total ? ` / ${progress.total}` : ''} {progress.unit ?? ''} {percent !== null ? `(${percent} %)` : ''}
            </span>
            <progress max={progress.total ?? undefined} value={progress.current ?? undefined} data-percent={percent ?? undefined} />
          </label>
        </div>
      ) : null}
      {task.stateDetail && task.stateDetail !== task.error ? <p className="task-status">{visibleText(task.stateDetail)}</p> : null}
      {task.summary && task.summary !== task.error ? <p>{visibleText(task.summary)}</p> : null}
      {task.error ? <p role="alert">{visibleText(task.error)}</p> : null}
      {refusal ? <p role="alert">Cancelling failed: {refusal}</p> : null}
      <LogTail text={task.outputTail} truncated={task.outputTruncated} />
    </li>
  );
}

/** How much of a run's log `outputTail` holds (the API's cap). */
const OUTPUT_TAIL_CHARS = 2048;

/** The end of a run's log, kept scrolled to its newest line unless the reader scrolled up. */
function LogTail({ text, truncated }: { text: string; truncated: boolean }) {
  const box = useRef<HTMLPreElement>(null);
  const following = useRef(true);
  useLayoutEffect(() => {
    if (following.current && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [text]);
  if (!text && !truncated) return null;
  // A full tail is the log's last OUTPUT_TAIL_CHARS characters, so it starts mid-line: that part line is shown as cut.
  const shown = text.length >= OUTPUT_TAIL_CHARS && text.includes('\n') ? `…${text.slice(text.indexOf('\n'))}` : text;
  return (
    <pre
      ref={box}
      className="log-tail"
      aria-label="Log tail"
      data-lines={shown.split('\n').filter((line) => line && line !== '…').length}
      onScroll={(event) => {
        const element = event.currentTarget;
        following.current = element.scrollTop + element.clientHeight >= element.scrollHeight - 4;
      }}
    >
      {truncated ? '… (log truncated)\n' : ''}
      {visibleText(shown)}
    </pre>
  );
}

/** A schedule with what a submitter can do to it: pause or resume, run it once now, cancel it. */
function ScheduleRow({ schedule, onChange }: { schedule: ScheduleRowData; onChange(): void }) {
  const [, pause] = useMutation(PauseScheduleDocument);
  const [, resume] = useMutation(ResumeScheduleDocument);
  const [, trigger] = useMutation(TriggerScheduleDocument);
  const [, cancel] = useMutation(CancelScheduleDocument);
  const [message, setMessage] = useState<string | null>(null);
  const act = async (run: Promise<{ data?: Record<string, unknown> | null; error?: { message: string } }>) => {
    const result = await run;
    const answer = (result.data ? Object.values(result.data)[0] : null) as { message?: string } | null;
    setMessage(answer?.message ?? result.error?.message ?? null);
    onChange();
  };
  const live = schedule.status === 'ACTIVE' || schedule.status === 'PAUSED';
  const name = schedule.title || schedule.tool;
  return (
    <tr data-schedule-id={schedule.id} data-status={schedule.status}>
      <td>{schedule.title ? visibleText(schedule.title) : null}</td>
      <td>{visibleText(schedule.tool)}</td>
      <td className="mono">{schedule.cronExpression ?? (schedule.scheduledAt ? new Date(schedule.scheduledAt).toLocaleString() : '')}</td>
      <td>{time(schedule.nextTriggerAt)}</td>
      <td>{time(schedule.lastTriggerAt)}</td>
      <td>
        {SCHEDULE_STATUS[schedule.status]}
        {schedule.status === 'PAUSED' && schedule.pausedAt ? ` since ${time(schedule.pausedAt)}` : ''}
        {message ? <span role="alert"> {message}</span> : null}
      </td>
      <td className="actions">
        {schedule.status === 'ACTIVE' ? (
          <RoleButton role="SUBMITTER" type="button" className="small" onClick={() => void act(pause({ id: schedule.id }))} aria-label={`Pause schedule ${name}`}>
            Pause
          </RoleButton>
        ) : null}
        {schedule.status === 'PAUSED' ? (
          <RoleButton role="SUBMITTER" type="button" className="small" onClick={() => void act(resume({ id: schedule.id }))} aria-label={`Resume schedule ${name}`}>
            Resume
          </RoleButton>
        ) : null}
        {live ? (
          <>
            <RoleButton role="SUBMITTER" type="button" className="small" onClick={() => void act(trigger({ id: schedule.id }))} aria-label={`Run schedule ${name} now`}>
              Run now
            </RoleButton>
            <RoleButton role="SUBMITTER" type="button" className="small" onClick={() => void act(cancel({ id: schedule.id }))} aria-label={`Cancel schedule ${name}`}>
              Cancel
            </RoleButton>
          </>
        ) : null}
      </td>
    </tr>
  );
}

type ScheduleRowData = SessionTasksQuery['schedules']['nodes'][number];

/** The status as a word (not by colour alone). */
const SCHEDULE_STATUS: Record<ScheduleRowData['status'], string> = {
  ACTIVE: 'active',
  PAUSED: 'paused',
  CANCELED: 'cancelled',
  FINISHED: 'finished',
};
