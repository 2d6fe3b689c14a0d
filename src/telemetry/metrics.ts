// The process's Prometheus metrics (prom-client). Counters and histograms are updated where the work
// already happens (no extra query or Redis command per call); gauges of state — queue depths, pool
// use, subscribers, connections, running work, worker liveness — are read from their sources when
// /metrics is scraped. Several sources may be registered at once (an API and a worker in one process,
// or tests running several); the gauges add them up.
import type { Queue } from 'bullmq';
import type pg from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { SessionEvent } from '../model/events.js';

export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** What a process's shared resources tell at scrape time. One per `Services`. */
export interface ResourceSource {
  pool: pg.Pool;
  poolMax: number;
  queues: Record<string, Queue>;
  feed: { stats(): { streams: number; subscribers: number } };
  /** Workers of this deployment with a fresh heartbeat (one query per scrape). */
  liveWorkers(): Promise<number>;
}

/** An API server's open connections. */
export interface ServerSource {
  httpConnections(): number;
  websocketConnections(): number;
}

/** A worker runtime's work in hand and liveness. */
export interface WorkerSource {
  callsRunning(): number;
  backgroundRunsActive(): number;
  /** Whether the registry still counts this worker alive (one query per scrape). */
  alive(): Promise<boolean>;
}

const resources = new Set<ResourceSource>();
const servers = new Set<ServerSource>();
const workers = new Set<WorkerSource>();

function registerIn<T>(set: Set<T>, source: T): () => void {
  set.add(source);
  return () => void set.delete(source);
}

/** Adds a source until the returned function is called. The same resources registered twice count once. */
export const metricSources = {
  resources: (source: ResourceSource) => registerIn(resources, source),
  server: (source: ServerSource) => registerIn(servers, source),
  worker: (source: WorkerSource) => {
    // Only a process that runs a worker says whether it is up: an API's 0 would read as one declared dead.
    if (workers.size === 0) metricsRegistry.registerMetric(workerUp);
    const unregister = registerIn(workers, source);
    return () => {
      unregister();
      if (workers.size === 0) metricsRegistry.removeSingleMetric('toolrun_worker_up');
    };
  },
};

const sum = <T>(set: Set<T>, value: (item: T) => number) => [...set].reduce((total, item) => total + value(item), 0);

// --- updated where the work happens ---

export const callsCompleted = new Counter({
  name: 'toolrun_calls_completed_total',
  help: 'Tool calls that reached a final status, by tool, status and failure class ("" unless FAILED)',
  labelNames: ['tool', 'status', 'failure_class'] as const,
  registers: [metricsRegistry],
});

export const callDuration = new Histogram({
  name: 'toolrun_call_duration_seconds',
  help: 'How long the final attempt of a tool call ran, by tool and status',
  labelNames: ['tool', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [metricsRegistry],
});

export const queueWait = new Histogram({
  name: 'toolrun_queue_wait_seconds',
  help: 'Time a job waited in its queue (from when it was due) before a worker took it, by queue and job',
  labelNames: ['queue', 'job'] as const,
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [metricsRegistry],
});

export const dbStatements = new Counter({
  name: 'toolrun_db_statements_total',
  help: 'Statements this process sent to PostgreSQL (transaction commands included)',
  registers: [metricsRegistry],
});

export const eventDeliveryLag = new Histogram({
  name: 'toolrun_event_delivery_lag_seconds',
  help: 'From the commit of an event to its arrival at this process for its subscribers (once per published message)',
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [metricsRegistry],
});

/** The `tool` label of calls of tools that are not built in (their names are tenants' and unbounded). */
export const OTHER_TOOLS_LABEL = 'other';

/**
 * Counts the calls that the committed events complete (every process counts the events it commits).
 * `toolLabel` names a call's tool in the metrics: /metrics is unauthenticated and its series live as
 * long as the process, so names a tenant chooses (its tools', unknown ones) must not become labels.
 */
export function countCompletions(events: readonly SessionEvent[], toolLabel: (tool: string) => string): void {
  for (const event of events) {
    if (event.type !== 'ToolCallCompleted') continue;
    const { status, output, durationMs } = event.payload;
    const tool = toolLabel(event.payload.tool);
    const failureClass = output.status === 'FAILURE' ? output.failure.class : '';
    callsCompleted.inc({ tool, status, failure_class: failureClass });
    callDuration.observe({ tool, status }, durationMs / 1000);
  }
}

/** The lag of a published message, measured from its last event's commit time. */
export function observeDelivery(events: readonly SessionEvent[]): void {
  const last = events[events.length - 1];
  if (!last) return;
  const committedAt = Date.parse(last.createdAt);
  if (!Number.isFinite(committedAt)) return;
  const lagMs = Math.max(0, Date.now() - committedAt);
  eventDeliveryLag.observe(lagMs / 1000);
  recentLags.push(Date.now(), lagMs);
}

const LAG_WINDOW_MS = 60_000;

/** The delivery lags of the last minute (at most the newest 4,096), for the Health page. */
class LagWindow {
  private readonly at = new Float64Array(4096);
  private readonly lagMs = new Float64Array(4096);
  private next = 0;
  private size = 0;

  push(at: number, lagMs: number): void {
    this.at[this.next] = at;
    this.lagMs[this.next] = lagMs;
    this.next = (this.next + 1) % this.at.length;
    this.size = Math.min(this.size + 1, this.at.length);
  }

  read(now = Date.now()) {
    const lags: number[] = [];
    let lastAt = 0;
    for (let i = 0; i < this.size; i++) {
      if (this.at[i]! < now - LAG_WINDOW_MS) continue;
      lags.push(this.lagMs[i]!);
      lastAt = Math.max(lastAt, this.at[i]!);
    }
    lags.sort((a, b) => a - b);
    return {
      windowMs: LAG_WINDOW_MS,
      messages: lags.length,
      medianMs: lags.length ? lags[Math.floor((lags.length - 1) / 2)]! : null,
      maxMs: lags.length ? lags[lags.length - 1]! : null,
      lastAt: lags.length ? new Date(lastAt) : null,
    };
  }
}

const recentLags = new LagWindow();

/** Median and largest delivery lag of the messages this process received in the last minute. */
export function recentDeliveryLag() {
  return recentLags.read();
}

// --- read at scrape time ---

const JOB_STATES = ['waiting', 'prioritized', 'active', 'delayed', 'failed', 'waiting-children'] as const;

new Gauge({
  name: 'toolrun_queue_jobs',
  help: 'Jobs in each BullMQ queue by state',
  labelNames: ['queue', 'state'] as const,
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    const seen = new Set<Queue>();
    for (const source of resources) {
      for (const [name, queue] of Object.entries(source.queues)) {
        if (seen.has(queue)) continue;
        seen.add(queue);
        // A Redis that is away leaves the gauge empty rather than failing the scrape.
        const counts = await queue.getJobCounts(...JOB_STATES).catch(() => null);
        if (!counts) continue;
        for (const state of JOB_STATES) this.inc({ queue: name, state }, counts[state] ?? 0);
      }
    }
  },
});

new Gauge({
  name: 'toolrun_db_pool_connections',
  help: 'PostgreSQL pool connections: total open, idle, and clients waiting for one',
  labelNames: ['state'] as const,
  registers: [metricsRegistry],
  collect() {
    this.set({ state: 'total' }, sum(resources, (source) => source.pool.totalCount));
    this.set({ state: 'idle' }, sum(resources, (source) => source.pool.idleCount));
    this.set({ state: 'waiting' }, sum(resources, (source) => source.pool.waitingCount));
  },
});

new Gauge({
  name: 'toolrun_db_pool_max',
  help: 'Largest size of the PostgreSQL pool (DATABASE_POOL_SIZE)',
  registers: [metricsRegistry],
  collect() {
    this.set(sum(resources, (source) => source.poolMax));
  },
});

new Gauge({
  name: 'toolrun_event_streams',
  help: 'Live event streams (a session or tenant watched by at least one subscriber) in this process',
  registers: [metricsRegistry],
  collect() {
    this.set(sum(resources, (source) => source.feed.stats().streams));
  },
});

new Gauge({
  name: 'toolrun_event_subscribers',
  help: 'Subscribers of live event streams in this process',
  registers: [metricsRegistry],
  collect() {
    this.set(sum(resources, (source) => source.feed.stats().subscribers));
  },
});

new Gauge({
  name: 'toolrun_workers_live',
  help: 'Workers of this deployment whose heartbeat is fresh, as the worker registry in PostgreSQL has it',
  registers: [metricsRegistry],
  async collect() {
    const [first] = resources;
    const live = first ? await first.liveWorkers().catch(() => null) : null;
    if (live === null) this.reset();
    else this.set(live);
  },
});

new Gauge({
  name: 'toolrun_http_connections',
  help: 'Open HTTP connections (SSE streams and keep-alive included) of the API',
  registers: [metricsRegistry],
  collect() {
    this.set(sum(servers, (source) => source.httpConnections()));
  },
});

new Gauge({
  name: 'toolrun_websocket_connections',
  help: 'Open graphql-ws connections of the API',
  registers: [metricsRegistry],
  collect() {
    this.set(sum(servers, (source) => source.websocketConnections()));
  },
});

new Gauge({
  name: 'toolrun_calls_running',
  help: 'Tool calls running on this process',
  registers: [metricsRegistry],
  collect() {
    this.set(sum(workers, (source) => source.callsRunning()));
  },
});

new Gauge({
  name: 'toolrun_background_runs_active',
  help: 'Background runs running on this process',
  registers: [metricsRegistry],
  collect() {
    this.set(sum(workers, (source) => source.backgroundRunsActive()));
  },
});

/** Registered while the process runs a worker (`metricSources.worker`). */
const workerUp: Gauge = new Gauge({
  name: 'toolrun_worker_up',
  help: 'Worker runtimes of this process that the registry counts alive (0: declared dead, or the database is away); absent from a process that runs none',
  registers: [],
  async collect() {
    const states = await Promise.all([...workers].map((source) => source.alive().catch(() => false)));
    this.set(states.filter(Boolean).length);
  },
});

/** The metrics in the Prometheus text format, with its content type. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}
