// PostgreSQL is the source of truth; Redis only carries the work. This loop makes sure every
// call the database says is waiting to run, or running without a live heartbeat, has a job
// (job ids are deterministic, so an existing job makes this a no-op) — which is what lets a
// lost enqueue, a Redis restart or a dead worker delay work without losing any. It also fails
// external calls whose completion deadline passed (TIMEOUT) and prunes events past their retention.
import type { Config } from '../config.js';
import type { CallDecisionService } from '../domain/calls/call-decisions.js';
import type { Db } from '../db.js';
import type { Logger } from '../logger.js';
import type { JobQueues, JobRequest } from './catalogue.js';

export interface ReconcilerDeps {
  config: Config;
  db: Db;
  queues: JobQueues;
  logger: Logger;
  /** Expires external calls past their deadline. */
  callDecisions?: CallDecisionService;
}

export class Reconciler {
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(
    private readonly deps: ReconcilerDeps,
    private readonly intervalMs = 5000,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
  }

  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.requeueOrphanedCalls();
      await this.deps.callDecisions?.expireOverdue();
      await this.pruneEvents();
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'reconciler pass failed');
    } finally {
      this.running = false;
    }
  }

  async requeueOrphanedCalls(): Promise<number> {
    const { config, db, queues } = this.deps;
    const staleMs = Math.max(3 * config.HEARTBEAT_INTERVAL_MS, 2 * config.JOB_LOCK_MS);
    const rows = await db.$queryRawUnsafe<Array<{ id: string; sessionId: string; batchRowId: string; scheduling: string }>>(
      `SELECT id::text AS id, session_id::text AS "sessionId", batch_row_id::text AS "batchRowId", scheduling
         FROM tool_call
        WHERE (status = 'QUEUED' AND queued_at < now() - interval '5 seconds')
           OR (status = 'RUNNING' AND COALESCE(heartbeat_at, started_at) < now() - ($1::int * interval '1 millisecond'))
        ORDER BY queued_at
        LIMIT 2000`,
      staleMs,
    );
    const jobs: JobRequest[] = [];
    const lanes = new Set<string>();
    for (const row of rows) {
      if (row.scheduling === 'SERIAL') {
        if (!lanes.has(row.batchRowId)) jobs.push({ name: 'run-serial-lane', data: { sessionId: row.sessionId, batchRowId: row.batchRowId } });
        lanes.add(row.batchRowId);
      } else jobs.push({ name: 'run-call', data: { sessionId: row.sessionId, callRowId: row.id } });
    }
    await queues.enqueue(jobs);
    return jobs.length;
  }

  private async pruneEvents(): Promise<void> {
    await this.deps.db.$executeRawUnsafe(
      `DELETE FROM event WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM event WHERE created_at < now() - ($1::int * interval '1 hour') LIMIT 10000))`,
      this.deps.config.EVENT_RETENTION_HOURS,
    );
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
