// The job catalogue: every BullMQ job toolrun runs — its name, payload, queue and job id — and
// JobQueues, the one way to enqueue them, which is also the domain's WorkQueue. Job ids are
// derived from the database row a job acts on, so enqueueing the same work twice (a
// resubmission, the reconciler) is a no-op while the job exists.
import { type JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { RunCallsJob, RunLaneJob } from '../domain/calls/call-jobs.js';
import type { QueueDepth, QueueDepths } from '../domain/system-status.js';
import type { RunnableTask, WorkQueue } from '../domain/work.js';
import type { Schedule } from '../generated/prisma/client.js';
import type { Logger } from '../logger.js';

export interface JobCatalogue {
  /** Up to CALLS_PER_JOB parallel calls of a batch, with what the worker needs to run them. */
  'run-calls': RunCallsJob;
  /** Runs a batch's serial calls one at a time, in order (written by the domain: domain/calls/call-jobs.ts). */
  'run-lane': RunLaneJob;
  /** One attempt of a background run. */
  'run-task': { sessionId: string; taskId: string; attempt: number };
  /** A schedule fires: start its background run (added by a job scheduler, or delayed). */
  'fire-schedule': { sessionId: string; scheduleId: string };
}

export type JobName = keyof JobCatalogue;

/** The queue each job runs on: calls and background runs get workers (and concurrency) of their own. */
const QUEUE_OF = {
  'run-calls': 'calls',
  'run-lane': 'calls',
  'run-task': 'tasks',
  'fire-schedule': 'tasks',
} as const satisfies Record<JobName, string>;

/**
 * The calls queue's express twin: the same jobs, of tenants with a light backlog (the dispatcher
 * decides, jobs/job-dispatcher.ts), taken by every worker apart from the main queue so that they never
 * wait for a job slot behind a heavy tenant's jobs.
 */
export const EXPRESS_QUEUE = 'calls-express';

export type QueueName = (typeof QUEUE_OF)[JobName] | typeof EXPRESS_QUEUE;
/** The BullMQ queues that hold calls jobs. */
const CALL_QUEUES = ['calls', EXPRESS_QUEUE] as const satisfies readonly QueueName[];
/** The jobs of one queue. */
export type JobsOf<Q extends QueueName> = { [N in JobName]: (typeof QUEUE_OF)[N] extends (Q extends typeof EXPRESS_QUEUE ? 'calls' : Q) ? N : never }[JobName];

export type JobRequest = { [N in JobName]: { name: N; data: JobCatalogue[N] } }[JobName] & {
  /** Run no earlier than this many milliseconds from now. */
  delayMs?: number;
};

/** The job scheduler (cron) or delayed job (one-shot) of a schedule. */
export const scheduleJobId = (scheduleId: string) => `schedule-${scheduleId}`;

export function jobIdOf(request: JobRequest): string {
  switch (request.name) {
    case 'run-calls':
      throw new Error('run-calls jobs are written to the outbox with their own ids');
    case 'run-lane':
      throw new Error('run-lane jobs are written to the outbox with their own ids');
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

export class JobQueues implements WorkQueue, QueueDepths {
  private readonly queues: Record<QueueName, Queue>;

  constructor(
    connection: Redis,
    prefix: string,
    private readonly logger: Logger,
  ) {
    const queue = (name: QueueName) => new Queue(name, { connection, prefix: `${prefix}:bull`, defaultJobOptions: DEFAULT_OPTIONS });
    this.queues = { calls: queue('calls'), [EXPRESS_QUEUE]: queue(EXPRESS_QUEUE), tasks: queue('tasks') };
    // A queue re-emits its connection's errors; without a listener BullMQ prints each one to
    // stderr. The connection's owner logs them already, and failed commands reject anyway.
    for (const each of Object.values(this.queues)) each.on('error', () => undefined);
  }

  get calls(): Queue {
    return this.queues.calls;
  }

  get express(): Queue {
    return this.queues[EXPRESS_QUEUE];
  }

  get tasks(): Queue {
    return this.queues.tasks;
  }

  /** Every BullMQ queue by name (the metrics and the queue board show each). */
  get all(): Record<QueueName, Queue> {
    return { ...this.queues };
  }

  /** Jobs of each queue by state, the express queue counted with `calls`; null while Redis does not answer. */
  async depths(): Promise<QueueDepth[] | null> {
    const count = async (names: readonly QueueName[]) => {
      const all = await Promise.all(names.map((name) => this.queues[name].getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed')));
      const sum = (state: string) => all.reduce((total, counts) => total + (counts[state] ?? 0), 0);
      return { waiting: sum('waiting') + sum('prioritized'), active: sum('active'), delayed: sum('delayed'), failed: sum('failed') };
    };
    try {
      return [
        { queue: 'calls', ...(await count(CALL_QUEUES)) },
        { queue: 'tasks', ...(await count(['tasks'])) },
      ];
    } catch {
      return null;
    }
  }

  /** Adds jobs (once each), on their queues. */
  async enqueue(requests: JobRequest[]): Promise<void> {
    const unique = new Map(requests.map((request) => [jobIdOf(request), request]));
    for (const name of new Set(Object.values(QUEUE_OF))) {
      const jobs = [...unique.values()].filter((request) => QUEUE_OF[request.name] === name);
      if (jobs.length === 0) continue;
      await this.queues[name].addBulk(
        jobs.map((request) => ({ name: request.name, data: request.data, opts: { jobId: jobIdOf(request), ...(request.delayMs ? { delay: request.delayMs } : {}) } })),
      );
    }
  }

  runTasks(tasks: readonly RunnableTask[]): Promise<void> {
    return this.tryEnqueue(tasks.map((task) => ({ name: 'run-task', data: { sessionId: task.sessionId, taskId: task.taskId, attempt: task.attempt } })));
  }

  async armSchedule(schedule: Schedule): Promise<void> {
    if (!schedule.enabled || schedule.pausedAt) return;
    const data = { sessionId: schedule.sessionId, scheduleId: schedule.id };
    try {
      if (schedule.type === 'CRON' && schedule.cronExpression) {
        const template = { name: 'fire-schedule', data } satisfies JobRequest;
        await this.tasks.upsertJobScheduler(scheduleJobId(schedule.id), { pattern: schedule.cronExpression, tz: schedule.timezone }, template);
      } else if (schedule.scheduledAt) {
        await this.enqueue([{ name: 'fire-schedule', data, delayMs: Math.max(0, schedule.scheduledAt.getTime() - Date.now()) }]);
      }
    } catch (error) {
      this.logger.warn({ err: error, scheduleId: schedule.id }, 'registering a schedule failed; the task reaper registers it again');
    }
  }

  /** Removes whatever fires a schedule (its job scheduler, or its delayed one-shot job). */
  async disarmSchedule(scheduleId: string): Promise<void> {
    try {
      await this.tasks.removeJobScheduler(scheduleJobId(scheduleId));
      await this.tasks.remove(scheduleJobId(scheduleId)).catch(() => 0);
    } catch (error) {
      this.logger.warn({ err: error, scheduleId }, 'removing a schedule from the queue failed; it finds the schedule disabled when it fires');
    }
  }

  /** Enqueues; when Redis is away the work stays recorded in PostgreSQL and the reconciler or the task reaper enqueues it later. */
  private async tryEnqueue(requests: JobRequest[]): Promise<void> {
    if (requests.length === 0) return;
    try {
      await this.enqueue(requests);
    } catch (error) {
      this.logger.warn({ err: error, jobs: requests.length }, 'enqueue failed; the reconciler or the task reaper enqueues it later');
    }
  }

  async close(): Promise<void> {
    for (const queue of Object.values(this.queues)) await queue.close();
  }
}
