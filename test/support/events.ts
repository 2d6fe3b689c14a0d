// Helpers for tests that check a session's event stream as clients receive it.
import { expect } from 'vitest';
import type { SessionEvent } from '../../src/model/events.js';
import { EventReader } from '../../src/realtime/event-reader.js';
import type { Services } from '../../src/services.js';
import type { ToolCallEventsSubscription } from '../gql/graphql.js';
import type { GraphQLResponse } from './toolrun.js';

export type StreamEvent = ToolCallEventsSubscription['toolCallEvents'];

export const eventsOf = (items: Array<GraphQLResponse<ToolCallEventsSubscription>>) =>
  items.map((item) => {
    if (!item.data) throw new Error(`subscription error: ${JSON.stringify(item.errors)}`);
    return item.data.toolCallEvents;
  });

/** A predicate for `Subscription.until`: true once `count` ToolBatchCompleted events arrived. */
export function batchesCompleted(count: number) {
  return (_item: unknown, all: Array<GraphQLResponse<ToolCallEventsSubscription>>) =>
    all.filter((item) => item.data?.toolCallEvents.__typename === 'ToolBatchCompleted').length >= count;
}

/** A predicate for `Subscription.until`: true at the ToolBatchCompleted of `batchId`. */
export const batchCompleted = (batchId: string) => (item: GraphQLResponse<ToolCallEventsSubscription>) =>
  item.data?.toolCallEvents.__typename === 'ToolBatchCompleted' && item.data.toolCallEvents.batchId === batchId;

/** The seq of a session's first call or task event: a session created through the API starts with SessionCreated (seq 1). */
export const FIRST_ACTIVITY_SEQ = 2;

/**
 * The events are exactly seq first..first+n-1 (dense: no gap, no duplicate, in order), and a
 * call's ToolCallStarted (a call that never ran has none) comes before its ToolCallCompleted, which
 * comes once.
 */
export function expectCompleteSequence(events: StreamEvent[], first = FIRST_ACTIVITY_SEQ): void {
  const seqs = events.map((event) => event.seq);
  const expected = Array.from({ length: events.length }, (_, index) => first + index);
  if (seqs.some((seq, index) => seq !== expected[index])) {
    const at = seqs.findIndex((seq, index) => seq !== expected[index]);
    expect.fail(`event ${at} has seq ${seqs[at]}, expected ${expected[at]} (around: ${seqs.slice(Math.max(0, at - 3), at + 3).join(', ')})`);
  }
  const started = new Set<string>();
  const completed = new Set<string>();
  for (const event of events) {
    if (event.__typename === 'ToolCallStarted') {
      expect(completed.has(event.callId), `Started of ${event.callId} after its Completed`).toBe(false);
      started.add(event.callId);
    }
    if (event.__typename === 'ToolCallCompleted') {
      expect(completed.has(event.callId), `one Completed of ${event.callId}`).toBe(false);
      completed.add(event.callId);
    }
  }
}

/** A session's events as stored, from seq `after` + 1 on. */
export function readEvents(services: Pick<Services, 'sql'>, sessionRowId: string, after = 0, limit = 100_000): Promise<SessionEvent[]> {
  return new EventReader(services.sql).read({ kind: 'session', id: sessionRowId }, after, Number.MAX_SAFE_INTEGER, limit);
}
