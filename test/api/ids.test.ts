// Ids a client reads are ids it can pass back: an event's sessionId is the Session's global id that
// toolCallEvents takes; a call id used in two sessions is answered with the same typed error by the
// toolCall query as by cancelToolCall.
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
