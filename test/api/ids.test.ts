// Ids a client reads are ids it can pass back: an event's sessionId is the Session's global id that
// toolCallEvents takes; a call id used in two sessions is answered with the same typed error by the
// toolCall query as by cancelToolCall; an empty id is an id that names nothing, never "no filter".
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelToolCallDocument, GetToolCallDocument, ToolCallEventsDocument } from '../gql/graphql.js';
import { batchCompleted, eventsOf } from '../support/events.js';
import { createSession, fromStart, submitBatch } from '../support/fixtures.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

let app: Toolrun;
beforeAll(async () => {
  app = await startToolrun();
});
afterAll(async () => app?.close());

describe('ids', () => {
  it('an event carries the session id that toolCallEvents takes back', async () => {
    const sessionId = await createSession(app);
    const batch = await submitBatch(app, { sessionId, waitMs: 5000, calls: [{ id: 'one', tool: 'echo', args: { message: 'x' } }] });
    const first = app.ws(ToolCallEventsDocument, { sessionId, after: fromStart(sessionId) });
    const events = eventsOf(await first.until(batchCompleted(batch.batchId)));
    await first.close();
    expect(new Set(events.map((event) => event.sessionId))).toEqual(new Set([sessionId]));
    // Passed back as it came: the same stream.
    const again = app.sse(ToolCallEventsDocument, { sessionId: events[0]!.sessionId, after: fromStart(sessionId) });
    const replayed = eventsOf(await again.until(batchCompleted(batch.batchId)));
    await again.close();
    expect(replayed.map((event) => event.cursor)).toEqual(events.map((event) => event.cursor));
  });

  it('toolCall with a call id used in two sessions answers the ValidationError on sessionId that cancelToolCall answers', async () => {
    const callId = `shared-${Date.now()}`;
    const sessions = [await createSession(app), await createSession(app)];
    for (const sessionId of sessions) await submitBatch(app, { sessionId, waitMs: 5000, calls: [{ id: callId, tool: 'echo', args: { message: 'x' } }] });

    const cancelled = (await app.query(CancelToolCallDocument, { callId })).cancelToolCall;
    expect(cancelled).toMatchObject({ __typename: 'ValidationError', code: 'VALIDATION_FAILED', field: 'sessionId' });

    const answer = await app.request(GetToolCallDocument, { callId });
    expect(answer.data?.toolCall ?? null).toBeNull();
    expect(answer.errors).toHaveLength(1);
    expect(answer.errors![0]).toMatchObject({
      message: (cancelled as { message: string }).message,
      path: ['toolCall'],
      extensions: { code: 'VALIDATION_FAILED', field: 'sessionId' },
    });

    // With the session it is one call; an id nobody used is null, without an error.
    expect((await app.query(GetToolCallDocument, { callId, sessionId: sessions[1]! })).toolCall).toMatchObject({ callId, status: 'SUCCEEDED' });
    const missing = await app.request(GetToolCallDocument, { callId: 'nobody-used-this' });
    expect(missing.errors).toBeUndefined();
    expect(missing.data?.toolCall).toBeNull();
  });
});

describe('an empty id', () => {
  /** The top-level error codes of a query's answer (none: its data). */
  async function answer(query: string, variables: Record<string, unknown>): Promise<unknown> {
    const result = await app.request<Record<string, unknown>, Record<string, unknown>>(query, variables);
    return result.errors ? result.errors.map((error) => error.extensions?.code) : result.data;
  }
  /** The first message of a subscription: its error code, or the type of its first event. */
  async function firstOf(query: string, variables: Record<string, unknown>): Promise<unknown> {
    const stream = app.sse(parse(query), variables);
    try {
      const item = await stream.next(5000).catch((error: unknown) => error);
      const errors = (item as { errors?: Array<{ extensions?: { code?: string } }> }).errors;
      return errors ? errors.map((error) => error.extensions?.code) : item;
    } finally {
      await stream.close();
    }
  }

  it('names nothing: a filter by it is NOT_FOUND or matches nothing, as a malformed id does', async () => {
    const sessionId = await createSession(app);
    const callId = `empty-${Date.now()}`;
    const batch = await submitBatch(app, { sessionId, waitMs: 5000, calls: [{ id: callId, tool: 'echo', args: { message: 'x' } }] });
    await app.request('mutation($s: ID!) { spawnBackground(sessionId: $s, tool: "sleep", args: {ms: 10}, schedule: {cronExpression: "0 0 1 1 *"}) { __typename } }', { s: sessionId });

    for (const id of ['', '   ']) {
      expect(await answer('query($id: ID) { tasks(sessionId: $id) { totalCount } }', { id }), `tasks(sessionId: ${JSON.stringify(id)})`).toEqual(['NOT_FOUND']);
      expect(await answer('query($id: ID) { tasks(scheduleId: $id) { totalCount } }', { id })).toEqual(['NOT_FOUND']);
      expect(await answer('query($id: ID) { schedules(sessionId: $id) { totalCount } }', { id })).toEqual(['NOT_FOUND']);
      expect(await answer('query($id: ID) { toolCalls(filter: {sessionId: $id}) { totalCount } }', { id })).toEqual(['NOT_FOUND']);
      expect(await answer('query($id: ID) { toolCallCounts(filter: {sessionId: $id}) { total } }', { id })).toEqual(['NOT_FOUND']);
      expect(await answer('query($id: String) { toolCalls(filter: {batchId: $id}) { totalCount } }', { id })).toEqual({ toolCalls: { totalCount: 0 } });
      expect(await answer('query($id: String) { toolCallCounts(filter: {batchId: $id}) { total } }', { id })).toEqual({ toolCallCounts: { total: 0 } });
      // A kind is one of the kinds, never no filter.
      expect(await answer('query($id: String) { tasks(kind: $id) { totalCount } }', { id })).toEqual(['VALIDATION_FAILED']);
      expect(await answer('query($c: String!, $id: ID) { toolCall(callId: $c, sessionId: $id) { callId } }', { c: callId, id })).toEqual({ toolCall: null });
      expect(await answer('mutation($c: String!, $id: ID) { cancelToolCall(callId: $c, sessionId: $id) { __typename } }', { c: callId, id })).toEqual({ cancelToolCall: { __typename: 'NotFoundError' } });

      expect(await firstOf('subscription($id: ID) { tenantEvents(sessionId: $id, after: null) { type } }', { id })).toEqual(['NOT_FOUND']);
      expect(await firstOf('subscription($s: ID!, $id: String) { toolCallEvents(sessionId: $s, batchId: $id) { type } }', { s: sessionId, id })).toEqual(['NOT_FOUND']);
      expect(await firstOf('subscription($s: ID, $id: ID) { taskEvents(sessionId: $s, taskId: $id) { type } }', { s: sessionId, id })).toEqual(['NOT_FOUND']);
    }
    // Given, the same filters find what they name.
    expect(await answer('query($id: String) { toolCalls(filter: {batchId: $id}) { totalCount } }', { id: batch.batchId })).toEqual({ toolCalls: { totalCount: 1 } });
    expect(await answer('query($id: ID) { tasks(sessionId: $id) { totalCount } }', { id: sessionId })).toEqual({ tasks: { totalCount: 1 } });
  });
});
