// REQUIRES_APPROVAL tools: calls wait in AWAITING_APPROVAL until an approver approves (they run)
// or rejects them (PERMISSION_DENIED from POLICY). Real PostgreSQL, Redis, API and worker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApproveToolCallDocument,
  CancelToolBatchDocument,
  CancelToolCallDocument,
  CompleteToolCallDocument,
  GetToolDocument,
  RegisterExternalToolDocument,
  RejectToolCallDocument,
  TenantSettingsDocument,
  UpdateTenantSettingsDocument,
  WaitingCallEventsDocument,
} from '../gql/graphql.js';
import { callOf, createSession, fromStart, laneSettled, outputOf, submitBatch, waitForBatch, waitForStatus } from '../support/fixtures.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

let app: Toolrun;
/** Submits calls; may not approve. */
let submitter: string;
/** Approves; a different key of the same tenant. */
let approver: string;
/** May submit and approve: self-approval is what it must not do by default. */
let both: string;
beforeAll(async () => {
  app = await startToolrun({ CANCEL_GRACE_MS: 300 });
  const { tenantSettings } = await app.query(TenantSettingsDocument, {});
  expect(tenantSettings.allowSelfApproval).toBe(false);
  [submitter, approver, both] = await Promise.all([
    app.newKey(tenantSettings.tenantName, ['submitter']),
    app.newKey(tenantSettings.tenantName, ['approver']),
    app.newKey(tenantSettings.tenantName, ['submitter', 'approver']),
  ]);
});
afterAll(async () => app?.close());

const approve = async (callId: string, sessionId: string, key: string) => (await app.query(ApproveToolCallDocument, { callId, sessionId }, key)).approveToolCall;
const reject = async (callId: string, sessionId: string, reason: string, key: string) =>
  (await app.query(RejectToolCallDocument, { callId, sessionId, reason }, key)).rejectToolCall;

/** A session with /a.txt, /b.txt and /c.txt written. */
async function sessionWithFiles(key: string) {
  const sessionId = await createSession(app, key);
  await submitBatch(
    app,
    {
      sessionId,
      waitMs: 10_000,
      calls: ['a', 'b', 'c'].map((name) => ({ id: `w-${name}`, tool: 'write_file', args: { path: `/${name}.txt`, content: name } })),
    },
    key,
  );
  return sessionId;
}

describe('approvals', () => {
  it('delete_file requires approval', async () => {
    expect((await app.query(GetToolDocument, { name: 'delete_file' })).tool).toMatchObject({ policy: 'REQUIRES_APPROVAL', scheduling: 'SERIAL' });
  });

  it('holds the call (and the serial calls after it) until an approver approves; the rest of the batch runs', async () => {
    const sessionId = await sessionWithFiles(submitter);
    const batch = await submitBatch(
      app,
      {
        sessionId,
        calls: [
          { id: 'del', tool: 'delete_file', args: { path: '/a.txt' } },
          { id: 'after', tool: 'write_file', args: { path: '/after.txt', content: 'after the delete' } },
          { id: 'free', tool: 'echo', args: { message: 'not blocked' } },
        ],
      },
      submitter,
    );
    expect(batch.calls.nodes.find((call) => call.callId === 'del')!.status).toBe('AWAITING_APPROVAL');
    await waitForStatus(app, 'free', sessionId, 'SUCCEEDED');
    // Once the lane has done what it could, the held call and the serial call behind it stay put.
    await laneSettled(app, batch.batchId);
    expect((await callOf(app, 'del', sessionId)).status).toBe('AWAITING_APPROVAL');
    expect((await callOf(app, 'after', sessionId)).status).toBe('QUEUED');

    // The submitter has no approver role; nothing changes.
    expect(await approve('del', sessionId, submitter)).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
    expect(await reject('del', sessionId, 'no', submitter)).toMatchObject({ __typename: 'ForbiddenError' });
    expect((await callOf(app, 'del', sessionId)).status).toBe('AWAITING_APPROVAL');

    const approved = await approve('del', sessionId, approver);
    expect(approved).toMatchObject({ __typename: 'ToolCall', callId: 'del' });
    expect(approved.__typename === 'ToolCall' && approved.decidedAt).toBeTruthy();
    const done = await waitForBatch(app, sessionId, batch.batchId);
    const [del, after] = done.calls.nodes;
    expect(del).toMatchObject({ status: 'SUCCEEDED', output: { value: { path: '/a.txt', type: 'file', deleted: 1 } } });
    expect(after!.status).toBe('SUCCEEDED');
    // Serial order holds after the approval: the write ran after the delete.
    expect(Date.parse(after!.startedAt!)).toBeGreaterThanOrEqual(Date.parse(del!.completedAt!));

    // A decision on a call that is no longer waiting is a typed error.
    expect(await approve('del', sessionId, approver)).toMatchObject({ __typename: 'InvalidStateError', state: 'SUCCEEDED' });
    // What a dashboard sees on toolCallEvents (replayed from the batch's first event).
    const subscription = app.ws(WaitingCallEventsDocument, { sessionId, batchId: batch.batchId, after: fromStart(sessionId) });
    const events = (await subscription.until((item) => item.data?.toolCallEvents.__typename === 'ToolBatchCompleted')).map((item) => item.data!.toolCallEvents);
    await subscription.close();
    const ofDelete = events.filter((event) => 'callId' in event && event.callId === 'del');
    expect(ofDelete.map((event) => event.__typename)).toEqual(['ToolCallAwaitingApproval', 'ToolCallApproved', 'ToolCallStarted', 'ToolCallCompleted']);
    expect(ofDelete[0]).toMatchObject({ tool: 'delete_file', args: { path: '/a.txt' } });
    expect(ofDelete[1]).toMatchObject({ decidedAt: expect.any(String) });
  });

  it('rejects with PERMISSION_DENIED from POLICY and the reason; later serial calls go on', async () => {
    const sessionId = await sessionWithFiles(submitter);
    const batch = await submitBatch(
      app,
      {
        sessionId,
        calls: [
          { id: 'del', tool: 'delete_file', args: { path: '/b.txt' } },
          { id: 'after', tool: 'write_file', args: { path: '/after.txt', content: 'x' } },
        ],
      },
      submitter,
    );
    const rejected = await reject('del', sessionId, 'b.txt is still needed', approver);
    expect(rejected).toMatchObject({ __typename: 'ToolCall', status: 'FAILED' });
    expect(outputOf(rejected.__typename === 'ToolCall' ? rejected : undefined)).toMatchObject({
      __typename: 'ToolFailure',
      class: 'PERMISSION_DENIED',
      source: 'POLICY',
      code: 'approval_rejected',
      retry: { kind: 'NEVER' },
    });
    expect(rejected.__typename === 'ToolCall' && rejected.modelReturn?.text).toBe('[Tool execution failed]\nThe call was rejected: b.txt is still needed');
    const done = await waitForBatch(app, sessionId, batch.batchId);
    expect(done.calls.nodes.map((call) => call.status)).toEqual(['FAILED', 'SUCCEEDED']);
    expect(await reject('del', sessionId, 'again', approver)).toMatchObject({ __typename: 'InvalidStateError', state: 'FAILED' });
    // The file is still there.
    const stat = await submitBatch(app, { sessionId, waitMs: 10_000, calls: [{ id: 'stat', tool: 'stat_file', args: { path: '/b.txt' } }] }, submitter);
    expect(outputOf(stat.calls.nodes[0])).toMatchObject({ value: { exists: true } });
  });

  it('refuses self-approval unless the tenant allows it', async () => {
    const sessionId = await sessionWithFiles(both);
    await submitBatch(app, { sessionId, calls: [{ id: 'self', tool: 'delete_file', args: { path: '/c.txt' } }] }, both);
    expect(await approve('self', sessionId, both)).toMatchObject({ __typename: 'ForbiddenError' });
    expect(await reject('self', sessionId, 'mine', both)).toMatchObject({ __typename: 'ForbiddenError' });
    expect((await callOf(app, 'self', sessionId)).status).toBe('AWAITING_APPROVAL');

    // Only an admin may change the setting.
    expect((await app.query(UpdateTenantSettingsDocument, { allowSelfApproval: true }, both)).updateTenantSettings.__typename).toBe('ForbiddenError');
    expect((await app.query(UpdateTenantSettingsDocument, { allowSelfApproval: true })).updateTenantSettings).toMatchObject({ allowSelfApproval: true });
    try {
      expect(await approve('self', sessionId, both)).toMatchObject({ __typename: 'ToolCall' });
      await waitForStatus(app, 'self', sessionId, 'SUCCEEDED');
    } finally {
      await app.query(UpdateTenantSettingsDocument, { allowSelfApproval: false });
    }
  });

  it('can be cancelled while awaiting approval, alone or with its batch', async () => {
    const sessionId = await sessionWithFiles(submitter);
    const batch = await submitBatch(
      app,
      {
        sessionId,
        calls: [
          { id: 'del', tool: 'delete_file', args: { path: '/a.txt' } },
          { id: 'after', tool: 'write_file', args: { path: '/after.txt', content: 'x' } },
        ],
      },
      submitter,
    );
    const cancelled = (await app.query(CancelToolCallDocument, { callId: 'del', sessionId }, submitter)).cancelToolCall;
    expect(cancelled).toMatchObject({ __typename: 'ToolCall', status: 'CANCELLED' });
    expect(await approve('del', sessionId, approver)).toMatchObject({ __typename: 'InvalidStateError', state: 'CANCELLED' });
    expect((await waitForBatch(app, sessionId, batch.batchId)).calls.nodes.map((call) => call.status)).toEqual(['CANCELLED', 'SUCCEEDED']);

    const whole = await submitBatch(app, { sessionId, calls: [{ id: 'del2', tool: 'delete_file', args: { path: '/b.txt' } }] }, submitter);
    const result = (await app.query(CancelToolBatchDocument, { sessionId, batchId: whole.batchId }, submitter)).cancelToolBatch;
    expect(result).toMatchObject({ __typename: 'ToolBatch', status: 'COMPLETED', calls: { nodes: [{ status: 'CANCELLED' }] } });
  });

  it('applies to registered tools too: an approved external call then waits for its completion', async () => {
    const registered = await app.query(RegisterExternalToolDocument, {
      input: { name: 'wire_money', description: 'Moves money (a person does it)', parametersSchema: { type: 'object' }, policy: 'REQUIRES_APPROVAL' },
    });
    expect(registered.registerExternalTool).toMatchObject({ policy: 'REQUIRES_APPROVAL', kind: 'EXTERNAL' });
    const sessionId = await createSession(app, submitter);
    await submitBatch(
      app,
      {
        sessionId,
        calls: [
          { id: 'm1', tool: 'wire_money', args: { amount: 5 } },
          { id: 'm2', tool: 'wire_money', args: { amount: 6 } },
        ],
      },
      submitter,
    );
    // Completing before approval is refused; so is approving twice.
    expect((await app.query(CompleteToolCallDocument, { callId: 'm1', sessionId, result: { value: 'done' } })).completeToolCall).toMatchObject({
      __typename: 'InvalidStateError',
      state: 'AWAITING_APPROVAL',
    });
    expect(await approve('m1', sessionId, approver)).toMatchObject({ __typename: 'ToolCall' });
    expect(await approve('m1', sessionId, approver)).toMatchObject({ __typename: 'InvalidStateError' });
    await waitForStatus(app, 'm1', sessionId, 'PENDING_EXTERNAL');
    const completed = (await app.query(CompleteToolCallDocument, { callId: 'm1', sessionId, result: { value: { ok: true } } })).completeToolCall;
    expect(completed).toMatchObject({ status: 'SUCCEEDED' });

    // Cancelling in either waiting state.
    expect(await approve('m2', sessionId, approver)).toMatchObject({ __typename: 'ToolCall' });
    await waitForStatus(app, 'm2', sessionId, 'PENDING_EXTERNAL');
    expect((await app.query(CancelToolCallDocument, { callId: 'm2', sessionId }, submitter)).cancelToolCall).toMatchObject({ status: 'CANCELLED' });
  });
});
