// Checks, outside the clock, that PostgreSQL holds what a run claims: every call terminal with
// the expected status, one ToolCallStarted and one ToolCallCompleted per call, and each session's
// event log without gaps. These are the only queries of toolrun's tables in the bench.
import type pg from 'pg';
import { BenchError, sleep } from './wait.js';

export interface Durability {
  calls: number;
  succeeded: number;
  open: number;
  startedEvents: number;
  completedEvents: number;
  /** Sessions whose event seqs are not 1..n without gaps. */
  sessionsWithGaps: number;
}

async function durability(db: pg.Client, sessionIds: string[], callIdPrefix: string): Promise<Durability> {
  const like = `${callIdPrefix}%`;
  const calls = await db.query<{ calls: number; succeeded: number; open: number }>(
    `SELECT count(*)::int AS calls,
            count(*) FILTER (WHERE status::text = 'SUCCEEDED')::int AS succeeded,
            count(*) FILTER (WHERE status::text NOT IN ('SUCCEEDED', 'FAILED', 'CANCELLED'))::int AS open
       FROM tool_call WHERE session_id = ANY($1::uuid[]) AND call_id LIKE $2`,
    [sessionIds, like],
  );
  const events = await db.query<{ started: number; completed: number }>(
    `SELECT count(*) FILTER (WHERE type = 'ToolCallStarted')::int AS started,
            count(*) FILTER (WHERE type = 'ToolCallCompleted')::int AS completed
       FROM event WHERE session_id = ANY($1::uuid[]) AND call_id LIKE $2`,
    [sessionIds, like],
  );
  const gaps = await db.query<{ gaps: number }>(
    `SELECT count(*)::int AS gaps FROM (
       SELECT session_id FROM event WHERE session_id = ANY($1::uuid[]) GROUP BY session_id HAVING count(*) <> max(seq) OR min(seq) <> 1
     ) AS broken`,
    [sessionIds],
  );
  return {
    calls: calls.rows[0]!.calls,
    succeeded: calls.rows[0]!.succeeded,
    open: calls.rows[0]!.open,
    startedEvents: events.rows[0]!.started,
    completedEvents: events.rows[0]!.completed,
    sessionsWithGaps: gaps.rows[0]!.gaps,
  };
}

/**
 * Waits (up to `timeoutMs`, for writes that may trail the completion a client saw) until every one
 * of `expected` calls is SUCCEEDED with exactly one Started and one Completed event and no session
 * has a gap; throws a BenchError saying what is missing otherwise.
 */
export async function verifyDurable(db: pg.Client, sessionIds: string[], callIdPrefix: string, expected: number, timeoutMs = 15_000): Promise<Durability> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await durability(db, sessionIds, callIdPrefix);
    const ok = found.calls === expected && found.succeeded === expected && found.open === 0 && found.startedEvents === expected && found.completedEvents === expected && found.sessionsWithGaps === 0;
    if (ok) return found;
    if (Date.now() > deadline) {
      throw new BenchError(`PostgreSQL does not hold what the run reported for ${expected} calls "${callIdPrefix}*": ${JSON.stringify(found)}`);
    }
    await sleep(250);
  }
}

/**
 * Statements the toolrun API process has sent to PostgreSQL so far (its `toolrun_db_statements_total`
 * on /metrics, counted at its pool's clients): what serving subscribers costs the database, without
 * the worker's periodic passes or lazily flushed server statistics in the count.
 */
export function apiStatementCounter(graphqlUrl: string): { source: string; read(): Promise<number> } {
  const url = new URL('/metrics', graphqlUrl).toString();
  return {
    source: 'the API process\'s toolrun_db_statements_total',
    read: async () => {
      const text = await (await fetch(url)).text();
      const line = text.split('\n').find((entry) => entry.startsWith('toolrun_db_statements_total '));
      if (!line) throw new BenchError(`${url} has no toolrun_db_statements_total`);
      return Number(line.split(' ')[1]);
    },
  };
}
