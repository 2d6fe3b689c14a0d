// Everything a worker process runs: the call worker, cancellation listener and reconciler.
import type { Services } from '../services.js';
import { CallRunner } from './call-runner.js';
import { CallWorker } from './call-worker.js';
import { CancelRegistry } from './cancel-registry.js';
import { Reconciler } from './reconciler.js';

export interface WorkerRuntime {
  cancels: CancelRegistry;
  callWorker: CallWorker;
  reconciler: Reconciler;
  /** Stops taking work; running calls get `graceMs` to finish before they are handed back. */
  stop(graceMs?: number): Promise<void>;
}

export async function startWorkerRuntime(services: Services, options: { reconcileIntervalMs?: number } = {}): Promise<WorkerRuntime> {
  const { config, db, eventLog, registry, logger, workerId, queues, bus, redis } = services;
  const cancels = new CancelRegistry(bus);
  await cancels.start();
  const runner = new CallRunner({ config, db, eventLog, registry, cancels, logger, workerId });
  const callWorker = new CallWorker({ config, db, connection: redis.bullmq, runner, cancels, logger, workerId });
  const reconciler = new Reconciler({ config, db, queues, logger }, options.reconcileIntervalMs);
  callWorker.start();
  reconciler.start();
  return {
    cancels,
    callWorker,
    reconciler,
    stop: async (graceMs = config.CANCEL_GRACE_MS * 5) => {
      reconciler.stop();
      await callWorker.close(graceMs);
      await cancels.stop();
    },
  };
}
