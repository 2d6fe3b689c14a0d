// systemStatus, the Health page's query: queue depths and workers alive of the deployment (totals),
// event delivery lag to the answering API, and the viewer's tenant's unfinished calls — never
// another tenant's. Any key may read it (reader role).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SystemStatusDocument, TenantCursorDocument, TenantEventsDocument } from '../gql/graphql.js';
import { createSession, submitBatch, waitForBatch, waitForStatus } from '../support/fixtures.js';
import { genericPlanOf, sentSince } from '../support/plans.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';
import { eventually } from '../support/wait.js';

describe('systemStatus', () => {
  let app: Toolrun;
  /** A deployment of its own (its own Redis prefix) with no worker: its jobs stay in the queue. */
  let idle: Toolrun;
  beforeAll(async () => {
    [app, idle] = await Promise.all([startToolrun(), startToolrun({}, { worker: false })]);
  });
  afterAll(async () => {
    await Promise.all([app?.close(), idle?.close()]);
  });

  it('counts the workers alive of the deployment and the jobs waiting in each queue', async () => {
    const withWorker = (await app.query(SystemStatusDocument, {})).systemStatus;
    expect(withWorker.workersAlive).toBe(1);
    expect(withWorker.queues?.map((queue) => queue.queue)).toEqual(['calls', 'tasks']);

    const session = await createSession(idle);
    await submitBatch(idle, { sessionId: session, calls: [{ id: 's1', tool: 'sleep', args: { ms: 10 } }] });
    const status = await eventually(async () => {
      const { systemStatus } = await idle.query(SystemStatusDocument, {});
      return systemStatus.queues?.find((queue) => queue.queue === 'calls')?.waiting === 1 ? systemStatus : null;
    }, 10_000);
    expect(status.workersAlive).toBe(0);
    expect(status.queues?.find((queue) => queue.queue === 'calls')).toMatchObject({ active: 0, delayed: 0, failed: 0 });
    expect(status.tenantCalls).toMatchObject({ queued: 1, unfinished: 1, succeeded: 0 });
  });

  it("shows the viewer's tenant's unfinished calls only, to any key", async () => {
    const session = await createSession(app);
    await submitBatch(app, {
      sessionId: session,
      calls: [
        { id: 'gate-1', tool: 'delete_file', args: { path: '/a' } },
        { id: 'gate-2', tool: 'delete_file', args: { path: '/b' } },
      ],
    });
    await waitForStatus(app, 'gate-2', session, 'AWAITING_APPROVAL');
    const reader = await app.newKey(undefined, ['reader']);
    const sameTenantReader = await app.newKey((await app.services.apiKeys.tenant(app.tenantId)).name, ['reader']);

    const mine = (await app.query(SystemStatusDocument, {}, sameTenantReader)).systemStatus;
    expect(mine.tenantCalls.awaitingApproval).toBe(2);
    const theirs = (await app.query(SystemStatusDocument, {}, reader)).systemStatus;
    expect(theirs.tenantCalls).toMatchObject({ queued: 0, awaitingApproval: 0, running: 0, pendingExternal: 0, unfinished: 0 });
    // Deployment-wide figures are the same totals for every tenant.
    expect(theirs.workersAlive).toBe(mine.workersAlive);

    const anonymous = await app.request(SystemStatusDocument, {}, '');
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it("counts the tenant's unfinished calls through the index of unfinished calls, not through every call it ever made", async () => {
    // The Health page reads this every 3 s while it is open: its cost follows the calls not final yet.
    const from = app.queries.length;
    await app.query(SystemStatusDocument, {});
    const [counts] = sentSince(app, from, /FROM "public"\."tool_call" WHERE .*GROUP BY "public"\."tool_call"\."status"/);
    expect(counts).toBeDefined();
    expect(await genericPlanOf(app, counts!, 'tool_call_unfinished_idx')).toContain('"Index Name":"tool_call_unfinished_idx"');
  });

  it('reports the delivery lag of the events this API streamed in the last minute', async () => {
    const { tenantSettings } = await app.query(TenantCursorDocument, {});
    const events = app.ws(TenantEventsDocument, { after: tenantSettings.lastEventCursor, types: ['ToolBatchCompleted'] });
    const session = await createSession(app);
    const batch = await submitBatch(app, { sessionId: session, calls: [{ id: 'e', tool: 'echo', args: { message: 'lag' } }] });
    await waitForBatch(app, session, batch.batchId);
    await events.next();
    const { eventLag } = (await app.query(SystemStatusDocument, {})).systemStatus;
    expect(eventLag.windowMs).toBe(60_000);
    expect(eventLag.messages).toBeGreaterThanOrEqual(1);
    expect(eventLag.medianMs).toBeGreaterThanOrEqual(0);
    expect(eventLag.maxMs).toBeGreaterThanOrEqual(eventLag.medianMs!);
    expect(eventLag.maxMs).toBeLessThan(10_000);
    expect(Date.now() - Date.parse(eventLag.lastAt!)).toBeLessThan(60_000);
    await events.close();
  });
});
