// The worker registry: one row per worker process, whose heartbeat is its liveness. A worker whose
// heartbeat is older than its staleness limit is declared dead (once, by whichever reaper gets there
// first) and its running work is recovered; from then on the dead worker's writes are refused (they
// are fenced by worker id), and its next heartbeat tells it so, so it stops what it still runs.
import { type Queryable, statement } from '../sql.js';

const REGISTER = statement(
  'worker_register',
  `INSERT INTO worker (id, deployment, state, host, pid, started_at, heartbeat_at) VALUES ($1, $4, 'live', $2, $3, now(), now())
   ON CONFLICT (id) DO UPDATE SET deployment = EXCLUDED.deployment, state = 'live', host = EXCLUDED.host, pid = EXCLUDED.pid,
      started_at = now(), heartbeat_at = now(), stopped_at = NULL`,
);
const BEAT = statement('worker_beat', `UPDATE worker SET heartbeat_at = now() WHERE id = $1 AND state = 'live' RETURNING id`);
const STOP = statement('worker_stop', `UPDATE worker SET state = 'stopped', stopped_at = now() WHERE id = $1 AND state = 'live'`);
const DECLARE_DEAD = statement(
  'worker_declare_dead',
  `UPDATE worker SET state = 'dead', stopped_at = now()
    WHERE deployment = $2 AND state = 'live' AND heartbeat_at < now() - $1 * interval '1 millisecond'
   RETURNING id`,
);
// The reads of a worker's calls look for running ones only, and say `completed_at IS NULL` beside their
// status: the predicate of tool_call_unfinished_worker_idx, which holds no finished call.
export const DEAD_HOLDING_CALLS = statement(
  'worker_dead_holding_calls',
  `SELECT w.id FROM worker w
    WHERE w.deployment = $1 AND w.state = 'dead'
      AND EXISTS (SELECT 1 FROM tool_call c WHERE c.worker_id = w.id AND c.status = 'RUNNING' AND c.completed_at IS NULL)`,
);
const LIVE_COUNT = statement(
  'worker_live_count',
  `SELECT count(*)::int AS n FROM worker WHERE deployment = $2 AND state = 'live' AND heartbeat_at >= now() - $1 * interval '1 millisecond'`,
);
const STATES = statement(
  'worker_states',
  `SELECT id, state = 'live' AND heartbeat_at >= now() - $2 * interval '1 millisecond' AS live FROM worker WHERE id = ANY($1::text[])`,
);
const LIVE_BEAT = statement(
  'worker_live_beat',
  `SELECT host, pid, heartbeat_at, (extract(epoch FROM now() - heartbeat_at) * 1000)::float8 AS age_ms FROM worker WHERE id = $1 AND state = 'live'`,
);
const FORGET = statement('worker_forget', `DELETE FROM worker WHERE state <> 'live' AND stopped_at < now() - interval '1 day'`);

export class WorkerRegistry {
  constructor(
    private readonly sql: Queryable,
    /** The deployment (REDIS_PREFIX) whose workers these are. */
    private readonly deployment: string,
    /** A heartbeat older than this means the worker is gone. */
    private readonly staleMs: number,
  ) {}

  async register(id: string, host: string, pid: number): Promise<void> {
    await this.sql.query(REGISTER, [id, host, pid, this.deployment]);
  }

  /** The last heartbeat of a worker registered live under `id` (age by the database's clock), or null. */
  async liveBeat(id: string): Promise<{ host: string; pid: number; at: Date; ageMs: number } | null> {
    const [row] = await this.sql.query<{ host: string; pid: number; heartbeat_at: Date; age_ms: number }>(LIVE_BEAT, [id]);
    return row ? { host: row.host, pid: row.pid, at: row.heartbeat_at, ageMs: row.age_ms } : null;
  }

  /** false: this worker was declared dead meanwhile (its work recovered elsewhere). */
  async beat(id: string): Promise<boolean> {
    return (await this.sql.query(BEAT, [id])).length > 0;
  }

  async stop(id: string): Promise<void> {
    await this.sql.query(STOP, [id]);
  }

  /** Declares every stale worker dead; returns their ids (each id is returned to one caller only). */
  async declareStaleDead(): Promise<string[]> {
    return (await this.sql.query<{ id: string }>(DECLARE_DEAD, [this.staleMs, this.deployment])).map((row) => row.id);
  }

  /**
   * Dead workers that still hold running calls: recovered at every pass, not only when declared dead,
   * so that a claim that committed while its worker was being declared dead is not left behind.
   */
  async deadHoldingCalls(): Promise<string[]> {
    return (await this.sql.query<{ id: string }>(DEAD_HOLDING_CALLS, [this.deployment])).map((row) => row.id);
  }

  async liveCount(): Promise<number> {
    return (await this.sql.query<{ n: number }>(LIVE_COUNT, [this.staleMs, this.deployment]))[0]?.n ?? 0;
  }

  /** Which of these workers are alive: live, with a heartbeat younger than `staleMs` (an unknown id is not). */
  async alive(ids: string[], staleMs = this.staleMs): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.sql.query<{ id: string; live: boolean }>(STATES, [ids, staleMs]);
    return new Set(rows.filter((row) => row.live).map((row) => row.id));
  }

  async forgetOld(): Promise<void> {
    await this.sql.query(FORGET);
  }
}

export const CANCEL_REQUESTED = statement(
  'calls_cancel_requested_on_worker',
  `SELECT id::text AS id FROM tool_call WHERE worker_id = $1 AND status = 'RUNNING' AND completed_at IS NULL AND cancel_requested_at IS NOT NULL`,
);

/** Calls running on `workerId` whose cancellation was requested (a missed cancel signal). */
export async function cancelRequestedOn(sql: Queryable, workerId: string): Promise<string[]> {
  return (await sql.query<{ id: string }>(CANCEL_REQUESTED, [workerId])).map((row) => row.id);
}

const RECORD_EPOCH = statement(
  'deployment_epoch',
  `INSERT INTO deployment (prefix, epoch) VALUES ($1, $2)
   ON CONFLICT (prefix) DO UPDATE SET epoch = EXCLUDED.epoch
   RETURNING (xmax = 0) AS first`,
);

/** Records the deployment's new Redis epoch; 'first' when the deployment had none (a first start, not a loss). */
export async function recordEpoch(sql: Queryable, prefix: string, epoch: string): Promise<'first' | 'reset'> {
  const [row] = await sql.query<{ first: boolean }>(RECORD_EPOCH, [prefix, epoch]);
  return row?.first ? 'first' : 'reset';
}
