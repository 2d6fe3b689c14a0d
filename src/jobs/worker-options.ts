import type { Worker, WorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';

/**
 * Options of every toolrun BullMQ worker. A stalled job is resolved against the database (re-run
 * or re-attached when idempotent, else failed as lost), so BullMQ must keep handing it back
 * rather than failing it.
 */
export function workerOptions(config: Config, connection: Redis, workerId: string, concurrency: number): WorkerOptions {
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

export function logWorkerProblems(worker: Worker, logger: Logger, label: string): void {
  worker.on('error', (error) => logger.warn({ err: error }, `${label} worker error`));
  worker.on('failed', (job, error) => logger.warn({ err: error, jobId: job?.id }, `${label} job failed`));
}
