/**
 * Where the retained events of a finished batch or task lie in its session: `from`, the position
 * just before its first event, and `end`, the position of its final event (ToolBatchCompleted,
 * TaskFinished); null where they are no longer retained.
 */
export interface FinishedEvents {
  from: number | null;
  end: number | null;
}

export function finishedEventsOf(row: { from: string | null; end: string | null } | undefined): FinishedEvents {
  return { from: row?.from == null ? null : Number(row.from), end: row?.end == null ? null : Number(row.end) };
}
