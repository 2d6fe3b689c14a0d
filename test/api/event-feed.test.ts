// The event log and the live feed together, on real PostgreSQL and Redis: every event reaches every
// subscriber in order, exactly once, whatever announcements are lost, however far behind a
// subscriber starts or falls.
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CommittedEvent, EventLog } from '../../src/domain/event-log.js';
import { EventBus } from '../../src/realtime/event-bus.js';
import { EventFeed } from '../../src/realtime/event-feed.js';
import { EventReader } from '../../src/realtime/event-reader.js';
import type { StreamItem } from '../../src/realtime/hub.js';
import { createRedis } from '../../src/redis.js';
import { createDb } from '../../src/db.js';
import { createPool, Sql } from '../../src/sql.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/database.js';

const logger = pino({ level: 'silent' });
const pool = createPool(TEST_DATABASE_URL, 8, { statementTimeoutMs: 5000, lockTimeoutMs: 5000, idleInTransactionTimeoutMs: 5000 });
const sql = new Sql(pool);
const redis = { publisher: createRedis(TEST_REDIS_URL, 'command'), subscriber: createRedis(TEST_REDIS_URL, 'subscriber') };
const bus = new EventBus(redis.publisher, redis.subscriber, `feed-test-${randomUUID()}`, logger);
const reader = new EventReader(sql);
const feed = new EventFeed(bus, reader, logger, { ringSize: 64, subscriberQueue: 50, freshnessIntervalMs: 300 });
let dropEvery = 0;
let published = 0;
const log = new EventLog(
  sql,
  createDb(pool),
  async (tenantId: string, events: CommittedEvent[]) => {
    // Lose some announcements on purpose: subscribers must not notice.
    if (dropEvery && ++published % dropEvery === 0) return;
    await feed.publish(tenantId, events);
  },
  logger,
  { grouping: 'shared', maxInFlight: 4 },
);

let tenantId: string;
const sessions: string[] = [];

beforeAll(async () => {
  tenantId = randomUUID();
  await sql.query('INSERT INTO tenant (id, name) VALUES ($1, $2)', [tenantId, `feed-${tenantId}`]);
  for (let i = 0; i < 3; i++) {
    const id = randomUUID();
    await sql.query('INSERT INTO session (id, tenant_id) VALUES ($1, $2)', [id, tenantId]);
    sessions.push(id);
  }
});

afterAll(async () => {
  feed.close();
  await pool.end();
  redis.publisher.disconnect();
  redis.subscriber.disconnect();
});

function writeMany(sessionId: string, count: number, label: string): Promise<unknown> {
  return Promise.all(
    Array.from({ length: count }, (_, index) =>
      log.write(sessionId, async (scope) => {
        scope.emit({ sessionId, type: 'ToolCallProgress', callId: `${label}-${index}`, payload: { tool: 'test', attempt: 1, progress: { current: index } } });
      }),
    ),
  );
}

async function collect(stream: AsyncIterableIterator<StreamItem>, count: number): Promise<CommittedEvent[]> {
  const events: CommittedEvent[] = [];
  for await (const item of stream) {
    if ('expired' in item) throw new Error('unexpected expired cursor');
    events.push(item);
    if (events.length === count) break;
  }
  return events;
}

describe('event log and feed', () => {
  it('gives each event a dense session seq and tenant seq, in commit order', async () => {
    await Promise.all(sessions.map((sessionId, index) => writeMany(sessionId, 40, `dense-${index}`)));
    const rows = await sql.query<{ session_id: string; seq: string; tenant_seq: string }>(
      'SELECT session_id::text, seq::text, tenant_seq::text FROM event e WHERE tenant_id = $1 ORDER BY e.tenant_seq',
      [tenantId],
    );
    expect(rows.map((row) => Number(row.tenant_seq))).toEqual(rows.map((_, index) => index + 1));
    for (const sessionId of sessions) {
      const seqs = rows.filter((row) => row.session_id === sessionId).map((row) => Number(row.seq));
      expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    }
  });

  it('delivers every event once and in order to live, replaying and slow subscribers, with announcements lost', async () => {
    const sessionId = sessions[0]!;
    const [head] = await reader.heads('session', [sessionId]).then((heads) => [heads.get(sessionId)!.head]);
    const [tenantHead] = await reader.heads('tenant', [tenantId]).then((heads) => [heads.get(tenantId)!.head]);
    dropEvery = 7;
    const fromStart = collect(feed.session(tenantId, sessionId, { after: 0 }), head! + 120);
    const live = collect(feed.session(tenantId, sessionId, { after: head }), 120);
    const tenantLive = collect(feed.tenant(tenantId, { after: tenantHead }), 120 + 60);
    // A slow consumer: its queue overflows (50), so it resumes by replay.
    const slowStream = feed.session(tenantId, sessionId, { after: head });
    const slow = (async () => {
      const got: CommittedEvent[] = [];
      for await (const item of slowStream) {
        got.push(item as CommittedEvent);
        if (got.length % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 30));
        if (got.length === 120) break;
      }
      return got;
    })();
    await Promise.all([writeMany(sessionId, 120, 'live'), writeMany(sessions[1]!, 60, 'other')]);
    dropEvery = 0;
    const [all, tail, tenantTail, slowTail] = await Promise.all([fromStart, live, tenantLive, slow]);
    expect(all.map((event) => event.seq)).toEqual(Array.from({ length: head! + 120 }, (_, index) => index + 1));
    expect(tail.map((event) => event.seq)).toEqual(Array.from({ length: 120 }, (_, index) => head! + index + 1));
    expect(slowTail.map((event) => event.seq)).toEqual(tail.map((event) => event.seq));
    expect(tenantTail.map((event) => event.tenantSeq)).toEqual(Array.from({ length: 180 }, (_, index) => tenantHead! + index + 1));
  });

  it('completes after the event `until` accepts, and reports a cursor older than the retention', async () => {
    const sessionId = sessions[2]!;
    const done = collect(feed.session(tenantId, sessionId, { until: (event) => event.callId === 'end-4' }), 1000);
    await writeMany(sessionId, 5, 'end');
    await writeMany(sessionId, 3, 'after');
    const events = await done;
    expect(events.at(-1)?.callId).toBe('end-4');
    await sql.query('DELETE FROM event WHERE session_id = $1 AND seq <= 10', [sessionId]);
    const stream = feed.session(tenantId, sessionId, { after: 3 });
    const first = await stream.next();
    expect(first.value).toEqual({ expired: true, oldest: 11 });
    expect((await stream.next()).done).toBe(true);
  });

  it('lets writers of several sessions at once, in several processes, never deadlock', async () => {
    // Two event logs on pools of their own stand for two worker processes; each write spans two or
    // three of the sessions in varying order, so their appends contend on the same rows.
    const otherPool = createPool(TEST_DATABASE_URL, 8, { statementTimeoutMs: 5000, lockTimeoutMs: 5000, idleInTransactionTimeoutMs: 5000 });
    const other = new EventLog(new Sql(otherPool), createDb(otherPool), async () => undefined, logger, { grouping: 'shared', maxInFlight: 4 });
    const deadlocks = async () =>
      Number((await sql.query<{ n: string }>('SELECT deadlocks::text AS n FROM pg_stat_database WHERE datname = current_database()'))[0]!.n);
    const before = await deadlocks();
    try {
      const writes = Array.from({ length: 300 }, (_, index) => {
        const chosen = [sessions[index % 3]!, sessions[(index + 1 + (index % 2)) % 3]!, ...(index % 5 === 0 ? [sessions[(index + 2) % 3]!] : [])];
        const writer = index % 2 === 0 ? log : other;
        return writer.write(chosen[0]!, async (scope) => {
          for (const sessionId of chosen) scope.emit({ sessionId, type: 'ToolCallProgress', callId: `multi-${index}`, payload: { tool: 'test', attempt: 1, progress: { current: index } } });
        });
      });
      await Promise.all(writes);
    } finally {
      await otherPool.end();
    }
    expect(await deadlocks()).toBe(before);
  });
});
