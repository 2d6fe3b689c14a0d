// The periodic backstop of calls, in every worker (each step is safe on any number of workers at
// once): workers silent for WORKER_DEAD_AFTER_MS are declared dead and their running calls recovered;
// outbox rows left behind (Redis away, a process died after its commit) are enqueued; external calls
// past their deadline fail TIMEOUT; events past their retention are pruned. And when Redis lost its
// data (it restarted without persistence: the epoch key is gone), the jobs of every queued call are
// written again from PostgreSQL. Nothing here re-enqueues work that merely waits its turn.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { CallDecisionService } from '../domain/calls/call-decisions.js';
import { recoverCallsOfLostWorkers } from '../domain/calls/lost-calls.js';
import type { RunLaneJob } from '../domain/calls/call-jobs.js';
import { wakeLane } from '../domain/calls/call-writes.js';
import { redispatchQueuedCalls, rescueCalls, type RunCallsJobLike } from '../domain/calls/redispatch.js';
import type { Queue } from 'bullmq';
import { type EventLog, pruneEvents } from '../domain/event-log.js';
import type { Dispatcher } from '../domain/outbox.js';
import { recordEpoch, type WorkerRegistry } from '../domain/workers.js';
import type { Logger } from '../logger.js';
import type { Sql } from '../sql.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { JobDispatcher } from './job-dispatcher.js';
import { PeriodicPass } from './periodic-pass.js';

export interface ReaperDeps {
  config: Config;
  sql: Sql;
  eventLog: EventLog;
  dispatcher: JobDispatcher & Dispatcher;
  workers: WorkerRegistry;
  registry: ToolRegistry;
  callDecisions: CallDecisionService;
  /** The calls queues (main and express), whose active jobs a lost worker may still hold. */
  callQueues: readonly Queue[];
  redis: Redis;
  logger: Logger;
  /** Runs when Redis lost its data (after the calls' jobs are written again): re-arm what else lived there. */
  onRedisReset(): Promise<void>;
  /** false while this worker's own heartbeats do not land steadily: every heartbeat may be old then (see own-heartbeat.ts). */
  mayJudgeHeartbeats(): boolean;
}

const PRUNE_EVERY_TICKS = 5;
const FORGET_EVERY_TICKS = 600;

export class Reaper extends PeriodicPass {
  private ticks = 0;

  constructor(private readonly deps: ReaperDeps) {
    super();
  }

  private get epochKey(): string {
    return `${this.deps.config.REDIS_PREFIX}:epoch`;
  }

  start(intervalMs = this.deps.config.RECONCILE_INTERVAL_MS): void {
    this.every(intervalMs, true);
  }

  protected async pass(): Promise<void> {
    await this.step('checking the Redis epoch', () => this.checkEpoch());
    await this.step('recovering lost workers', () => this.recoverLostWorkers());
    await this.step('relaying the outbox', () => this.deps.dispatcher.relay());
    await this.step('expiring external calls', () => this.deps.callDecisions.expireOverdue());
    if (this.ticks % PRUNE_EVERY_TICKS === 0) await this.step('pruning events', () => pruneEvents(this.deps.sql, this.deps.config.EVENT_RETENTION_HOURS));
    if (this.ticks % FORGET_EVERY_TICKS === 0) await this.step('forgetting old workers', () => this.deps.workers.forgetOld());
    this.ticks++;
  }

  private async step(what: string, run: () => Promise<unknown>): Promise<void> {
    try {
      await run();
    } catch (error) {
      this.deps.logger.warn({ err: error }, `reaper: ${what} failed`);
    }
  }

  async recoverLostWorkers(): Promise<number> {
    const { workers } = this.deps;
    const dead = this.deps.mayJudgeHeartbeats() ? await workers.declareStaleDead() : [];
    if (dead.length > 0) {
      this.deps.logger.warn({ workers: dead }, 'workers stopped sending heartbeats; recovering their calls');
      await this.rescueJobsOf(dead);
    }
    const holding = await workers.deadHoldingCalls();
    if (holding.length === 0) return 0;
    return this.recoverCallsOf(holding);
  }

  /**
   * The calls a previous process under this worker's id left running: killed, then started again
   * with the same id (a restarted container keeps its hostname, and its pid is 1 again). Its id being
   * live again, no reaper would ever take them for a lost worker's: they are recovered as one's
   * before this process registers and claims anything.
   */
  recoverPreviousIncarnation(workerId: string): Promise<number> {
    return this.recoverCallsOf([workerId]);
  }

  private recoverCallsOf(workerIds: string[]): Promise<number> {
    const { sql, eventLog, dispatcher, registry } = this.deps;
    return recoverCallsOfLostWorkers(
      {
        sql,
        eventLog,
        dispatcher,
        hintsOf: async (tenantId, tools) => {
          const resolved = await registry.resolveMany(tenantId, tools);
          return new Map([...resolved].map(([name, tool]) => [name, tool.definition.hints]));
        },
      },
      workerIds,
    );
  }

  /** New jobs for the calls that jobs held by lost workers had not started yet. */
  private async rescueJobsOf(workerIds: string[]): Promise<void> {
    // A worker re-registered after being declared dead keeps its BullMQ name: `<id>~<incarnation>` runs as `<id>`.
    const names = new Set(workerIds.map((id) => id.replace(/~\d+$/, '')));
    const active = (await Promise.all(this.deps.callQueues.map((queue) => queue.getActive(0, 10_000)))).flat();
    const lost = active.filter((job) => job.processedBy && names.has(job.processedBy));
    const held = lost.filter((job) => job.name === 'run-calls').map((job) => job.data as RunCallsJobLike);
    const rescued = await rescueCalls(this.deps.sql, this.deps.eventLog, this.deps.dispatcher, held, `lost-${randomUUID().slice(0, 8)}`);
    if (rescued > 0) this.deps.logger.warn({ calls: rescued }, 'queued calls held by lost workers were dispatched again');
    // A lane whose job died between two calls goes on elsewhere.
    for (const job of lost.filter((each) => each.name === 'run-lane')) {
      const lane = job.data as RunLaneJob;
      await this.deps.eventLog.write(lane.sessionId, async (scope) => wakeLane(scope, this.deps.dispatcher, lane));
    }
  }

  /** When the epoch key is missing, Redis lost its data: the one process that sets it again re-creates the jobs. */
  async checkEpoch(): Promise<boolean> {
    const { redis } = this.deps;
    if (await redis.get(this.epochKey)) return false;
    const epoch = randomUUID();
    if ((await redis.set(this.epochKey, epoch, 'NX')) !== 'OK') return false;
    if ((await recordEpoch(this.deps.sql, this.deps.config.REDIS_PREFIX, epoch)) === 'first') return false;
    const calls = await redispatchQueuedCalls(this.deps.sql, this.deps.eventLog, this.deps.dispatcher, this.deps.config.CALLS_PER_JOB);
    if (calls > 0) this.deps.logger.warn({ calls }, 'Redis lost its jobs; the queued calls were dispatched again');
    await this.deps.onRedisReset();
    return true;
  }
}
