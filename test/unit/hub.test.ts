// The hub's ordering rules against a log whose reads and head arrive late: an event announced
// while the hub is still reading its head, a catch-up whose read predates the head, a subscriber
// resuming from a cursor — each event reaches the subscriber once, in order, none skipped.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { CommittedEvent } from '../../src/domain/event-log.js';
import type { EventReader } from '../../src/realtime/event-reader.js';
import { Hub } from '../../src/realtime/hub.js';

const sessionId = '00000000-0000-4000-8000-000000000001';

function event(seq: number): CommittedEvent {
  return {
    tenantId: '00000000-0000-4000-8000-000000000002',
    sessionId,
    seq,
    tenantSeq: seq,
    type: 'ToolCallProgress',
    batchId: null,
    callId: `c${seq}`,
    taskId: null,
    payload: { tool: 't', attempt: 1, progress: { current: seq } },
    createdAt: new Date(0).toISOString(),
  } as CommittedEvent;
}

/** A log in memory: `visible` events are what a read returns now. */
function logOf(visible: CommittedEvent[]): EventReader {
  return {
    read: async (_key: unknown, after: number, upTo: number, limit: number) =>
      visible.filter((item) => item.seq > after && item.seq <= upTo).slice(0, limit),
    heads: async () => new Map(),
  } as unknown as EventReader;
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

async function take(stream: AsyncIterableIterator<unknown>, count: number): Promise<number[]> {
  const seqs: number[] = [];
  for await (const item of stream) {
    seqs.push((item as CommittedEvent).seq);
    if (seqs.length === count) break;
  }
  return seqs;
}

describe('hub', () => {
  it('skips nothing when an event is announced before its head is read and the catch-up read predates it', async () => {
    const visible = Array.from({ length: 12 }, (_, index) => event(index + 1));
    const head = deferred<number>();
    const hub = new Hub({ kind: 'session', id: sessionId }, logOf(visible), { ringSize: 64, subscriberQueue: 100 }, pino({ level: 'silent' }), () => head.promise, () => undefined);
    hub.acquire();
    // 13 commits and is announced while the head read is in flight; a read made now does not see it yet.
    hub.onPublished([event(13)]);
    void hub.catchUp();
    visible.push(event(13));
    head.resolve(13);
    await hub.ready;
    visible.push(event(14));
    hub.onPublished([event(14)]);

    expect(await take(hub.stream({ after: 12 }), 2)).toEqual([13, 14]);
    expect(await take(hub.stream({ after: 10 }), 4)).toEqual([11, 12, 13, 14]);
  });

  it('serves a resuming subscriber from memory only from an unbroken stretch', async () => {
    const visible = Array.from({ length: 5 }, (_, index) => event(index + 1));
    const hub = new Hub({ kind: 'session', id: sessionId }, logOf(visible), { ringSize: 64, subscriberQueue: 100 }, pino({ level: 'silent' }), async () => 5, () => undefined);
    hub.acquire();
    await hub.ready;
    for (const seq of [6, 7]) {
      visible.push(event(seq));
      hub.onPublished([event(seq)]);
    }
    // 8 was pruned before this hub read it: the catch-up jumps from 7 to 9.
    visible.push(event(9));
    hub.onPublished([event(9)]);
    await hub.catchUp();
    expect(hub.position).toBe(9);
    expect(hub.recent(6)).toBeNull();
    expect(hub.recent(8)?.map((item) => item.seq)).toEqual([9]);
    expect(await take(hub.stream({ after: 5 }), 3)).toEqual([6, 7, 9]);
  });
});
