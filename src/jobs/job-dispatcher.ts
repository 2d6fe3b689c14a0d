// Takes committed jobs from the outbox to BullMQ. Jobs committed together go in one addBulk per queue; once
// BullMQ has them their outbox rows are deleted (one statement for many). When Redis is away the add
// fails fast and the rows stay: the relay (every worker, every second) enqueues rows older than a
// moment, under SKIP LOCKED so two relays never take the same rows, then deletes them.
//
// Fair dispatch: a job that carries a tenant counts in that tenant's backlog (a Redis hash); its
// BullMQ priority is the backlog including it, so a tenant with thousands of queued calls gets large
// numbers while another tenant's single call gets 1 and runs next. Each job counts once: a mark per
// job says it was counted, so a job dispatched twice (a relay, a retried add) or started twice
// changes the count once. Workers take a job's weight off the backlog when they start it, never
// below zero (a count gone negative, as when the hash expired under a long backlog, would make a
// heavy tenant look light); a tenant whose backlog is back to zero leaves the hash, so it holds the
// tenants with queued calls only, and the hash expires once no job was dispatched or started for a while.
// A calls job whose tenant's backlog (the job included) is at most `expressBacklog` goes to the
// express queue instead, which every worker takes with job slots of its own: a light tenant's call
// never waits for a worker to finish one of a heavy tenant's jobs. The backlog a process decides by
// is at most a second old (read again when older). A job relayed again (its first add timed out or
// its outbox delete failed) may land on the other queue while its first copy still waits or runs;
// the copy that loses the claim records nothing (fenced by the attempt), but a rerunnable
// (idempotent or readonly) tool may briefly run on both workers before the loser is aborted.
import type { Queue } from 'bullmq';
import type { Redis, Result } from 'ioredis';
import { type CommittedJob, deleteDispatched, type Dispatcher, type OutboxJob, takeLeftBehind, type WithdrawnJob } from '../domain/outbox.js';
import { EXPRESS_QUEUE, type QueueName } from './catalogue.js';
import type { Logger } from '../logger.js';
import type { Sql } from '../sql.js';

const MAX_PRIORITY = 2 ** 21 - 1;
const BACKLOG_TTL_SECONDS = 120;
/** A tenant's backlog as Redis answered it is used for this long; older, it is read again before a dispatch. */
const BACKLOG_FRESH_MS = 1000;
/** How long a dispatched job's mark (what it added to its tenant's backlog) is kept while it waits to start. */
const JOB_MARK_TTL_SECONDS = 24 * 3600;
/** How long a started job's mark stays (at 0), so that the job dispatched again soon after (a relay) is not counted again. */
const STARTED_MARK_TTL_SECONDS = 600;
/**
 * Dispatched outbox rows are deleted, and started jobs taken off their tenants' backlogs, together
 * at most this long after the first of them: at low load one statement and one pipeline then serve
 * many calls instead of each call paying a round trip of its own on the path of the next. The relay
 * looks only at rows older than seconds, and fairness needs the backlog's order of magnitude.
 */
const AFTERWORK_DELAY_MS = 100;
/**
 * Counts a job into its tenant ARGV[1]'s backlog (weight ARGV[2]) once: the job's mark KEYS[2] says
 * it was counted, so a job dispatched again (a relay, a slow add given up and retried) adds nothing.
 * Answers the tenant's backlog.
 */
const COUNT_INTO_BACKLOG = `if redis.call('SET', KEYS[2], ARGV[2], 'NX', 'EX', ARGV[3]) then
  return redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])
end
return tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')`;
/**
 * Takes a started job's weight (its mark KEYS[2]) off its tenant ARGV[1]'s backlog, once; a tenant
 * at zero (or below) leaves the hash; keeps the hash alive. The mark stays a while (ARGV[3] s), at
 * 0, so that the job dispatched again soon after it started (a relay whose delete failed) is not
 * counted again.
 */
const TAKE_OFF_BACKLOG = `local weight = redis.call('GET', KEYS[2])
if weight and weight ~= '0' then
  redis.call('SET', KEYS[2], '0', 'EX', ARGV[3])
  local left = redis.call('HINCRBY', KEYS[1], ARGV[1], -tonumber(weight))
  if left <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 0`;

// The two scripts run as commands of their own (EVALSHA: the script's text is sent once per connection).
declare module 'ioredis' {
  interface RedisCommander<Context> {
    countIntoBacklog(backlogKey: string, markKey: string, tenantId: string, weight: number, markTtlSeconds: number): Result<number, Context>;
    takeOffBacklog(backlogKey: string, markKey: string, tenantId: string, backlogTtlSeconds: number, startedMarkTtlSeconds: number): Result<number, Context>;
  }
}

export interface JobDispatcherDeps {
  queues: Record<QueueName, Queue>;
  /** A calls job whose tenant has at most this many calls queued, its own included, goes to the express queue (0: none does). */
  expressBacklog: number;
  sql: Sql;
  /** A connection without an offline queue: an add while Redis is away fails at once. */
  redis: Redis;
  prefix: string;
  logger: Logger;
  /** An enqueue that takes longer is given up (its rows stay for the relay). */
  enqueueTimeoutMs: number;
}

export class JobDispatcher implements Dispatcher {
  private pending: CommittedJob[] = [];
  private flushing: Promise<void> | null = null;
  private deletes: string[] = [];
  private deleting: Promise<void> | null = null;
  private deleteTimer: NodeJS.Timeout | null = null;
  private offBacklog: Array<{ jobId: string; tenantId: string }> = [];
  private offBacklogTimer: NodeJS.Timeout | null = null;
  private relaying = false;
  /** Each tenant's backlog as Redis last answered it, and when. */
  private readonly backlogs = new Map<string, { value: number; at: number }>();

  constructor(private readonly deps: JobDispatcherDeps) {
    // Defining a command again (another dispatcher on the same connection) replaces it with the same.
    deps.redis.defineCommand('countIntoBacklog', { numberOfKeys: 2, lua: COUNT_INTO_BACKLOG });
    deps.redis.defineCommand('takeOffBacklog', { numberOfKeys: 2, lua: TAKE_OFF_BACKLOG });
  }

  get deployment(): string {
    return this.deps.prefix;
  }

  private get backlogKey(): string {
    return `${this.deps.prefix}:backlog`;
  }

  /**
   * Jobs committed while no enqueue is in flight go at once (a lone call waits for nothing); those
   * committed meanwhile go together when it returns, so under load one addBulk carries many commits.
   */
  dispatch(jobs: CommittedJob[]): void {
    this.pending.push(...jobs);
    this.flushing ??= this.flush();
  }

  /** Takes a started job's calls off its tenant's backlog (once, however often the job starts). */
  started(jobId: string | undefined, tenantId: string | undefined): void {
    if (!tenantId || !jobId) return;
    this.takeOffBacklog(jobId, tenantId);
  }

  private takeOffBacklog(jobId: string, tenantId: string): void {
    this.offBacklog.push({ jobId, tenantId });
    this.offBacklogTimer ??= setTimeout(() => this.flushOffBacklog(), AFTERWORK_DELAY_MS);
  }

  private flushOffBacklog(): void {
    if (this.offBacklogTimer) clearTimeout(this.offBacklogTimer);
    this.offBacklogTimer = null;
    const jobs = this.offBacklog;
    this.offBacklog = [];
    if (jobs.length === 0) return;
    const pipeline = this.deps.redis.pipeline();
    for (const { jobId, tenantId } of jobs) pipeline.takeOffBacklog(this.backlogKey, this.markKey(jobId), tenantId, BACKLOG_TTL_SECONDS, STARTED_MARK_TTL_SECONDS);
    pipeline.exec().catch(() => undefined);
  }

  /** Removes waiting or delayed jobs (from either calls queue) and takes them off their tenants' backlog. */
  discard(jobs: WithdrawnJob[]): void {
    for (const { jobId, tenantId } of jobs) {
      const removals = [this.deps.queues.calls, this.deps.queues[EXPRESS_QUEUE]].map((queue) => queue.remove(jobId));
      // A job that could not be removed (running, or Redis away) finds its call ended and does nothing.
      void Promise.all(removals)
        .then(() => this.takeOffBacklog(jobId, tenantId))
        .catch((error: unknown) => this.deps.logger.debug({ err: error, jobId }, 'a withdrawn job stays queued'));
    }
  }

  private markKey(jobId: string): string {
    return `${this.deps.prefix}:backlog:job:${jobId}`;
  }

  private async flush(): Promise<void> {
    // After the current tick's commits: their jobs join this add.
    await Promise.resolve();
    try {
      while (this.pending.length > 0) {
        const jobs = this.pending;
        this.pending = [];
        try {
          await this.enqueue(jobs);
          this.deleteLater(jobs.map((job) => job.outboxId));
        } catch (error) {
          this.deps.logger.warn({ err: error, jobs: jobs.length }, 'enqueue failed; the outbox relay enqueues later');
        }
      }
    } finally {
      this.flushing = null;
    }
  }

  /** Adds jobs to their queues (fail fast); the jobs' own ids make a repeated add a no-op. */
  async enqueue(jobs: OutboxJob[]): Promise<void> {
    const added = this.add(jobs);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        added,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`enqueue took longer than ${this.deps.enqueueTimeoutMs} ms`)), this.deps.enqueueTimeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      added.catch(() => undefined);
    }
  }

  private async add(jobs: OutboxJob[]): Promise<void> {
    await this.refreshBacklogs(jobs);
    const { priorities, counted } = this.prioritise(jobs);
    const byQueue = new Map<QueueName, Array<{ name: string; data: unknown; opts: { jobId: string; delay?: number; priority?: number } }>>();
    jobs.forEach((job, index) => {
      const priority = priorities[index];
      const queue = job.queue === 'calls' && priority !== undefined && priority <= this.deps.expressBacklog ? EXPRESS_QUEUE : job.queue;
      const list = byQueue.get(queue) ?? [];
      list.push({
        name: job.name,
        data: job.data,
        opts: { jobId: job.jobId, ...(job.delayMs ? { delay: job.delayMs } : {}), ...(priority ? { priority } : {}) },
      });
      byQueue.set(queue, list);
    });
    await Promise.all([counted, ...[...byQueue].map(([queue, list]) => this.deps.queues[queue].addBulk(list))]);
  }

  /**
   * Reads the backlog of the jobs' tenants that this process has no recent figure for (one round
   * trip, only then): the queue a job goes to depends on it, and a process that has not dispatched
   * for a tenant lately (a worker's retry, another API process) would otherwise take a heavy
   * tenant for a light one.
   */
  private async refreshBacklogs(jobs: OutboxJob[]): Promise<void> {
    const now = Date.now();
    const stale = [...new Set(jobs.map((job) => job.data.tenantId).filter((tenantId): tenantId is string => {
      if (!tenantId) return false;
      const known = this.backlogs.get(tenantId);
      return !known || now - known.at >= BACKLOG_FRESH_MS;
    }))];
    if (stale.length === 0) return;
    const values = await this.deps.redis.hmget(this.backlogKey, ...stale);
    const at = Date.now();
    stale.forEach((tenantId, index) => this.backlogs.set(tenantId, { value: Number(values[index] ?? 0) || 0, at }));
  }

  /**
   * Each job's priority is its tenant's backlog including it. The backlog is counted in Redis in the
   * same round trip as the add, so the priority comes from the backlog Redis reported last (at most
   * a second ago: refreshBacklogs) plus the jobs counted since: fairness needs the order of
   * magnitude, not the exact count, and an active tenant's call needs no extra round trip before its
   * job exists.
   */
  private prioritise(jobs: OutboxJob[]): { priorities: Array<number | undefined>; counted: Promise<unknown> } {
    const priorities: Array<number | undefined> = jobs.map(() => undefined);
    const weighted = jobs.map((job, index) => ({ job, index })).filter(({ job }) => job.data.tenantId);
    if (weighted.length === 0) return { priorities, counted: Promise.resolve() };
    const estimate = new Map<string, number>();
    const pipeline = this.deps.redis.pipeline();
    for (const { job, index } of weighted) {
      const tenantId = job.data.tenantId!;
      const weight = job.data.weight ?? 1;
      const backlog = (estimate.get(tenantId) ?? this.backlogs.get(tenantId)?.value ?? 0) + weight;
      estimate.set(tenantId, backlog);
      priorities[index] = Math.min(MAX_PRIORITY, Math.max(1, backlog));
      pipeline.countIntoBacklog(this.backlogKey, this.markKey(job.jobId), tenantId, weight, JOB_MARK_TTL_SECONDS);
    }
    pipeline.expire(this.backlogKey, BACKLOG_TTL_SECONDS);
    const counted = pipeline.exec().then((results) => {
      const at = Date.now();
      weighted.forEach(({ job }, position) => {
        const value = Number(results?.[position]?.[1]);
        if (Number.isFinite(value)) this.backlogs.set(job.data.tenantId!, { value, at });
      });
    });
    return { priorities, counted };
  }

  private deleteLater(ids: string[]): void {
    this.deletes.push(...ids);
    if (this.deleting) return; // its loop takes these too
    this.deleteTimer ??= setTimeout(() => this.deleteNow(), AFTERWORK_DELAY_MS);
  }

  private deleteNow(): void {
    if (this.deleteTimer) clearTimeout(this.deleteTimer);
    this.deleteTimer = null;
    this.deleting ??= this.deletePending();
  }

  private async deletePending(): Promise<void> {
    try {
      while (this.deletes.length > 0) {
        const ids = this.deletes.splice(0, 5000);
        await deleteDispatched(this.deps.sql, ids).catch((error: unknown) => {
          // The relay finds them later; a repeated add is a no-op while the job exists.
          this.deps.logger.warn({ err: error }, 'deleting dispatched outbox rows failed');
        });
      }
    } finally {
      this.deleting = null;
    }
  }

  /** Waits for the dispatches and deletions in progress (before the process closes its connections). */
  async settle(): Promise<void> {
    this.flushOffBacklog();
    while (this.flushing || this.pending.length > 0 || this.deleting || this.deletes.length > 0) {
      if (this.pending.length > 0) this.flushing ??= this.flush();
      await this.flushing;
      if (this.deletes.length > 0) this.deleteNow();
      await this.deleting;
    }
  }

  /** Enqueues outbox rows older than `minAgeMs` (left behind); returns how many. */
  async relay(minAgeMs = 2000, limit = 1000): Promise<number> {
    if (this.relaying) return 0;
    this.relaying = true;
    try {
      return await this.deps.sql.transaction(
        async (connection) => {
          const rows = await takeLeftBehind(connection, this.deployment, minAgeMs, limit);
          if (rows.length === 0) return 0;
          await this.enqueue(rows);
          await deleteDispatched(connection, rows.map((row) => row.outboxId));
          return rows.length;
        },
        { retries: 0 },
      );
    } finally {
      this.relaying = false;
    }
  }
}
