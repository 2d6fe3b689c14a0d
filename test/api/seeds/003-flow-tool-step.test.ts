// Seed 003 (a flow engine's tool step). Its tests check placeholder strings of a flow engine that
// toolrun does not have; the one behaviour toolrun shares is the cancel guard: a step cancelled
// before it starts never dispatches its tool.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localId } from '../../../src/resolvers/global-ids.js';
import { CancelToolBatchDocument, SeedExecuteToolBatchDocument, SeedToolBatchDocument } from '../../gql/graphql.js';
import { createSession } from '../../support/fixtures.js';
import { startToolrun, type Toolrun } from '../../support/toolrun.js';

let app: Toolrun;
beforeAll(async () => {
  // No worker: submitted calls stay queued until cancelled.
  app = await startToolrun({}, { worker: false });
});
afterAll(async () => app?.close());

describe('seed 003: lambda_tools.rs', () => {
  it('lambda_and_use_tool_short_circuit_on_cancel', async () => {
    const sessionId = await createSession(app);
    const { executeToolBatch: batch } = await app.query(SeedExecuteToolBatchDocument, {
      sessionId,
      calls: [
        { id: 'x', tool: 'write_file', args: { path: '/y.txt', content: 'never written' } },
        { id: 'z', tool: 'echo', args: { message: 'never echoed' } },
      ],
    });
    if (batch.__typename !== 'ToolBatch') throw new Error(JSON.stringify(batch));
    const cancelled = await app.query(CancelToolBatchDocument, { sessionId, batchId: batch.batchId });
    expect(cancelled.cancelToolBatch).toMatchObject({ __typename: 'ToolBatch', status: 'COMPLETED' });
    const { toolBatch } = await app.query(SeedToolBatchDocument, { sessionId, batchId: batch.batchId });
    for (const call of toolBatch!.calls.nodes) {
      expect(call.status).toBe('CANCELLED');
      expect(call.outcome).toEqual({ status: 'cancelled', payload: { message: 'tool call cancelled', source: 'cancellation' } });
    }
    expect(await app.services.db.sessionFile.count({ where: { sessionId: localId(sessionId, 'Session'), path: '/y.txt' } })).toBe(0);
  });
});
