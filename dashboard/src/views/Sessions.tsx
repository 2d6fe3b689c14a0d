// The tenant's sessions, newest first, refreshed every few seconds: new sessions appear, counts
// and last activity move. Paging keeps a stack of cursors so "Previous" returns to the same page.
import { useEffect, useMemo, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { RoleButton } from '../components/RoleButton.js';
import { age } from '../components/Status.js';
import { navigate } from '../data/router.js';
import { CreateSessionDocument, SessionsDocument } from '../gql/graphql.js';

const PAGE_SIZE = 25;
const REFRESH_MS = 3000;

type Filter = 'all' | 'running' | 'approvals';

export function SessionsView() {
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const [search, setSearch] = useState('');
  const [filter, setFilter] = useState<Filter>('all');
  const [now, setNow] = useState(Date.now());
  const after = cursors[cursors.length - 1] ?? null;
  const [{ data, error, fetching }, refetch] = useQuery({ query: SessionsDocument, variables: { first: PAGE_SIZE, after } });
  const [, createSession] = useMutation(CreateSessionDocument);

  useEffect(() => {
    const timer = setInterval(() => {
      setNow(Date.now());
      refetch({ requestPolicy: 'network-only' });
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [refetch]);

  const rows = useMemo(() => {
    const text = search.trim().toLowerCase();
    return (data?.sessions.edges ?? [])
      .map(({ node }) => {
        const batches = node.batches.nodes;
        const lastActivity = [node.createdAt, ...batches.flatMap((batch) => [batch.createdAt, batch.completedAt])]
          .filter((at): at is string => Boolean(at))
          .sort()
          .pop();
        return {
          ...node,
          batchCount: batches.length,
          callCount: batches.reduce((sum, batch) => sum + batch.callCount, 0),
          pending: batches.reduce((sum, batch) => sum + batch.pendingCount, 0),
          running: batches.some((batch) => batch.status === 'RUNNING'),
          lastActivity,
        };
      })
      .filter((row) => !text || (row.title ?? '').toLowerCase().includes(text) || row.sessionId.includes(text))
      .filter((row) => filter === 'all' || (filter === 'running' ? row.running : row.pending > 0));
  }, [data, search, filter]);

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
            <option value="running">with running batches</option>
            <option value="approvals">with pending calls</option>
          </select>
        </label>
        <RoleButton role="SUBMITTER" type="button" onClick={() => void newSession()}>
          New session
        </RoleButton>
      </div>
      {error ? <p role="alert">{error.message}</p> : null}
      <table className="grid" aria-busy={fetching}>
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Session</th>
            <th scope="col">Created</th>
            <th scope="col">Batches</th>
            <th scope="col">Calls</th>
            <th scope="col">Pending</th>
            <th scope="col">Last activity</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.sessionId} data-session-id={row.sessionId}>
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
              <td>{age(row.lastActivity, now)}</td>
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
          disabled={!data?.sessions.pageInfo.hasNextPage}
          onClick={() => setCursors([...cursors, data?.sessions.pageInfo.endCursor ?? null])}
        >
          Next
        </button>
      </div>
    </section>
  );
}
