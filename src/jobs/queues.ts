// The job catalogue: every BullMQ job toolrun runs, its payload, its queue, and the one helper
// that enqueues it. Job ids are derived from the database row they act on, so enqueueing the
// same work twice (a resubmission, the reconciler) is a no-op while the job exists.
import { type JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';

export const QUEUES = { calls: 'calls' } as const;

export interface JobCatalogue {
  'run-call': { sessionId: string; callRowId: string };
  'run-serial-lane': { sessionId: string; batchRowId: string };
}
export type JobName = keyof JobCatalogue;
export type JobRequest = { [N in JobName]: { name: N; data: JobCatalogue[N] } }[JobName];

export function jobIdOf(request: JobRequest): string {
  switch (request.name) {
    case 'run-call':
      return `call-${request.data.callRowId}`;
    case 'run-serial-lane':
      return `lane-${request.data.batchRowId}`;
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

  constructor(connection: Redis, prefix: string) {
    this.calls = new Queue(QUEUES.calls, { connection, prefix: `${prefix}:bull`, defaultJobOptions: DEFAULT_OPTIONS });
  }

  async enqueue(requests: JobRequest[]): Promise<void> {
    if (requests.length === 0) return;
    await this.calls.addBulk(requests.map((request) => ({ name: request.name, data: request.data, opts: { jobId: jobIdOf(request) } })));
  }

  async close(): Promise<void> {
    await this.calls.close();
  }
}
