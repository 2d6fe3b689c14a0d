// Everything a worker process runs: the call worker, cancellation listener and reconciler, and
// for background runs the task worker and the task reaper.
import type { Services } from '../services.js';
import { CallRunner } from './call-runner.js';
import { CallWorker } from './call-worker.js';
import { CancelRegistry } from './cancel-registry.js';
import { Reconciler } from './reconciler.js';
import { TaskReaper } from './task-reaper.js';
import { TaskRunner } from './task-runner.js';
import { TaskWorker } from './task-worker.js';

export interface WorkerRuntime {
  cancels: CancelRegistry;
  callWorker: CallWorker;
  reconciler: Reconciler;
  taskRunner: TaskRunner;
  taskWorker: TaskWorker;
  taskReaper: TaskReaper;
  /** Stops taking work; running calls get `graceMs` to finish before they are handed back. */
  stop(graceMs?: number): Promise<void>;
}

export async function startWorkerRuntime(services: Services, options: { reconcileIntervalMs?: number } = {}): Promise<WorkerRuntime> {
  const { config, calls, tasks, sessions, eventLog, registry, logger, workerId, queues, bus, redis, taskRecovery: recovery } = services;
  const cancels = new CancelRegistry(bus);
  await cancels.start();
  const runner = new CallRunner({ config, calls, sessions, eventLog, registry, cancels, logger, workerId, background: services.background });
  const callWorker = new CallWorker({ config, calls, connection: redis.bullmq, runner, cancels, logger, workerId });
  const reconciler = new Reconciler({ config, calls, eventLog, work: queues, logger, callDecisions: services.callDecisions }, options.reconcileIntervalMs ?? config.RECONCILE_INTERVAL_MS);
  const taskRunner = new TaskRunner({ config, tasks, sessions, eventLog, registry, cancels, recovery, logger, workerId });
  const taskWorker = new TaskWorker({ config, connection: redis.bullmq, runner: taskRunner, background: services.background, registry: services.taskWorkers, logger, workerId });
  const taskReaper = new TaskReaper({ config, tasks, queues, recovery, logger, isRunningHere: (taskId) => taskRunner.isRunning(taskId) });
  callWorker.start();
  reconciler.start();
  await taskWorker.start();
  taskReaper.start();
  void taskReaper.registerSchedules().catch((error: unknown) => logger.warn({ err: error }, 'registering schedules failed'));
  return {
    cancels,
    callWorker,
    reconciler,
    taskRunner,
    taskWorker,
    taskReaper,
    stop: async (graceMs = config.CANCEL_GRACE_MS * 5) => {
      reconciler.stop();
      taskReaper.stop();
      await Promise.all([callWorker.close(graceMs), taskWorker.close(graceMs)]);
      await cancels.stop();
    },
  };
}
