// /metrics: the API's port and a worker's own port serve Prometheus text with the calls completed
// (by tool, status, failure class), their durations, queue waits and depths, event delivery lag,
// subscribers and connections, worker liveness, pool use and GraphQL operations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetricsServer, type MetricsServer } from '../../src/telemetry/metrics-server.js';
import { ToolCallEventsDocument } from '../gql/graphql.js';
import { batchCompleted } from '../support/events.js';
import { fromStart, newSession, submitBatch, waitForBatch } from '../support/fixtures.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

/** The value of one sample (name and exact label set), or undefined when it is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    const wanted = Object.entries(labels);
    if (wanted.length === Object.keys(found).length && wanted.every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

describe('metrics', () => {
  let app: Toolrun;
  let base: string;
  beforeAll(async () => {
    app = await startToolrun();
    base = (await app.endpoint.wsUrl()).replace(/^ws/, 'http').replace(/\/graphql$/, '');
  });
  afterAll(async () => app?.close());

  const scrape = async (url = `${base}/metrics`) => {
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    return response.text();
  };

  it('counts completed calls by tool, status and failure class, with durations, queue waits and delivery lag', async () => {
    const before = await scrape();
    const succeeded = (text: string) => sample(text, 'toolrun_calls_completed_total', { tool: 'add', status: 'SUCCEEDED', failure_class: '' }) ?? 0;
    const unavailable = (text: string) =>
      sample(text, 'toolrun_calls_completed_total', { tool: 'other', status: 'FAILED', failure_class: 'UNAVAILABLE' }) ?? 0;
    const durations = (text: string) => sample(text, 'toolrun_call_duration_seconds_count', { tool: 'add', status: 'SUCCEEDED' }) ?? 0;
    // A light tenant's job waits on the express queue (jobs/job-dispatcher.ts), a heavy one's on `calls`.
    const waits = (text: string) =>
      ['calls', 'calls-express'].reduce((total, queue) => total + (sample(text, 'toolrun_queue_wait_seconds_count', { queue, job: 'run-calls' }) ?? 0), 0);
    const lags = (text: string) => sample(text, 'toolrun_event_delivery_lag_seconds_count') ?? 0;

    const session = await newSession(app);
    // A live subscriber over graphql-ws: the feed receives the events (delivery lag), and the
    // subscriber and the connection are counted while it is open.
    const events = app.ws(ToolCallEventsDocument, { sessionId: session.id, after: fromStart(session.rowId) });
    const batch = await submitBatch(app, {
      sessionId: session.id,
      calls: [
        { id: 'a1', tool: 'add', args: { a: 1, b: 2 } },
        { id: 'a2', tool: 'add', args: { a: 3, b: 4 } },
        { id: 'u1', tool: 'no_such_tool', args: {} },
      ],
    });
    await waitForBatch(app, session.id, batch.batchId);
    await events.until(batchCompleted(batch.batchId));

    const during = await scrape();
    expect(succeeded(during) - succeeded(before)).toBe(2);
    expect(unavailable(during) - unavailable(before)).toBe(1);
    expect(durations(during) - durations(before)).toBe(2);
    expect(waits(during) - waits(before)).toBeGreaterThanOrEqual(1);
    expect(lags(during) - lags(before)).toBeGreaterThanOrEqual(1);
    expect(sample(during, 'toolrun_event_subscribers')).toBeGreaterThanOrEqual(1);
    expect(sample(during, 'toolrun_event_streams')).toBeGreaterThanOrEqual(1);
    expect(sample(during, 'toolrun_websocket_connections')).toBeGreaterThanOrEqual(1);
    expect(sample(during, 'toolrun_http_connections')).toBeGreaterThanOrEqual(1);
    // A tool name a client chose (an unknown tool's here; a tenant's own tools' likewise) is no label.
    expect(during).not.toContain('no_such_tool');
    await events.close();
  });

  it('counts the statements the process sends to PostgreSQL, through node-postgres and Prisma alike', async () => {
    const statements = async () => sample(await scrape(), 'toolrun_db_statements_total') ?? 0;
    const before = await statements();
    await app.services.sql.query('SELECT 1');
    await app.services.db.$queryRawUnsafe('SELECT 1');
    expect(await statements()).toBeGreaterThanOrEqual(before + 2);
  });

  it('shows queue depths, pool use, running work and worker liveness, read at scrape time', async () => {
    const text = await scrape();
    for (const state of ['waiting', 'prioritized', 'active', 'delayed', 'failed']) {
      for (const queue of ['calls', 'calls-express', 'tasks']) expect(sample(text, 'toolrun_queue_jobs', { queue, state })).toBeGreaterThanOrEqual(0);
    }
    expect(sample(text, 'toolrun_db_pool_max')).toBeGreaterThanOrEqual(10);
    expect(sample(text, 'toolrun_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'toolrun_db_pool_connections', { state: 'waiting' })).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'toolrun_workers_live')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'toolrun_worker_up')).toBe(1);
    expect(sample(text, 'toolrun_calls_running')).toBe(0);
    expect(sample(text, 'toolrun_background_runs_active')).toBe(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('counts GraphQL operations by type and their errors by phase (@envelop/prometheus), never by what a client named', async () => {
    const count = (text: string) => sample(text, 'graphql_envelop_request', { operationType: 'query' }) ?? 0;
    const before = await scrape();
    const result = await app.request('query MetricsProbe { tools { name } }');
    expect(result.errors).toBeUndefined();
    const broken = await app.request('query MetricsBroken { chosenAlias: noSuchField }');
    expect(broken.errors?.length).toBeGreaterThan(0);
    const after = await scrape();
    expect(count(after) - count(before)).toBeGreaterThanOrEqual(1);
    for (const chosen of ['MetricsProbe', 'MetricsBroken', 'chosenAlias']) expect(after).not.toContain(chosen);
    expect(after).toMatch(/graphql_envelop_error_result\{[^}]*phase="validate"/);
    expect(after).toContain('graphql_envelop_request_duration_bucket');
  });

  it('exports no toolrun_worker_up from an API process, which runs no worker', async () => {
    // The test's instance with its worker stops first: this process then holds an API only.
    await app.close();
    const api = await startToolrun({}, { worker: false });
    try {
      const text = await scrape(`${await api.baseUrl()}/metrics`);
      expect(text).toContain('toolrun_calls_running 0');
      // 0 would say "declared dead": every API would trip a worker-down alert.
      expect(sample(text, 'toolrun_worker_up')).toBeUndefined();
    } finally {
      await api.close();
      app = await startToolrun();
    }
  });

  it("serves the same metrics on a worker's own port (WORKER_METRICS_PORT)", async () => {
    const server: MetricsServer = createMetricsServer();
    const port = await server.listen(0, '127.0.0.1');
    try {
      const text = await scrape(`http://127.0.0.1:${port}/metrics`);
      expect(sample(text, 'toolrun_worker_up')).toBe(1);
      expect(text).toContain('toolrun_queue_jobs{queue="calls",state="waiting"}');
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
