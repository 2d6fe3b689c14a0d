// The hot path's call transitions on real PostgreSQL: fenced by state, attempt and worker, one
// statement for many calls, the batch settled once.
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallRef, claimCalls, finishAndAppend, finishCalls, type Finished, requeueCalls, settleBatches, type CompletedBatch } from '../../src/domain/calls/call-folds.js';
import { finishAlone, type FinishWrite, writeFinish } from '../../src/domain/calls/call-writes.js';
import { type CommittedEvent, EventLog } from '../../src/domain/event-log.js';
import { createDb } from '../../src/db.js';
import { createPool, Sql } from '../../src/sql.js';
import { WorkerRegistry } from '../../src/domain/workers.js';
import { TEST_DATABASE_URL } from '../support/database.js';

const pool = createPool(TEST_DATABASE_URL, 4, { statementTimeoutMs: 5000, lockTimeoutMs: 5000, idleInTransactionTimeoutMs: 5000 });
const sql = new Sql(pool);
const published: CommittedEvent[] = [];
const log = new EventLog(sql, createDb(pool), async (_tenant: string, events: CommittedEvent[]) => void published.push(...events), pino({ level: 'silent' }), { grouping: 'shared', maxInFlight: 2 });

const registry = new WorkerRegistry(sql, `folds-${randomUUID()}`, 60_000);
let tenantId: string;
let sessionId: string;

async function batchOf(count: number): Promise<CallRef[]> {
  const batchRowId = randomUUID();
  const batchId = `tool-batch:${randomUUID()}`;
  await sql.query(`INSERT INTO tool_batch (id, session_id, batch_id, request_hash, call_count, pending_count) VALUES ($1, $2, $3, 'h', $4, $4)`, [batchRowId, sessionId, batchId, count]);
  const calls: CallRef[] = [];
  for (let position = 0; position < count; position++) {
    const id = randomUUID();
    const callId = `c-${randomUUID()}`;
    await sql.query(
      `INSERT INTO tool_call (id, tenant_id, session_id, batch_row_id, call_id, position, tool, args, scheduling, max_attempts, timeout_ms)
       VALUES ($1, $2, $3, $4, $5, $6, 'add', '{}', 'PARALLEL', 3, 1000)`,
      [id, tenantId, sessionId, batchRowId, callId, position],
    );
    calls.push({ id, tenantId, sessionId, batchRowId, batchId, callId, tool: 'add', attempt: 1, maxAttempts: 3, timeoutMs: 1000, scheduling: 'PARALLEL' });
  }
  return calls;
}

const success = { status: 'SUCCESS' as const, value: 'a\u0000b' };

beforeAll(async () => {
  tenantId = randomUUID();
  sessionId = randomUUID();
  await sql.query('INSERT INTO tenant (id, name) VALUES ($1, $2)', [tenantId, `folds-${tenantId}`]);
  await sql.query('INSERT INTO session (id, tenant_id) VALUES ($1, $2)', [sessionId, tenantId]);
  // The workers that claim (claims are taken by live workers only).
  for (const id of ['w1', 'w2', 'w3']) await registry.register(id, 'test', process.pid);
});
afterAll(() => pool.end());

async function readSession(after: number) {
  return sql.query<{ seq: string; tenant_seq: string; type: string; call_id: string | null; payload: unknown }>(
    'SELECT seq, tenant_seq, type, call_id, payload FROM event WHERE session_id = $1 AND seq > $2 ORDER BY seq',
    [sessionId, after],
  );
}

describe('call folds', () => {
  it('claims, finishes and settles many calls in one transaction, fenced by worker and attempt', async () => {
    const calls = await batchOf(4);
    const now = new Date();
    const claimed: boolean[] = [];
    await log.write(sessionId, async (scope) => {
      for (const call of calls.slice(0, 3)) scope.fold(claimCalls, { call, workerId: 'w1', startedAt: now }, (ok) => claimed.push(ok));
    });
    expect(claimed).toEqual([true, true, true]);
    const rows = await sql.query<{ status: string; attempt: number; worker_id: string }>('SELECT status, attempt, worker_id FROM tool_call WHERE batch_row_id = $1 ORDER BY position', [calls[0]!.batchRowId]);
    expect(rows.map((row) => row.status)).toEqual(['RUNNING', 'RUNNING', 'RUNNING', 'QUEUED']);

    const outcomes: Record<string, boolean> = {};
    let completed: CompletedBatch | null = null;
    await log.write(sessionId, async (scope) => {
      const finish = (call: CallRef, workerId: string, claimedAlready: boolean, label: string) =>
        scope.fold(finishCalls, { call, workerId, claimed: claimedAlready, output: success, startedAt: now, durationMs: 5 }, ({ ok, completedBatch }) => {
          outcomes[label] = ok;
          completed ??= completedBatch;
        });
      finish(calls[0]!, 'w1', true, 'mine');
      finish(calls[1]!, 'w2', true, 'other worker');
      scope.fold(requeueCalls, { call: calls[2]!, workerId: 'w1', claimed: true, startedAt: now }, (ok) => (outcomes.requeued = ok));
      finish(calls[3]!, 'w1', false, 'unclaimed');
    });
    expect(outcomes).toEqual({ mine: true, 'other worker': false, requeued: true, unclaimed: true });
    expect(completed).toBeNull();

    // The requeued call runs again as attempt 2 (on any worker); w1 finishes the call it holds.
    const finishedWith: Array<CompletedBatch | null> = [];
    await log.write(sessionId, async (scope) => {
      scope.fold(finishCalls, { call: calls[1]!, workerId: 'w1', claimed: true, output: success, startedAt: now, durationMs: 1 }, ({ completedBatch }) => finishedWith.push(completedBatch));
      const second = { ...calls[2]!, attempt: 2 };
      scope.fold(finishCalls, { call: second, workerId: 'w3', claimed: false, output: success, startedAt: now, durationMs: 1 }, ({ completedBatch }) => finishedWith.push(completedBatch));
    });
    const final = await sql.query<{ status: string; attempt: number; output: unknown }>('SELECT status, attempt, output FROM tool_call WHERE batch_row_id = $1 ORDER BY position', [calls[0]!.batchRowId]);
    expect(final.map((row) => [row.status, row.attempt])).toEqual([
      ['SUCCEEDED', 1],
      ['SUCCEEDED', 1],
      ['SUCCEEDED', 2],
      ['SUCCEEDED', 1],
    ]);
    expect(final[0]!.output).toEqual(success);
    // The batch's completion is told once, to the last of its calls finished in the transaction.
    expect(finishedWith[0]).toBeNull();
    expect(finishedWith[1]).toMatchObject({ batchId: calls[0]!.batchId, payload: { total: 4, succeeded: 4, failed: 0, cancelled: 0 } });
    const [batch] = await sql.query<{ status: string; pending_count: number }>('SELECT status, pending_count FROM tool_batch WHERE id = $1', [calls[0]!.batchRowId]);
    expect(batch).toMatchObject({ status: 'COMPLETED', pending_count: 0 });
  });

  it('tells one item of a call that its transition took effect when a transaction holds two (a job delivered twice to one worker)', async () => {
    const [call, other] = await batchOf(2);
    const now = new Date();
    // Two runs of one attempt claim in the same group transaction: one of them runs, not both.
    const claims: boolean[] = [];
    await log.write(sessionId, async (scope) => {
      for (let copy = 0; copy < 2; copy++) scope.fold(claimCalls, { call: call!, workerId: 'w1', startedAt: now }, (ok) => claims.push(ok));
    });
    expect(claims).toEqual([true, false]);

    // A stale copy (attempt 1) and the current one (attempt 2) of a requeued call: the current one claims.
    await log.write(sessionId, async (scope) => scope.fold(requeueCalls, { call: other!, workerId: 'w1', claimed: false, startedAt: now }));
    const results: Record<string, boolean> = {};
    await log.write(sessionId, async (scope) => {
      scope.fold(claimCalls, { call: { ...other!, attempt: 2 }, workerId: 'w2', startedAt: now }, (ok) => (results.current = ok));
      scope.fold(claimCalls, { call: other!, workerId: 'w2', startedAt: now }, (ok) => (results.stale = ok));
    });
    expect(results).toEqual({ current: true, stale: false });

    // Two outcomes of one attempt: the batch is settled once.
    const finished: boolean[] = [];
    await log.write(sessionId, async (scope) => {
      for (let copy = 0; copy < 2; copy++) {
        scope.fold(finishCalls, { call: call!, workerId: 'w1', claimed: true, output: success, startedAt: now, durationMs: 1 }, ({ ok }) => finished.push(ok));
      }
    });
    expect(finished).toEqual([true, false]);
    const [batch] = await sql.query<{ pending_count: number; succeeded_count: number }>('SELECT pending_count, succeeded_count FROM tool_batch WHERE id = $1', [call!.batchRowId]);
    expect(batch).toMatchObject({ pending_count: 1, succeeded_count: 1 });
  });

  it('completes a batch once when one transaction finishes one of its calls and settles another (a cancel)', async () => {
    const [running, cancelled] = await batchOf(2);
    const now = new Date();
    const told: Array<[string, CompletedBatch | null]> = [];
    await log.write(sessionId, async (scope) => {
      scope.fold(settleBatches, { batchRowId: cancelled!.batchRowId, status: 'CANCELLED' }, (batch) => told.push(['settle', batch]));
      scope.fold(finishCalls, { call: running!, workerId: 'w1', claimed: false, output: success, startedAt: now, durationMs: 1 }, ({ completedBatch }) => told.push(['finish', completedBatch]));
    });
    // The finish runs first (fold order) and leaves the cancelled call pending; the settle completes the batch.
    expect(told.map(([by, batch]) => [by, batch === null])).toEqual([
      ['finish', true],
      ['settle', false],
    ]);
    expect(told[1]![1]).toMatchObject({ payload: { total: 2, succeeded: 1, cancelled: 1, failed: 0 } });
  });

  it('writes a finish and its events in one statement as the general path does: fenced, numbered, the batch told after its last call', async () => {
    const [first, second, third] = await batchOf(3);
    const now = new Date();
    const noJobs = { deployment: 'folds', dispatch: () => undefined, discard: () => undefined };
    const finish = (call: CallRef, claimed = false): FinishWrite => ({ call, workerId: 'w1', claimed, ran: true, output: success, startedAt: now, durationMs: 3, inLane: false });
    const heads = async () => Number((await sql.query<{ event_seq: string }>('SELECT event_seq FROM session WHERE id = $1', [sessionId]))[0]!.event_seq);

    // Alone: one call of three; a stale copy (attempt 2 of a call at attempt 0) is fenced out and announces nothing.
    const before = await heads();
    const told: boolean[] = [];
    const general = async () => {
      throw new Error('the general form ran');
    };
    await Promise.all([
      log.writeAlone(sessionId, finishAlone(finish(first!), (ok) => told.push(ok))!, general),
      log.writeAlone(sessionId, finishAlone(finish({ ...second!, attempt: 2 }), (ok) => told.push(ok))!, general),
    ]);
    expect(told.sort()).toEqual([false, true]);
    const afterFirst = await readSession(before);
    expect(afterFirst.map((event) => [event.type, event.call_id])).toEqual([
      ['ToolCallStarted', first!.callId],
      ['ToolCallCompleted', first!.callId],
    ]);

    // The general path and the statement, side by side in one session, keep one dense sequence; the
    // statement that finishes the batch's last calls announces the batch after them.
    await log.write(sessionId, async (scope) => writeFinish(scope, noJobs, finish(second!), () => undefined));
    const outcomes: Finished[] = [];
    const statementEvents = await finishAndAppend.run(sql, sessionId, [{ ...finish(third!), startedAt: now, events: () => [] }], new Date());
    outcomes.push(statementEvents[0]!.result);
    expect(outcomes[0]).toMatchObject({ ok: true, completedBatch: { batchId: third!.batchId, payload: { total: 3, succeeded: 3, failed: 0, cancelled: 0 } } });
    expect(statementEvents[0]!.events.map((event) => event.type)).toEqual(['ToolBatchCompleted']);
    const all = await readSession(before);
    expect(all.map((event) => Number(event.seq))).toEqual(all.map((_, index) => before + index + 1));
    expect(all.map((event) => event.type)).toEqual(['ToolCallStarted', 'ToolCallCompleted', 'ToolCallStarted', 'ToolCallCompleted', 'ToolBatchCompleted']);
    // What was announced is what was stored.
    const announced = statementEvents[0]!.events[0]!;
    expect(all[4]).toMatchObject({ seq: String(announced.seq), tenant_seq: String(announced.tenantSeq), payload: announced.payload });
    const [batch] = await sql.query<{ status: string; pending_count: number }>('SELECT status, pending_count FROM tool_batch WHERE id = $1', [third!.batchRowId]);
    expect(batch).toMatchObject({ status: 'COMPLETED', pending_count: 0 });
  });

  it('refuses the claim of a worker declared dead (its calls were recovered; it claims nothing more until it registers again)', async () => {
    const [call] = await batchOf(1);
    const deadId = `dead-${randomUUID()}`;
    await registry.register(deadId, 'test', process.pid);
    await sql.query(`UPDATE worker SET state = 'dead' WHERE id = $1`, [deadId]);
    let claimed: boolean | undefined;
    await log.write(sessionId, async (scope) => scope.fold(claimCalls, { call: call!, workerId: deadId, startedAt: new Date() }, (ok) => (claimed = ok)));
    expect(claimed).toBe(false);
    const [row] = await sql.query<{ status: string }>('SELECT status FROM tool_call WHERE id = $1', [call!.id]);
    expect(row!.status).toBe('QUEUED');
    await registry.register(`${deadId}~2`, 'test', process.pid);
    await log.write(sessionId, async (scope) => scope.fold(claimCalls, { call: call!, workerId: `${deadId}~2`, startedAt: new Date() }, (ok) => (claimed = ok)));
    expect(claimed).toBe(true);

    // Declared dead after a claim of it committed: the reaper finds it at every pass, not only once.
    expect(await registry.deadHoldingCalls()).not.toContain(`${deadId}~2`);
    await sql.query(`UPDATE worker SET state = 'dead' WHERE id = $1`, [`${deadId}~2`]);
    expect(await registry.deadHoldingCalls()).toContain(`${deadId}~2`);
    expect(await registry.deadHoldingCalls()).not.toContain(deadId);
  });
});
