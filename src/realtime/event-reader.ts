// Reads of the event log: a session's events by seq, a tenant's by tenant seq, and the counters.
import type { SessionEvent as CommittedEvent } from '../model/events.js';
import { type Queryable, statement } from '../sql.js';

export type StreamKey = { kind: 'session'; id: string } | { kind: 'tenant'; id: string };

const COLUMNS = `tenant_id::text AS "tenantId", session_id::text AS "sessionId", seq::int, tenant_seq::int AS "tenantSeq", type,
  batch_id AS "batchId", call_id AS "callId", task_id::text AS "taskId", payload, created_at AS "createdAt"`;

const SESSION_EVENTS = statement(
  'events_of_session',
  `SELECT ${COLUMNS} FROM event WHERE session_id = $1::uuid AND seq > $2::bigint AND seq <= $3::bigint ORDER BY seq LIMIT $4`,
);
const TENANT_EVENTS = statement(
  'events_of_tenant',
  `SELECT ${COLUMNS} FROM event WHERE tenant_id = $1::uuid AND tenant_seq > $2::bigint AND tenant_seq <= $3::bigint ORDER BY tenant_seq LIMIT $4`,
);
const NEWEST_OF_SESSIONS = statement(
  'events_newest_of_sessions',
  `SELECT e.* FROM unnest($1::uuid[]) AS s(id)
     CROSS JOIN LATERAL (SELECT ${COLUMNS} FROM event WHERE session_id = s.id AND ($3::text[] IS NULL OR type = ANY($3::text[]))
                          ORDER BY seq DESC LIMIT $2) e
    ORDER BY e."sessionId", e.seq`,
);
const OF_CALLS = statement(
  'events_of_calls',
  `SELECT ${COLUMNS} FROM event
    WHERE (session_id, call_id) IN (SELECT * FROM unnest($1::uuid[], $2::text[])) AND type = ANY($3::text[])
    ORDER BY session_id, seq`,
);
const SESSION_HEADS = statement(
  'event_heads_of_sessions',
  `SELECT id::text AS id, event_seq::text AS head, (SELECT min(seq) FROM event e WHERE e.session_id = s.id)::text AS oldest
     FROM session s WHERE s.id = ANY($1::uuid[])`,
);
const TENANT_HEADS = statement(
  'event_heads_of_tenants',
  `SELECT id::text AS id, event_seq::text AS head, (SELECT min(tenant_seq) FROM event e WHERE e.tenant_id = t.id)::text AS oldest
     FROM tenant t WHERE t.id = ANY($1::uuid[])`,
);

interface Row extends Omit<CommittedEvent, 'createdAt'> {
  createdAt: Date;
}

const eventOf = (row: Row): CommittedEvent => ({ ...row, createdAt: row.createdAt.toISOString() }) as CommittedEvent;

/** The events of `rows` under each of `keys` (in the rows' order), one list per key, in the keys' order. */
function groupedBy(keys: readonly string[], rows: Row[], keyOf: (row: Row) => string): CommittedEvent[][] {
  const groups = new Map<string, CommittedEvent[]>(keys.map((key) => [key, []]));
  for (const row of rows) groups.get(keyOf(row))?.push(eventOf(row));
  return keys.map((key) => groups.get(key)!);
}

/** Where a stream stands: its last sequence number, and the oldest still retained (head + 1 when none is). */
export interface Head {
  head: number;
  oldest: number;
}

export const PAGE_SIZE = 1000;

/** A call as `ofCalls` takes it: its session and its call id (which holds no newline). */
export const callKey = (sessionId: string, callId: string): string => `${sessionId}\n${callId}`;

export class EventReader {
  constructor(private readonly sql: Queryable) {}

  /** Events of the stream with position in (after, upTo], oldest first, at most `limit`. */
  async read(key: StreamKey, after: number, upTo: number, limit = PAGE_SIZE): Promise<CommittedEvent[]> {
    const rows = await this.sql.query<Row>(key.kind === 'session' ? SESSION_EVENTS : TENANT_EVENTS, [key.id, after, upTo, limit]);
    return rows.map(eventOf);
  }

  /** The newest `count` events (of `types`, when given) of each session, oldest first. */
  async newest(sessionIds: readonly string[], count: number, types: readonly string[] | null): Promise<CommittedEvent[][]> {
    const rows = await this.sql.query<Row>(NEWEST_OF_SESSIONS, [sessionIds, count, types]);
    return groupedBy(sessionIds, rows, (row) => row.sessionId);
  }

  /** The retained events (of `types`) of each call (`callKey`), in order. */
  async ofCalls(keys: readonly string[], types: readonly string[]): Promise<CommittedEvent[][]> {
    const calls = keys.map((key) => key.split('\n') as [string, string]);
    const rows = await this.sql.query<Row>(OF_CALLS, [calls.map(([sessionId]) => sessionId), calls.map(([, callId]) => callId), types]);
    return groupedBy(keys, rows, (row) => callKey(row.sessionId, row.callId ?? ''));
  }

  /** The heads of several streams of one kind; a missing entry means the stream does not exist. */
  async heads(kind: StreamKey['kind'], ids: string[]): Promise<Map<string, Head>> {
    if (ids.length === 0) return new Map();
    const rows = await this.sql.query<{ id: string; head: string; oldest: string | null }>(kind === 'session' ? SESSION_HEADS : TENANT_HEADS, [ids]);
    return new Map(rows.map((row) => [row.id, { head: Number(row.head), oldest: row.oldest === null ? Number(row.head) + 1 : Number(row.oldest) }]));
  }
}

export function positionOf(key: StreamKey['kind'], event: CommittedEvent): number {
  return key === 'session' ? event.seq : event.tenantSeq;
}
