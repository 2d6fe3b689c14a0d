// Whether this toolrun can serve and what it is doing: its readiness check (database, Redis,
// shutting down), and `systemStatus` — queue depths, workers alive, event lag (deployment-wide
// totals) and the tenant's unfinished calls. A status page polls: both every 3 s.
import { useEffect, useState } from 'react';
import { useQuery } from 'urql';
import { SystemStatusDocument, type SystemStatusQuery } from '../gql/graphql.js';

const REFRESH_MS = 3000;

interface Readiness {
  status: string;
  database: string;
  redis: string;
  closing: boolean;
}

export function HealthView() {
  const [ready, setReady] = useState<{ http: number; body: Readiness | null; at: number } | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    let stop = false;
    const check = async () => {
      try {
        const response = await fetch('/ready');
        const body = (await response.json().catch(() => null)) as Readiness | null;
        if (!stop) {
          setReady({ http: response.status, body, at: Date.now() });
          setFailure(null);
        }
      } catch (error) {
        if (stop) return;
        // What the last answer said no longer holds.
        setFailure((error as Error).message);
        setReady(null);
      }
    };
    void check();
    const timer = setInterval(() => void check(), REFRESH_MS);
    return () => {
      stop = true;
      clearInterval(timer);
    };
  }, []);
  const [{ data: status, error: statusError }, refetchStatus] = useQuery({ query: SystemStatusDocument, requestPolicy: 'network-only' });
  useEffect(() => {
    const timer = setInterval(() => refetchStatus({ requestPolicy: 'network-only' }), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refetchStatus]);
  return (
    <section aria-labelledby="health-title">
      <h1 id="health-title">Health</h1>
      {failure ? <p role="alert">toolrun does not answer: {failure}</p> : null}
      {ready ? (
        <dl className="facts" data-ready={ready.body?.status}>
          <dt>Readiness</dt>
          <dd>
            {ready.body?.status ?? 'unknown'} (HTTP {ready.http})
          </dd>
          <dt>Database</dt>
          <dd>{ready.body?.database}</dd>
          <dt>Redis</dt>
          <dd>{ready.body?.redis}</dd>
          <dt>Shutting down</dt>
          <dd>{ready.body?.closing ? 'yes' : 'no'}</dd>
          <dt>Checked</dt>
          <dd>{new Date(ready.at).toLocaleTimeString()}</dd>
        </dl>
      ) : (
        <p>Checking…</p>
      )}
      {statusError ? <p role="alert">{statusError.message}</p> : null}
      {status ? <SystemStatusView status={status.systemStatus} /> : null}
    </section>
  );
}

function SystemStatusView({ status }: { status: SystemStatusQuery['systemStatus'] }) {
  const lag = status.eventLag;
  const ms = (value: number | null | undefined) => (value === null || value === undefined ? '—' : `${Math.round(value)} ms`);
  return (
    <div className="system-status" data-at={status.at}>
      <h2>Workers and events</h2>
      <dl className="facts">
        <dt>Workers alive</dt>
        <dd data-workers-alive={status.workersAlive}>
          {status.workersAlive}
          {status.workersAlive === 0 ? ' — nothing runs calls or tasks' : ''}
        </dd>
        <dt>Event lag (last {Math.round(lag.windowMs / 1000)} s)</dt>
        <dd data-event-lag-messages={lag.messages}>
          {lag.messages === 0 ? 'no events delivered' : `median ${ms(lag.medianMs)}, max ${ms(lag.maxMs)} over ${lag.messages} deliveries`}
        </dd>
        <dt>Read at</dt>
        <dd>{new Date(status.at).toLocaleTimeString()}</dd>
      </dl>
      <h2>Queues (all tenants)</h2>
      {status.queues ? (
        <table className="grid queues">
          <thead>
            <tr>
              <th scope="col">Queue</th>
              <th scope="col">Waiting</th>
              <th scope="col">Active</th>
              <th scope="col">Delayed</th>
              <th scope="col">Failed</th>
            </tr>
          </thead>
          <tbody>
            {status.queues.map((queue) => (
              <tr key={queue.queue} data-queue={queue.queue} data-waiting={queue.waiting} data-active={queue.active}>
                <th scope="row">{queue.queue}</th>
                <td>{queue.waiting}</td>
                <td>{queue.active}</td>
                <td>{queue.delayed}</td>
                <td>{queue.failed}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p role="alert">The queues do not answer (Redis is away).</p>
      )}
      <h2>This tenant’s unfinished calls</h2>
      <dl className="facts tenant-calls">
        <dt>Queued</dt>
        <dd data-queued={status.tenantCalls.queued}>{status.tenantCalls.queued}</dd>
        <dt>Running</dt>
        <dd data-running={status.tenantCalls.running}>{status.tenantCalls.running}</dd>
        <dt>Awaiting approval</dt>
        <dd data-awaiting-approval={status.tenantCalls.awaitingApproval}>{status.tenantCalls.awaitingApproval}</dd>
        <dt>Pending external completion</dt>
        <dd>{status.tenantCalls.pendingExternal}</dd>
      </dl>
    </div>
  );
}
