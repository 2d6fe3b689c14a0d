// The typed client's watch against an API that restarts mid-stream: through one address (a TCP
// proxy in front of whichever API process is current), the watch resubscribes from the last cursor
// it delivered, so every event of the batch arrives exactly once, in order; its link state says
// "reconnecting" while it resumes and "live" once it is subscribed again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createToolrunClient } from '../../src/client/index.js';
import { CreateSessionDocument } from '../gql/graphql.js';
import { type ApiProcess, Cluster, type WorkerProcess } from '../support/cluster.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { eventually } from '../support/wait.js';

let cluster: Cluster;
/** The API the test starts on, then the ones it switches to: all started at once (each start takes seconds on a loaded machine). */
let apis: ApiProcess[];
let worker: WorkerProcess;
let proxy: TcpProxy;

beforeAll(async () => {
  cluster = await Cluster.start();
  const [first, ...started] = await Promise.all([cluster.startWorker('worker-1'), cluster.startApi('api-1'), cluster.startApi('api-2'), cluster.startApi('api-3')]);
  worker = first;
  apis = started;
  proxy = await startTcpProxy(0);
}, 120_000);

afterAll(async () => {
  proxy?.close();
  await cluster?.close();
});

describe('client watch', () => {
  it('delivers every event of a batch exactly once across API restarts', async () => {
    let api: ApiProcess = apis[0]!;
    proxy.target = api.port;
    const port = proxy.port;
    const client = createToolrunClient({ url: `http://127.0.0.1:${port}/graphql`, apiKey: cluster.apiKey, webSocketImpl: WebSocket, maxRetryDelayMs: 500 });
    const states: string[] = [client.linkState];
    client.onLinkState((state) => states.push(state));
    try {
      const created = await client.request(CreateSessionDocument, { title: 'resume' });
      if (created.createSession.__typename !== 'Session') throw new Error('no session');
      const sessionId = created.createSession.id;
      // The next APIs are up before the stream starts, so both switches happen while the batch runs.
      const spares = apis.slice(1);
      const calls = Array.from({ length: 12 }, (_, i) => ({ id: `s${i}`, tool: 'sleep', args: { ms: 200 + 600 * i } }));
      const batch = await client.executeBatch({ sessionId, calls });
      if (batch.__typename !== 'ToolBatch') throw new Error(JSON.stringify(batch));

      const seen: Array<{ seq: number; type: string; callId?: string }> = [];
      const watching = (async () => {
        for await (const event of client.watchBatch(sessionId, batch.batchId, { after: batch.eventCursor })) {
          seen.push({ seq: event.seq, type: event.type, callId: 'callId' in event ? event.callId : undefined });
        }
      })();

      for (const next of spares) {
        const before = seen.length;
        while (seen.length === before) await new Promise((resolve) => setTimeout(resolve, 50));
        await api.child.stop();
        proxy.cut();
        proxy.target = next.port;
        api = next;
      }
      const unfinishedAtLastSwitch = !seen.some((event) => event.type === 'ToolBatchCompleted');
      await watching;
      expect(unfinishedAtLastSwitch, 'the batch ended before the last restart').toBe(true);

      const seqs = seen.map((event) => event.seq);
      expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i));
      expect(seen.filter((event) => event.type === 'ToolCallCompleted').map((event) => event.callId).sort()).toEqual(calls.map((call) => call.id).sort());
      expect(seen.at(-1)!.type).toBe('ToolBatchCompleted');
      // idle (no watch yet), connecting, live, then a reconnecting and a live again for each break, idle once the watch ended.
      expect(states.slice(0, 3)).toEqual(['idle', 'connecting', 'live']);
      expect(states.filter((state) => state === 'reconnecting').length).toBeGreaterThanOrEqual(2);
      expect(states.at(-1)).toBe('idle');
      for (let i = 3; i < states.length - 1; i++) expect(states[i], states.join(' ')).toBe(i % 2 === 1 ? 'reconnecting' : 'live');
      expect(client.linkState).toBe('idle');
    } finally {
      await client.close();
    }
  }, 180_000);

  it('notices a connection that stops answering without closing (pings unanswered) and resumes on a new one', async () => {
    proxy.target = apis.at(-1)!.port;
    const port = proxy.port;
    const client = createToolrunClient({ url: `http://127.0.0.1:${port}/graphql`, apiKey: cluster.apiKey, webSocketImpl: WebSocket, maxRetryDelayMs: 200, keepAliveMs: 300 });
    const states: string[] = [];
    client.onLinkState((state) => states.push(state));
    try {
      const created = await client.request(CreateSessionDocument, { title: 'frozen link' });
      if (created.createSession.__typename !== 'Session') throw new Error('no session');
      const sessionId = created.createSession.id;
      const batch = await client.executeBatch({ sessionId, calls: [{ id: 'slow', tool: 'sleep', args: { ms: 4000 } }] });
      if (batch.__typename !== 'ToolBatch') throw new Error(JSON.stringify(batch));
      const types: string[] = [];
      const watching = (async () => {
        for await (const event of client.watchBatch(sessionId, batch.batchId, { after: batch.eventCursor })) types.push(event.type);
      })();
      await eventually(async () => client.linkState === 'live', 15_000);
      // Half-open: the sockets stay open, nothing passes either way.
      for (const socket of proxy.sockets) socket.pause();
      await eventually(async () => states.includes('reconnecting'), 5_000);
      await watching;
      expect(types.at(-1)).toBe('ToolBatchCompleted');
      expect(types.filter((type) => type === 'ToolCallCompleted')).toHaveLength(1);
      expect(states.at(-2)).toBe('live');
      expect(client.linkState).toBe('idle');
    } finally {
      proxy.cut();
      await client.close();
    }
  }, 60_000);

  it('resumes a watch begun without a cursor from where it began, when the link broke before its first event', async () => {
    proxy.target = apis.at(-1)!.port;
    const port = proxy.port;
    const client = createToolrunClient({ url: `http://127.0.0.1:${port}/graphql`, apiKey: cluster.apiKey, webSocketImpl: WebSocket, maxRetryDelayMs: 300 });
    try {
      const created = await client.request(CreateSessionDocument, { title: 'watched from now' });
      if (created.createSession.__typename !== 'Session') throw new Error('no session');
      const sessionId = created.createSession.id;
      // No worker: the batch's calls wait in the queue, and the watch (from now) sees nothing yet.
      await worker.child.stop();
      const calls = Array.from({ length: 3 }, (_, i) => ({ id: `w${i}`, tool: 'sleep', args: { ms: 6000 } }));
      const batch = await client.executeBatch({ sessionId, calls });
      if (batch.__typename !== 'ToolBatch') throw new Error(JSON.stringify(batch));
      const types: string[] = [];
      const watching = (async () => {
        for await (const event of client.watchBatch(sessionId, batch.batchId)) types.push(event.type);
      })();
      await eventually(async () => client.linkState === 'live', 15_000);

      // The link breaks; while it is down a worker starts the calls (their ToolCallStarted), then it comes back.
      proxy.target = 1;
      proxy.cut();
      worker = await cluster.startWorker('worker-2');
      await eventually(async () => (await cluster.db.toolCall.count({ where: { status: 'RUNNING', callId: { in: calls.map((call) => call.id) } } })) === 3, 20_000);
      expect(types).toEqual([]);
      proxy.target = apis.at(-1)!.port;

      await watching;
      expect(types.filter((type) => type === 'ToolCallStarted')).toHaveLength(3);
      expect(types.filter((type) => type === 'ToolCallCompleted')).toHaveLength(3);
      expect(types.at(-1)).toBe('ToolBatchCompleted');
    } finally {
      proxy.cut();
      await client.close();
    }
  }, 90_000);
});
