// A worker declared dead (its heartbeat was late on a loaded machine) that takes jobs before it
// notices: its claims and writes are refused, and the reaper that declared it did not see those
// jobs. Nothing may be left QUEUED without a job: the worker hands such calls back.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newSession, submitBatch, waitForBatch } from '../support/fixtures.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

let app: Toolrun;
beforeAll(async () => {
  // A long heartbeat: the worker notices it was declared dead only at a beat, or when a call it takes is refused.
  app = await startToolrun({ HEARTBEAT_INTERVAL_MS: 60_000 });
});
afterAll(async () => {
  await app?.close();
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
