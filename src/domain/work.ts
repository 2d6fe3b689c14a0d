// What the domain asks of the job system, as ports that services.ts wires to jobs/ (the domain
// never imports a value from jobs/). Every request is best effort and never throws: the work is
// already recorded in PostgreSQL, and when Redis is away the task reaper enqueues it again. (Calls
// go through the outbox instead: domain/outbox.ts.)
import type { Schedule } from '../generated/prisma/client.js';

export interface RunnableTask {
  sessionId: string;
  taskId: string;
  attempt: number;
}

export interface WorkQueue {
  /** Runs one attempt of each background run. */
  runTasks(tasks: readonly RunnableTask[]): Promise<void>;
  /** Makes the job system fire a schedule: on its cron pattern, or once at its time (nothing for a paused or disabled one). */
  armSchedule(schedule: Schedule): Promise<void>;
  disarmSchedule(scheduleId: string): Promise<void>;
}

/** The task workers alive now (they announce themselves), and their background-run slots. */
export interface LiveTaskWorkers {
  live(): Promise<{ workers: number; capacity: number }>;
  /** Which of these workers sent a heartbeat within `withinMs`. */
  alive(workerIds: string[], withinMs: number): Promise<Set<string>>;
}
