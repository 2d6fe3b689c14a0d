// Jobs are written in the transaction of the state change that needs them (the outbox), so work is
// never recorded without the job that runs it: after commit they are handed to BullMQ and their rows
// deleted; rows left behind (Redis away, a process that died in between) are relayed later. A job id
// is unique, so writing the same job twice is a no-op.
import { fromStorable, toStorableJson } from '../model/storable-json.js';
import { type Queryable, statement } from '../sql.js';
import type { Fold, WriteScope } from './event-log.js';

export interface OutboxJob {
  jobId: string;
  queue: 'calls' | 'tasks';
  name: string;
  /**
   * The payload. A job that carries `tenantId` (and `weight`: how many calls) counts in that tenant's
   * backlog, which orders dispatch fairly across tenants.
   */
  data: Record<string, unknown> & { tenantId?: string; weight?: number };
  /** Run no earlier than this many ms from now. */
  delayMs?: number;
}

export interface CommittedJob extends OutboxJob {
  outboxId: string;
}

/** Takes committed jobs to the queue (wired by the composition root: jobs/job-dispatcher.ts). */
export interface Dispatcher {
  /** The deployment (REDIS_PREFIX) whose queues this process feeds. */
  readonly deployment: string;
  dispatch(jobs: CommittedJob[]): void;
  /**
   * Takes dispatched jobs whose work ended before they ran (a cancelled call's retry) off the queue
   * and their tenant's backlog; a job already running is left to find its work ended.
   */
  discard(jobs: WithdrawnJob[]): void;
}

export interface WithdrawnJob {
  jobId: string;
  tenantId: string;
}

const INSERT = statement(
  'outbox_insert',
  `INSERT INTO job_outbox (deployment, job_id, queue, name, data, run_at)
   SELECT $6, j.job_id, j.queue, j.name, j.data::jsonb, now() + j.delay_ms * interval '1 millisecond'
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[]) AS j(job_id, queue, name, data, delay_ms)
   ON CONFLICT (deployment, job_id) DO NOTHING
   RETURNING id::text AS id, job_id AS "jobId"`,
);

type Deployed = OutboxJob & { deployment: string };

const outboxJobs: Fold<Deployed, string | null> = {
  name: 'outbox',
  order: 90,
  run: async (sql, items) => {
    const rows = await sql.query<{ id: string; jobId: string }>(INSERT, [
      items.map((job) => job.jobId),
      items.map((job) => job.queue),
      items.map((job) => job.name),
      items.map((job) => toStorableJson(job.data)),
      items.map((job) => Math.max(0, Math.round(job.delayMs ?? 0))),
      items[0]!.deployment,
    ]);
    const ids = new Map(rows.map((row) => [row.jobId, row.id]));
    return items.map((job) => ids.get(job.jobId) ?? null);
  },
};

/** Adds `job` to the write's transaction; it is dispatched once the transaction committed. */
export function addJob(scope: WriteScope, dispatcher: Dispatcher, job: OutboxJob): void {
  scope.fold(outboxJobs, { ...job, deployment: dispatcher.deployment }, (outboxId) => {
    if (outboxId) scope.afterCommit(() => dispatcher.dispatch([{ ...job, outboxId }]));
  });
}

/**
 * Withdraws jobs whose work ended before they ran: a row not dispatched yet goes with the write, the
 * queued job once it committed (Dispatcher.discard).
 */
export async function withdrawJobs(scope: WriteScope, dispatcher: Dispatcher, jobs: WithdrawnJob[]): Promise<void> {
  if (jobs.length === 0) return;
  await scope.sql.query(DELETE_UNSENT, [dispatcher.deployment, jobs.map((job) => job.jobId)]);
  scope.afterCommit(() => dispatcher.discard(jobs));
}

const DELETE_UNSENT = statement('outbox_delete_jobs', 'DELETE FROM job_outbox WHERE deployment = $1 AND job_id = ANY($2::text[])');
const DELETE = statement('outbox_delete', 'DELETE FROM job_outbox WHERE id = ANY($1::bigint[])');
const LEFT_BEHIND = statement(
  'outbox_left_behind',
  `SELECT id::text AS "outboxId", job_id AS "jobId", queue, name, data, GREATEST(0, extract(epoch FROM run_at - now()) * 1000)::int AS "delayMs"
     FROM job_outbox WHERE deployment = $3 AND created_at < now() - $1 * interval '1 millisecond'
    ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
);

/** Deletes the rows of jobs the queue now has. */
export async function deleteDispatched(sql: Queryable, outboxIds: string[]): Promise<void> {
  await sql.query(DELETE, [outboxIds]);
}

/**
 * The deployment's rows older than `minAgeMs` (left behind: never dispatched), locked for the
 * caller's transaction; rows another relay holds are skipped, so two relays never take the same.
 */
export async function takeLeftBehind(connection: Queryable, deployment: string, minAgeMs: number, limit: number): Promise<CommittedJob[]> {
  const rows = await connection.query<CommittedJob>(LEFT_BEHIND, [minAgeMs, limit, deployment]);
  return rows.map((row) => ({ ...row, data: fromStorable(row.data) as CommittedJob['data'] }));
}
