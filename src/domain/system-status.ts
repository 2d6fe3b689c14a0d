// What the Health page shows: the job queues' depths and the workers alive (deployment-wide, only
// as totals: jobs and workers serve every tenant), the delivery lag of events to this API process,
// and the viewer's tenant's own call counts. Nothing here names another tenant's work.
import { UNFINISHED_CALL_STATUSES } from './calls/call-folds.js';
import type { CallStore } from './calls/store.js';
import type { WorkerRegistry } from './workers.js';

/** Jobs of one queue by state, as the job system counts them. */
export interface QueueDepth {
  queue: string;
  /** Ready to run: waiting plus prioritized (the dispatcher gives every job a priority). */
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

/** The job system's queues (jobs/catalogue.ts); null while Redis does not answer. */
export interface QueueDepths {
  depths(): Promise<QueueDepth[] | null>;
}

/** Delivery lag of the events this process received in a recent window. */
export interface EventLagWindow {
  windowMs: number;
  /** Published messages received in the window (0: nothing was delivered, the figures are null). */
  messages: number;
  medianMs: number | null;
  maxMs: number | null;
  /** When the newest message of the window arrived. */
  lastAt: Date | null;
}

export interface SystemStatus {
  at: Date;
  queues: QueueDepth[] | null;
  workersAlive: number;
  eventLag: EventLagWindow;
  tenantId: string;
}

export class SystemStatusService {
  constructor(
    private readonly deps: {
      queues: QueueDepths;
      workers: Pick<WorkerRegistry, 'liveCount'>;
      eventLag: () => EventLagWindow;
      calls: Pick<CallStore, 'statusCounts'>;
    },
  ) {}

  async read(tenantId: string): Promise<SystemStatus> {
    const [queues, workersAlive] = await Promise.all([this.deps.queues.depths(), this.deps.workers.liveCount()]);
    return { at: new Date(), queues, workersAlive, eventLag: this.deps.eventLag(), tenantId };
  }

  /** The tenant's calls not final yet, by status (the tenant of the status read, never another). */
  tenantUnfinishedCalls(status: SystemStatus) {
    return this.deps.calls.statusCounts(status.tenantId, { status: [...UNFINISHED_CALL_STATUSES] });
  }
}
