// A worker declared dead (its heartbeat was late on a loaded machine) that takes jobs before it
// notices: its claims and writes are refused, and the reaper that declared it did not see those
// jobs. Nothing may be left QUEUED without a job: the worker hands such calls back.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RegisterHttpToolDocument } from '../gql/graphql.js';
import { TEST_DATABASE_URL } from '../support/database.js';
import { json, startToolServer, type ToolServer } from '../support/tool-server.js';
import { newSession, submitBatch, waitForBatch } from '../support/fixtures.js';
import { genericPlanOf } from '../support/plans.js';
import { RUNNING_ON } from '../../src/domain/calls/lost-calls.js';
import { CANCEL_REQUESTED, DEAD_HOLDING_CALLS } from '../../src/domain/workers.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

let app: Toolrun;
let toolServer: ToolServer;
beforeAll(async () => {
  toolServer = await startToolServer();
  toolServer.route('/ok', (_call, response) => json(response, 200, { ok: true }));
  // A long heartbeat: the worker notices it was declared dead only at a beat, or when a call it takes is refused.
  // A short lock timeout: a check-in blocked behind a lock fails quickly.
  app = await startToolrun({ HEARTBEAT_INTERVAL_MS: 60_000, DB_LOCK_TIMEOUT_MS: 400, HTTP_TOOL_ALLOW_LOOPBACK: true });
});
afterAll(async () => {
  await app?.close();
  await toolServer?.close();
});

it('hands back the calls it takes between being declared dead and noticing it; each ends once', async () => {
  const worker = app.worker!;
  const { id: sessionId, rowId } = await newSession(app);
  // What another worker's reaper does, without having seen any job of this one.
  const declared = worker.workerId();
  await app.services.db.$executeRawUnsafe(`UPDATE worker SET state = 'dead', stopped_at = now() WHERE id = $1`, declared);

  const calls = [
    { id: 'fast', tool: 'add', args: { a: 1, b: 2 } },
    { id: 'slow', tool: 'sleep', args: { ms: 300 } },
    { id: 'once', tool: 'write_file', args: { path: 'once.txt', content: 'x' } },
  ];
  const batch = await submitBatch(app, { sessionId, calls });
  const done = await waitForBatch(app, sessionId, batch.batchId, 20_000);
  expect(done.calls.nodes.map((call) => [call.callId, call.status])).toEqual(calls.map((call) => [call.id, 'SUCCEEDED']));
  expect(worker.workerId()).not.toBe(declared);
  const completions = await app.services.db.event.groupBy({ by: ['callId'], where: { sessionId: rowId, type: 'ToolCallCompleted' }, _count: true });
  expect(completions.map((row) => [row.callId, row._count]).sort()).toEqual(calls.map((call) => [call.id, 1]).sort());
}, 30_000);

it('hands them back even when the check-in that would tell it fails (a loaded database), without waiting for its next beat', async () => {
  const worker = app.worker!;
  // A tenant's HTTP tool: run in parallel, and not rerunnable (its claim is written, and refused, before it runs).
  const registered = await app.query(RegisterHttpToolDocument, {
    input: { name: 'remote_op', description: 'an operation elsewhere', parametersSchema: { type: 'object' }, url: `${toolServer.base}/ok` },
  });
  if (registered.registerHttpTool.__typename !== 'HttpToolRegistration') throw new Error(JSON.stringify(registered.registerHttpTool));
  toolServer.secrets.add(registered.registerHttpTool.signingSecret);
  const { id: sessionId } = await newSession(app);
  const declared = worker.workerId();
  await app.services.db.$executeRawUnsafe(`UPDATE worker SET state = 'dead', stopped_at = now() WHERE id = $1`, declared);
  // The worker table held against writes by another transaction (reads go on): check-ins run out of
  // time until it is let go.
  const holder = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE worker IN SHARE MODE');
    const calls = [
      { id: 'a', tool: 'remote_op', args: {} },
      { id: 'b', tool: 'remote_op', args: {} },
    ];
    const batch = await submitBatch(app, { sessionId, calls });
    setTimeout(() => void holder.query('ROLLBACK'), 800);
    const done = await waitForBatch(app, sessionId, batch.batchId, 20_000);
    expect(done.calls.nodes.map((call) => [call.callId, call.status])).toEqual(calls.map((call) => [call.id, 'SUCCEEDED']));
    expect(worker.workerId()).not.toBe(declared);
  } finally {
    await holder.end();
  }
}, 30_000);

it("reads a worker's running calls through an index of the unfinished calls, not one of every call ever run", async () => {
  // The reaper (dead workers holding calls, their recovery: every pass of every worker) and a worker's
  // heartbeat (its cancel-requested calls) look for running calls only: whatever the table's size,
  // each may read them through tool_call_unfinished_worker_idx, which finished calls leave.
  for (const { text } of [DEAD_HOLDING_CALLS, RUNNING_ON, CANCEL_REQUESTED]) {
    expect.soft(await genericPlanOf(app, text, 'tool_call_unfinished_worker_idx'), text).toContain('"Index Name":"tool_call_unfinished_worker_idx"');
  }
  const indexes = await app.services.sql.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'tool_call' AND indexdef LIKE '%(worker_id)%'`);
  expect(indexes.map((row) => row.indexname)).toEqual(['tool_call_unfinished_worker_idx']);
});
