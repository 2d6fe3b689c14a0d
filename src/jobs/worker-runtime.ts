// Everything a worker process runs: its registration and heartbeat, the call worker, the cancel
// listener, the reaper, and for background runs the task worker and the task reaper.
//
// Shutdown: stop taking jobs; running calls get WORKER_DRAIN_MS to finish; then whatever still runs
// is stopped — a rerunnable call handed back to the queue, any other failed `worker_shutdown` (never
// run twice) — and calls not started yet are handed back untouched.
import { hostname } from 'node:os';
import { staleAfterMs } from '../domain/tasks/recovery.js';
import { cancelRequestedOn, type WorkerRegistry } from '../domain/workers.js';
import { StartupError } from '../preflight.js';
import { readArgs } from '../domain/calls/lane.js';
import type { Services } from '../services.js';
import { metricSources } from '../telemetry/metrics.js';
import { CallAttempts } from './call-attempts.js';
import { CallRunner } from './call-runner.js';
import { CallSlots } from './call-slots.js';
import { CallWorker } from './call-worker.js';
import { CancelRegistry } from './cancel-registry.js';
import { OwnHeartbeat } from './own-heartbeat.js';
import { Reaper } from './reaper.js';
import { RunningCallPermits } from './running-calls.js';
import { TaskReaper } from './task-reaper.js';
import { TaskRunner } from './task-runner.js';
import { TaskWorker } from './task-worker.js';

export interface WorkerRuntime {
  cancels: CancelRegistry;
  callWorker: CallWorker;
  callRunner: CallRunner;
  reaper: Reaper;
  taskRunner: TaskRunner;
  taskWorker: TaskWorker;
  taskReaper: TaskReaper;
  /** This worker's current id (a new one after it was declared dead and re-registered). */
  workerId(): string;
  /** Stops taking work; running calls get `drainMs` to finish before they are handed back or failed. */
  stop(drainMs?: number): Promise<void>;
}

export async function startWorkerRuntime(services: Services, options: { reconcileIntervalMs?: number } = {}): Promise<WorkerRuntime> {
  const { config, sql, tasks, sessions, registry, logger, queues, bus, redis, workers, dispatcher, workerEventLog, taskRecovery: recovery } = services;
  let workerId = services.workerId;
  let incarnation = 1;
  // Judges the others' heartbeats only while its own land steadily (own-heartbeat.ts).
  const ownHeartbeat = new OwnHeartbeat(config.HEARTBEAT_INTERVAL_MS, Math.max(config.WORKER_DEAD_AFTER_MS, staleAfterMs(config)));

  const shutdown = new AbortController();
  const cancels = new CancelRegistry(bus);
  await cancels.start();
  const slots = new CallSlots(config.WORKER_CONCURRENCY, {
    perTenant: config.TENANT_CALLS_PER_WORKER,
    newcomers: config.WORKER_NEWCOMER_SLOTS ?? Math.floor(config.WORKER_CONCURRENCY / 8),
  });
  const attempts = new CallAttempts(workerEventLog, dispatcher, () => workerId, logger);
  const callRunner = new CallRunner({
    config,
    sessions,
    registry,
    cancels,
    attempts,
    slots,
    logger,
    readArgs: (callRowId) => readArgs(sql, callRowId),
    background: services.background,
    shutdown: shutdown.signal,
  });
  const permits = new RunningCallPermits(redis.command, { prefix: config.REDIS_PREFIX, holder: workerId, leaseMs: Math.max(2000, config.WORKER_DEAD_AFTER_MS), logger });
  const callWorker = new CallWorker({
    config,
    sql,
    eventLog: workerEventLog,
    dispatcher,
    connection: redis.bullmq,
    runner: callRunner,
    logger,
    workerId,
    limits: services.tenantLimits,
    permits,
    identity: {
      current: () => workerId,
      checkIn: () => checkIn(),
    },
  });
  const reaper = new Reaper({
    config,
    sql,
    eventLog: workerEventLog,
    dispatcher,
    workers,
    registry,
    callDecisions: services.callDecisions,
    callQueues: [queues.calls, queues.express],
    redis: redis.command,
    logger,
    onRedisReset: () => taskReaper.registerSchedules(),
    mayJudgeHeartbeats: () => ownHeartbeat.mayJudge(config.WORKER_DEAD_AFTER_MS),
  });
  const taskRunner = new TaskRunner({ config, tasks, sessions, eventLog: services.eventLog, registry, cancels, recovery, logger, workerId });
  const taskWorker = new TaskWorker({ config, connection: redis.bullmq, runner: taskRunner, background: services.background, logger, workerId });
  const taskReaper = new TaskReaper({
    config,
    tasks,
    queues,
    recovery,
    logger,
    isRunningHere: (taskId) => taskRunner.isRunning(taskId),
    mayJudgeHeartbeats: () => ownHeartbeat.mayJudge(staleAfterMs(config)),
  });
  await refuseIdInUse(workers, workerId, config.HEARTBEAT_INTERVAL_MS);
  const left = await reaper.recoverPreviousIncarnation(workerId);
  if (left > 0) logger.warn({ workerId, calls: left }, 'a previous process with this worker id left calls running; they were recovered as a lost worker’s');
  await workers.register(workerId, hostname(), process.pid);
  ownHeartbeat.registered();

  /**
   * Beats (one beat at a time, whoever asks); when the beat finds this worker declared dead, stops what
   * it runs and registers again under a new incarnation. Returns whether it was still alive.
   */
  let checking: Promise<boolean> | null = null;
  const checkIn = (): Promise<boolean> =>
    (checking ??= (async () => {
      try {
        if (await workers.beat(workerId)) {
          ownHeartbeat.landed();
          return true;
        }
        logger.error({ workerId }, 'this worker was declared dead (silent for too long); its calls were recovered elsewhere, stopping what it still runs');
        callRunner.abandonAll();
        workerId = `${services.workerId}~${++incarnation}`;
        await workers.register(workerId, hostname(), process.pid);
        ownHeartbeat.registered();
        return false;
      } finally {
        checking = null;
      }
    })());

  // Liveness, and what a missed cancel signal would have said.
  let beating = false;
  const heartbeat = setInterval(() => {
    if (beating) return;
    beating = true;
    void (async () => {
      try {
        if (!(await checkIn())) return;
        if (callRunner.running > 0) for (const id of await cancelRequestedOn(sql, workerId)) cancels.cancel(id);
      } catch (error) {
        logger.warn({ err: error }, 'worker heartbeat failed');
      } finally {
        beating = false;
      }
    })();
  }, config.HEARTBEAT_INTERVAL_MS);

  const unregisterMetrics = metricSources.worker({
    callsRunning: () => callRunner.running,
    backgroundRunsActive: () => taskRunner.runningCount,
    alive: async () => (await workers.alive([workerId])).has(workerId),
  });
  callWorker.start();
  reaper.start(options.reconcileIntervalMs ?? config.RECONCILE_INTERVAL_MS);
  await taskWorker.start();
  taskReaper.start();
  void taskReaper.registerSchedules().catch((error: unknown) => logger.warn({ err: error }, 'registering schedules failed'));

  return {
    cancels,
    callWorker,
    callRunner,
    reaper,
    taskRunner,
    taskWorker,
    taskReaper,
    workerId: () => workerId,
    stop: async (drainMs = config.WORKER_DRAIN_MS) => {
      // Calls not started yet go back to the queue at once; running ones get the drain time.
      slots.close();
      reaper.stop();
      taskReaper.stop();
      const drained = setTimeout(() => shutdown.abort(), drainMs);
      try {
        await Promise.all([callWorker.close(drainMs + config.CANCEL_GRACE_MS + 5000), taskWorker.close(drainMs)]);
      } finally {
        clearTimeout(drained);
        shutdown.abort();
        clearInterval(heartbeat);
        unregisterMetrics();
        permits.close();
        await workers.stop(workerId).catch((error: unknown) => logger.warn({ err: error }, 'deregistering the worker failed'));
        await cancels.stop();
      }
    },
  };
}

/**
 * A worker id whose heartbeat still advances is a live worker's: this process would take the calls
 * that one runs for a lost worker's (recoverPreviousIncarnation). A killed process's heartbeat has
 * stopped, so a restarted container goes on after at most three heartbeat intervals of watching.
 */
async function refuseIdInUse(workers: WorkerRegistry, workerId: string, heartbeatMs: number): Promise<void> {
  const first = await workers.liveBeat(workerId);
  if (!first || first.ageMs > 3 * heartbeatMs) return;
  await new Promise((resolve) => setTimeout(resolve, 3 * heartbeatMs));
  const now = await workers.liveBeat(workerId);
  if (!now || now.at.getTime() === first.at.getTime()) return;
  throw new StartupError(
    `WORKER_ID ${JSON.stringify(workerId)} is in use by a live worker (pid ${now.pid} on ${now.host}, its last heartbeat ${Math.round(now.ageMs)} ms ago): give each worker its own WORKER_ID`,
  );
}
