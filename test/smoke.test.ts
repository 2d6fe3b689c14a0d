import { afterAll, beforeAll, expect, test } from 'vitest';
import { CreateSessionDocument, ExecuteToolBatchDocument } from './gql/graphql.js';
import { startToolrun, type Toolrun } from './support/toolrun.js';

let app: Toolrun;
beforeAll(async () => {
  app = await startToolrun();
});
afterAll(async () => app?.close());

test('smoke', async () => {
  const created = await app.query(CreateSessionDocument, { title: 'smoke' });
  if (created.createSession.__typename !== 'Session') throw new Error('no session');
  const result = await app.query(ExecuteToolBatchDocument, {
    sessionId: created.createSession.id,
    calls: [{ id: 'a', tool: 'add', args: { a: 1, b: 2 } }, { id: 'b', tool: 'nope', args: {} }, { id: 'c', tool: 'sleep', args: { ms: 200 } }],
    waitMs: 5000,
  });
  console.log(JSON.stringify(result, null, 1).slice(0, 3000));
  expect(result.executeToolBatch.__typename).toBe('ToolBatch');
});
