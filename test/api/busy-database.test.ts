// A request whose statement runs into the connection's lock timeout (a row held by a stuck process,
// or a database too busy to answer in time) answers a typed, retryable SERVICE_UNAVAILABLE, not an
// unexpected INTERNAL error; sent again once the lock is gone, it goes through (the soak of issue 15
// found INTERNAL answers here under load).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecuteToolBatchDocument } from '../gql/graphql.js';
import { TEST_DATABASE_URL } from '../support/database.js';
import { newSession } from '../support/fixtures.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

let app: Toolrun;

beforeAll(async () => {
  app = await startToolrun({ DB_LOCK_TIMEOUT_MS: 300 }, { worker: false });
});

afterAll(async () => {
  await app?.close();
});

describe('a statement that hits the lock timeout', () => {
  it('answers SERVICE_UNAVAILABLE (retryable), and the same request succeeds once the row is free', async () => {
    const session = await newSession(app);
    const holder = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await holder.connect();
    // A call of an unknown tool ends at once, so submitting it appends an event under the session's row lock.
    const variables = { sessionId: session.id, idempotencyKey: 'busy-1', calls: [{ id: 'u', tool: 'no_such_tool', args: {} }] };
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM session WHERE id = $1 FOR UPDATE', [session.rowId]);
      const refused = await app.request(ExecuteToolBatchDocument, variables);
      expect(refused.errors?.map((error) => error.extensions?.code)).toEqual(['SERVICE_UNAVAILABLE']);
      expect(refused.errors?.[0]?.extensions).toMatchObject({ retryable: true });
      await holder.query('COMMIT');
    } finally {
      await holder.end();
    }
    const accepted = await app.query(ExecuteToolBatchDocument, variables);
    expect(accepted.executeToolBatch).toMatchObject({ __typename: 'ToolBatch', calls: { nodes: [{ callId: 'u', status: 'FAILED' }] } });
  });
});
