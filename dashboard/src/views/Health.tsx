// Whether this toolrun can serve: its readiness check (database, Redis, shutting down), every 2 s.
import { useEffect, useState } from 'react';

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
        if (!stop) setFailure((error as Error).message);
      }
    };
    void check();
    const timer = setInterval(() => void check(), 2000);
    return () => {
      stop = true;
      clearInterval(timer);
    };
  }, []);
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
    </section>
  );
}
