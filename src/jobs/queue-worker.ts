// A BullMQ worker of one toolrun queue: its options, a typed handler per job of the queue (no
// dispatch on job names, no payload casts in the handlers), logging, and a close with grace.
import { DelayedError, type Job, Worker, type WorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { LogContext } from '../logging/context.js';
import { queueWait } from '../telemetry/metrics.js';
import type { JobCatalogue, JobsOf, QueueName } from './catalogue.js';

/** What a handler asks of its job: nothing (done), or to run again after `delayMs`. */
export type JobResult = { delayMs: number } | undefined;

/** What a handler gets beside its job: BullMQ's cancel signal, and the logger of the job's lines. */
export interface JobRun {
  signal?: AbortSignal;
  /** Names the job, and the tenant, session or task its payload names, on every line. */
  log: Logger;
}

export type JobHandlers<Q extends QueueName> = {
  [N in JobsOf<Q>]: (data: JobCatalogue[N], job: Job, run: JobRun) => Promise<JobResult>;
};

export interface QueueWorkerOptions {
  config: Config;
  connection: Redis;
  workerId: string;
  concurrency: number;
  logger: Logger;
}

/**
 * Options of every toolrun BullMQ worker. A stalled job is resolved against the database (re-run
 * or re-attached when idempotent, else failed as lost), so BullMQ must keep handing it back
 * rather than failing it.
 */
function workerOptions(config: Config, connection: Redis, workerId: string, concurrency: number): WorkerOptions {
  return {
    connection,
    prefix: `${config.REDIS_PREFIX}:bull`,
    concurrency,
    lockDuration: config.JOB_LOCK_MS,
    stalledInterval: Math.max(500, Math.floor(config.JOB_LOCK_MS / 2)),
    maxStalledCount: 1000,
    autorun: false,
    name: workerId,
  };
}

/** A worker (not yet running) that hands each job of `queue` to its handler; a delay re-delays the same job, freeing the slot meanwhile. */
export function createQueueWorker<Q extends QueueName>(queue: Q, handlers: JobHandlers<Q>, options: QueueWorkerOptions): Worker {
  const { config, connection, workerId, concurrency, logger } = options;
  const byName = handlers as Record<string, (data: unknown, job: Job, run: JobRun) => Promise<JobResult>>;
  const worker = new Worker(
    queue,
    async (job, token, signal) => {
      // The job's lines carry its ids through this child logger, passed down, not through the log
      // context (logging/context.ts): on Node 20 an AsyncLocalStorage in use makes every promise of
      // the process pay for async hooks, about a sixth of a worker's CPU per call.
      const log = logger.child(logContextOf(job));
      queueWait.observe({ queue, job: job.name }, Math.max(0, Date.now() - job.timestamp - (job.opts.delay ?? 0)) / 1000);
      const handler = byName[job.name];
      if (!handler) throw new Error(`unknown job ${job.name}`);
      const result = await handler(job.data, job, { signal, log });
      log.debug({ job: job.name }, 'job done');
      if (result && token) {
        await job.moveToDelayed(Date.now() + result.delayMs, token);
        throw new DelayedError();
      }
    },
    workerOptions(config, connection, workerId, concurrency),
  );
  worker.on('error', (error) => logger.warn({ err: error }, `${queue} worker error`));
  worker.on('failed', (job, error) => logger.warn({ err: error, jobId: job?.id }, `${queue} job failed`));
  return worker;
}

/** The ids a job's payload carries that its log lines should show. */
function logContextOf(job: Job): LogContext {
  const data = job.data as Partial<Record<'tenantId' | 'sessionId' | 'taskId', unknown>> | null;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return { jobId: job.id, tenantId: text(data?.tenantId), sessionId: text(data?.sessionId), taskId: text(data?.taskId) };
}

/** How long a close may wait on BullMQ after the jobs' grace, e.g. for a Redis that is away. */
const CLOSE_LIMIT_MS = 5000;

/**
 * Stops taking jobs; the running ones get `graceMs` to finish before their signals fire. A close
 * that BullMQ cannot finish (Redis away) is forced once that and a few more seconds have passed:
 * every job's state is in PostgreSQL, and BullMQ hands back what the worker still held.
 */
export async function closeWithGrace(worker: Worker, graceMs: number): Promise<void> {
  const closing = worker.close();
  const timer = setTimeout(() => worker.cancelAllJobs('worker shutting down'), graceMs);
  let limit: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      closing,
      new Promise<void>((resolve) => {
        limit = setTimeout(() => void worker.close(true).catch(() => undefined).finally(resolve), graceMs + CLOSE_LIMIT_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    clearTimeout(limit);
  }
}
