// What happens to a background run whose worker is gone (killed, stalled, shut down): it is
// re-attached — a new attempt with new artifact paths, run from the start by whichever worker
// takes its job — only when the tool's live definition says re-running it is safe (idempotent or
// readonly; the spec the run was created with is never trusted for this); otherwise it is failed
// as orphaned with an error saying why. A run whose cancellation was requested ends canceled.
import type { Config } from '../../config.js';
import { MAX_RUN_ATTEMPTS } from './background.js';
import { newRunArtifacts } from './background-output.js';
import type { EventLog } from '../event-log.js';
import { finishTask, reattachTask, TASK_KINDS } from './task-transitions.js';
import type { Logger } from '../../logger.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { mayRunTwice } from '../../tools/types.js';
import type { WorkQueue } from '../work.js';
import type { TaskStore } from './store.js';

export interface TaskRecoveryDeps {
  config: Config;
  tasks: TaskStore;
  eventLog: EventLog;
  registry: ToolRegistry;
  work: WorkQueue;
  logger: Logger;
}

export type RecoveryResult = 'reattached' | 'orphaned' | 'canceled' | 'skipped';

/** A heartbeat older than this means the attempt's worker is gone. */
export function staleAfterMs(config: Pick<Config, 'HEARTBEAT_INTERVAL_MS'>): number {
  return 3 * config.HEARTBEAT_INTERVAL_MS;
}

export class TaskRecovery {
  constructor(private readonly deps: TaskRecoveryDeps) {}

  /**
   * Recovers attempt `attempt` of a running task. With `requireStale`, does nothing unless the
   * heartbeat is (still, under the lock) stale — so a live worker's run is never taken away.
   */
  async recover(taskId: string, attempt: number, cause: string, options: { requireStale: boolean }): Promise<RecoveryResult> {
    const { tasks, eventLog, registry, logger } = this.deps;
    const observed = await tasks.withTenant(taskId);
    if (!observed || observed.kind !== TASK_KINDS.background || observed.state !== 'RUNNING' || observed.attempt !== attempt) return 'skipped';
    const tool = observed.tool ? await registry.resolve(observed.session.tenantId, observed.tool) : null;
    const staleMs = staleAfterMs(this.deps.config);

    const result = await eventLog.writeWithPrisma(observed.sessionId, async (scope) => {
      const current = await scope.tx.task.findUnique({ where: { id: taskId } });
      if (!current || current.state !== 'RUNNING' || current.attempt !== attempt) return { outcome: 'skipped' as const };
      const lastSign = current.heartbeatAt ?? current.startedAt ?? current.createdAt;
      if (options.requireStale) {
        // The database's clock, as the reaper's query uses.
        const [row] = await scope.tx.$queryRawUnsafe<Array<{ stale: boolean }>>(
          `SELECT $1::timestamptz < now() - ($2::int * interval '1 millisecond') AS stale`,
          lastSign,
          staleMs,
        );
        if (!row?.stale) return { outcome: 'skipped' as const };
      }
      if (current.cancelRequestedAt) {
        await finishTask(scope, taskId, { attempt }, { state: 'CANCELED', summary: 'Canceled by request.' });
        return { outcome: 'canceled' as const };
      }
      const name = current.tool ?? '';
      const hints = tool?.definition.hints;
      const lost = `${cause} (last heartbeat ${lastSign.toISOString()})`;
      let refusal: string | null = null;
      if (!tool || !hints?.supportsBackground) refusal = `\`${name}\` is no longer available for background runs`;
      else if (!mayRunTwice(hints)) refusal = `\`${name}\` is not idempotent or readonly, so it was not run again`;
      else if (attempt >= MAX_RUN_ATTEMPTS) refusal = `it was already lost ${attempt} times`;
      if (refusal) {
        const error = `Background run orphaned: ${lost}; ${refusal}.`;
        await finishTask(scope, taskId, { attempt }, { state: 'FAILED', summary: error, error });
        return { outcome: 'orphaned' as const };
      }
      const reattached = await reattachTask(scope, taskId, attempt, newRunArtifacts(), lost);
      if (!reattached) return { outcome: 'skipped' as const };
      scope.afterCommit(() => this.deps.work.runTasks([{ sessionId: reattached.sessionId, taskId, attempt: reattached.attempt }]));
      return { outcome: 'reattached' as const };
    });
    if (result.outcome !== 'skipped') logger.info({ taskId, attempt, outcome: result.outcome, cause }, 'recovered a background run');
    return result.outcome;
  }
}
