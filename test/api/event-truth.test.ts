// Events tell the truth: a ToolCallStarted exists for exactly the calls whose record has a
// `startedAt`. A call that ends without running (unknown tool, invalid arguments, cancelled while
// queued or awaiting approval, rejected) gets only its ToolCallCompleted. Real PostgreSQL, Redis,
// API and worker, read through the public stream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApproveToolCallDocument,
  CancelToolBatchDocument,
  CancelToolCallDocument,
  GetToolBatchDocument,
  RegisterExternalToolDocument,
  RejectToolCallDocument,
  RemoveToolDocument,
  SessionFileDocument,
  TenantSettingsDocument,
  ToolCallEventsDocument,
} from '../gql/graphql.js';
import { finished, spawnRun, waitForTask } from '../support/background.js';
import { batchesCompleted, eventsOf, expectCompleteSequence, readEvents } from '../support/events.js';
import { createSession, fromStart, laneSettled, newSession, submitBatch, waitForBatch, waitForStatus } from '../support/fixtures.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

let app: Toolrun;
let submitter: string;
let approver: string;
beforeAll(async () => {
  app = await startToolrun();
  const { tenantSettings } = await app.query(TenantSettingsDocument, {});
  [submitter, approver] = await Promise.all([app.newKey(tenantSettings.tenantName, ['submitter']), app.newKey(tenantSettings.tenantName, ['approver'])]);
});
afterAll(async () => app?.close());

describe('ToolCallStarted', () => {
  it('is emitted for exactly the calls that started; the others only complete', async () => {
    const sessionId = await createSession(app, submitter);
    const subscription = app.ws(ToolCallEventsDocument, { sessionId, after: fromStart(sessionId) });

    // Ends at submission: an unknown tool and invalid arguments, beside one that runs.
    const refused = await submitBatch(
      app,
      {
        sessionId,
        calls: [
          { id: 'unknown', tool: 'no_such_tool', args: {} },
          { id: 'invalid', tool: 'add', args: { a: 'one', b: 2 } },
          { id: 'runs', tool: 'add', args: { a: 1, b: 2 } },
        ],
      },
      submitter,
    );

    // Awaiting approval, with a serial call queued behind it: the batch is cancelled before either runs.
    const cancelled = await submitBatch(
      app,
      {
        sessionId,
        calls: [
          { id: 'held', tool: 'delete_file', args: { path: '/nothing.txt' } },
          { id: 'queued', tool: 'write_file', args: { path: '/queued.txt', content: 'never' } },
        ],
      },
      submitter,
    );
    await laneSettled(app, cancelled.batchId);
    expect((await app.query(CancelToolBatchDocument, { sessionId, batchId: cancelled.batchId }, submitter)).cancelToolBatch.__typename).toBe('ToolBatch');

    // Awaiting approval and rejected; another awaiting approval and cancelled by its call id.
    const rejected = await submitBatch(app, { sessionId, calls: [{ id: 'rejected', tool: 'delete_file', args: { path: '/x.txt' } }] }, submitter);
    expect((await app.query(RejectToolCallDocument, { callId: 'rejected', sessionId, reason: 'no' }, approver)).rejectToolCall.__typename).toBe('ToolCall');
    const withdrawn = await submitBatch(app, { sessionId, calls: [{ id: 'withdrawn', tool: 'delete_file', args: { path: '/y.txt' } }] }, submitter);
    await waitForStatus(app, 'withdrawn', sessionId, 'AWAITING_APPROVAL');
    expect((await app.query(CancelToolCallDocument, { callId: 'withdrawn', sessionId }, submitter)).cancelToolCall.__typename).toBe('ToolCall');

    // Approved: it runs, so it starts.
    const approved = await submitBatch(
      app,
      { sessionId, calls: [{ id: 'write', tool: 'write_file', args: { path: '/z.txt', content: 'z' } }, { id: 'approved', tool: 'delete_file', args: { path: '/z.txt' } }] },
      submitter,
    );
    await waitForStatus(app, 'approved', sessionId, 'AWAITING_APPROVAL');
    expect((await app.query(ApproveToolCallDocument, { callId: 'approved', sessionId }, approver)).approveToolCall.__typename).toBe('ToolCall');

    const batches = [refused, cancelled, rejected, withdrawn, approved];
    const events = eventsOf(await subscription.until(batchesCompleted(batches.length)));
    await subscription.close();
    expectCompleteSequence(events);

    const calls = (await Promise.all(batches.map((batch) => waitForBatch(app, sessionId, batch.batchId)))).flatMap((batch) => batch.calls.nodes);
    const startedIds = events.flatMap((event) => (event.__typename === 'ToolCallStarted' ? [event.callId] : []));
    const completedIds = events.flatMap((event) => (event.__typename === 'ToolCallCompleted' ? [event.callId] : []));
    expect(Object.fromEntries(calls.map((call) => [call.callId, call.startedAt !== null]))).toEqual({
      unknown: false,
      invalid: false,
      runs: true,
      held: false,
      queued: false,
      rejected: false,
      withdrawn: false,
      write: true,
      approved: true,
    });
    // A Started for a call iff its record says it started; every call completes once.
    expect(startedIds.sort()).toEqual(calls.filter((call) => call.startedAt !== null).map((call) => call.callId).sort());
    expect(completedIds.sort()).toEqual(calls.map((call) => call.callId).sort());
    expect(events.filter((event) => event.__typename === 'ToolCallCompleted' && event.callId === 'withdrawn')).toMatchObject([{ status: 'CANCELLED' }]);
  });

  it("is true of a tool's effects: a call cancelled while queued that is recorded as never run changed nothing (write_file, idempotent)", async () => {
    // The cancel races the worker: whichever way each call goes, its record must match its effect.
    let neverRan = 0;
    for (let round = 0; round < 6; round++) {
      const sessionId = await createSession(app, submitter);
      const calls = Array.from({ length: 10 }, (_, index) => ({ id: `w${index}`, tool: 'write_file', args: { path: `/f${index}.txt`, content: 'written' } }));
      const batch = await submitBatch(app, { sessionId, calls }, submitter);
      await app.query(CancelToolBatchDocument, { sessionId, batchId: batch.batchId }, submitter);
      const done = await waitForBatch(app, sessionId, batch.batchId);
      for (const call of done.calls.nodes) {
        const { sessionFile } = await app.query(SessionFileDocument, { sessionId, path: `/f${call.callId.slice(1)}.txt` });
        if (call.startedAt === null) {
          neverRan++;
          expect(call, JSON.stringify(call)).toMatchObject({ status: 'CANCELLED', attempt: 0 });
          expect(sessionFile, `${call.callId} is recorded as never run, yet its file exists`).toBeNull();
        } else if (call.status === 'SUCCEEDED') expect(sessionFile?.content).toBe('written');
      }
    }
    expect(neverRan).toBeGreaterThan(0);
  });

  it('is not emitted for a call whose tool was removed before it ran (it fails tool_unavailable)', async () => {
    const name = `vanishing_${Date.now()}`;
    const registered = await app.query(RegisterExternalToolDocument, { input: { name, description: 'Removed before it runs', parametersSchema: { type: 'object' }, policy: 'REQUIRES_APPROVAL' } });
    expect(registered.registerExternalTool.__typename).toBe('ToolDefinition');
    const sessionId = await createSession(app, submitter);
    const subscription = app.ws(ToolCallEventsDocument, { sessionId, after: fromStart(sessionId) });
    const batch = await submitBatch(app, { sessionId, calls: [{ id: 'gone', tool: name, args: {} }] }, submitter);
    expect((await app.query(RemoveToolDocument, { name })).removeTool.__typename).toBe('ToolDefinition');
    expect((await app.query(ApproveToolCallDocument, { callId: 'gone', sessionId }, approver)).approveToolCall.__typename).toBe('ToolCall');
    const events = eventsOf(await subscription.until(batchesCompleted(1)));
    await subscription.close();
    expectCompleteSequence(events);
    const [call] = (await waitForBatch(app, sessionId, batch.batchId)).calls.nodes;
    expect(call).toMatchObject({ status: 'FAILED', startedAt: null, attempt: 0, output: { code: 'tool_unavailable' } });
    expect(events.find((event) => event.__typename === 'ToolCallCompleted')).toMatchObject({ attempt: 0 });
    expect(events.map((event) => event.__typename)).toEqual(['ToolCallAwaitingApproval', 'ToolCallApproved', 'ToolCallCompleted', 'ToolBatchCompleted']);
  });
});

describe('TaskHeartbeat', () => {
  it('is announced at most every 5 s, while the heartbeat is recorded every interval (1 s here)', async () => {
    const session = await newSession(app);
    const run = await spawnRun(app, { sessionId: session.id, tool: 'sleep', args: { ms: 3500 } });
    const task = await waitForTask(app, run.taskId, finished, 20_000);
    expect(task.state).toBe('SUCCEEDED');
    const events = await readEvents(app.services, session.rowId);
    expect(events.filter((event) => event.type === 'TaskHeartbeat' && event.taskId === run.taskId)).toHaveLength(1);
    // The record went on beating after the one announcement.
    const announced = events.find((event) => event.type === 'TaskHeartbeat')!.payload as { at: string };
    const { heartbeatAt } = await app.services.db.task.findUniqueOrThrow({ where: { id: run.taskId } });
    expect(heartbeatAt!.getTime()).toBeGreaterThan(Date.parse(announced.at));
  });
});
