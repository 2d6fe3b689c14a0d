// The dashboard surface: tenant-wide filtered connections with stable keyset cursors and lazy
// totalCount, counts and tool statistics, a bounded number of SQL statements per page, cursors from
// mutations with streams that complete, and the tenant-wide event stream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BatchCallsPageDocument,
  CreateSessionDocument,
  DashboardDocument,
  FilterSessionsDocument,
  ListSchedulesDocument,
  ListTasksDocument,
  ListToolCallsDocument,
  SpawnBackgroundDocument,
  SubmitForCursorDocument,
  TenantCursorDocument,
  TenantEventsDocument,
  ToolCallCountsDocument,
  ToolStatsDocument,
  WatchBatchDocument,
} from '../gql/graphql.js';
import { createSession, submitBatch, waitForBatch } from '../support/fixtures.js';
import { genericPlanOf, sentSince } from '../support/plans.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

let app: Toolrun;
let key: string;
beforeAll(async () => {
  app = await startToolrun();
});
afterAll(async () => app?.close());

/** Each test works in a tenant of its own, so counts are exact. */
async function freshTenant(): Promise<string> {
  key = await app.newKey();
  return key;
}

async function session(title: string, metadata?: unknown): Promise<string> {
  const result = await app.query(CreateSessionDocument, { title, metadata }, key);
  if (result.createSession.__typename !== 'Session') throw new Error('no session');
  return result.createSession.id;
}

describe('toolCalls', () => {
  it('lists calls across sessions by status, tool and failure class, with totalCount and stable pages', async () => {
    await freshTenant();
    const a = await session('a');
    const b = await session('b');
    await submitBatch(app, { sessionId: a, waitMs: 10_000, calls: [{ id: 'a1', tool: 'echo', args: { message: 'x' } }, { id: 'a2', tool: 'failing_tool', args: { message: 'no' } }] }, key);
    await submitBatch(app, { sessionId: b, calls: [{ id: 'b1', tool: 'delete_file', args: { path: '/x' } }] }, key);
    await submitBatch(app, { sessionId: b, calls: [{ id: 'b2', tool: 'delete_file', args: { path: '/y' } }] }, key);

    const inbox = await app.query(ListToolCallsDocument, { filter: { status: ['AWAITING_APPROVAL'] } }, key);
    expect(inbox.toolCalls.totalCount).toBe(2);
    expect(inbox.toolCalls.edges.map((edge) => edge.node.callId)).toEqual(['b2', 'b1']);
    // An inbox lists what has waited longest first; a cursor holds to the order it came from.
    const oldest = await app.query(ListToolCallsDocument, { filter: { status: ['AWAITING_APPROVAL'] }, oldestFirst: true, first: 1 }, key);
    expect(oldest.toolCalls.edges.map((edge) => edge.node.callId)).toEqual(['b1']);
    const next = await app.query(ListToolCallsDocument, { filter: { status: ['AWAITING_APPROVAL'] }, oldestFirst: true, first: 1, after: oldest.toolCalls.pageInfo.endCursor }, key);
    expect(next.toolCalls).toMatchObject({ totalCount: 2, pageInfo: { hasNextPage: false } });
    expect(next.toolCalls.edges.map((edge) => edge.node.callId)).toEqual(['b2']);
    // The approvals inbox (a filter of statuses not final) and its count read the index of unfinished
    // calls, not every call the tenant ever made.
    const from = app.queries.length;
    await app.query(ListToolCallsDocument, { filter: { status: ['AWAITING_APPROVAL'] }, oldestFirst: true }, key);
    const reads = sentSince(app, from, /FROM "public"\."tool_call" WHERE .*"status" IN/);
    expect(reads).toHaveLength(2);
    for (const text of reads) expect(await genericPlanOf(app, text, 'tool_call_unfinished_idx'), text).toContain('"Index Name":"tool_call_unfinished_idx"');
    const mixed = await app.request('query($a: String) { toolCalls(first: 1, after: $a) { totalCount } }', { a: oldest.toolCalls.pageInfo.endCursor }, key);
    expect(mixed.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_FAILED' });

    const failed = await app.query(ListToolCallsDocument, { filter: { failureClass: ['EXECUTION'] } }, key);
    expect(failed.toolCalls.edges.map((edge) => edge.node.callId)).toEqual(['a2']);
    expect((await app.query(ListToolCallsDocument, { filter: { tool: ['echo'], sessionId: a } }, key)).toolCalls.totalCount).toBe(1);
    expect((await app.query(ListToolCallsDocument, { filter: { tool: ['echo'], sessionId: b } }, key)).toolCalls.totalCount).toBe(0);

    // Page 1, then new calls arrive, then page 2: nothing repeats, nothing is skipped.
    const first = await app.query(ListToolCallsDocument, { first: 2 }, key);
    expect(first.toolCalls.pageInfo.hasNextPage).toBe(true);
    await submitBatch(app, { sessionId: a, calls: [{ id: 'late', tool: 'echo', args: { message: 'late' } }] }, key);
    const second = await app.query(ListToolCallsDocument, { first: 10, after: first.toolCalls.pageInfo.endCursor }, key);
    const seen = [...first.toolCalls.edges, ...second.toolCalls.edges].map((edge) => edge.node.callId);
    expect(seen).toHaveLength(4);
    expect(new Set(seen)).toEqual(new Set(['b2', 'b1', 'a2', 'a1']));
    expect(second.toolCalls.pageInfo.hasNextPage).toBe(false);

    const counts = await app.query(ToolCallCountsDocument, {}, key);
    expect(counts.toolCallCounts).toMatchObject({ total: 5, awaitingApproval: 2, failed: 1 });
    expect(counts.toolCallCounts.succeeded + counts.toolCallCounts.queued + counts.toolCallCounts.running).toBe(2);

    const stats = await app.query(ToolStatsDocument, {}, key);
    expect(stats.toolStats.find((row) => row.tool === 'failing_tool')).toMatchObject({ callCount: 1, failedCount: 1 });
    expect(stats.toolStats.find((row) => row.tool === 'delete_file')).toMatchObject({ callCount: 2, durationP50Ms: null });
    // A window ending in year 1 (its default start, 24 hours before, is no storable time) holds nothing.
    expect(await app.query(ToolStatsDocument, { until: '0001-01-01T12:00:00Z' }, key)).toEqual({ toolStats: [] });
    // At the earliest time itself it leaves no window: the error names `until`, the bound the client gave.
    const empty = await app.request('{ toolStats(until: "0001-01-01T00:00:00Z") { tool } }', {}, key);
    expect(empty.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_FAILED', field: 'until' });
  });

  it('refuses a time window whose start is not before its end, in every field that takes one, naming its start', async () => {
    await freshTenant();
    const [earlier, later] = ['2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z'];
    const windows: Array<[query: string, field: string]> = [
      [`{ toolCalls(filter: { queuedAfter: "${later}", queuedBefore: "${earlier}" }) { totalCount } }`, 'queuedAfter'],
      [`{ toolCallCounts(filter: { queuedAfter: "${later}", queuedBefore: "${later}" }) { total } }`, 'queuedAfter'],
      [`{ sessions(filter: { createdAfter: "${later}", createdBefore: "${earlier}" }) { totalCount } }`, 'createdAfter'],
      [`{ toolStats(since: "${later}", until: "${earlier}") { tool } }`, 'since'],
      [`{ toolStats(since: "${later}", until: "${later}") { tool } }`, 'since'],
    ];
    for (const [query, field] of windows) {
      const response = await app.request(query, {}, key);
      expect(response.errors?.[0], query).toMatchObject({ message: expect.stringMatching(/must be before/), extensions: { code: 'VALIDATION_FAILED', field } });
    }
    // A window the right way round is answered, however short.
    const oneMs = await app.request(`{ toolCalls(filter: { queuedAfter: "${earlier}", queuedBefore: "2026-01-01T00:00:00.001Z" }) { totalCount } sessions(filter: { createdAfter: "${earlier}", createdBefore: "${later}" }) { totalCount } }`, {}, key);
    expect(oneMs).toMatchObject({ data: { toolCalls: { totalCount: 0 }, sessions: { totalCount: 0 } } });
    expect(oneMs.errors).toBeUndefined();
  });

  it('takes every time window as [start, end): windows that meet lose no row between them, and the shortest one accepted can match', async () => {
    await freshTenant();
    const id = await session('at the edge');
    const created = await app.request<{ node: { createdAt: string } }, unknown>('query($id: ID!) { node(id: $id) { ... on Session { createdAt } } }', { id }, key);
    const at = new Date(created.data!.node.createdAt);
    const iso = (ms: number) => new Date(at.getTime() + ms).toISOString();
    const count = async (after: string, before: string) => {
      const response = await app.request<{ sessions: { totalCount: number }; toolCalls: { totalCount: number } }, unknown>(
        'query($a: DateTime, $b: DateTime) { sessions(filter: { createdAfter: $a, createdBefore: $b }) { totalCount } }',
        { a: after, b: before },
        key,
      );
      expect(response.errors, `${after} ${before}`).toBeUndefined();
      return response.data!.sessions.totalCount;
    };
    // Two windows that meet at the session's creation time: it is in the second, once.
    expect((await count(iso(-60_000), iso(0))) + (await count(iso(0), iso(60_000)))).toBe(1);
    expect(await count(iso(0), iso(60_000))).toBe(1);
    // The shortest window a client can give (1 ms; times are kept to the millisecond) holds what was created in it.
    expect(await count(iso(0), iso(1))).toBe(1);
  });

  it('refuses bad cursors, backward paging and oversized pages with typed errors', async () => {
    await freshTenant();
    for (const variables of [{ after: 'bm90LWEtY3Vyc29y' }, { first: 101 }]) {
      const response = await app.request(ListToolCallsDocument, variables, key);
      expect(response.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    }
    const backward = await app.request('{ toolCalls(last: 2) { totalCount } }', {}, key);
    expect(backward.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
  });

  it('refuses a cursor edited to name what no row has (an id that is no UUID, a year before 1, a position past 32 bits), and times before year 1 in filters', async () => {
    await freshTenant();
    const sessionId = await createSession(app, key);
    const batch = await submitBatch(app, { sessionId, waitMs: 10_000, calls: [{ id: 'e1', tool: 'echo', args: { message: '1' } }, { id: 'e2', tool: 'echo', args: { message: '2' } }] }, key);
    const page = await app.query(ListToolCallsDocument, { first: 1 }, key);
    const [marker, list, time, id] = JSON.parse(Buffer.from(page.toolCalls.pageInfo.endCursor!, 'base64url').toString()) as [string, string, string, string];
    const edited = (value: unknown[]) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const after of [edited([marker, list, time, 'zzz']), edited([marker, list, '0000-01-01T00:00:00.000Z', id]), edited([marker, list, time, `${id} OR 1=1`])]) {
      const response = await app.request(ListToolCallsDocument, { after }, key);
      expect(response.errors?.[0]?.extensions?.code, JSON.stringify(response)).toBe('VALIDATION_FAILED');
    }
    const calls = await app.query(BatchCallsPageDocument, { sessionId, batchId: batch.batchId, first: 1 }, key);
    const [callMarker, callList, , callId] = JSON.parse(Buffer.from(calls.toolBatch!.calls.pageInfo.endCursor!, 'base64url').toString()) as [string, string, number, string];
    for (const position of [2 ** 31, 1.5, -(2 ** 40)]) {
      const response = await app.request(BatchCallsPageDocument, { sessionId, batchId: batch.batchId, first: 1, after: edited([callMarker, callList, position, callId]) }, key);
      expect(response.errors?.[0]?.extensions?.code, JSON.stringify(response)).toBe('VALIDATION_FAILED');
    }
    for (const query of [
      '{ toolCalls(filter: { queuedAfter: "0000-01-01T00:00:00Z" }) { totalCount } }',
      'query($t: DateTime) { toolCalls(filter: { queuedBefore: $t }) { totalCount } }',
      '{ sessions(filter: { createdAfter: "0000-06-01T00:00:00Z" }) { totalCount } }',
    ]) {
      const response = await app.request(query, { t: '0000-01-01T00:00:00Z' }, key);
      expect(response.errors?.[0]?.message, JSON.stringify(response)).toMatch(/year 0001 or later/);
      expect(response.errors?.[0]?.extensions?.code).not.toBe('INTERNAL_SERVER_ERROR');
    }
    // An empty page has no cursors, as in every list (not "", which no argument takes).
    const files = await app.request('query($s: ID!) { sessionFiles(sessionId: $s, first: 0) { pageInfo { startCursor endCursor } } }', { s: sessionId }, key);
    expect(files.data).toEqual({ sessionFiles: { pageInfo: { startCursor: null, endCursor: null } } });
    // An empty cursor is no cursor, and not "the first page" either: refused as a malformed one, in every list.
    for (const query of [
      'query($s: ID!) { sessionFiles(sessionId: $s, after: "") { nodes { path } } }',
      'query($s: ID!) { session(id: $s) { batches(after: "") { totalCount } } }',
      'query($s: ID!, $b: String!) { toolBatch(sessionId: $s, batchId: $b) { calls(after: "") { totalCount } } }',
      '{ toolCalls(after: "") { totalCount } }',
      '{ sessions(after: "") { totalCount } }',
      '{ tasks(after: "") { totalCount } }',
      '{ schedules(after: "") { totalCount } }',
    ]) {
      const response = await app.request(query, { s: sessionId, b: batch.batchId }, key);
      expect(response.errors?.[0], query).toMatchObject({ message: expect.stringMatching(/^`?after`? is not a/), extensions: { code: 'VALIDATION_FAILED', field: 'after' } });
    }
    // The first day of year 1 is a time like any other.
    expect((await app.request('{ toolCalls(filter: { queuedAfter: "0001-01-01T00:00:00Z" }) { totalCount } }', {}, key)).errors).toBeUndefined();
  });
});

describe('sessions', () => {
  it("counts a session's calls by status from its batches' counters and its unfinished calls, not from its whole history", async () => {
    await freshTenant();
    const sessionId = await session('counted');
    await submitBatch(app, { sessionId, waitMs: 10_000, calls: [{ id: 'a', tool: 'add', args: { a: 1, b: 2 } }, { id: 'b', tool: 'add', args: { a: 3, b: 4 } }, { id: 'gone', tool: 'no_such_tool', args: {} }] }, key);
    await submitBatch(app, { sessionId, calls: [{ id: 'gate', tool: 'delete_file', args: { path: '/x' } }, { id: 'dropped', tool: 'delete_file', args: { path: '/y' } }] }, key);
    const cancelled = await app.request<{ cancelToolCall: { status: string } }, object>('mutation($s: ID!) { cancelToolCall(sessionId: $s, callId: "dropped") { ... on ToolCall { status } } }', { s: sessionId }, key);
    expect(cancelled.data?.cancelToolCall.status).toBe('CANCELLED');

    const from = app.queries.length;
    const counted = await app.request<{ session: { status: string; callCounts: Record<string, number> } }, object>(
      'query($s: ID!) { session(id: $s) { status callCounts { total queued awaitingApproval running pendingExternal succeeded failed cancelled unfinished } } }',
      { s: sessionId },
      key,
    );
    expect(counted.data?.session.status).toBe('ACTIVE');
    expect(counted.data?.session.callCounts).toEqual({ total: 5, queued: 0, awaitingApproval: 1, running: 0, pendingExternal: 0, succeeded: 2, failed: 1, cancelled: 1, unfinished: 1 });
    // The finished calls come from the batches' counters; the only read of calls (for the status too) is of the unfinished ones, through their index.
    expect(sentSince(app, from, /session_final_call_counts|FROM tool_batch WHERE session_id = ANY/)).toHaveLength(1);
    const reads = sentSince(app, from, /FROM "public"\."tool_call"/);
    expect(reads).toHaveLength(1);
    expect(await genericPlanOf(app, reads[0]!, 'tool_call_unfinished_idx'), reads[0]).toContain('"Index Name":"tool_call_unfinished_idx"');
  });

  it('filters by title, metadata, pending approvals, status and orders by last activity', async () => {
    await freshTenant();
    const red = await session('Red team run', { team: 'red', env: { region: 'eu' } });
    const blue = await session('blue team run', { team: 'blue' });
    const idle = await session('idle');
    await submitBatch(app, { sessionId: red, calls: [{ id: 'gate', tool: 'delete_file', args: { path: '/x' } }] }, key);

    const titles = async (variables: Parameters<typeof app.query<unknown, object>>[1]) =>
      (await app.query(FilterSessionsDocument, variables as never, key)).sessions.nodes.map((node) => node.title);
    expect(await titles({ filter: { titleContains: 'TEAM' } })).toEqual(['blue team run', 'Red team run']);
    expect(await titles({ filter: { metadataContains: { env: { region: 'eu' } } } })).toEqual(['Red team run']);
    expect(await titles({ filter: { hasPendingApprovals: true } })).toEqual(['Red team run']);
    expect(await titles({ filter: { hasPendingApprovals: false } })).toEqual(['idle', 'blue team run']);
    // A call awaiting approval is not final: the session is ACTIVE; the others have none.
    expect(await titles({ filter: { status: 'ACTIVE' } })).toEqual(['Red team run']);
    expect(await titles({ filter: { status: 'IDLE' } })).toEqual(['idle', 'blue team run']);
    expect(await titles({ orderBy: 'LAST_ACTIVITY' })).toEqual(['Red team run', 'idle', 'blue team run']);
    // The first hex digits of an id (the 8 the dashboard shows: sessions made in the same minute share
    // them, uuid v7), or all of it, with or without dashes, in either case.
    const redId = Buffer.from(red, 'base64').toString().split(':')[1]!;
    expect(await titles({ filter: { idPrefix: redId.slice(0, 8) } })).toContain('Red team run');
    for (const whole of [redId, redId.toUpperCase(), redId.replaceAll('-', '')]) expect(await titles({ filter: { idPrefix: whole } })).toEqual(['Red team run']);
    const refused = await app.request('query { sessions(filter: { idPrefix: "xyz" }) { totalCount } }', {}, key);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_FAILED', field: 'idPrefix' });
    const page = await app.query(FilterSessionsDocument, { first: 1, filter: { titleContains: 'run' } }, key);
    expect(page.sessions).toMatchObject({ totalCount: 2, pageInfo: { hasNextPage: true } });
    expect(page.sessions.nodes[0]).toMatchObject({ title: 'blue team run', status: 'IDLE' });
    void blue;
    void idle;

    // The dashboard reads its sessions list every 5 s: these filters look for the tenant's unfinished
    // calls through their index, not through every call of every session.
    const from = app.queries.length;
    for (const filter of [{ hasPendingApprovals: true }, { hasPendingApprovals: false }, { status: 'ACTIVE' }, { status: 'IDLE' }]) await titles({ filter });
    const filtered = sentSince(app, from, /FROM "public"\."session" WHERE .*EXISTS\(SELECT .* FROM "public"\."tool_call"/);
    expect(filtered.length).toBeGreaterThanOrEqual(4);
    for (const text of filtered) expect(await genericPlanOf(app, text, 'tool_call_unfinished_idx'), text).toContain('"Index Name":"tool_call_unfinished_idx"');
    // So does each session's status: it reads the sessions' unfinished calls, not every call they made.
    const listed = app.queries.length;
    const statuses = await app.request<{ sessions: { nodes: Array<{ title: string; status: string }> } }, object>('{ sessions(first: 10) { nodes { title status } } }', {}, key);
    expect(statuses.data?.sessions.nodes).toEqual([
      { title: 'idle', status: 'IDLE' },
      { title: 'blue team run', status: 'IDLE' },
      { title: 'Red team run', status: 'ACTIVE' },
    ]);
    const [active] = sentSince(app, listed, /FROM "public"\."tool_call" WHERE [\s\S]*GROUP BY "public"\."tool_call"\."session_id"/);
    expect(active).toBeDefined();
    expect(await genericPlanOf(app, active!, 'tool_call_unfinished_idx'), active).toContain('"Index Name":"tool_call_unfinished_idx"');

    // The substring is taken literally: % and _ are no wildcards, a backslash is a backslash.
    await session('50%_off \\ sale');
    expect(await titles({ filter: { titleContains: '%' } })).toEqual(['50%_off \\ sale']);
    expect(await titles({ filter: { titleContains: '_' } })).toEqual(['50%_off \\ sale']);
    expect(await titles({ filter: { titleContains: '\\' } })).toEqual(['50%_off \\ sale']);
    expect(await titles({ filter: { titleContains: 'blue_team' } })).toEqual([]);
  });

  it('pages stably while sessions are created between pages', async () => {
    await freshTenant();
    for (let i = 0; i < 5; i++) await session(`s${i}`);
    const first = await app.query(FilterSessionsDocument, { first: 2 }, key);
    await session('new one');
    const rest = await app.query(FilterSessionsDocument, { first: 10, after: first.sessions.pageInfo.endCursor }, key);
    expect([...first.sessions.nodes, ...rest.sessions.nodes].map((node) => node.title)).toEqual(['s4', 's3', 's2', 's1', 's0']);

    // A cursor names a position in one list and its order: another list's, or another order's, is refused.
    const byActivity = await app.query(FilterSessionsDocument, { first: 1, orderBy: 'LAST_ACTIVITY' }, key);
    for (const [after, orderBy] of [
      [byActivity.sessions.pageInfo.endCursor, 'CREATED_AT'],
      [first.sessions.pageInfo.endCursor, 'LAST_ACTIVITY'],
    ] as const) {
      const refused = await app.request(FilterSessionsDocument, { first: 1, after, orderBy }, key);
      expect(refused.errors?.[0]).toMatchObject({ message: '`after` is not a cursor of this list', extensions: { code: 'VALIDATION_FAILED' } });
    }
    const tasks = await app.request('query($after: String) { tasks(first: 1, after: $after) { totalCount } }', { after: first.sessions.pageInfo.endCursor }, key);
    expect(tasks.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    // A task kind the list does not have is named, not answered as an empty list.
    const kind = await app.request('{ tasks(kind: "monitors") { totalCount } }', {}, key);
    expect(kind.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_FAILED', field: 'kind' });
    expect((await app.request('{ a: tasks(kind: "monitor") { totalCount } b: tasks(kind: "background_tool") { totalCount } }', {}, key)).errors).toBeUndefined();
  });

  it('loads a dashboard page with a number of SQL statements that does not grow with its size', async () => {
    // An API-only instance: no worker loops, so every statement counted is the query's own.
    const idle = await startToolrun({}, { worker: false });
    try {
      const measure = async () => {
        await idle.services.dispatcher.settle();
        idle.resetQueries();
        const result = await idle.query(DashboardDocument, { first: 50, batches: 20, calls: 20 });
        return { statements: idle.queries.length, sessions: result.sessions.nodes.length };
      };
      const one = await createSession(idle);
      await submitBatch(idle, { sessionId: one, calls: [{ tool: 'echo', args: { message: '1' } }] });
      const small = await measure();
      for (let i = 0; i < 6; i++) {
        const id = await createSession(idle);
        for (let j = 0; j < 2; j++) await submitBatch(idle, { sessionId: id, calls: [{ tool: 'echo', args: { message: `${j}a` } }, { tool: 'echo', args: { message: `${j}b` } }] });
      }
      const large = await measure();
      expect(large.sessions).toBe(7);
      expect(large.statements).toBe(small.statements);
      expect(large.statements).toBeLessThanOrEqual(14);
    } finally {
      await idle.close();
    }
  });

  it('lets a dashboard page pass the cost limit and refuses an abusive one with a code', async () => {
    const abusive = await app.request(DashboardDocument, { first: 100, batches: 100, calls: 1000 }, key);
    expect(abusive.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COSTLY');
    expect(abusive.errors?.[0]?.message).not.toMatch(/syntax/i);
    const page = await app.request(DashboardDocument, { first: 50, batches: 20, calls: 20 }, key);
    expect(page.errors).toBeUndefined();
    // A session's recent events count by how many are asked for, as a page does.
    const recent = (count: number) => app.request('query($c: Int) { sessions(first: 100) { nodes { recentEvents(count: $c) { seq } } } }', { c: count }, key);
    expect((await recent(1000)).errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COSTLY');
    expect((await recent(200)).errors).toBeUndefined();
  });
});

describe('child connections', () => {
  it('pages the calls of a batch in input order', async () => {
    await freshTenant();
    const sessionId = await createSession(app, key);
    const calls = Array.from({ length: 5 }, (_, i) => ({ id: `c${i}`, tool: 'echo', args: { message: `${i}` } }));
    const batch = await submitBatch(app, { sessionId, waitMs: 10_000, calls }, key);
    const one = await app.query(BatchCallsPageDocument, { sessionId, batchId: batch.batchId, first: 3 }, key);
    expect(one.toolBatch!.calls).toMatchObject({ totalCount: 5, pageInfo: { hasNextPage: true } });
    const two = await app.query(BatchCallsPageDocument, { sessionId, batchId: batch.batchId, first: 3, after: one.toolBatch!.calls.pageInfo.endCursor }, key);
    expect([...one.toolBatch!.calls.nodes, ...two.toolBatch!.calls.nodes].map((call) => call.position)).toEqual([0, 1, 2, 3, 4]);
    expect(two.toolBatch!.calls.pageInfo.hasNextPage).toBe(false);
  });
});

describe('tasks and schedules across sessions', () => {
  it('lists the tenant’s tasks and schedules without a session', async () => {
    await freshTenant();
    const a = await createSession(app, key);
    const b = await createSession(app, key);
    await app.query(SpawnBackgroundDocument, { sessionId: a, tool: 'sleep', args: { ms: 1 } }, key);
    await app.query(SpawnBackgroundDocument, { sessionId: b, tool: 'sleep', args: { ms: 1 }, schedule: { cronExpression: '0 3 * * *' } }, key);
    const tasks = await app.query(ListTasksDocument, { first: 10 }, key);
    expect(tasks.tasks.totalCount).toBe(2);
    expect(tasks.tasks.nodes.map((task) => task.kind).sort()).toEqual(['background_tool', 'monitor']);
    const schedules = await app.query(ListSchedulesDocument, { first: 10 }, key);
    expect(schedules.schedules.totalCount).toBe(1);
    expect((await app.query(ListSchedulesDocument, { sessionId: a }, key)).schedules.totalCount).toBe(0);
  });
});

describe('cursors from mutations', () => {
  it('executeToolBatch returns the cursor its events follow; completeWhenDone ends the stream', async () => {
    await freshTenant();
    const sessionId = await createSession(app, key);
    await submitBatch(app, { sessionId, waitMs: 10_000, calls: [{ tool: 'echo', args: { message: 'before' } }] }, key);
    const submitted = (await app.query(SubmitForCursorDocument, { sessionId, calls: [{ id: 'w1', tool: 'sleep', args: { ms: 200 } }, { id: 'w2', tool: 'echo', args: { message: 'x' } }] }, key)).executeToolBatch;
    if (submitted.__typename !== 'ToolBatch') throw new Error(JSON.stringify(submitted));
    expect(submitted.eventCursor).toBeTruthy();
    const stream = app.ws(WatchBatchDocument, { sessionId, batchId: submitted.batchId, after: submitted.eventCursor, completeWhenDone: true }, key);
    const events = await stream.until((item) => item.data?.toolCallEvents.type === 'ToolBatchCompleted');
    await expect(stream.next(5_000)).rejects.toThrow('subscription ended');
    const types = events.map((item) => item.data!.toolCallEvents.type);
    expect(types.filter((type) => type === 'ToolCallCompleted')).toHaveLength(2);
    expect(types.at(-1)).toBe('ToolBatchCompleted');
    const seqs = events.map((item) => item.data!.toolCallEvents.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(events[0]!.data!.toolCallEvents.sessionId).toBe(sessionId);
  });
});

describe('tenantEvents', () => {
  it('replays the tenant’s events after a cursor, in order, each once, filtered by type', async () => {
    await freshTenant();
    // Before the first event, the cursor is the tenant's start: following it misses nothing.
    const start = (await app.query(TenantCursorDocument, {}, key)).tenantSettings.lastEventCursor;
    const a = await createSession(app, key);
    const b = await createSession(app, key);
    await submitBatch(app, { sessionId: a, waitMs: 10_000, calls: [{ id: 'x', tool: 'echo', args: { message: 'x' } }] }, key);
    const mid = (await app.query(TenantCursorDocument, {}, key)).tenantSettings.lastEventCursor!;
    const all = app.ws(TenantEventsDocument, { after: start }, key);
    const approvals = app.ws(TenantEventsDocument, { after: mid, types: ['ToolCallAwaitingApproval'] }, key);
    await submitBatch(app, { sessionId: b, waitMs: 10_000, calls: [{ id: 'y', tool: 'echo', args: { message: 'y' } }] }, key);
    await submitBatch(app, { sessionId: b, calls: [{ id: 'gate', tool: 'delete_file', args: { path: '/x' } }] }, key);

    const inbox = await approvals.next();
    expect(inbox.data!.tenantEvents).toMatchObject({ type: 'ToolCallAwaitingApproval', callId: 'gate', sessionId: b });
    const events = await all.until((item) => item.data?.tenantEvents.type === 'ToolCallAwaitingApproval');
    const seqs = events.map((item) => item.data!.tenantEvents.tenantSeq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(new Set(events.map((item) => item.data!.tenantEvents.sessionId))).toEqual(new Set([a, b]));

    // Resuming from an event's cursor delivers exactly what follows it.
    const third = events[2]!.data!.tenantEvents;
    const resumed = app.ws(TenantEventsDocument, { after: third.cursor }, key);
    const again = await resumed.until((item) => item.data?.tenantEvents.type === 'ToolCallAwaitingApproval');
    expect(again.map((item) => item.data!.tenantEvents.tenantSeq)).toEqual(seqs.slice(3));
    for (const stream of [all, approvals, resumed]) await stream.close();
  });

  it('refuses another tenant’s cursor with a typed error', async () => {
    await freshTenant();
    const other = await app.newKey();
    const sessionId = await createSession(app, other);
    await submitBatch(app, { sessionId, waitMs: 10_000, calls: [{ tool: 'echo', args: { message: 'x' } }] }, other);
    const foreign = (await app.query(TenantCursorDocument, {}, other)).tenantSettings.lastEventCursor!;
    const stream = app.sse(TenantEventsDocument, { after: foreign }, key);
    const response = await stream.next();
    expect(response.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    await stream.close();
  });

  it('refuses an empty types filter rather than reading it as no filter', async () => {
    const stream = app.ws(TenantEventsDocument, { types: [] }, key);
    expect((await stream.next()).errors?.[0]).toMatchObject({ extensions: { code: 'VALIDATION_FAILED', field: 'types' } });
    await stream.close();
  });
});

void waitForBatch;
