// The tenant's sessions, newest first, kept live by the tenant's events: a row is read again when an
// event of its session arrives, and a new session's row is built from its SessionCreated alone and
// takes its place on the first page. A batch whose calls all wait in the queue has had no event, so
// the rows shown are also read again every UNANNOUNCED_READ_MS while the page is in view. Paging keeps a stack of cursors so
// "Previous" returns to the same page. Search and "Show" ask the server (`sessions(filter)`), so
// they find sessions on any page; while one is set, events make the page be read again (whether a
// row still matches is the server's to say).
import { useEffect, useMemo, useRef, useState } from 'react';
import { useMutation } from 'urql';
import { RoleButton } from '../components/RoleButton.js';
import { visibleText } from '../components/visible-text.js';
import { age } from '../components/Status.js';
import { type Link, rawIdOf, refusalOf, UNANNOUNCED_READ_MS } from '../data/connection.js';
import { linkTo, navigate } from '../data/router.js';
import { coalesced, followTenant, type TenantEvent } from '../data/tenant-feed.js';
import { CreateSessionDocument, type EventType, type SessionFilter, SessionRowsDocument, type SessionRowFragment, SessionsDocument } from '../gql/graphql.js';

const PAGE_SIZE = 25;
/** Events that change a row's counts or announce a session (progress, output and heartbeats only move its last activity). */
const ROW_EVENTS: EventType[] = [
  'SessionCreated',
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
const SEARCH_DELAY_MS = 250;
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** What the sessions search takes for (the start of) a session id rather than a title. */
const ID_PREFIX = /^[0-9a-f]{8}[0-9a-f-]{0,28}$/i;

type Filter = 'all' | 'running' | 'approvals';
/** A row with its list cursor (null for a row built from its SessionCreated: the list never handed one out). */
type Edge = { cursor: string | null; node: SessionRowFragment };
type SessionPage = { edges: Edge[]; hasNextPage: boolean; endCursor: string | null };

/** A new session's row as the list would read it: no batch or call yet. */
function createdRow(event: Extract<TenantEvent, { __typename: 'SessionCreated' }>): SessionRowFragment {
  return {
    id: event.sessionId,
    sessionId: rawIdOf(event.sessionId),
    title: event.title ?? null,
    createdAt: event.createdAt,
    lastActivityAt: event.at,
    callCounts: { total: 0, unfinished: 0, awaitingApproval: 0 },
    batches: { totalCount: 0 },
  };
}

/** The list's order: newest first by creation, then by id (as `sessions` pages). */
const newerFirst = (a: SessionRowFragment, b: SessionRowFragment) =>
  Date.parse(b.createdAt) - Date.parse(a.createdAt) || (a.sessionId < b.sessionId ? 1 : a.sessionId > b.sessionId ? -1 : 0);

/**
 * The first page with `rows` added in the list's order, cut to the page size; null when the rows
 * that stay cannot say where the next page starts (a page of rows built from events only).
 */
function withNewRows(page: SessionPage, rows: SessionRowFragment[]): SessionPage | null {
  const edges = [...page.edges, ...rows.map((node) => ({ cursor: null, node }))].sort((a, b) => newerFirst(a.node, b.node));
  if (edges.length <= PAGE_SIZE) return { ...page, edges };
  const kept = edges.slice(0, PAGE_SIZE);
  const endCursor = kept.at(-1)!.cursor;
  return endCursor === null ? null : { edges: kept, hasNextPage: true, endCursor };
}

/** The list's place as its address keeps it (`?q=…&show=…&after=…`), so Back and a reload return to it. */
function placeOf(search: string): { cursors: Array<string | null>; search: string; filter: Filter } {
  const params = new URLSearchParams(search);
  const show = params.get('show');
  return {
    cursors: [null, ...params.getAll('after').filter(Boolean)],
    search: params.get('q') ?? '',
    filter: show === 'running' || show === 'approvals' ? show : 'all',
  };
}

export function SessionsView({ link }: { link: Link }) {
  const [start] = useState(() => placeOf(location.search));
  const [cursors, setCursors] = useState<Array<string | null>>(start.cursors);
  const [search, setSearch] = useState(start.search);
  const [filter, setFilter] = useState<Filter>(start.filter);
  // The search the server is asked for: the typed text once typing pauses.
  const [searched, setSearched] = useState(start.search.trim());
  useEffect(() => {
    const timer = setTimeout(() => setSearched(search.trim()), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [search]);
  const serverFilter = useMemo((): SessionFilter | null => {
    const chosen: SessionFilter = {};
    // Eight hex digits or more (the id the table shows, or a whole one) search ids; anything else, titles.
    if (searched) {
      if (ID_PREFIX.test(searched)) chosen.idPrefix = searched;
      else chosen.titleContains = searched;
    }
    if (filter === 'running') chosen.status = 'ACTIVE';
    if (filter === 'approvals') chosen.hasPendingApprovals = true;
    return Object.keys(chosen).length > 0 ? chosen : null;
  }, [searched, filter]);
  // Another filter starts again from the first page (not the one the address gave at the start).
  const lastFilter = useRef(JSON.stringify(serverFilter));
  useEffect(() => {
    const key = JSON.stringify(serverFilter);
    if (key === lastFilter.current) return;
    lastFilter.current = key;
    setCursors([null]);
  }, [serverFilter]);
  useEffect(() => {
    const params = new URLSearchParams();
    // The text as typed, not as last searched: Back restores what the field held.
    if (search.trim()) params.set('q', search.trim());
    if (filter !== 'all') params.set('show', filter);
    for (const cursor of cursors) if (cursor) params.append('after', cursor);
    const query = params.toString();
    const target = `${location.pathname}${query ? `?${query}` : ''}`;
    if (target !== location.pathname + location.search) history.replaceState(null, '', target);
  }, [search, filter, cursors]);
  const [now, setNow] = useState(Date.now());
  const [page, setPage] = useState<SessionPage | null>(null);
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
    let current: SessionPage | null = null;
    let shown = new Set<string>();
    const dirty = new Set<string>();
    let readAgain = false;
    const show = (next: SessionPage) => {
      current = next;
      shown = new Set(next.edges.map((edge) => edge.node.id));
      setPage(next);
    };
    const readPage = async () => {
      const answer = await link.urql.query(SessionsDocument, { first: PAGE_SIZE, after, filter: serverFilter }, { requestPolicy: 'network-only' }).toPromise();
      if (!answer.data) {
        setError(answer.error?.message ?? 'toolrun did not answer');
        return false;
      }
      setError(null);
      show({ edges: answer.data.sessions.edges, hasNextPage: answer.data.sessions.pageInfo.hasNextPage, endCursor: answer.data.sessions.pageInfo.endCursor ?? null });
      return true;
    };
    const reload = coalesced(async () => {
      if (readAgain) {
        readAgain = false;
        dirty.clear();
        await readPage();
        return;
      }
      const ids = [...dirty];
      dirty.clear();
      if (ids.length === 0 || !current) return;
      const answer = await link.urql.query(SessionRowsDocument, { ids }, { requestPolicy: 'network-only' }).toPromise();
      const fresh = new Map<string, SessionRowFragment>();
      for (const node of answer.data?.nodes ?? []) if (node?.__typename === 'Session') fresh.set(node.id, node);
      // `current` again: rows may have been added while the read ran.
      show({ ...current, edges: current.edges.map((edge) => ({ ...edge, node: fresh.get(edge.node.id) ?? edge.node })) });
    }, RELOAD_DELAY_MS);
    const stop = followTenant(link, ROW_EVENTS, {
      load: readPage,
      onUnanswered: setError,
      onEvents: (events) => {
        if (serverFilter) {
          readAgain = true;
          reload.request();
          return;
        }
        const created: SessionRowFragment[] = [];
        for (const event of events) {
          if (shown.has(event.sessionId) || created.some((row) => row.id === event.sessionId)) {
            if (event.__typename !== 'SessionCreated') dirty.add(event.sessionId);
          } else if (event.__typename === 'SessionCreated' && after === null) {
            // Newest first: a new session belongs on the first page; later pages stay as they were read.
            created.push(createdRow(event));
          }
        }
        if (created.length > 0 && current) {
          const next = withNewRows(current, created);
          if (next) show(next);
          else readAgain = true;
        }
        if (dirty.size > 0 || readAgain) reload.request();
      },
    });
    const unannounced = setInterval(() => {
      if (document.hidden || !current) return;
      if (serverFilter) readAgain = true;
      else for (const id of shown) dirty.add(id);
      reload.request();
    }, UNANNOUNCED_READ_MS);
    return () => {
      stop();
      reload.stop();
      clearInterval(unannounced);
    };
  }, [link, after, serverFilter]);

  const rows = useMemo(
    () =>
      (page?.edges ?? []).map(({ node }) => ({
        ...node,
        batchCount: node.batches.totalCount,
        callCount: node.callCounts.total,
        pending: node.callCounts.unfinished,
        awaitingApproval: node.callCounts.awaitingApproval,
      })),
    [page],
  );
  // A session id typed in full opens that session (titles are what the search matches).
  const typedId = SESSION_ID.test(search.trim().toLowerCase()) ? search.trim().toLowerCase() : null;
  const fetching = page === null;

  // Why the last "New session" made none (toolrun away, a typed refusal), until the next one.
  const [createProblem, setCreateProblem] = useState<string | null>(null);
  const newSession = async () => {
    setCreateProblem(null);
    const result = await createSession({ title: `Session ${new Date().toLocaleString()}` });
    const session = result.data?.createSession;
    if (session?.__typename === 'Session') navigate(`/sessions/${session.sessionId}`);
    else setCreateProblem(`Creating a session failed: ${refusalOf(result) ?? 'no answer'}`);
  };

  return (
    <section aria-labelledby="sessions-title">
      <div className="toolbar">
        <h1 id="sessions-title">Sessions</h1>
        <label>
          Search <input type="search" value={search} onChange={(event) => setSearch(event.target.value)} placeholder="title, or a session id (its first 8 characters will do)" />
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
      {createProblem ? <p role="alert">{createProblem}</p> : null}
      {typedId ? (
        <p>
          <a
            href={`/sessions/${typedId}`}
            onClick={linkTo(`/sessions/${typedId}`)}
          >
            Open session {typedId}
          </a>
        </p>
      ) : null}
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
            <tr key={row.sessionId} data-session-id={row.sessionId} data-batches={row.batchCount} data-calls={row.callCount} data-unfinished={row.pending}>
              <td>
                <a
                  href={`/sessions/${row.sessionId}`}
                  onClick={linkTo(`/sessions/${row.sessionId}`)}
                >
                  {visibleText(row.title || '(untitled)')}
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
      {rows.length === 0 && !fetching ? (
        // Only a search or a filter can match nothing; a first page without either is a tenant with no session.
        <p>{serverFilter || after ? 'No sessions match.' : 'No sessions yet: make one with New session, the Tools page’s “Try it”, or createSession.'}</p>
      ) : null}
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
