// The tenant's sessions, newest first, kept live by the tenant's events (no polling): a row is
// read again when an event of its session arrives, and the first page when a session it does not
// show yet has one (a new session appears with its first event). Paging keeps a stack of cursors
// so "Previous" returns to the same page.
import { useEffect, useMemo, useState } from 'react';
import { useMutation } from 'urql';
import { RoleButton } from '../components/RoleButton.js';
import { age } from '../components/Status.js';
import type { Link } from '../data/connection.js';
import { navigate } from '../data/router.js';
import { coalesced, followTenant } from '../data/tenant-feed.js';
import { CreateSessionDocument, type EventType, SessionRowsDocument, type SessionRowFragment, SessionsDocument } from '../gql/graphql.js';

const PAGE_SIZE = 25;
/** Events that change a row's counts or announce a session (progress, output and heartbeats only move its last activity). */
const ROW_EVENTS: EventType[] = [
  'ToolCallAwaitingApproval',
  'ToolCallApproved',
  'ToolCallAwaitingCompletion',
  'ToolCallStarted',
  'ToolCallRetrying',
  'ToolCallCompleted',
  'ToolBatchCompleted',
  'TaskCreated',
  'TaskFinished',
];
const RELOAD_DELAY_MS = 200;

type Filter = 'all' | 'running' | 'approvals';

export function SessionsView({ link }: { link: Link }) {
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const [search, setSearch] = useState('');
  const [filter, setFilter] = useState<Filter>('all');
  const [now, setNow] = useState(Date.now());
  const [page, setPage] = useState<{ rows: SessionRowFragment[]; hasNextPage: boolean; endCursor: string | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const after = cursors[cursors.length - 1] ?? null;
  const [, createSession] = useMutation(CreateSessionDocument);

  // Only the "ago" texts move with the clock; the data move with events.
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);

  useEffect(() => {
    setPage(null);
    let shown = new Set<string>();
    const dirty = new Set<string>();
    let newSessions = false;
    const readPage = async () => {
      const answer = await link.urql.query(SessionsDocument, { first: PAGE_SIZE, after }, { requestPolicy: 'network-only' }).toPromise();
      if (!answer.data) {
        setError(answer.error?.message ?? 'toolrun did not answer');
        return;
      }
      setError(null);
      const rows = answer.data.sessions.edges.map((edge) => edge.node);
      shown = new Set(rows.map((row) => row.id));
      setPage({ rows, hasNextPage: answer.data.sessions.pageInfo.hasNextPage, endCursor: answer.data.sessions.pageInfo.endCursor ?? null });
    };
    const reload = coalesced(async () => {
      if (newSessions) {
        newSessions = false;
        dirty.clear();
        await readPage();
        return;
      }
      const ids = [...dirty];
      dirty.clear();
      if (ids.length === 0) return;
      const answer = await link.urql.query(SessionRowsDocument, { ids }, { requestPolicy: 'network-only' }).toPromise();
      const fresh = new Map<string, SessionRowFragment>();
      for (const node of answer.data?.nodes ?? []) if (node?.__typename === 'Session') fresh.set(node.id, node);
      setPage((current) => current && { ...current, rows: current.rows.map((row) => fresh.get(row.id) ?? row) });
    }, RELOAD_DELAY_MS);
    const stop = followTenant(link, ROW_EVENTS, {
      load: readPage,
      onEvents: (events) => {
        for (const event of events) {
          if (shown.has(event.sessionId)) dirty.add(event.sessionId);
          // Newest first: a session this page does not know belongs on the first page.
          else if (after === null) newSessions = true;
        }
        if (dirty.size > 0 || newSessions) reload.request();
      },
    });
    return () => {
      stop();
      reload.stop();
    };
  }, [link, after]);

  const rows = useMemo(() => {
    const text = search.trim().toLowerCase();
    return (page?.rows ?? [])
      .map((node) => ({
        ...node,
        batchCount: node.batches.totalCount,
        callCount: node.callCounts.total,
        pending: node.callCounts.unfinished,
        awaitingApproval: node.callCounts.awaitingApproval,
      }))
      .filter((row) => !text || (row.title ?? '').toLowerCase().includes(text) || row.sessionId.includes(text))
      .filter((row) => filter === 'all' || (filter === 'running' ? row.pending > 0 : row.awaitingApproval > 0));
  }, [page, search, filter]);
  const fetching = page === null;

  const newSession = async () => {
    const result = await createSession({ title: `Session ${new Date().toLocaleString()}` });
    const session = result.data?.createSession;
    if (session?.__typename === 'Session') navigate(`/sessions/${session.sessionId}`);
  };

  return (
    <section aria-labelledby="sessions-title">
      <div className="toolbar">
        <h1 id="sessions-title">Sessions</h1>
        <label>
          Search <input type="search" value={search} onChange={(event) => setSearch(event.target.value)} placeholder="title or id" />
        </label>
        <label>
          Show{' '}
          <select value={filter} onChange={(event) => setFilter(event.target.value as Filter)}>
            <option value="all">all</option>
            <option value="running">with unfinished calls</option>
            <option value="approvals">with calls awaiting approval</option>
          </select>
        </label>
        <RoleButton role="SUBMITTER" type="button" onClick={() => void newSession()}>
          New session
        </RoleButton>
      </div>
      {error ? <p role="alert">{error}</p> : null}
      <table className="grid" aria-busy={fetching}>
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Session</th>
            <th scope="col">Created</th>
            <th scope="col">Batches</th>
            <th scope="col">Calls</th>
            <th scope="col">Unfinished</th>
            <th scope="col">Last activity</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.sessionId} data-session-id={row.sessionId} data-calls={row.callCount} data-unfinished={row.pending}>
              <td>
                <a
                  href={`/sessions/${row.sessionId}`}
                  onClick={(event) => {
                    event.preventDefault();
                    navigate(`/sessions/${row.sessionId}`);
                  }}
                >
                  {row.title || '(untitled)'}
                </a>
              </td>
              <td className="mono">{row.sessionId.slice(0, 8)}</td>
              <td>{new Date(row.createdAt).toLocaleString()}</td>
              <td>{row.batchCount}</td>
              <td>{row.callCount}</td>
              <td>{row.pending}</td>
              <td>{age(row.lastActivityAt, now)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && !fetching ? <p>No sessions match.</p> : null}
      <div className="pager">
        <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Previous
        </button>
        <span>Page {cursors.length}</span>
        <button
          type="button"
          disabled={!page?.hasNextPage}
          onClick={() => setCursors([...cursors, page?.endCursor ?? null])}
        >
          Next
        </button>
      </div>
    </section>
  );
}
