import type { Db } from '../db.js';

/**
 * Where the retained events of a finished batch or task lie in its session: `from`, the position
 * just before its first event, and `end`, the position of its final event (ToolBatchCompleted,
 * TaskFinished); null where they are no longer retained.
 */
export interface FinishedEvents {
  from: number | null;
  end: number | null;
}

/** The FinishedEvents of one batch (its public id) or task (its id) of a session. */
export async function readFinishedEvents(db: Db, sessionId: string, owner: { batchId: string } | { taskId: string }): Promise<FinishedEvents> {
  const [column, id, final] = 'batchId' in owner ? ['batch_id', owner.batchId, 'ToolBatchCompleted'] : ['task_id', owner.taskId, 'TaskFinished'];
  const [row] = await db.$queryRawUnsafe<Array<{ from: string | null; end: string | null }>>(
    `SELECT (min(seq) - 1)::text AS from, (max(seq) FILTER (WHERE type = $3))::text AS end
       FROM event WHERE session_id = $1::uuid AND ${column}::text = $2`,
    sessionId,
    id,
    final,
  );
  return { from: row?.from == null ? null : Number(row.from), end: row?.end == null ? null : Number(row.end) };
}
