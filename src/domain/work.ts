// What the domain asks of the job system, as ports that services.ts wires to jobs/ (the domain
// never imports a value from jobs/). Every request is best effort and never throws: the work is
// already recorded in PostgreSQL, and when Redis is away the reconciler (calls) or the task
// reaper (runs, schedules) enqueues it again.
import type { Schedule } from '../generated/prisma/client.js';

/** A call that is ready to run. */
export interface RunnableCall {
  id: string;
  sessionId: string;
  batchRowId: string;
  scheduling: string;
}

export interface Lane {
  sessionId: string;
  batchRowId: string;
}

export interface RunnableTask {
  sessionId: string;
  taskId: string;
  attempt: number;
}

export interface WorkQueue {
  /** Runs calls: a PARALLEL call as a job of its own, a SERIAL one in its batch's lane. */
  runCalls(calls: readonly RunnableCall[], options?: { delayMs?: number }): Promise<void>;
  /** Lets each batch's lane go on with its next serial call. */
  resumeLanes(lanes: readonly Lane[]): Promise<void>;
  /** Runs one attempt of each background run. */
  runTasks(tasks: readonly RunnableTask[]): Promise<void>;
  /** Makes the job system fire a schedule: on its cron pattern, or once at its time. */
  armSchedule(schedule: Schedule): Promise<void>;
  disarmSchedule(scheduleId: string): Promise<void>;
}

/** The task workers alive now (they announce themselves), and their background-run slots. */
export interface LiveTaskWorkers {
  live(): Promise<{ workers: number; capacity: number }>;
}
