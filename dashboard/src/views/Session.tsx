// One session: its batches as live timelines, the call drawer, background tasks and schedules,
// messages and files, and the list of tool call events as they arrived.
import { useVirtualizer } from '@tanstack/react-virtual';
import { createContext, memo, useCallback, useContext, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { useClient, useMutation, useQuery } from 'urql';
import { JsonView } from '../components/JsonView.js';
import { RoleButton } from '../components/RoleButton.js';
import { visibleText } from '../components/visible-text.js';
import { useDocumentTitle } from '../components/document-title.js';
import { shortId, StatusBadge, time } from '../components/Status.js';
import { errorText, type Link, READ_RETRY_MS, refusalOf, sessionStartCursor, UNANNOUNCED_READ_MS, useReadAgainWhileAway, watch } from '../data/connection.js';
import { type BatchState, type CallState, SessionStore } from '../data/session-store.js';
import {
  BatchCallsDocument,
  BatchHeadDocument,
  type BatchCallsQuery,
  type CallRowFragment,
  CallDetailDocument,
  CancelBatchDocument,
  CancelCallDocument,
  NewestBatchesDocument,
  OlderBatchesDocument,
  SessionFileContentDocument,
  SessionFilesDocument,
  type SessionFilesQuery,
  SessionMessagesDocument,
  SessionViewDocument,
  ToolCallEventsDocument,
} from '../gql/graphql.js';
import { TasksPanel } from './Tasks.js';

type Tab = 'batches' | 'tasks' | 'files' | 'activity';
const TABS: Tab[] = ['batches', 'tasks', 'files', 'activity'];
const tabOf = (value: string | null): Tab => TABS.find((tab) => tab === value) ?? 'batches';

const WAITING = new Set(['QUEUED', 'RUNNING', 'AWAITING_APPROVAL', 'PENDING_EXTERNAL']);
/** Tells the session view what a cancel of `subject` toolrun refused or did not answer (shown above the batches; null once one was done). */
const RefusedContext = createContext<(subject: string, why: string | null) => void>(() => {});

export function SessionView({ link, sessionId, focusBatch }: { link: Link; sessionId: string; focusBatch: string | null }) {
  const client = useClient();
  const [{ data, error }, refetchSession] = useQuery({ query: SessionViewDocument, variables: { id: sessionId }, requestPolicy: 'network-only' });
  const session = data?.session;
  const [store, setStore] = useState(() => new SessionStore());
  // The tab is in the address (`?tab=…`), so a reload returns to it.
  const [tab, setTab] = useState<Tab>(() => tabOf(new URLSearchParams(location.search).get('tab')));
  useEffect(() => {
    const params = new URLSearchParams(location.search);
    if (tab === 'batches') params.delete('tab');
    else params.set('tab', tab);
    const query = params.toString();
    const target = `${location.pathname}${query ? `?${query}` : ''}`;
    if (target !== location.pathname + location.search) history.replaceState(null, '', target);
  }, [tab]);
  const [expanded, setExpanded] = useState<Set<string>>(new Set(focusBatch ? [focusBatch] : []));
  const [drawer, setDrawer] = useState<string | null>(null);
  const [refusals, setRefusals] = useState<Array<[subject: string, text: string]>>([]);
  const refused = useCallback(
    (subject: string, why: string | null) =>
      setRefusals((current) => [...current.filter(([entry]) => entry !== subject), ...(why ? [[subject, `Cancelling ${subject} failed: ${why}`] as [string, string]] : [])].slice(-3)),
    [],
  );
  // Where older batches than those read start (null: none left), and how many the session has.
  const [older, setOlder] = useState<{ after: string | null; total: number; loading: boolean; error?: string } | null>(null);
  // Batches created after the snapshot's newest are new to the session's total; older ones an event brings back were counted.
  const snapshotNewest = useRef('');
  useSyncExternalStore(store.subscribe, store.getVersion);

  const load = useCallback(
    (batchId: string) => {
      if (!store.loading(batchId)) return;
      // A batch may hold up to MAX_CALLS_PER_BATCH (10,000 at most) calls: read them a page at a time.
      void (async () => {
        const calls: CallRowFragment[] = [];
        let after: string | null = null;
        for (;;) {
          const result = await client.query(BatchCallsDocument, { sessionId, batchId, after }, { requestPolicy: 'network-only' }).toPromise();
          const batch: BatchCallsQuery['toolBatch'] | undefined = result.data?.toolBatch;
          if (!batch) {
            // Not answered: read again (an open batch is loaded once it is no longer loading).
            if (result.error) setTimeout(() => store.unloaded(batchId), READ_RETRY_MS);
            return;
          }
          calls.push(...batch.calls.nodes);
          if (!batch.calls.pageInfo.hasNextPage || !batch.calls.pageInfo.endCursor) {
            store.loaded(batchId, batch, calls);
            return;
          }
          after = batch.calls.pageInfo.endCursor;
        }
      })();
    },
    [client, sessionId, store],
  );
  const readSummary = useCallback(
    (batchId: string) => {
      void client
        .query(BatchHeadDocument, { sessionId, batchId }, { requestPolicy: 'network-only' })
        .toPromise()
        .then((result) => {
          const batch = result.data?.toolBatch;
          if (!batch) {
            if (result.error) setTimeout(() => readSummary(batchId), READ_RETRY_MS);
            return;
          }
          store.read(batch);
          if (batch.createdAt > snapshotNewest.current) setOlder((known) => (known ? { ...known, total: known.total + 1 } : known));
        });
    },
    [client, sessionId, store],
  );

  // The snapshot's cursor first, then the stream from it: nothing between the two is missed.
  useEffect(() => {
    if (!session) return;
    store.setBatches(session.batches.nodes);
    store.recent(session.recentEvents);
    const { pageInfo, totalCount } = session.batches;
    setOlder({ after: pageInfo.hasNextPage ? (pageInfo.endCursor ?? null) : null, total: totalCount, loading: false });
    const newest = [...session.batches.nodes].sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
    snapshotNewest.current = newest?.createdAt ?? '';
    if (!focusBatch && newest) setExpanded((open) => (open.size === 0 ? new Set([newest.batchId]) : open));
    return watch(link, ToolCallEventsDocument, { sessionId, after: session.lastEventCursor ?? sessionStartCursor(sessionId) }, {
      onEvents: (events) => {
        for (const batchId of store.apply(events)) {
          readSummary(batchId);
          if (focusBatch === batchId) load(batchId);
          setExpanded((open) => (open.size === 0 ? new Set([batchId]) : open));
        }
      },
      // Past retention: start over from a fresh snapshot.
      onExpired: () => {
        setStore(new SessionStore());
        refetchSession({ requestPolicy: 'network-only' });
      },
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [session, store]);

  useEffect(() => {
    for (const batchId of expanded) if (store.batches.has(batchId)) load(batchId);
  });

  useReadAgainWhileAway(error, refetchSession);

  // A batch whose calls all wait in the queue (every worker busy) has had no event yet: the newest
  // batches are read again every few seconds while the page is in view, so it shows as queued.
  useEffect(() => {
    if (!session) return;
    const timer = setInterval(() => {
      if (document.hidden) return;
      void client
        .query(NewestBatchesDocument, { id: sessionId }, { requestPolicy: 'network-only' })
        .toPromise()
        .then((result) => {
          const page = result.data?.session?.batches;
          const unknown = page?.nodes.filter((node) => !store.batches.has(node.batchId)) ?? [];
          if (!page || unknown.length === 0) return;
          store.setBatches(unknown);
          setOlder((known) => (known ? { ...known, total: page.totalCount } : known));
          setExpanded((open) => (open.size === 0 ? new Set([unknown[0]!.batchId]) : open));
        });
    }, UNANNOUNCED_READ_MS);
    return () => clearInterval(timer);
  }, [client, session, sessionId, store]);

  const showOlder = () => {
    if (!older?.after || older.loading) return;
    setOlder({ ...older, loading: true, error: undefined });
    void client
      .query(OlderBatchesDocument, { id: sessionId, after: older.after }, { requestPolicy: 'network-only' })
      .toPromise()
      .then((result) => {
        const page = result.data?.session?.batches;
        // Not read: the button stays, to try again, and says why.
        if (!page) return setOlder({ ...older, loading: false, error: refusalOf(result) ?? 'toolrun did not answer' });
        store.setBatches(page.nodes);
        setOlder({ after: page.pageInfo.hasNextPage ? (page.pageInfo.endCursor ?? null) : null, total: page.totalCount, loading: false });
      });
  };

  useDocumentTitle(session ? visibleText(session.title || '(untitled session)') : data ? 'No such session' : 'Session');
  if (error) return <p role="alert">{errorText(error)}</p>;
  if (data && !session) return <p role="alert">No session {sessionId}</p>;
  if (!session) return <p>Loading…</p>;
  const batches = [...store.batches.values()].sort((a, b) => b.summary.createdAt.localeCompare(a.summary.createdAt));
  const tabs: Array<[Tab, string]> = [
    ['batches', `Batches (${older && older.total > batches.length ? `${batches.length} of ${older.total}` : batches.length})`],
    ['tasks', 'Background tasks'],
    ['files', 'Messages & files'],
    ['activity', `Events (${store.activity.length})`],
  ];
  return (
    <RefusedContext.Provider value={refused}>
      <section aria-labelledby="session-title" className="session">
        <h1 id="session-title">{visibleText(session.title || '(untitled session)')}</h1>
        <p className="mono subtle">
          {session.sessionId} · created {new Date(session.createdAt).toLocaleString()}
        </p>
        <div role="tablist" aria-label="Session views" className="tabs">
          {tabs.map(([id, label], index) => (
            <button
              key={id}
              role="tab"
              id={`tab-${id}`}
              aria-selected={tab === id}
              aria-controls={`panel-${id}`}
              // One tab stop for the list; arrow keys, Home and End move between tabs (the WAI-ARIA tabs pattern).
              tabIndex={tab === id ? 0 : -1}
              onClick={() => setTab(id)}
              onKeyDown={(event) => {
                const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 }[event.key];
                if (next === undefined) return;
                event.preventDefault();
                const [target] = tabs[(next + tabs.length) % tabs.length]!;
                setTab(target);
                document.getElementById(`tab-${target}`)?.focus();
              }}
              type="button"
            >
              {label}
            </button>
          ))}
        </div>
        <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
          {tab === 'batches'
            ? refusals.map(([subject, text]) => (
                <p role="alert" key={subject}>
                  {text}
                </p>
              ))
            : null}
          {tab === 'batches' ? (
            batches.length === 0 ? (
              <p>
                No batches yet: submit one with <code>executeToolBatch</code> or <code>toolrun run &lt;tool&gt; --session {session.sessionId}</code>.
              </p>
            ) : (
              [
              ...batches.map((batch) => (
                <BatchPanel
                  key={batch.summary.batchId}
                  batch={batch}
                  revision={batch.revision}
                  open={expanded.has(batch.summary.batchId)}
                  onToggle={() =>
                    setExpanded((open) => {
                      const next = new Set(open);
                      if (!next.delete(batch.summary.batchId)) next.add(batch.summary.batchId);
                      return next;
                    })
                  }
                  onOpenCall={setDrawer}
                  sessionId={sessionId}
                />
              )),
              older?.error ? (
                <p role="alert" key="older-error">
                  Reading older batches failed: {older.error}
                </p>
              ) : null,
              older?.after ? (
                <button key="older" type="button" className="older-batches" disabled={older.loading} onClick={showOlder}>
                  {older.loading ? 'Loading…' : 'Show older batches'}
                </button>
              ) : null,
              ]
            )
          ) : tab === 'tasks' ? (
            <TasksPanel link={link} sessionId={sessionId} after={session.lastEventCursor ?? null} />
          ) : tab === 'files' ? (
            <FilesPanel sessionId={sessionId} />
          ) : (
            <ActivityPanel store={store} version={store.version} />
          )}
        </div>
        {drawer ? <CallDrawer sessionId={sessionId} callId={drawer} status={findCall(store, drawer)?.status ?? null} onClose={() => setDrawer(null)} /> : null}
      </section>
    </RefusedContext.Provider>
  );
}

function findCall(store: SessionStore, callId: string): CallState | undefined {
  for (const batch of store.batches.values()) {
    const call = batch.calls?.get(callId);
    if (call) return call;
  }
  return undefined;
}

const ROW_HEIGHT = 30;
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

const BatchPanel = memo(function BatchPanel({
  batch,
  open,
  onToggle,
  onOpenCall,
  sessionId,
}: {
  batch: BatchState;
  revision: number;
  open: boolean;
  onToggle(): void;
  onOpenCall(callId: string): void;
  sessionId: string;
}) {
  const { summary } = batch;
  const calls = batch.calls;
  const counts = useMemo(() => {
    const result: Record<string, number> = {};
    if (calls) for (const call of calls.values()) result[call.status] = (result[call.status] ?? 0) + 1;
    else if (batch.outcome) Object.assign(result, { SUCCEEDED: batch.outcome.succeeded, FAILED: batch.outcome.failed, CANCELLED: batch.outcome.cancelled });
    return result;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [calls, batch.outcome, batch.revision]);
  const running = summary.status === 'RUNNING';
  const [, cancelBatch] = useMutation(CancelBatchDocument);
  const refused = useContext(RefusedContext);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!running || !open) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [running, open]);
  const start = Date.parse(summary.createdAt);
  const end = summary.completedAt ? Math.max(Date.parse(summary.completedAt), start + 1) : Math.max(now, start + 1);
  return (
    <div className="batch" data-batch-id={summary.batchId} data-batch-status={summary.status}>
      <button type="button" className="batch-head" aria-expanded={open} onClick={onToggle}>
        <StatusBadge status={summary.status} />{' '}
        <span className="mono" title={summary.batchId}>
          {shortId(summary.batchId)}
        </span>
        {[
          calls ? plural(calls.size, 'call') : batch.summaryRead || batch.outcome ? plural(summary.callCount, 'call') : '… calls',
          Object.entries(counts)
            .filter(([, count]) => count > 0)
            .map(([status, count]) => `${count} ${status.toLowerCase().replaceAll('_', ' ')}`)
            .join(', '),
          `started ${time(summary.createdAt)}`,
        ]
          .filter(Boolean)
          .map((part) => ` · ${part}`)
          .join('')}
      </button>
      {running ? (
        <RoleButton role="SUBMITTER" type="button" className="small batch-cancel" onClick={() =>
            void cancelBatch({ sessionId, batchId: summary.batchId }).then((result) => refused(`batch ${summary.batchId}`, refusalOf(result)))
          } aria-label={`Cancel batch ${summary.batchId}`}>
          Cancel batch
        </RoleButton>
      ) : null}
      {open ? calls ? <Timeline batch={batch} start={start} end={end} now={now} onOpenCall={onOpenCall} sessionId={sessionId} /> : <p>Loading calls…</p> : null}
    </div>
  );
});

function Timeline({ batch, start, end, now, onOpenCall, sessionId }: { batch: BatchState; start: number; end: number; now: number; onOpenCall(callId: string): void; sessionId: string }) {
  const parent = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: batch.order.length, getScrollElement: () => parent.current, estimateSize: () => ROW_HEIGHT, overscan: 10 });
  return (
    <div ref={parent} className="timeline" role="list" aria-label={`Calls of batch ${batch.summary.batchId}`} data-row-count={batch.order.length}>
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualizer.getVirtualItems().map((item) => {
          const callId = batch.order[item.index]!;
          const call = batch.calls!.get(callId)!;
          return (
            <div key={callId} role="listitem" className="call-row" style={{ transform: `translateY(${item.start}px)` }}>
              <CallRow call={call} start={start} end={end} now={now} onOpen={onOpenCall} sessionId={sessionId} />
            </div>
          );
        })}
      </div>
    </div>
  );
}

const CallRow = memo(function CallRow({ call, start, end, now, onOpen, sessionId }: { call: CallState; start: number; end: number; now: number; onOpen(callId: string): void; sessionId: string }) {
  const [, cancel] = useMutation(CancelCallDocument);
  const refused = useContext(RefusedContext);
  const span = end - start;
  const at = (value: string | null | undefined, fallback: number) => (value ? Date.parse(value) : fallback);
  const queued = at(call.queuedAt, start);
  const began = call.startedAt ? Date.parse(call.startedAt) : null;
  const finished = call.completedAt ? Date.parse(call.completedAt) : null;
  const waitEnd = began ?? finished ?? Math.min(now, end);
  const pct = (ms: number) => `${Math.max(0, Math.min(100, ((ms - start) / span) * 100))}%`;
  // A call may end after the batch's clock last ticked (`now`): its bar stops at the end of the track.
  const width = (from: number, to: number) => `${Math.max(0.4, ((Math.min(Math.max(to, from), end) - from) / span) * 100)}%`;
  const progress = call.progress?.total ? Math.round(((call.progress.current ?? 0) / call.progress.total) * 100) : null;
  return (
    <div className="call" data-call-id={call.callId} data-status={call.status}>
      <button type="button" className="call-name" onClick={() => onOpen(call.callId)} title={`Open call ${call.callId}`}>
        <span className="mono">{shortId(call.callId)}</span> {visibleText(call.tool)}
      </button>
      <StatusBadge status={call.status} />
      <span className="attempt" title="attempt / max attempts">
        {call.attempt}/{maxAttemptsOf(call)}
      </span>
      <div className="bar-track" aria-hidden="true">
        <div className={`bar bar-wait${began === null && (call.status === 'AWAITING_APPROVAL' || call.status === 'PENDING_EXTERNAL') ? ' bar-hold' : ''}`} style={{ left: pct(queued), width: width(queued, waitEnd) }} />
        {began !== null || finished !== null ? (
          <div className={`bar bar-${call.status.toLowerCase()}`} style={{ left: pct(began ?? finished!), width: width(began ?? finished!, finished ?? Math.min(now, end)) }} />
        ) : null}
      </div>
      <span className="duration">{call.durationMs !== null && call.durationMs !== undefined ? `${call.durationMs} ms` : progress !== null ? `${progress}%` : ''}</span>
      {WAITING.has(call.status) ? (
        <RoleButton role="SUBMITTER" type="button" className="small" onClick={() =>
            void cancel({ sessionId, callId: call.callId }).then((result) => refused(`call ${call.callId}`, refusalOf(result)))
          } aria-label={`Cancel call ${call.callId}`}>
          Cancel
        </RoleButton>
      ) : null}
    </div>
  );
});

function CallDrawer({ sessionId, callId, status, onClose }: { sessionId: string; callId: string; status: string | null; onClose(): void }) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: CallDetailDocument, variables: { sessionId, callId }, requestPolicy: 'network-only' });
  // A read toolrun did not answer (away, restarting) is not a call that does not exist: it says so and reads again.
  useReadAgainWhileAway(error, refetch);
  // Read again when the call's status moves on (not on opening: the query above just read it).
  const readAtStatus = useRef(status);
  useEffect(() => {
    if (!status || status === readAtStatus.current) return;
    readAtStatus.current = status;
    refetch({ requestPolicy: 'network-only' });
  }, [status, refetch]);
  const closeRef = useRef<HTMLButtonElement>(null);
  // Focus moves into the drawer, and back to what opened it (the call's row) when it closes.
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    closeRef.current?.focus();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  // Escape closes it wherever the focus is.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && onClose();
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [onClose]);
  const call = data?.toolCall;
  const output = call?.output;
  return (
    <aside className="drawer" role="dialog" aria-modal="false" aria-label={`Call ${callId}`}>
      <div className="drawer-head">
        <h2>Call {callId}</h2>
        <button ref={closeRef} type="button" onClick={onClose} aria-label="Close call details">
          ✕
        </button>
      </div>
      {!call ? (
        error ? <p role="alert">{errorText(error)}</p> : <p>{fetching ? 'Loading…' : 'Not found'}</p>
      ) : (
        <>
          <dl className="facts">
            <dt>Tool</dt>
            <dd>{visibleText(call.tool)}</dd>
            <dt>Status</dt>
            <dd>
              <StatusBadge status={call.status} />
            </dd>
            <dt>Attempt</dt>
            <dd>
              {call.attempt} of {maxAttemptsOf(call)}
            </dd>
            <dt>Queued / first started / done</dt>
            <dd>
              {time(call.queuedAt)} / {time(call.startedAt)} / {time(call.completedAt)}
            </dd>
            <dt>{call.attempt > 1 ? 'Duration of the final attempt' : 'Duration'}</dt>
            <dd>
              {call.durationMs !== null && call.durationMs !== undefined ? `${call.durationMs} ms` : '—'}
              {/* 0 is no timeout: an unknown tool's call, which never runs, has none. */}
              {call.timeoutMs > 0 ? ` (timeout ${call.timeoutMs} ms)` : ''}
            </dd>
            {call.attempts.length > 1 ? (
              <>
                <dt>Attempts</dt>
                <dd>
                  <ol className="attempts" aria-label="Attempts">
                    {call.attempts.map((attempt) => (
                      <li key={attempt.attempt} data-end={attempt.end}>
                        #{attempt.attempt} {time(attempt.startedAt)} · {attempt.durationMs !== null && attempt.durationMs !== undefined ? `${attempt.durationMs} ms` : '—'} · {attempt.end.toLowerCase()}
                        {attempt.failure ? ` (${attempt.failure.code}: ${visibleText(attempt.failure.message)})` : ''}
                      </li>
                    ))}
                  </ol>
                </dd>
              </>
            ) : null}
            <dt>Scheduling</dt>
            <dd>{call.scheduling.toLowerCase()}</dd>
            {/* The deadline of the wait for a completion: while the call waits, or as what ended it. */}
            {call.deadlineAt && (call.status === 'PENDING_EXTERNAL' || (output?.__typename === 'ToolFailure' && output.code === 'deadline_exceeded')) ? (
              <>
                <dt>External deadline</dt>
                <dd>{time(call.deadlineAt)}</dd>
              </>
            ) : null}
            {output?.__typename === 'ToolFailure' ? (
              <>
                <dt>Failure</dt>
                <dd data-failure-class={output.class}>
                  {output.class} · {output.code} · source {output.source.toLowerCase()} · retry {output.retry.kind.toLowerCase()}
                  {output.retry.afterMs ? ` after ${output.retry.afterMs} ms` : ''}
                  <br />
                  {visibleText(output.message)}
                </dd>
              </>
            ) : null}
            {output?.__typename === 'ToolCancellation' ? (
              <>
                <dt>Cancelled</dt>
                <dd>
                  {visibleText(output.message)} (source {output.source.toLowerCase()})
                </dd>
              </>
            ) : null}
          </dl>
          <h3>Arguments</h3>
          <JsonView value={call.args} />
          <h3>Output</h3>
          {output?.__typename === 'ToolSuccess' ? <JsonView value={output.value} /> : call.outcome ? <JsonView value={call.outcome} /> : <p>Not finished</p>}
          <h3>What the model sees</h3>
          <pre className="model-text">{call.modelReturn ? visibleText(call.modelReturn.text) : '—'}</pre>
          {call.rawOutput ? (
            <>
              <h3>Raw output</h3>
              <pre>{visibleText(call.rawOutput)}</pre>
            </>
          ) : null}
        </>
      )}
    </aside>
  );
}

function FilesPanel({ sessionId }: { sessionId: string }) {
  const client = useClient();
  const [messages, refetchMessages] = useQuery({ query: SessionMessagesDocument, variables: { sessionId }, requestPolicy: 'network-only' });
  useReadAgainWhileAway(messages.error, refetchMessages);
  // Pages of entries read so far (200 each), and where the next starts.
  const [listing, setListing] = useState<{ entries: SessionFilesQuery['sessionFiles']['nodes']; after: string | null; loading: boolean; error?: string }>({ entries: [], after: null, loading: true });
  const [selected, setSelected] = useState<string | null>(null);
  const [content, refetchContent] = useQuery({ query: SessionFileContentDocument, variables: { sessionId, path: selected ?? '/' }, pause: selected === null, requestPolicy: 'network-only' });
  // A file read while toolrun is away is not gone: it is read again until toolrun answers.
  useReadAgainWhileAway(content.error, refetchContent);
  // A page of the listing toolrun did not answer is read again (the latest read wins; none once the panel is gone).
  const retry = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const shown = useRef(true);
  const readFiles = useCallback(
    (after: string | null, entries: SessionFilesQuery['sessionFiles']['nodes']) => {
      clearTimeout(retry.current);
      setListing({ entries, after, loading: true });
      void client
        .query(SessionFilesDocument, { sessionId, after }, { requestPolicy: 'network-only' })
        .toPromise()
        .then((result) => {
          if (!shown.current) return;
          const page = result.data?.sessionFiles;
          if (!page) {
            if (result.error?.networkError) retry.current = setTimeout(() => readFiles(after, entries), READ_RETRY_MS);
            return setListing({ entries, after, loading: false, error: result.error ? errorText(result.error) : 'toolrun did not answer' });
          }
          setListing({ entries: [...entries, ...page.nodes], after: page.pageInfo.hasNextPage ? (page.pageInfo.endCursor ?? null) : null, loading: false });
        });
    },
    [client, sessionId],
  );
  useEffect(() => {
    shown.current = true;
    readFiles(null, []);
    return () => {
      shown.current = false;
      clearTimeout(retry.current);
    };
  }, [readFiles]);
  const file = selected !== null && content.data?.sessionFile?.path === selected ? content.data.sessionFile : null;
  return (
    <div className="files">
      <button
        type="button"
        onClick={() => {
          refetchMessages({ requestPolicy: 'network-only' });
          readFiles(null, []);
        }}
      >
        Refresh
      </button>
      <h2>Messages</h2>
      {messages.error ? <p role="alert">{errorText(messages.error)}</p> : null}
      {messages.data?.sessionMessages.length ? (
        <ul className="messages">
          {messages.data.sessionMessages.map((message) => (
            <li key={message.messageId}>
              <span className="subtle">
                {time(message.createdAt)} · {message.kind}
              </span>
              <pre>{visibleText(message.text)}</pre>
            </li>
          ))}
        </ul>
      ) : (
        <p>{messages.data ? 'No messages.' : 'Loading messages…'}</p>
      )}
      <h2>Files</h2>
      <div className="file-browser">
        <div>
          {listing.error ? <p role="alert">Reading the files failed: {listing.error}</p> : null}
          {listing.entries.length === 0 && !listing.error ? <p>{listing.loading ? 'Loading files…' : 'No files.'}</p> : null}
          <ul aria-label="Session files" data-entry-count={listing.entries.length}>
            {listing.entries.map((entry) => (
              <li key={entry.path}>
                {entry.isDirectory ? (
                  <span className="mono">{visibleText(entry.path)}/</span>
                ) : (
                  <button type="button" className="link mono" aria-pressed={selected === entry.path} onClick={() => setSelected(entry.path)}>
                    {visibleText(entry.path)} ({entry.size} B)
                  </button>
                )}
              </li>
            ))}
          </ul>
          {listing.after ? (
            <button type="button" disabled={listing.loading} onClick={() => readFiles(listing.after, listing.entries)}>
              {listing.loading ? 'Loading…' : 'Show more files'}
            </button>
          ) : null}
        </div>
        {selected !== null ? (
          <div className="file-view" aria-label={`Contents of ${selected}`}>
            <h3 className="mono">{visibleText(selected)}</h3>
            {!file ? (
              content.error ? <p role="alert">{errorText(content.error)}</p> : <p>{content.fetching ? 'Loading…' : 'This file is gone.'}</p>
            ) : file.path.endsWith('.json') && file.content ? (
              <JsonOrText text={file.content} />
            ) : (
              <pre>{visibleText(file.content ?? '')}</pre>
            )}
          </div>
        ) : null}
      </div>
    </div>
  );
}

function JsonOrText({ text }: { text: string }) {
  try {
    return <JsonView value={JSON.parse(text)} />;
  } catch {
    return <pre>{visibleText(text)}</pre>;
  }
}

function ActivityPanel({ store }: { store: SessionStore; version: number }) {
  const parent = useRef<HTMLDivElement>(null);
  const rows = store.activity;
  // Rows are measured: a long call id wraps onto more lines (on a phone, a 90-character id takes three).
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => parent.current, estimateSize: () => 24, overscan: 10, getItemKey: (index) => rows[index]!.seq });
  return (
    <>
      <p className="subtle">{rows.length === 0 ? 'No tool call event yet.' : 'The session’s latest tool call events (up to 200 from before this page opened), then each as it arrives.'}</p>
      <div ref={parent} className="activity" role="list" aria-label="Tool call events" data-event-count={rows.length} data-event-seqs={rows.map((row) => row.seq).join(',')}>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index]!;
            return (
              <div key={row.seq} ref={virtualizer.measureElement} data-index={item.index} role="listitem" className="activity-row" style={{ transform: `translateY(${item.start}px)` }}>
                <span className="mono">#{row.seq}</span> {time(row.at)} <strong>{row.type}</strong> <span className="mono">{row.subject}</span>
              </div>
            );
          })}
        </div>
      </div>
    </>
  );
}

/**
 * A call's attempts at most, as far as this view knows: a lost worker's call may be given more
 * attempts than it was submitted with, which no event says; an attempt beyond the known maximum shows it.
 */
function maxAttemptsOf(call: { attempt: number; maxAttempts: number }): number {
  return Math.max(call.attempt, call.maxAttempts);
}
