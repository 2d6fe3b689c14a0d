// Seed 000 (an agent runtime's tool context). The seed's own tests concern its durable-effect
// helpers, which toolrun does not expose; what a tool does see through toolrun is its call's
// identity, attempt and replay key. An HTTP tool shows them over the wire (a real local server).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localId } from '../../../src/resolvers/global-ids.js';
import { RegisterHttpToolDocument } from '../../gql/graphql.js';
import { createSession } from '../../support/fixtures.js';
import { json, startToolServer, type ToolServer } from '../../support/tool-server.js';
import { startToolrun, type Toolrun } from '../../support/toolrun.js';
import { runCall } from '../../support/seeds.js';

let app: Toolrun;
let server: ToolServer;
beforeAll(async () => {
  [app, server] = await Promise.all([startToolrun({ HTTP_TOOL_ALLOW_LOOPBACK: true }), startToolServer()]);
  const result = await app.query(RegisterHttpToolDocument, {
    input: {
      name: 'context_probe',
      description: 'answers 503 on its first attempt',
      parametersSchema: { type: 'object' },
      url: `${server.base}/probe`,
      hints: { idempotent: true },
      retry: { maxAttempts: 2, backoff: { type: 'FIXED', delayMs: 10, maxDelayMs: 10 } },
    },
  });
  if (result.registerHttpTool.__typename !== 'HttpToolRegistration') throw new Error(JSON.stringify(result));
  server.secrets.add(result.registerHttpTool.signingSecret);
  server.route('/probe', (call, response) => (call.body.attempt === 1 ? json(response, 503, { busy: true }) : json(response, 200, { ok: true })));
});
afterAll(async () => {
  await app?.close();
  await server?.close();
});

describe('seed 000: the tool context', () => {
  it('with_retry_context: lash-tool:<session>:<call_id>:<tool>, the same on every attempt', async () => {
    const sessionId = await createSession(app);
    const call = await runCall(app, sessionId, 'context_probe', { x: 1 }, 'call-1');
    expect(call.status).toBe('SUCCEEDED');
    const received = server.callsTo('/probe').filter((request) => request.body.callId === 'call-1');
    expect(received.map((request) => request.body.attempt)).toEqual([1, 2]);
    const rawSessionId = localId(sessionId, 'Session');
    for (const request of received) {
      expect(request.headers['idempotency-key']).toBe(`lash-tool:${rawSessionId}:call-1:context_probe`);
      expect(request.body).toMatchObject({ callId: 'call-1', sessionId: rawSessionId, tool: 'context_probe', args: { x: 1 } });
    }
  });
});
