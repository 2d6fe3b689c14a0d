// PostgreSQL is the source of truth; Redis only carries the work. This loop makes sure every
// call the database says is waiting to run, or running without a live heartbeat, has a job
// (job ids are deterministic, so an existing job makes this a no-op) — which is what lets a
// lost enqueue, a Redis restart or a dead worker delay work without losing any. It also fails
// external calls whose completion deadline passed (TIMEOUT) and prunes events past their retention.
import type { Config } from '../config.js';
import type { CallDecisionService } from '../domain/calls/call-decisions.js';
import type { CallStore } from '../domain/calls/store.js';
import type { EventLog } from '../domain/event-log.js';
import type { WorkQueue } from '../domain/work.js';
import type { Logger } from '../logger.js';

export interface ReconcilerDeps {
  config: Config;
  calls: CallStore;
  eventLog: EventLog;
  work: WorkQueue;
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

  async requeueOrphanedCalls(): Promise<void> {
    const { config, calls, work } = this.deps;
    const staleMs = Math.max(3 * config.HEARTBEAT_INTERVAL_MS, 2 * config.JOB_LOCK_MS);
    await work.runCalls(await calls.orphaned(staleMs));
  }

  private async pruneEvents(): Promise<void> {
    await this.deps.eventLog.prune(this.deps.config.EVENT_RETENTION_HOURS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
