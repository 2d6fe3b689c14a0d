// An outage of PostgreSQL that every worker sees at once (a restart, a failover: connections cut,
// new ones refused for a few seconds), longer than WORKER_DEAD_AFTER_MS. Every heartbeat is old when
// the database is back, live workers' too; no worker may take that for the others' death, and
// nothing running may be run again or failed `worker_lost`: each worker judges the others only
// once its own heartbeats have landed steadily again (src/jobs/own-heartbeat.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetTaskDocument, SpawnBackgroundDocument } from '../gql/graphql.js';
import { type ApiProcess, Cluster, DatabaseProxy } from '../support/cluster.js';
import { newSession, submitBatch, waitForBatch } from '../support/fixtures.js';
import { eventually, sleep } from '../support/wait.js';

// Heartbeats a second apart and reapers five times a second: after each outage a reaper almost
// surely runs before the other workers' next heartbeat lands.
const HEARTBEAT_MS = 1000;
const DEAD_AFTER_MS = 2500;
const OUTAGE_MS = 4000;

let cluster: Cluster;
let proxy: DatabaseProxy;
let api: ApiProcess;

beforeAll(async () => {
  cluster = await Cluster.start({
    env: {
      WORKER_CONCURRENCY: '8',
      CALLS_PER_JOB: '1',
      HEARTBEAT_INTERVAL_MS: String(HEARTBEAT_MS),
      WORKER_DEAD_AFTER_MS: String(DEAD_AFTER_MS),
      RECONCILE_INTERVAL_MS: '200',
      TASK_REAPER_INTERVAL_MS: '200',
    },
  });
  proxy = await DatabaseProxy.start(cluster.databaseUrl);
  // The API keeps its own connections: only the workers live through the outage.
  api = await cluster.startApi('api');
  const throughProxy = { DATABASE_URL: proxy.url(cluster.databaseUrl) };
  await Promise.all(['w1', 'w2', 'w3'].map((name) => cluster.startWorker(name, throughProxy)));
}, 150_000);

afterAll(async () => {
  await cluster?.close();
  await proxy?.close();
}, 60_000);

describe('a PostgreSQL outage longer than WORKER_DEAD_AFTER_MS, seen by every worker', () => {
  it(
    'declares no live worker dead: running calls and background runs finish on their first attempt',
    () =>
      cluster.explained(async () => {
        const session = await newSession(api);
        const batch = await submitBatch(api, {
          sessionId: session.id,
          calls: Array.from({ length: 12 }, (_, n) => ({ id: `sleep-${n}`, tool: 'sleep', args: { ms: 14_000 } })),
        });
        const spawned = (await api.query(SpawnBackgroundDocument, { sessionId: session.id, tool: 'sleep', args: { ms: 14_000 } })).spawnBackground;
        if (spawned.__typename !== 'BackgroundRun') throw new Error(JSON.stringify(spawned));
        await eventually(async () => (await cluster.db.toolCall.count({ where: { sessionId: session.rowId, status: 'RUNNING' } })) === 12, 20_000);
        await eventually(async () => (await api.query(GetTaskDocument, { id: spawned.taskId })).task?.state === 'RUNNING', 20_000);

        for (let outage = 0; outage < 2; outage++) {
          proxy.cut();
          await sleep(OUTAGE_MS);
          proxy.restore();
          await sleep(1000);
        }

        const done = await waitForBatch(api, session.id, batch.batchId, 60_000);
        expect(done.calls.nodes.map((call) => [call.callId, call.status, call.attempt])).toEqual(
          Array.from({ length: 12 }, (_, n) => [`sleep-${n}`, 'SUCCEEDED', 1]),
        );
        const task = await eventually(async () => {
          const { task } = await api.query(GetTaskDocument, { id: spawned.taskId });
          return task?.state === 'SUCCEEDED' ? task : null;
        }, 30_000);
        expect(task.attempt).toBe(1);
        expect(cluster.output()).not.toMatch(/declared dead|stopped sending heartbeats/);
      })(),
    150_000,
  );
});
