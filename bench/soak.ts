// `npm run soak -- --minutes N`: toolrun under mixed load and repeated faults (issue 15).
//
// Two API processes and two worker processes (the compiled build when there is one, else the
// sources through tsx) on a database of their own and a private redis-server, under a mixed load:
// batches of fast and slow calls (idempotent sleeps and non-idempotent tickers), background runs,
// schedules, subscribers that reconnect by cursor (to the other API now and then), approvals and
// external completions. Every `--fault-every` seconds one fault, in turn: SIGKILL a worker (a new
// one replaces it), SIGSTOP a worker longer than it may stay silent (then SIGCONT), restart Redis
// empty, terminate every PostgreSQL backend of the processes, SIGTERM an API (a new one replaces
// it). One API and one worker are spared: the process faults go to the other two (and their
// replacements), so that the spared pair lives from the warm-up to the end (Redis restarts and
// backend terminations hit them too) and measures memory growth; their RSS is sampled every 5 s
// and their heap and external memory read from their /metrics. Then the load stops, everything
// drains, and the run prints its figures and checks the targets: nothing lost or left
// non-terminal, no non-idempotent call or run executed twice, no subscriber gap or duplicate, no
// unexpected error or exit, no deadlock, the load spread over both APIs and both workers, and
// (runs of 10 minutes or more) RSS growth of the spared processes under 10 % after warm-up. Exit
// code 1 when a target fails.
//
// Options: --minutes N (default 5), --fault-every S (default 90; runs under 10 minutes space five
// faults evenly), --database-url URL (else SOAK_DATABASE_URL, else the local toolrun_soak database;
// it is dropped and created again), --json FILE (the summary as JSON).
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createClient, type Client } from 'graphql-ws';
import pg from 'pg';
import { WebSocket } from 'ws';
import { CALL_EVENT_TYPES } from '../src/model/events.js';
import { encodeEventCursor } from '../src/realtime/cursors.js';
import { ROOT } from './support/children.js';
import { databaseName, freePort, recreateDatabase, TOOLRUN_COMMAND, toolrunEnv } from './support/deployment.js';
import { MB, rssBytes } from './support/proc.js';
import { deferred, percentile, sleep } from './support/wait.js';

const { values: options } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' },
    'fault-every': { type: 'string' },
    'database-url': { type: 'string' },
    json: { type: 'string' },
  },
});
const MINUTES = Number(options.minutes);
if (!(MINUTES > 0)) throw new Error(`--minutes must be a positive number, got ${options.minutes}`);
const DURATION_MS = MINUTES * 60_000;
const FAULT_EVERY_MS = options['fault-every'] ? Number(options['fault-every']) * 1000 : MINUTES >= 10 ? 90_000 : DURATION_MS / 6;
/** Memory growth counts from the end of the warm-up (caches, JIT, pools and heaps settled): a third of the run, at most 5 minutes. */
const WARMUP_MS = Math.min(5 * 60_000, DURATION_MS / 3);
/**
 * The memory figures at the end of the warm-up and at the end of the load are medians over a window
 * this long: a worker's RSS saws up and down by some 50 MB every two or three minutes as V8 grows and
 * releases its heap, so a shorter window (or one sample) measures where in that cycle it fell.
 */
const MEMORY_WINDOW_MS = Math.min(180_000, (DURATION_MS - WARMUP_MS) / 4);
const RSS_SAMPLE_MS = 5000;
/** The spared processes' /metrics (heap, external) are read every this many RSS samples. */
const METRICS_EVERY_SAMPLES = 3;
/** The growth target applies to runs this long; shorter runs report it. */
const RSS_CHECKED = MINUTES >= 10;
const DATABASE_URL = options['database-url'] ?? process.env.SOAK_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/toolrun_soak';
/** A fault's window, for latency figures: from its start until this long after it is repaired. */
const FAULT_TAIL_MS = 10_000;

/** What the soak gives toolrun besides the bench's settings: short liveness windows, test tools, second-resolution schedules. */
const SOAK_ENV = {
  ENABLE_TEST_TOOLS: 'true',
  SCHEDULE_ALLOW_SECONDS: 'true',
  DATABASE_POOL_SIZE: '6',
  HEARTBEAT_INTERVAL_MS: '250',
  WORKER_DEAD_AFTER_MS: '5000',
  JOB_LOCK_MS: '5000',
  RECONCILE_INTERVAL_MS: '1000',
  TASK_REAPER_INTERVAL_MS: '2000',
  CANCEL_GRACE_MS: '1000',
  WORKER_DRAIN_MS: '3000',
  WORKER_CONCURRENCY: '16',
  CALLS_PER_JOB: '4',
};
const FREEZE_MS = 7000;
/** A process starts slowly on a busy machine (several seconds of CPU each). */
const STARTUP_MS = 180_000;

const launched = Date.now();
/** When the load began (set once the processes run): durations, faults and warm-up count from it. */
let loadStarted = Date.now();
/** When the load stopped, ms into it: the end of the memory figures. */
let loadEndedAt = Number.POSITIVE_INFINITY;
const elapsed = () => Date.now() - loadStarted;
const log = (line: string) => console.log(`[soak ${((Date.now() - launched) / 1000).toFixed(0).padStart(4)} s] ${line}`);

// ---------------------------------------------------------------------------------------------
// Processes. The soak keeps its own children (not the bench's pid file: a bench run kills what that
// file lists), keeps their last lines for its report and kills them all when it exits.

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

class Child {
  readonly process: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly lines: string[] = [];

  constructor(readonly name: string, args: string[], env: NodeJS.ProcessEnv, command = process.execPath) {
    this.process = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(this.process);
    for (const stream of [this.process.stdout!, this.process.stderr!]) {
      let partial = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const parts = (partial + chunk).split('\n');
        partial = parts.pop() ?? '';
        for (const line of parts) if (line.trim()) this.lines.push(line);
        this.lines.splice(0, Math.max(0, this.lines.length - 400));
      });
    }
    this.exited = new Promise((resolve) => {
      this.process.once('error', (error) => this.lines.push(`spawn failed: ${error.message}`));
      this.process.once('close', (code, signal) => {
        children.delete(this.process);
        resolve({ code, signal });
      });
    });
  }

  get pid(): number {
    return this.process.pid ?? -1;
  }

  output(lines = 400): string {
    return `--- last output of ${this.name} (pid ${this.pid}) ---\n${this.lines.slice(-lines).join('\n')}`;
  }

  async stop(graceMs: number): Promise<void> {
    if (this.process.exitCode === null && this.process.signalCode === null) this.process.kill('SIGTERM');
    const timer = setTimeout(() => this.process.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/** One reading of a process's memory, `at` ms into the load; heap and external come from its /metrics (spared processes only). */
interface MemorySample {
  at: number;
  rss: number;
  heapUsed?: number;
  heapTotal?: number;
  external?: number;
}

interface Proc {
  name: string;
  child: Child;
  role: 'api' | 'worker';
  /** No fault targets it: it lives from the warm-up to the end and measures memory growth. */
  spared: boolean;
  /** Date.now() when it was ready (the first ones before the load began). */
  startedAt: number;
  rssStart: number;
  samples: MemorySample[];
  /** Set when the soak itself stops or kills it (an exit otherwise is a crash). */
  expectedExit: boolean;
  base?: string;
  wsUrl?: string;
  metricsUrl?: string;
  workerId?: string;
  /** A worker's toolrun_calls_completed_total (calls whose end it recorded), as last read from its /metrics. */
  callsCompleted?: number;
  exit?: { code: number | null; signal: string | null };
}

class RedisServer {
  private child: Child | null = null;
  constructor(readonly port: number) {}
  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }
  async start(): Promise<void> {
    this.child = new Child('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], process.env, 'redis-server');
    for (let n = 0; n < 100; n++) {
      const pong = await new Promise<boolean>((resolve) => {
        const probe = spawn('redis-cli', ['-p', String(this.port), 'ping'], { stdio: ['ignore', 'pipe', 'ignore'] });
        let out = '';
        probe.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        probe.on('close', () => resolve(out.trim() === 'PONG'));
        probe.on('error', () => resolve(false));
      });
      if (pong) return;
      await sleep(50);
    }
    throw new Error(`redis-server on port ${this.port} did not answer`);
  }
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.process.exitCode !== null || child.process.signalCode !== null) return;
    child.process.kill('SIGKILL');
    await child.exited;
  }
}

/** A tenant and a key with every role, as an operator makes them (`apikey create`). */
async function createKey(tenant: string): Promise<string> {
  const child = new Child(`apikey create ${tenant}`, [...TOOLRUN_COMMAND.args('apikey'), 'create', tenant, '--roles', 'submitter,approver,admin'], toolrunEnv({ ...settings, role: 'apikey' }));
  const exit = await child.exited;
  const key = /^key\s+(\S+)/m.exec(child.output())?.[1];
  if (exit.code !== 0 || !key) throw new Error(`could not create an API key for ${tenant}\n${child.output()}`);
  return key;
}

const procs: Proc[] = [];
let redis: RedisServer;
let settings: { databaseUrl: string; redisUrl: string; prefix: string };
let workerSerial = 0;
let apiSerial = 0;

function watchExit(proc: Proc): void {
  void proc.child.exited.then((exit) => {
    proc.exit = exit;
    if (!proc.expectedExit) {
      unexpectedExits.push(`${proc.name} exited on its own (code ${exit.code}, signal ${exit.signal})\n${proc.child.output(30)}`);
      log(`UNEXPECTED: ${proc.name} exited (code ${exit.code}, signal ${exit.signal})`);
    }
  });
}

async function startApi(spared = false): Promise<Proc> {
  const name = `api-${++apiSerial}`;
  const port = await freePort();
  const env = { ...toolrunEnv({ ...settings, role: `soak-${name}`, port }), ...SOAK_ENV };
  const child = new Child(name, TOOLRUN_COMMAND.args('api'), env);
  const base = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + STARTUP_MS; ; await sleep(200)) {
    if (child.process.exitCode !== null) throw new Error(`${name} exited while starting\n${child.output()}`);
    if (Date.now() > deadline) throw new Error(`${name} not ready within ${STARTUP_MS} ms\n${child.output()}`);
    const status = await fetch(`${base}/ready`, { signal: AbortSignal.timeout(5000) }).then((response) => response.status, () => 0);
    if (status === 200) break;
  }
  const proc: Proc = {
    name,
    child,
    role: 'api',
    spared,
    startedAt: Date.now(),
    rssStart: rssBytes(child.pid) ?? 0,
    samples: [],
    expectedExit: false,
    base,
    wsUrl: `ws://127.0.0.1:${port}/graphql`,
    metricsUrl: `${base}/metrics`,
  };
  procs.push(proc);
  watchExit(proc);
  log(`${name} ready (pid ${child.pid}, port ${port}${spared ? ', spared by the faults' : ''})`);
  return proc;
}

async function startWorker(spared = false): Promise<Proc> {
  const name = `worker-${++workerSerial}`;
  const workerId = `${settings.prefix}:${name}`;
  const metricsPort = await freePort();
  // At info level the worker says when it runs (it logs little else at that level).
  const env = { ...toolrunEnv({ ...settings, role: `soak-${name}` }), ...SOAK_ENV, LOG_LEVEL: 'info', WORKER_ID: workerId, WORKER_METRICS_PORT: String(metricsPort) };
  const child = new Child(name, TOOLRUN_COMMAND.args('worker'), env);
  for (const deadline = Date.now() + STARTUP_MS; !/worker running/.test(child.output()); await sleep(200)) {
    if (child.process.exitCode !== null) throw new Error(`${name} exited while starting\n${child.output()}`);
    if (Date.now() > deadline) throw new Error(`${name} did not start within ${STARTUP_MS} ms\n${child.output()}`);
  }
  const proc: Proc = {
    name,
    child,
    role: 'worker',
    spared,
    startedAt: Date.now(),
    rssStart: rssBytes(child.pid) ?? 0,
    samples: [],
    expectedExit: false,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    workerId,
  };
  procs.push(proc);
  watchExit(proc);
  log(`${name} running (pid ${child.pid}${spared ? ', spared by the faults' : ''})`);
  return proc;
}

const live = (role: Proc['role']) => procs.filter((proc) => proc.role === role && !proc.exit && !proc.expectedExit);
/** The processes a fault may stop, freeze or kill: every live one but the spared pair. */
const faultable = (role: Proc['role']) => live(role).filter((proc) => !proc.spared);

// ---------------------------------------------------------------------------------------------
// Memory: every process's RSS from /proc every 5 s; every third sample, the spared processes'
// heap and external memory (prom-client's default metrics) and every worker's count of completed
// calls from their /metrics.

/** The sum of a metric's values over all its labels in Prometheus text (undefined when absent). */
function metricValue(text: string, name: string): number | undefined {
  const values = [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'gm'))].map((match) => Number(match[1]));
  return values.length ? values.reduce((sum, value) => sum + value, 0) : undefined;
}

async function sampleProcesses(withMetrics: boolean): Promise<void> {
  const at = elapsed();
  await Promise.all(
    procs
      .filter((proc) => !proc.exit && !proc.expectedExit)
      .map(async (proc) => {
        const rss = rssBytes(proc.child.pid);
        if (rss === null) return;
        const sample: MemorySample = { at, rss };
        proc.samples.push(sample);
        if (!withMetrics || !proc.metricsUrl || !(proc.spared || proc.role === 'worker')) return;
        const text = await fetch(proc.metricsUrl, { signal: AbortSignal.timeout(5000) }).then(
          (response) => (response.ok ? response.text() : null),
          () => null,
        );
        if (!text) return;
        if (proc.spared) {
          sample.heapUsed = metricValue(text, 'nodejs_heap_size_used_bytes');
          sample.heapTotal = metricValue(text, 'nodejs_heap_size_total_bytes');
          sample.external = metricValue(text, 'nodejs_external_memory_bytes');
        }
        if (proc.role === 'worker') proc.callsCompleted = metricValue(text, 'toolrun_calls_completed_total') ?? 0;
      }),
  );
}

/** Samples until stopped; a round that has not finished (a frozen worker's /metrics) delays the next one. */
function startSampling(): { stop(): Promise<void> } {
  let running = true;
  const done = (async () => {
    for (let round = 0; running; round++) {
      const next = pause(RSS_SAMPLE_MS);
      await sampleProcesses(round % METRICS_EVERY_SAMPLES === 0);
      await next;
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      await sampleProcesses(true);
    },
  };
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The median of a field over the samples in [from, to] (null when none has it). */
function windowMedian(samples: MemorySample[], field: Exclude<keyof MemorySample, 'at'>, from: number, to: number): number | null {
  return median(samples.filter((sample) => sample.at >= from && sample.at <= to && sample[field] !== undefined).map((sample) => sample[field]!));
}

/** Least-squares slope of RSS over the samples from `from` on, in bytes per 10 minutes. */
function rssTrend(samples: MemorySample[], from: number): number | null {
  const points = samples.filter((sample) => sample.at >= from);
  if (points.length < 3) return null;
  const meanAt = points.reduce((sum, sample) => sum + sample.at, 0) / points.length;
  const meanRss = points.reduce((sum, sample) => sum + sample.rss, 0) / points.length;
  const covariance = points.reduce((sum, sample) => sum + (sample.at - meanAt) * (sample.rss - meanRss), 0);
  const variance = points.reduce((sum, sample) => sum + (sample.at - meanAt) ** 2, 0);
  return variance === 0 ? null : (covariance / variance) * 600_000;
}

// ---------------------------------------------------------------------------------------------
// Client side: every request goes to a live API; an API that does not answer (killed, stopping)
// or a retryable SERVICE_UNAVAILABLE means: try again, on the other API. Submissions carry an
// idempotency key, so a retry never records work twice.

const unexpectedErrors: string[] = [];
const unexpectedExits: string[] = [];
let retryableAnswers = 0;
let unreachableAnswers = 0;
let apiTurn = 0;
/** What each API served: answers, subscriptions opened on it, events it delivered (the load must cross both). */
const served = new Map<string, { answers: number; subscriptions: number; events: number }>();
function servedBy(api: Proc) {
  const entry = served.get(api.name) ?? { answers: 0, subscriptions: 0, events: 0 };
  served.set(api.name, entry);
  return entry;
}

interface Answer<T> {
  data: T;
  ms: number;
  /** How many times the request was sent (a retry after a timeout may find its first try's effect). */
  tries: number;
}

function pickApi(avoid?: Proc): Proc {
  const apis = live('api');
  const choices = apis.length > 1 && avoid ? apis.filter((api) => api !== avoid) : apis;
  if (choices.length === 0) throw new Error('no API process is running');
  return choices[apiTurn++ % choices.length]!;
}

async function request<T>(what: string, query: string, variables: Record<string, unknown>, timeoutMs = 60_000): Promise<Answer<T>> {
  const begin = performance.now();
  let last: Proc | undefined;
  let tries = 0;
  for (;;) {
    if (performance.now() - begin > timeoutMs) throw new Error(`${what}: no answer within ${timeoutMs} ms`);
    let api: Proc;
    try {
      api = pickApi(last);
    } catch {
      await sleep(200);
      continue;
    }
    last = api;
    let body: { data?: T; errors?: Array<{ message: string; extensions?: { code?: string } }> };
    tries++;
    try {
      const response = await fetch(`${api.base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify({ query, variables }),
        signal: AbortSignal.timeout(15_000),
      });
      body = (await response.json()) as typeof body;
    } catch {
      unreachableAnswers++;
      await sleep(100);
      continue;
    }
    if (body.errors?.length) {
      if (body.errors.every((error) => error.extensions?.code === 'SERVICE_UNAVAILABLE')) {
        retryableAnswers++;
        await sleep(200);
        continue;
      }
      unexpectedErrors.push(`${what} on ${api.name}: ${JSON.stringify(body.errors).slice(0, 400)}`);
      throw new Error(`${what}: ${JSON.stringify(body.errors).slice(0, 400)}`);
    }
    servedBy(api).answers++;
    return { data: body.data as T, ms: performance.now() - begin, tries };
  }
}

// ---------------------------------------------------------------------------------------------
// Latency per operation, split by whether a fault was going on.

const faultWindows: Array<{ from: number; to: number; name?: string }> = [];
const latencies = new Map<string, { steady: number[]; fault: number[] }>();

function inFault(at: number): boolean {
  return faultWindows.some((window) => at >= window.from && at <= window.to + FAULT_TAIL_MS);
}

function record(operation: string, ms: number, at = elapsed()): void {
  const entry = latencies.get(operation) ?? { steady: [], fault: [] };
  (inFault(at) ? entry.fault : entry.steady).push(ms);
  latencies.set(operation, entry);
}

// ---------------------------------------------------------------------------------------------
// Sessions and their subscribers: each subscriber checks seq by seq that it gets every event
// once, and reconnects from its last cursor (to another API) when its socket ends or every 20 s.

interface Session {
  id: string;
  rowId: string;
  subscriber: Subscriber;
}

/** Closes a graphql-ws client whose socket may already be gone (its close then rejects with the CloseEvent). */
function disposeQuietly(client: Client): void {
  Promise.resolve(client.dispose()).catch(() => undefined);
}

class Subscriber {
  lastSeq = 0;
  cursor: string;
  /** Events out of order or seen twice (toolCallEvents skips the session's task events, so seq is not dense here). */
  duplicates = 0;
  /** The first duplicates: seq, the API that sent it, ms since that subscription started, the cursor it resumed from. */
  readonly duplicateDetails: string[] = [];
  /**
   * Events that a connection this subscriber already left delivered after it resubscribed elsewhere
   * from its cursor (a socket being closed still hands over what it had received): a client has moved
   * on from that connection, so they are not its events, and its new subscription delivers them.
   */
  staleDeliveries = 0;
  readonly received = new Set<number>();
  reconnects = 0;
  private client: Client | null = null;
  private api: Proc | null = null;
  private stopped = false;
  private readonly batchWatch = new Map<string, number>();

  constructor(private readonly session: { id: string; rowId: string }, cursor: string) {
    this.cursor = cursor;
  }

  /** Starts measuring a batch from submission to its ToolBatchCompleted, as this subscriber receives it. */
  watchBatch(batchId: string, submittedAt: number): void {
    this.batchWatch.set(batchId, submittedAt);
  }

  connect(): void {
    if (this.stopped) return;
    let api: Proc;
    try {
      api = pickApi(this.api ?? undefined);
    } catch {
      setTimeout(() => this.connect(), 200);
      return;
    }
    this.api = api;
    const after = this.cursor;
    const subscribedAt = performance.now();
    const client = createClient({ url: api.wsUrl!, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${apiKey}` }, lazy: true, retryAttempts: 0 });
    this.client = client;
    servedBy(api).subscriptions++;
    const again = () => {
      if (this.client !== client) return;
      this.client = null;
      disposeQuietly(client);
      this.reconnects++;
      setTimeout(() => this.connect(), 100);
    };
    client.subscribe<{ toolCallEvents: { __typename: string; seq: number; cursor: string; batchId?: string } }>(
      {
        query: `subscription($sessionId: ID!, $after: String) { toolCallEvents(sessionId: $sessionId, after: $after) {
          __typename seq cursor ... on ToolBatchCompleted { batchId } } }`,
        variables: { sessionId: this.session.id, after },
      },
      {
        next: (message) => {
          const event = message.data?.toolCallEvents;
          if (!event) return;
          if (this.client !== client) {
            this.staleDeliveries++;
            return;
          }
          if (event.seq <= this.lastSeq || this.received.has(event.seq)) {
            this.duplicates++;
            if (this.duplicateDetails.length < 5) {
              this.duplicateDetails.push(`seq ${event.seq} (${event.__typename}) from ${api.name} ${Math.round(performance.now() - subscribedAt)} ms after subscribing after ${after}, last seq ${this.lastSeq}`);
            }
          } else {
            servedBy(api).events++;
            this.received.add(event.seq);
            this.lastSeq = event.seq;
            this.cursor = event.cursor;
          }
          if (event.__typename === 'ToolBatchCompleted' && event.batchId) {
            const submittedAt = this.batchWatch.get(event.batchId);
            if (submittedAt !== undefined) {
              this.batchWatch.delete(event.batchId);
              record('batch submitted → completed event', performance.now() - submittedAt);
            }
          }
        },
        error: again,
        complete: again,
      },
    );
  }

  /** Moves to another API from the last cursor, as a client whose connection dropped does. */
  reconnect(): void {
    if (!this.client) return;
    const client = this.client;
    this.client = null;
    disposeQuietly(client);
    this.reconnects++;
    this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const client = this.client;
    this.client = null;
    if (client) disposeQuietly(client);
  }
}

// ---------------------------------------------------------------------------------------------
// The load

let apiKey = '';
const sessions: Session[] = [];
/** Every call an API acknowledged: session row id → call ids. */
const acknowledgedCalls = new Map<string, Set<string>>();
/** Non-idempotent calls and runs, by the file their ticks go to (`submittedAt`: ms into the load, for the faults during them). */
const tickerFiles: Array<{ sessionRowId: string; path: string; what: string; submittedAt: number; callId?: string; taskId?: string }> = [];
const acknowledgedTasks = new Set<string>();
const scheduleIds: string[] = [];
const counters = { batches: 0, calls: 0, tasks: 0, refusedTasks: 0, approvals: 0, completions: 0, schedules: 0 };
const inFlight = new Set<Promise<unknown>>();
let loadRunning = true;
/** Resolves when the load stops: the load and sampling loops end then, not after their next pause. */
const loadStopped = deferred<void>();
/** A pause of a load or sampling loop, cut short when the load stops. */
const pause = (ms: number) => Promise.race([sleep(ms), loadStopped.promise]);
let serial = 0;

function track(promise: Promise<unknown>, what: string): void {
  const tracked = promise.catch((error: unknown) => {
    if (loadRunning || !(error instanceof Error && /no answer within/.test(error.message))) log(`${what} failed: ${(error as Error).message}`);
    flowFailures.push(`${what}: ${(error as Error).message}`);
  });
  inFlight.add(tracked);
  void tracked.finally(() => inFlight.delete(tracked));
}
const flowFailures: string[] = [];

const SUBMIT = `mutation($sessionId: ID!, $calls: [ToolCallInput!]!, $key: String) {
  executeToolBatch(sessionId: $sessionId, calls: $calls, idempotencyKey: $key) {
    __typename ... on ToolBatch { batchId } ... on Error { code message } } }`;
const CALL_STATUS = `query($sessionId: ID, $callId: String!) { toolCall(sessionId: $sessionId, callId: $callId) { status } }`;

async function submit(session: Session, calls: Array<{ id: string; tool: string; args: Record<string, unknown>; timeoutMs?: number }>): Promise<string> {
  const key = `soak-${++serial}`;
  const at = performance.now();
  const answer = await request<{ executeToolBatch: { __typename: string; batchId?: string; code?: string; message?: string } }>('executeToolBatch', SUBMIT, {
    sessionId: session.id,
    calls,
    key,
  });
  const result = answer.data.executeToolBatch;
  if (result.__typename !== 'ToolBatch') throw new Error(`executeToolBatch answered ${result.__typename} ${result.code}: ${result.message}`);
  record('executeToolBatch', answer.ms);
  const ids = acknowledgedCalls.get(session.rowId) ?? new Set<string>();
  for (const call of calls) ids.add(call.id);
  acknowledgedCalls.set(session.rowId, ids);
  counters.batches++;
  counters.calls += calls.length;
  session.subscriber.watchBatch(result.batchId!, at);
  return result.batchId!;
}

const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** A batch of fast calls (echo), an idempotent sleep and a non-idempotent ticker. */
async function fastBatch(): Promise<void> {
  const session = pick(sessions);
  const n = ++serial;
  const ticker = `f${n}-tick`;
  const path = `/ticks/${ticker}.log`;
  tickerFiles.push({ sessionRowId: session.rowId, path, what: `call ${ticker}`, submittedAt: elapsed(), callId: ticker });
  await submit(session, [
    ...Array.from({ length: 4 }, (_, i) => ({ id: `f${n}-e${i}`, tool: 'echo', args: { message: `${n}/${i}` } })),
    { id: `f${n}-s`, tool: 'sleep', args: { ms: 300 + Math.floor(Math.random() * 1500) } },
    { id: ticker, tool: 'test_ticker', args: { ticks: 6, intervalMs: 200, path } },
  ]);
}

/** Slow calls: they are what a fault interrupts. */
async function slowBatch(): Promise<void> {
  const session = pick(sessions);
  const n = ++serial;
  const ticker = `s${n}-tick`;
  const path = `/ticks/${ticker}.log`;
  tickerFiles.push({ sessionRowId: session.rowId, path, what: `call ${ticker}`, submittedAt: elapsed(), callId: ticker });
  await submit(session, [
    ...Array.from({ length: 2 }, (_, i) => ({ id: `s${n}-s${i}`, tool: 'sleep', args: { ms: 4000, progressIntervalMs: 500 } })),
    { id: ticker, tool: 'test_ticker', args: { ticks: 20, intervalMs: 200, path } },
  ]);
}

const SPAWN = `mutation($sessionId: ID!, $tool: String!, $args: JSON!, $title: String, $schedule: BackgroundScheduleInput) {
  spawnBackground(sessionId: $sessionId, tool: $tool, args: $args, title: $title, schedule: $schedule) {
    __typename ... on BackgroundRun { taskId } ... on ScheduledMonitor { scheduleId taskId } ... on LimitExceededError { limit } ... on Error { code message } } }`;

/** A background run: the idempotent report_progress, or the non-idempotent ticker. */
async function backgroundRun(): Promise<void> {
  const session = pick(sessions);
  const n = ++serial;
  const ticker = n % 2 === 0;
  const path = `/bg/${n}.log`;
  const answer = await request<{ spawnBackground: { __typename: string; taskId?: string; code?: string; message?: string } }>('spawnBackground', SPAWN, {
    sessionId: session.id,
    tool: ticker ? 'test_ticker' : 'report_progress',
    args: ticker ? { ticks: 8, intervalMs: 400, path } : { steps: 8, intervalMs: 400 },
    title: `soak ${n}`,
  });
  const result = answer.data.spawnBackground;
  record('spawnBackground', answer.ms);
  if (result.__typename === 'LimitExceededError') {
    counters.refusedTasks++;
    return;
  }
  if (result.__typename !== 'BackgroundRun') throw new Error(`spawnBackground answered ${result.__typename} ${result.code}: ${result.message}`);
  acknowledgedTasks.add(result.taskId!);
  counters.tasks++;
  if (ticker) tickerFiles.push({ sessionRowId: session.rowId, path, what: `background run ${result.taskId}`, submittedAt: elapsed(), taskId: result.taskId! });
}

async function waitForCall(session: Session, callId: string, status: string): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(250)) {
    const answer = await request<{ toolCall: { status: string } | null }>('toolCall', CALL_STATUS, { sessionId: session.id, callId });
    if (answer.data.toolCall?.status === status) return;
  }
  throw new Error(`call ${callId} did not reach ${status} within 60 s`);
}

/** A file written, then deleted once a person (this soak, on whichever API) approves. */
async function approval(): Promise<void> {
  const session = pick(sessions);
  const n = ++serial;
  const path = `/approved/${n}.txt`;
  await submit(session, [
    { id: `a${n}-write`, tool: 'write_file', args: { path, content: 'soon gone' } },
    { id: `a${n}-delete`, tool: 'delete_file', args: { path } },
  ]);
  await waitForCall(session, `a${n}-delete`, 'AWAITING_APPROVAL');
  const answer = await request<{ approveToolCall: { __typename: string; code?: string; message?: string } }>(
    'approveToolCall',
    `mutation($sessionId: ID, $callId: String!) { approveToolCall(sessionId: $sessionId, callId: $callId) { __typename ... on Error { code message } } }`,
    { sessionId: session.id, callId: `a${n}-delete` },
  );
  const result = answer.data.approveToolCall;
  // A retried approval (its first try timed out on a busy machine) finds the call already approved.
  const approvedBefore = answer.tries > 1 && result.__typename === 'InvalidStateError';
  if (result.__typename !== 'ToolCall' && !approvedBefore) throw new Error(`approveToolCall answered ${result.__typename} ${result.code}: ${result.message}`);
  record('approveToolCall', answer.ms);
  counters.approvals++;
}

/** An external tool's call, completed by this soak once it waits. */
async function externalCompletion(): Promise<void> {
  const session = pick(sessions);
  const n = ++serial;
  const callId = `x${n}`;
  await submit(session, [{ id: callId, tool: 'soak_ask', args: { question: `${n}?` } }]);
  await waitForCall(session, callId, 'PENDING_EXTERNAL');
  const answer = await request<{ completeToolCall: { __typename: string; code?: string; message?: string } }>(
    'completeToolCall',
    `mutation($sessionId: ID, $callId: String!, $result: ToolCallResultInput!) {
      completeToolCall(sessionId: $sessionId, callId: $callId, result: $result) { __typename ... on Error { code message } } }`,
    { sessionId: session.id, callId, result: { value: { answer: n } } },
  );
  const result = answer.data.completeToolCall;
  const completedBefore = answer.tries > 1 && result.__typename === 'CallAlreadyCompletedError';
  if (result.__typename !== 'ToolCall' && !completedBefore) throw new Error(`completeToolCall answered ${result.__typename} ${result.code}: ${result.message}`);
  record('completeToolCall', answer.ms);
  counters.completions++;
}

async function every(intervalMs: number, what: string, step: () => Promise<void>): Promise<void> {
  while (loadRunning) {
    track(step(), what);
    await pause(intervalMs * (0.75 + Math.random() / 2));
  }
}

// ---------------------------------------------------------------------------------------------
// Faults

const faultLog: string[] = [];

async function cutDatabase(): Promise<number> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ ok: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name LIKE 'toolrun-bench-soak-%'`,
    );
    return rows.filter((row) => row.ok).length;
  } finally {
    await client.end();
  }
}

/** A process for a fault to hit: never a spared one (null when only the spared one runs: an earlier crash, already reported). */
function pickVictim(role: Proc['role']): Proc | null {
  const candidates = faultable(role);
  return candidates.length > 0 ? pick(candidates) : null;
}

const FAULTS: Array<{ name: string; run(): Promise<string> }> = [
  {
    name: 'kill -9 a worker',
    async run() {
      const victim = pickVictim('worker');
      if (!victim) return 'skipped: no worker but the spared one running';
      victim.expectedExit = true;
      victim.child.process.kill('SIGKILL');
      await victim.child.exited;
      const next = await startWorker();
      return `${victim.name} killed, ${next.name} started`;
    },
  },
  {
    name: 'SIGSTOP / SIGCONT a worker',
    async run() {
      const victim = pickVictim('worker');
      if (!victim) return 'skipped: no worker but the spared one running';
      victim.child.process.kill('SIGSTOP');
      await sleep(FREEZE_MS);
      victim.child.process.kill('SIGCONT');
      return `${victim.name} frozen for ${FREEZE_MS} ms`;
    },
  },
  {
    name: 'restart Redis',
    async run() {
      await redis.kill();
      await sleep(3000);
      await redis.start();
      return 'redis-server killed, restarted empty 3 s later';
    },
  },
  {
    name: 'pg_terminate_backend',
    async run() {
      let cut = 0;
      for (let round = 0; round < 4; round++) {
        cut += await cutDatabase();
        await sleep(500);
      }
      return `${cut} backends terminated in 4 rounds`;
    },
  },
  {
    name: 'SIGTERM an API',
    async run() {
      const victim = pickVictim('api');
      if (!victim) return 'skipped: no API but the spared one running';
      victim.expectedExit = true;
      victim.child.process.kill('SIGTERM');
      const exit = await Promise.race([victim.child.exited, sleep(30_000).then(() => null)]);
      if (!exit || exit.code !== 0) unexpectedExits.push(`${victim.name} did not exit cleanly on SIGTERM: ${JSON.stringify(exit)}\n${victim.child.output(30)}`);
      const next = await startApi();
      return `${victim.name} stopped (${JSON.stringify(exit)}), ${next.name} started`;
    },
  },
];

async function faults(): Promise<void> {
  for (let turn = 0; ; turn++) {
    const due = (turn + 1) * FAULT_EVERY_MS;
    if (due > DURATION_MS - 5_000) return;
    await sleep(due - elapsed());
    const fault = FAULTS[turn % FAULTS.length]!;
    const window = { from: elapsed(), to: Number.POSITIVE_INFINITY, name: fault.name };
    faultWindows.push(window);
    log(`fault: ${fault.name}`);
    const what = await fault.run();
    window.to = elapsed();
    faultLog.push(`${(window.from / 1000).toFixed(0)} s ${fault.name}: ${what}`);
    log(`fault repaired: ${what}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The figures at the end

interface Target {
  name: string;
  value: number | string;
  pass: boolean;
}

/** The seqs of each session's call events (what toolCallEvents streams), as stored. */
async function callEventSeqs(db: pg.Client): Promise<Map<string, number[]>> {
  const { rows } = await db.query<{ session_id: string; seq: string }>(
    `SELECT session_id, seq::text FROM event WHERE session_id = ANY($1::uuid[]) AND type = ANY($2::text[]) ORDER BY session_id, seq`,
    [sessions.map((session) => session.rowId), [...CALL_EVENT_TYPES]],
  );
  const seqs = new Map<string, number[]>();
  for (const row of rows) seqs.set(row.session_id, [...(seqs.get(row.session_id) ?? []), Number(row.seq)]);
  return seqs;
}

async function figures(db: pg.Client) {
  const sessionIds = sessions.map((session) => session.rowId);
  const calls = await db.query<{ session_id: string; call_id: string; status: string; output: unknown; detail: string }>(
    // `detail` says where a call that is not terminal stands: enough to find why after the database is gone.
    `SELECT c.session_id, c.call_id, c.status, c.output,
            format('%s %s (%s) attempt %s of %s, worker %s (%s), queued %s, started %s, heartbeat %s, cancel requested %s, last event %s',
                   c.call_id, c.status, c.tool, c.attempt, c.max_attempts, coalesce(c.worker_id, '-'), coalesce(w.state, '-'),
                   c.queued_at, c.started_at, c.heartbeat_at, c.cancel_requested_at,
                   (SELECT e.type || ' at ' || e.created_at FROM event e WHERE e.session_id = c.session_id AND e.call_id = c.call_id ORDER BY e.seq DESC LIMIT 1)) AS detail
       FROM tool_call c LEFT JOIN worker w ON w.id = c.worker_id
      WHERE c.session_id = ANY($1::uuid[])`,
    [sessionIds],
  );
  const stored = new Map(calls.rows.map((row) => [`${row.session_id}/${row.call_id}`, row]));
  let lostCalls = 0;
  let nonTerminalCalls = 0;
  const nonTerminalDetails: string[] = [];
  const byStatus: Record<string, number> = {};
  for (const [sessionId, ids] of acknowledgedCalls) {
    for (const id of ids) {
      const row = stored.get(`${sessionId}/${id}`);
      if (!row) lostCalls++;
      else {
        byStatus[row.status] = (byStatus[row.status] ?? 0) + 1;
        if (!['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(row.status)) {
          nonTerminalCalls++;
          nonTerminalDetails.push(row.detail);
        }
      }
    }
  }
  const tasks = await db.query<{ id: string; state: string; kind: string; schedule_id: string | null }>(
    `SELECT id, state, kind, schedule_id FROM task WHERE session_id = ANY($1::uuid[])`,
    [sessionIds],
  );
  const taskRows = new Map(tasks.rows.map((row) => [row.id, row]));
  const lostTasks = [...acknowledgedTasks].filter((id) => !taskRows.has(id)).length;
  const nonTerminalTasks = tasks.rows.filter((row) => !['SUCCEEDED', 'FAILED', 'CANCELED'].includes(row.state)).length;
  const scheduledRuns = tasks.rows.filter((row) => row.schedule_id && row.kind !== 'monitor').length;
  const taskStates: Record<string, number> = {};
  for (const row of tasks.rows) taskStates[row.state] = (taskStates[row.state] ?? 0) + 1;

  // A non-idempotent call or run writes "tick N (attempt A)" lines: lines of two attempts mean it ran twice.
  const files = await db.query<{ session_id: string; path: string; content: string | null }>(
    `SELECT session_id, path, content FROM session_file WHERE session_id = ANY($1::uuid[]) AND (path LIKE '/ticks/%' OR path LIKE '/bg/%')`,
    [sessionIds],
  );
  const contents = new Map(files.rows.map((row) => [`${row.session_id}${row.path}`, row.content ?? '']));
  // When each ended, for the faults that happened while it ran (what a double run followed).
  const ends = await db.query<{ key: string; ended: Date | null }>(
    `SELECT session_id::text || '/' || call_id AS key, completed_at AS ended FROM tool_call WHERE session_id = ANY($1::uuid[])
     UNION ALL SELECT id::text, finished_at FROM task WHERE session_id = ANY($1::uuid[])`,
    [sessionIds],
  );
  const endedAt = new Map(ends.rows.map((row) => [row.key, row.ended ? row.ended.getTime() - loadStarted : Number.POSITIVE_INFINITY]));
  const ranTwice: string[] = [];
  for (const file of tickerFiles) {
    const content = contents.get(`${file.sessionRowId}${file.path}`) ?? '';
    const attempts = new Set([...content.matchAll(/\(attempt (\d+)\)/g)].map((match) => match[1]));
    const ticks = [...content.matchAll(/^tick (\d+) /gm)].map((match) => match[1]);
    if (attempts.size > 1 || new Set(ticks).size !== ticks.length) {
      const ended = endedAt.get(file.callId ? `${file.sessionRowId}/${file.callId}` : file.taskId!) ?? Number.POSITIVE_INFINITY;
      const during = faultWindows.filter((window) => window.from <= ended && window.to + FAULT_TAIL_MS >= file.submittedAt).map((window) => `${window.name} at ${(window.from / 1000).toFixed(0)} s`);
      ranTwice.push(
        `${file.what} (submitted at ${(file.submittedAt / 1000).toFixed(0)} s; attempts ${[...attempts].join(', ')}; ${ticks.length} ticks, ${new Set(ticks).size} distinct; faults meanwhile: ${during.join(', ') || 'none'})`,
      );
    }
  }

  // Every stored call event is one its session's subscriber received: one missing before the last received is a gap, after it undelivered.
  const storedEvents = await callEventSeqs(db);
  let gaps = 0;
  let missingTail = 0;
  for (const session of sessions) {
    for (const seq of storedEvents.get(session.rowId) ?? []) {
      if (session.subscriber.received.has(seq)) continue;
      if (seq < session.subscriber.lastSeq) gaps++;
      else missingTail++;
    }
  }
  const duplicates = sessions.reduce((sum, session) => sum + session.subscriber.duplicates, 0);
  const duplicateDetails = sessions.flatMap((session) => session.subscriber.duplicateDetails.map((detail) => `session ${session.rowId}: ${detail}`));
  const staleDeliveries = sessions.reduce((sum, session) => sum + session.subscriber.staleDeliveries, 0);
  const reconnects = sessions.reduce((sum, session) => sum + session.subscriber.reconnects, 0);

  const deadlocks = Number((await db.query<{ deadlocks: string }>(`SELECT deadlocks::text FROM pg_stat_database WHERE datname = current_database()`)).rows[0]?.deadlocks ?? 0);

  // Memory: "warm" is the median over the window after the warm-up, "end" over the last window of the load.
  const mb = (bytes: number | null) => (bytes === null ? null : +(bytes / MB).toFixed(1));
  const warmWindow = [WARMUP_MS, WARMUP_MS + MEMORY_WINDOW_MS] as const;
  const endWindow = [loadEndedAt - MEMORY_WINDOW_MS, loadEndedAt] as const;
  const rss = procs.map((proc) => {
    const warmedUp = proc.startedAt - loadStarted <= WARMUP_MS;
    const livedToEnd = !proc.exit && !proc.expectedExit;
    const warm = warmedUp ? windowMedian(proc.samples, 'rss', ...warmWindow) : null;
    const end = livedToEnd ? windowMedian(proc.samples, 'rss', ...endWindow) : null;
    const afterWarmup = proc.samples.filter((sample) => sample.at >= WARMUP_MS).map((sample) => sample.rss);
    const trend = warmedUp && livedToEnd ? rssTrend(proc.samples, WARMUP_MS) : null;
    const breakdown = (field: 'heapUsed' | 'heapTotal' | 'external') =>
      proc.spared ? { warmMb: mb(windowMedian(proc.samples, field, ...warmWindow)), endMb: mb(windowMedian(proc.samples, field, ...endWindow)) } : null;
    return {
      name: proc.name,
      spared: proc.spared,
      startedAtS: Math.round((proc.startedAt - loadStarted) / 1000),
      startMb: mb(proc.rssStart),
      warmMb: mb(warm),
      endMb: mb(end),
      peakMb: mb(afterWarmup.length ? Math.max(...afterWarmup) : null),
      drainedMb: livedToEnd ? mb(rssBytes(proc.child.pid)) : null,
      growth: warm !== null && end !== null ? (end - warm) / warm : null,
      trendMbPer10Min: trend === null ? null : +(trend / MB).toFixed(2),
      heapUsed: breakdown('heapUsed'),
      heapTotal: breakdown('heapTotal'),
      external: breakdown('external'),
      samples: proc.samples.length,
      exit: proc.exit ?? null,
    };
  });
  const spared = rss.filter((proc) => proc.spared);
  const unmeasured = spared.filter((proc) => proc.growth === null).map((proc) => proc.name);
  const worst = spared.reduce<(typeof spared)[number] | null>((worst, proc) => (proc.growth !== null && (worst === null || proc.growth > worst.growth!) ? proc : worst), null);

  // The load crossed both APIs (answers and subscribers) and both workers (calls; tasks by their TaskStarted events).
  const taskStarts = await db.query<{ worker_id: string; n: string }>(
    `SELECT payload->>'workerId' AS worker_id, count(*)::text AS n FROM event WHERE session_id = ANY($1::uuid[]) AND type = 'TaskStarted' GROUP BY 1`,
    [sessionIds],
  );
  const tasksBy = new Map(taskStarts.rows.map((row) => [row.worker_id, Number(row.n)]));
  const spread = procs.map((proc) => {
    const api = served.get(proc.name) ?? { answers: 0, subscriptions: 0, events: 0 };
    const work = { callsCompleted: proc.callsCompleted ?? 0, tasksStarted: tasksBy.get(proc.workerId ?? '') ?? 0 };
    const busy = proc.role === 'api' ? api.answers > 0 && api.subscriptions > 0 && api.events > 0 : work.callsCompleted > 0;
    return { name: proc.name, role: proc.role, spared: proc.spared, busy, ...(proc.role === 'api' ? api : work) };
  });
  const idle = (['api', 'worker'] as const).flatMap((role) =>
    [true, false]
      .filter((isSpared) => !spread.some((proc) => proc.role === role && proc.spared === isSpared && proc.busy))
      .map((isSpared) => `${isSpared ? 'the spared' : 'any other'} ${role === 'api' ? 'API' : 'worker'}`),
  );

  const latency = Object.fromEntries(
    [...latencies].map(([operation, { steady, fault }]) => [
      operation,
      {
        steady: { n: steady.length, p50: Math.round(percentile(steady, 50)), p99: Math.round(percentile(steady, 99)) },
        fault: { n: fault.length, p50: Math.round(percentile(fault, 50)), p99: Math.round(percentile(fault, 99)) },
      },
    ]),
  );

  const targets: Target[] = [
    { name: 'calls lost', value: lostCalls, pass: lostCalls === 0 },
    { name: 'calls not terminal', value: nonTerminalCalls, pass: nonTerminalCalls === 0 },
    { name: 'tasks lost', value: lostTasks, pass: lostTasks === 0 },
    { name: 'tasks not terminal', value: nonTerminalTasks, pass: nonTerminalTasks === 0 },
    { name: 'non-idempotent calls/runs executed more than once', value: ranTwice.length, pass: ranTwice.length === 0 },
    { name: 'subscriber gaps', value: gaps, pass: gaps === 0 },
    { name: 'subscriber duplicates', value: duplicates, pass: duplicates === 0 },
    { name: 'events not delivered to a subscriber', value: missingTail, pass: missingTail === 0 },
    { name: 'unexpected errors answered', value: unexpectedErrors.length, pass: unexpectedErrors.length === 0 },
    { name: 'client flows that failed', value: flowFailures.length, pass: flowFailures.length === 0 },
    { name: 'unexpected process exits', value: unexpectedExits.length, pass: unexpectedExits.length === 0 },
    { name: 'PostgreSQL deadlocks', value: deadlocks, pass: deadlocks === 0 },
    {
      name: 'load on both APIs (answers, subscribers) and both workers (calls)',
      value: idle.length === 0 ? 'yes' : `nothing served by ${idle.join(', ')}`,
      pass: idle.length === 0,
    },
    {
      name: 'RSS growth of the spared API and worker after warm-up (max)',
      value:
        unmeasured.length > 0
          ? `not measured for ${unmeasured.join(', ')}`
          : `${(worst!.growth! * 100).toFixed(1)} % (${worst!.name})${RSS_CHECKED ? '' : ' (not checked under 10 min)'}`,
      pass: !RSS_CHECKED || (unmeasured.length === 0 && worst!.growth! < 0.1),
    },
  ];
  return {
    minutes: MINUTES,
    faults: faultLog,
    submitted: { ...counters },
    calls: { submitted: counters.calls, stored: calls.rows.length, byStatus, lost: lostCalls, nonTerminal: nonTerminalCalls, nonTerminalDetails },
    tasks: { spawned: counters.tasks, refusedByLimit: counters.refusedTasks, scheduledRuns, byState: taskStates, lost: lostTasks, nonTerminal: nonTerminalTasks },
    nonIdempotentRanTwice: ranTwice,
    subscribers: { count: sessions.length, gaps, duplicates, duplicateDetails, staleDeliveries, missingTail, reconnects },
    answers: { retryable: retryableAnswers, unreachable: unreachableAnswers, unexpected: unexpectedErrors },
    flowFailures,
    unexpectedExits,
    deadlocks,
    latencyMs: latency,
    spread,
    memory: { warmupS: WARMUP_MS / 1000, windowS: MEMORY_WINDOW_MS / 1000, loadEndS: Math.round(loadEndedAt / 1000) },
    rss,
    samples: Object.fromEntries(procs.filter((proc) => proc.spared).map((proc) => [proc.name, proc.samples])),
    targets,
    pass: targets.every((target) => target.pass),
  };
}

function print(summary: Awaited<ReturnType<typeof figures>>): void {
  const lines = [
    '',
    `soak: ${summary.minutes} min, ${summary.faults.length} faults`,
    ...summary.faults.map((fault) => `  ${fault}`),
    `calls: ${summary.calls.submitted} submitted, ${summary.calls.stored} stored, ${JSON.stringify(summary.calls.byStatus)}, lost ${summary.calls.lost}, not terminal ${summary.calls.nonTerminal}`,
    ...summary.calls.nonTerminalDetails.slice(0, 10).map((detail) => `  not terminal: ${detail}`),
    `tasks: ${summary.tasks.spawned} spawned (+${summary.tasks.refusedByLimit} refused by the limit), ${summary.tasks.scheduledRuns} scheduled runs, ${JSON.stringify(summary.tasks.byState)}, lost ${summary.tasks.lost}, not terminal ${summary.tasks.nonTerminal}`,
    `approvals ${summary.submitted.approvals}, external completions ${summary.submitted.completions}, schedules ${summary.submitted.schedules}`,
    `non-idempotent executed more than once: ${summary.nonIdempotentRanTwice.length}`,
    ...summary.nonIdempotentRanTwice.slice(0, 10).map((what) => `  ${what}`),
    `subscribers: ${summary.subscribers.count}, gaps ${summary.subscribers.gaps}, duplicates ${summary.subscribers.duplicates}, undelivered ${summary.subscribers.missingTail}, reconnects ${summary.subscribers.reconnects} (${summary.subscribers.staleDeliveries} events from connections already left, ignored)`,
    ...summary.subscribers.duplicateDetails.map((detail) => `  duplicate: ${detail}`),
    `answers: ${summary.answers.retryable} retryable SERVICE_UNAVAILABLE, ${summary.answers.unreachable} unreachable (retried elsewhere), ${summary.answers.unexpected.length} unexpected`,
    'latency (ms)                            steady n / p50 / p99       under fault n / p50 / p99',
    ...Object.entries(summary.latencyMs).map(
      ([operation, { steady, fault }]) =>
        `  ${operation.padEnd(36)} ${`${steady.n} / ${steady.p50} / ${steady.p99}`.padEnd(26)} ${fault.n} / ${fault.p50} / ${fault.p99}`,
    ),
    'load per process',
    ...summary.spread.map(
      (proc) =>
        `  ${`${proc.name}${proc.spared ? ' (spared)' : ''}`.padEnd(18)} ${
          'answers' in proc
            ? `${proc.answers} answers, ${proc.subscriptions} subscriptions, ${proc.events} events delivered`
            : `${proc.callsCompleted} calls completed, ${proc.tasksStarted} background runs started`
        }`,
    ),
    `RSS (MB; warm: median of ${summary.memory.windowS} s from ${summary.memory.warmupS} s, end: of the last ${summary.memory.windowS} s of the load, peak: after warm-up)`,
    '                     started   start    warm     end    peak  drained  growth   (started: s into the load)',
    ...summary.rss.map((proc) =>
      [
        `  ${`${proc.name}${proc.spared ? ' (spared)' : ''}`.padEnd(18)}`,
        (proc.startedAtS <= 0 ? 'first' : `${proc.startedAtS} s`).padStart(7),
        ...[proc.startMb, proc.warmMb, proc.endMb, proc.peakMb].map((value) => String(value ?? '-').padStart(7)),
        String(proc.drainedMb ?? `exited ${proc.exit?.signal ?? proc.exit?.code ?? ''}`.trim()).padStart(8),
        (proc.growth === null ? '-' : `${(proc.growth * 100).toFixed(1)} %`).padStart(7),
      ].join(' '),
    ),
    ...summary.rss
      .filter((proc) => proc.spared)
      .map(
        (proc) =>
          `  ${proc.name}: RSS trend ${proc.trendMbPer10Min === null ? '-' : `${proc.trendMbPer10Min >= 0 ? '+' : ''}${proc.trendMbPer10Min} MB / 10 min`} after warm-up; warm → end: heap used ${proc.heapUsed?.warmMb ?? '-'} → ${proc.heapUsed?.endMb ?? '-'}, heap total ${proc.heapTotal?.warmMb ?? '-'} → ${proc.heapTotal?.endMb ?? '-'}, external ${proc.external?.warmMb ?? '-'} → ${proc.external?.endMb ?? '-'}`,
      ),
    'targets',
    ...summary.targets.map((target) => `  ${target.pass ? 'ok  ' : 'FAIL'} ${target.name}: ${target.value}`),
    ...[...summary.answers.unexpected, ...summary.flowFailures, ...summary.unexpectedExits].slice(0, 20).map((line) => `  ! ${line}`),
    summary.pass ? 'soak: every target met' : 'soak: TARGETS FAILED',
  ];
  console.log(lines.join('\n'));
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const name = databaseName(DATABASE_URL);
  log(`preparing database ${name} and a private redis-server (toolrun runs as ${TOOLRUN_COMMAND.kind})`);
  await recreateDatabase(DATABASE_URL);
  redis = new RedisServer(await freePort());
  await redis.start();
  settings = { databaseUrl: DATABASE_URL, redisUrl: redis.url, prefix: `toolrun-soak-${process.pid}` };
  apiKey = await createKey('soak');
  await Promise.all([startApi(true), startApi(), startWorker(true), startWorker()]);
  log(
    `2 APIs and 2 workers running (faults spare ${procs.filter((proc) => proc.spared).map((proc) => proc.name).join(' and ')}); load for ${MINUTES} min, a fault every ${(FAULT_EVERY_MS / 1000).toFixed(0)} s, memory growth measured from ${(WARMUP_MS / 1000).toFixed(0)} s`,
  );

  // Self-approval (the soak's one key approves what it submitted) and an external tool.
  await request('updateTenantSettings', `mutation { updateTenantSettings(allowSelfApproval: true) { __typename } }`, {});
  const registered = await request<{ registerExternalTool: { __typename: string } }>(
    'registerExternalTool',
    `mutation { registerExternalTool(input: { name: "soak_ask", description: "Asks the soak", parametersSchema: { type: "object", properties: { question: { type: "string" } } }, timeoutMs: 600000 }) { __typename ... on Error { code message } } }`,
    {},
  );
  if (registered.data.registerExternalTool.__typename !== 'ToolDefinition') throw new Error(`registerExternalTool: ${JSON.stringify(registered.data)}`);

  for (let n = 0; n < 6; n++) {
    const created = await request<{ createSession: { id: string; sessionId: string } }>(
      'createSession',
      `mutation($title: String) { createSession(title: $title) { ... on Session { id sessionId } } }`,
      { title: `soak ${n}` },
    );
    const { id, sessionId } = created.data.createSession;
    const subscriber = new Subscriber({ id, rowId: sessionId }, encodeEventCursor(sessionId, 0));
    subscriber.connect();
    sessions.push({ id, rowId: sessionId, subscriber });
  }
  // Schedules: a run every 10 s in two sessions, cancelled at the end.
  for (const session of sessions.slice(0, 2)) {
    const answer = await request<{ spawnBackground: { __typename: string; scheduleId?: string; taskId?: string } }>('spawnBackground', SPAWN, {
      sessionId: session.id,
      tool: 'report_progress',
      args: { steps: 2, intervalMs: 200 },
      title: 'soak schedule',
      schedule: { cronExpression: '*/10 * * * * *' },
    });
    if (answer.data.spawnBackground.__typename !== 'ScheduledMonitor') throw new Error(`schedule: ${JSON.stringify(answer.data)}`);
    scheduleIds.push(answer.data.spawnBackground.scheduleId!);
    counters.schedules++;
  }

  loadStarted = Date.now();
  const sampling = startSampling();
  const reconnects = setInterval(() => pick(sessions).subscriber.reconnect(), 20_000 / sessions.length);
  const loads = [
    every(2000, 'fast batch', fastBatch),
    every(8000, 'slow batch', slowBatch),
    every(5000, 'background run', backgroundRun),
    every(10_000, 'approval', approval),
    every(10_000, 'external completion', externalCompletion),
  ];
  const faulting = faults();
  await sleep(DURATION_MS - elapsed());
  loadRunning = false;
  loadStopped.resolve();
  loadEndedAt = elapsed();
  clearInterval(reconnects);
  await sampling.stop();
  await faulting;
  await Promise.all(loads);
  log(`load stopped; waiting for ${inFlight.size} client flows, then for everything to drain`);
  await Promise.race([Promise.all([...inFlight]), sleep(120_000)]);
  for (const id of scheduleIds) {
    await request('cancelSchedule', `mutation($id: ID!) { cancelSchedule(id: $id) { __typename } }`, { id });
  }

  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  try {
    // Drain: every recorded call and task terminal, and every subscriber at its session's last event.
    const sessionIds = sessions.map((session) => session.rowId);
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(250)) {
      const { rows } = await db.query<{ open: string }>(
        `SELECT (SELECT count(*) FROM tool_call WHERE session_id = ANY($1::uuid[]) AND status NOT IN ('SUCCEEDED','FAILED','CANCELLED'))
              + (SELECT count(*) FROM task WHERE session_id = ANY($1::uuid[]) AND state NOT IN ('SUCCEEDED','FAILED','CANCELED')) AS open`,
        [sessionIds],
      );
      const stored = await callEventSeqs(db);
      const behind = sessions.filter((session) => (stored.get(session.rowId)?.at(-1) ?? 0) > session.subscriber.lastSeq).length;
      if (Number(rows[0]!.open) === 0 && behind === 0) break;
    }
    log('drained');
    const summary = await figures(db);
    print(summary);
    if (options.json) writeFileSync(options.json, `${JSON.stringify(summary, null, 2)}\n`);
    if (!summary.pass) {
      // What the processes said about it: their errors and warnings.
      for (const proc of procs) {
        const problems = proc.child.output(400).split('\n').filter((line) => /"level":(40|50|60)/.test(line));
        if (problems.length > 0) console.log(`--- ${proc.name}: ${problems.length} warnings and errors, the last 15 ---\n${problems.slice(-15).join('\n')}`);
      }
    }
    console.log(`SOAK_SUMMARY ${JSON.stringify({ pass: summary.pass, targets: summary.targets })}`);
    process.exitCode = summary.pass ? 0 : 1;
  } finally {
    await db.end();
    await Promise.all(sessions.map((session) => session.subscriber.stop()));
    for (const proc of procs) proc.expectedExit = true;
    await Promise.all(procs.map((proc) => proc.child.stop(10_000)));
    await redis.kill();
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
// graphql-ws rejects with the CloseEvent of a socket an API closed while stopping: the subscriber
// reconnects by itself (and is checked for gaps), so that is logged, not fatal.
process.on('unhandledRejection', (reason) => {
  log(`client-side rejection: ${reason instanceof Error ? reason.message : String((reason as { type?: string })?.type ?? reason)}`);
});
main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    console.error(`soak failed: ${error instanceof Error ? error.stack : String(error)}`);
    for (const proc of procs) console.error(proc.child.output(40));
    process.exit(2);
  },
);
