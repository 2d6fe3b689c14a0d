// The job catalogue: every BullMQ job toolrun runs, its payload, its queue, and the one helper
// that enqueues it. Job ids are derived from the database row they act on, so enqueueing the
// same work twice (a resubmission, the reconciler) is a no-op while the job exists.
import { type JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';

export const QUEUES = { calls: 'calls', tasks: 'tasks' } as const;

export interface JobCatalogue {
  'run-call': { sessionId: string; callRowId: string };
  'run-serial-lane': { sessionId: string; batchRowId: string };
  /** One attempt of a background run (queue `tasks`). */
  'run-task': { sessionId: string; taskId: string; attempt: number };
  /** A schedule fires: start its background run (queue `tasks`; added by a job scheduler or delayed). */
  'fire-schedule': { sessionId: string; scheduleId: string };
}

/** Jobs of the `tasks` queue; every other job runs on `calls`. */
const TASK_JOBS: ReadonlySet<JobName> = new Set<JobName>(['run-task', 'fire-schedule']);

/** The job scheduler (cron) or delayed job (one-shot) of a schedule. */
export const scheduleJobId = (scheduleId: string) => `schedule-${scheduleId}`;
export type JobName = keyof JobCatalogue;
export type JobRequest = { [N in JobName]: { name: N; data: JobCatalogue[N] } }[JobName] & {
  /** Run no earlier than this many milliseconds from now. */
  delayMs?: number;
};

export function jobIdOf(request: JobRequest): string {
  switch (request.name) {
    case 'run-call':
      return `call-${request.data.callRowId}`;
    case 'run-serial-lane':
      return `lane-${request.data.batchRowId}`;
    case 'run-task':
      return `task-${request.data.taskId}-${request.data.attempt}`;
    case 'fire-schedule':
      return scheduleJobId(request.data.scheduleId);
  }
}

const DEFAULT_OPTIONS: JobsOptions = {
  // Tool failures never fail a job; a job fails only on infrastructure errors (database away),
  // which are worth a few retries before the reconciler takes over.
  attempts: 5,
  backoff: { type: 'exponential', delay: 500 },
  removeOnComplete: true,
  removeOnFail: true,
};

export class JobQueues {
  readonly calls: Queue;
  readonly tasks: Queue;

  constructor(connection: Redis, prefix: string) {
    this.calls = new Queue(QUEUES.calls, { connection, prefix: `${prefix}:bull`, defaultJobOptions: DEFAULT_OPTIONS });
    this.tasks = new Queue(QUEUES.tasks, { connection, prefix: `${prefix}:bull`, defaultJobOptions: DEFAULT_OPTIONS });
    // A queue re-emits its connection's errors; without a listener BullMQ prints each one to
    // stderr. The connection's owner logs them already, and failed commands reject anyway.
    for (const queue of [this.calls, this.tasks]) queue.on('error', () => undefined);
  }

  async enqueue(requests: JobRequest[]): Promise<void> {
    if (requests.length === 0) return;
    const tasks = requests.filter((request) => TASK_JOBS.has(request.name));
    if (tasks.length > 0) {
      await this.tasks.addBulk(tasks.map((request) => ({ name: request.name, data: request.data, opts: { jobId: jobIdOf(request), ...(request.delayMs ? { delay: request.delayMs } : {}) } })));
      requests = requests.filter((request) => !TASK_JOBS.has(request.name));
      if (requests.length === 0) return;
    }
    await this.calls.addBulk(
      requests.map((request) => ({
        name: request.name,
        data: request.data,
        opts: { jobId: jobIdOf(request), ...(request.delayMs ? { delay: request.delayMs } : {}) },
      })),
    );
  }

  /** Registers (or updates) the job scheduler that fires a cron schedule. */
  async upsertCronSchedule(data: JobCatalogue['fire-schedule'], pattern: string, timezone: string): Promise<void> {
    await this.tasks.upsertJobScheduler(scheduleJobId(data.scheduleId), { pattern, tz: timezone }, { name: 'fire-schedule', data });
  }

  /** Removes whatever fires a schedule (its job scheduler, or its delayed one-shot job). */
  async removeSchedule(scheduleId: string): Promise<void> {
    await this.tasks.removeJobScheduler(scheduleJobId(scheduleId));
    await this.tasks.remove(scheduleJobId(scheduleId)).catch(() => 0);
  }

  async close(): Promise<void> {
    await this.calls.close();
    await this.tasks.close();
  }
}
