// The worker registry: one row per worker process, whose heartbeat is its liveness. A worker whose
// heartbeat is older than its staleness limit is declared dead (once, by whichever reaper gets there
// first) and its running work is recovered; from then on the dead worker's writes are refused (they
// are fenced by worker id), and its next heartbeat tells it so, so it stops what it still runs.
import { type Queryable, statement } from '../sql.js';

const REGISTER = statement(
  'worker_register',
  `INSERT INTO worker (id, state, host, pid, started_at, heartbeat_at) VALUES ($1, 'live', $2, $3, now(), now())
   ON CONFLICT (id) DO UPDATE SET state = 'live', host = EXCLUDED.host, pid = EXCLUDED.pid, started_at = now(), heartbeat_at = now(), stopped_at = NULL`,
);
const BEAT = statement('worker_beat', `UPDATE worker SET heartbeat_at = now() WHERE id = $1 AND state = 'live' RETURNING id`);
const STOP = statement('worker_stop', `UPDATE worker SET state = 'stopped', stopped_at = now() WHERE id = $1 AND state = 'live'`);
const DECLARE_DEAD = statement(
  'worker_declare_dead',
  `UPDATE worker SET state = 'dead', stopped_at = now()
    WHERE state = 'live' AND heartbeat_at < now() - $1 * interval '1 millisecond'
   RETURNING id`,
);
const LIVE_COUNT = statement(
  'worker_live_count',
  `SELECT count(*)::int AS n FROM worker WHERE state = 'live' AND heartbeat_at >= now() - $1 * interval '1 millisecond'`,
);
const STATES = statement(
  'worker_states',
  `SELECT id, state = 'live' AND heartbeat_at >= now() - $2 * interval '1 millisecond' AS live FROM worker WHERE id = ANY($1::text[])`,
);
const FORGET = statement('worker_forget', `DELETE FROM worker WHERE state <> 'live' AND stopped_at < now() - interval '1 day'`);

export class WorkerRegistry {
  constructor(
    private readonly sql: Queryable,
    /** A heartbeat older than this means the worker is gone. */
    private readonly staleMs: number,
  ) {}

  async register(id: string, host: string, pid: number): Promise<void> {
    await this.sql.query(REGISTER, [id, host, pid]);
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
    return (await this.sql.query<{ id: string }>(DECLARE_DEAD, [this.staleMs])).map((row) => row.id);
  }

  async liveCount(): Promise<number> {
    return (await this.sql.query<{ n: number }>(LIVE_COUNT, [this.staleMs]))[0]?.n ?? 0;
  }

  /** Which of these workers are alive (an unknown id is not). */
  async alive(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.sql.query<{ id: string; live: boolean }>(STATES, [ids, this.staleMs]);
    return new Set(rows.filter((row) => row.live).map((row) => row.id));
  }

  async forgetOld(): Promise<void> {
    await this.sql.query(FORGET);
  }
}
