// What a worker reads of calls: the next serial call of a batch (its lane runs them in order), and
// the arguments of a call whose job did not carry them.
import { type Queryable, statement } from '../../sql.js';
import type { CallStatus } from './call-folds.js';
import type { CallDescriptor } from './call-jobs.js';

const NEXT_SERIAL = statement(
  'lane_next_serial',
  `SELECT id::text AS id, call_id AS "callId", tool, args, attempt, max_attempts AS "maxAttempts", timeout_ms AS "timeoutMs", status::text AS status
     FROM tool_call
    WHERE batch_row_id = $1::uuid AND scheduling = 'SERIAL' AND status IN ('QUEUED', 'RUNNING', 'AWAITING_APPROVAL', 'PENDING_EXTERNAL')
    ORDER BY position LIMIT 1`,
);

const ARGS = statement('call_args', 'SELECT args FROM tool_call WHERE id = $1::uuid');

export interface SerialTurn {
  status: CallStatus;
  /** The attempt to run, when the call is QUEUED. */
  descriptor: CallDescriptor;
}

/** The serial call of a batch whose turn it is (queued, running or waiting), if any. */
export async function nextSerialCall(sql: Queryable, batchRowId: string): Promise<SerialTurn | null> {
  const [row] = await sql.query<{ id: string; callId: string; tool: string; args: unknown; attempt: number; maxAttempts: number; timeoutMs: number; status: CallStatus }>(NEXT_SERIAL, [batchRowId]);
  if (!row) return null;
  const { status, attempt, ...rest } = row;
  return { status, descriptor: { ...rest, attempt: attempt + 1, scheduling: 'SERIAL' } };
}

export async function readArgs(sql: Queryable, callRowId: string): Promise<unknown> {
  return (await sql.query<{ args: unknown }>(ARGS, [callRowId]))[0]?.args ?? {};
}
