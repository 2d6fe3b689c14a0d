// Fairness and quotas (issue 10, finding 11) through the public API on real PostgreSQL and Redis:
// per-key rate limits, tenant limits and their settings, running calls per tenant across workers,
// background runs per tenant, file store quotas, and the paginated, capped `sessionFiles`.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboxJob } from '../../src/domain/outbox.js';
import { JobDispatcher } from '../../src/jobs/job-dispatcher.js';
import { RunningCallPermits } from '../../src/jobs/running-calls.js';
import type { Viewer } from '../../src/domain/tenants/api-keys.js';
import { KeyRateLimiter } from '../../src/server/rate-limit.js';
import { ToolFailureError } from '../../src/model/outcome.js';
import {
  CancelToolBatchDocument,
  CreateSessionDocument,
  SessionFileDocument,
  SessionFilesDocument,
  SetTenantLimitsDocument,
  SpawnBackgroundDocument,
  TenantLimitsDocument,
  ToolCallEventsDocument,
} from '../gql/graphql.js';
import { spawn, spawnRun } from '../support/background.js';
import { TEST_REDIS_URL } from '../support/database.js';
import { newSession, submitBatch, waitForBatch } from '../support/fixtures.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';
import { eventually } from '../support/wait.js';

const silent = pino({ level: 'silent' });

describe('per-key rate limits', () => {
  let app: Toolrun;
  beforeAll(async () => {
    app = await startToolrun({ RATE_LIMIT_REQUESTS: 3, RATE_LIMIT_WINDOW_SECONDS: 60 }, { worker: false });
  });
  afterAll(() => app?.close());

  it('answers 429 with Retry-After and RATE_LIMITED/retryAfterMs once a key spent its budget; other keys are untouched; a WebSocket operation fails alone', async () => {
    const key = await app.newKey();
    for (let i = 0; i < 3; i++) expect((await app.request(TenantLimitsDocument, {}, key)).status).toBe(200);
    const response = await app.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: '{ tenantSettings { tenantName } }' }),
    });
    expect(response.status).toBe(429);
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const body = (await response.json()) as { errors: Array<{ message: string; extensions: { code: string; retryAfterMs: number } }> };
    expect(body.errors[0]!.extensions.code).toBe('RATE_LIMITED');
    expect(body.errors[0]!.extensions.retryAfterMs).toBeGreaterThan(0);
    expect(body.errors[0]!.extensions.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(body.errors[0]!.message).toMatch(/3 requests per 60 s/);

    // Another key (even of the same tenant's neighbour) has its own budget.
    const other = await app.newKey();
    expect((await app.request(TenantLimitsDocument, {}, other)).status).toBe(200);

    // Over WebSocket: the operation gets the error (an `error` message for its id).
    const session = await newSession(app, other);
    const first = app.ws(ToolCallEventsDocument, { sessionId: session.id }, key);
    await expect(first.until(() => false, 5000)).rejects.toThrow(/"extensions":\{"code":"RATE_LIMITED","retryAfterMs":\d+\}\}/);

    // The MCP endpoint spends the same budget: the spent key is refused there too, before any work.
    const mcp = await fetch(`${await app.baseUrl()}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1' } } }),
    });
    expect(mcp.status).toBe(429);
    expect(Number(mcp.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await mcp.json()) as { error: { message: string } }).error.message).toMatch(/Rate limit exceeded/);
  });
});

describe('per-key rate limits shared by API processes', () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = new Redis(TEST_REDIS_URL);
    // Until the connection is ready each limiter counts alone (the insurance limiter).
    await redis.ping();
  });
  afterAll(() => redis.quit());

  it('grants two processes together exactly the budget, leasing points a few at a time; a spent budget refuses without asking Redis', async () => {
    const config = { RATE_LIMIT_REQUESTS: 401, RATE_LIMIT_WINDOW_SECONDS: 60, REDIS_PREFIX: `rate-${randomUUID().slice(0, 8)}` };
    const processes = [new KeyRateLimiter(redis, config), new KeyRateLimiter(redis, config)];
    const viewer = { apiKeyId: randomUUID(), tenantId: randomUUID(), roles: ['reader'] } as unknown as Viewer;
    const counter = `${config.REDIS_PREFIX}:rate:key:${viewer.apiKeyId}`;
    let allowed = 0;
    // Requests arrive at both processes, several at once.
    for (let round = 0; round < 50; round++) {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => processes[i % 2]!.take(viewer)));
      allowed += answers.filter((answer) => answer === null).length;
    }
    expect(allowed).toBe(401);
    // Leases of 2 points: about one round trip per two requests, not one per request.
    const asked = Number(await redis.get(counter));
    expect(asked).toBeGreaterThanOrEqual(401);
    expect(asked).toBeLessThan(440);
    const refusal = await processes[0]!.take(viewer);
    expect(refusal?.extensions).toMatchObject({ code: 'RATE_LIMITED' });
    expect(refusal!.extensions.retryAfterMs as number).toBeGreaterThan(50_000);
    expect(Number(await redis.get(counter))).toBe(asked);
  });

  it('asks Redis side by side for a burst of one key’s requests, not one after another behind a lease being taken', async () => {
    const config = { RATE_LIMIT_REQUESTS: 300, RATE_LIMIT_WINDOW_SECONDS: 60, REDIS_PREFIX: `burst-${randomUUID().slice(0, 8)}` };
    const limiter = new KeyRateLimiter(redis, config);
    const viewer = { apiKeyId: randomUUID(), tenantId: randomUUID(), roles: ['reader'] } as unknown as Viewer;
    // Counts the commands this connection has sent and not yet had answered.
    let inFlight = 0;
    let most = 0;
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = ((command: Parameters<Redis['sendCommand']>[0]) => {
      inFlight++;
      most = Math.max(most, inFlight);
      const sent = send(command);
      void (command as unknown as { promise: Promise<unknown> }).promise.finally(() => inFlight--).catch(() => undefined);
      return sent;
    }) as Redis['sendCommand'];
    try {
      const answers = await Promise.all(Array.from({ length: 100 }, () => limiter.take(viewer)));
      expect(answers.every((answer) => answer === null)).toBe(true);
      expect(most).toBeGreaterThan(10);
    } finally {
      redis.sendCommand = send;
    }
  });
});

describe('tenant limits', () => {
  let app: Toolrun;
  beforeAll(async () => {
    app = await startToolrun({ TENANT_MAX_BACKGROUND_RUNS: 4, SESSION_FILE_MAX_FILES: 50 }, { worker: false });
  });
  afterAll(() => app?.close());

  it('shows the deployment defaults; an admin lowers them, cannot raise them, and null goes back to the default', async () => {
    const before = await app.query(TenantLimitsDocument, {});
    expect(before.tenantSettings.limits).toMatchObject({ runningCalls: 0, backgroundRuns: 4, sessionFiles: 50 });
    const lowered = await app.query(SetTenantLimitsDocument, { limits: { backgroundRuns: 2, runningCalls: 7 } });
    expect(lowered.updateTenantSettings).toMatchObject({ __typename: 'TenantSettings', limits: { backgroundRuns: 2, runningCalls: 7, sessionFiles: 50 } });
    const raised = await app.query(SetTenantLimitsDocument, { limits: { sessionFiles: 51 } });
    expect(raised.updateTenantSettings).toMatchObject({ __typename: 'ValidationError', code: 'VALIDATION_FAILED' });
    expect((raised.updateTenantSettings as { message: string }).message).toMatch(/limits\.sessionFiles must be from 1 to 50/);
    const reset = await app.query(SetTenantLimitsDocument, { limits: { backgroundRuns: null } });
    expect(reset.updateTenantSettings).toMatchObject({ limits: { backgroundRuns: 4, runningCalls: 7 } });
    // Only admins change them.
    const submitter = await app.newKey(undefined, ['submitter']);
    const refused = await app.query(SetTenantLimitsDocument, { limits: { backgroundRuns: 1 } }, submitter);
    expect(refused.updateTenantSettings).toMatchObject({ __typename: 'ForbiddenError' });
  });
});

describe('background runs per tenant', () => {
  let app: Toolrun;
  beforeAll(async () => {
    app = await startToolrun({ TENANT_MAX_BACKGROUND_RUNS: 2 }, { worker: false });
  });
  afterAll(() => app?.close());

  it('refuses a tenant’s run beyond its limit across sessions, while another tenant still spawns', async () => {
    const sessions = [await newSession(app), await newSession(app), await newSession(app)];
    await spawnRun(app, { sessionId: sessions[0]!.id, tool: 'sleep', args: { ms: 60_000 } });
    await spawnRun(app, { sessionId: sessions[1]!.id, tool: 'sleep', args: { ms: 60_000 } });
    const third = await spawn(app, { sessionId: sessions[2]!.id, tool: 'sleep', args: { ms: 60_000 } });
    expect(third).toMatchObject({ __typename: 'LimitExceededError', code: 'LIMIT_EXCEEDED', limit: 'background_runs_per_tenant', max: 2 });

    const otherKey = await app.newKey(undefined, ['submitter']);
    const other = await app.query(CreateSessionDocument, { title: 'other tenant' }, otherKey);
    const otherSession = (other.createSession as { id: string }).id;
    const theirs = await app.query(SpawnBackgroundDocument, { sessionId: otherSession, tool: 'sleep', args: { ms: 60_000 } }, otherKey);
    expect(theirs.spawnBackground.__typename).toBe('BackgroundRun');
  });
});

describe('running calls per tenant', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
  });
  afterAll(() => redis?.disconnect());

  it('permits are shared by every holder (process) through Redis, and a dead holder’s leases expire', async () => {
    const prefix = `toolrun-test-${randomUUID()}`;
    const a = new RunningCallPermits(redis, { prefix, holder: 'worker-a', leaseMs: 300, logger: silent });
    const b = new RunningCallPermits(redis, { prefix, holder: 'worker-b', leaseMs: 300, logger: silent });
    try {
      const mine = await a.take('t1', 2, 3);
      expect(mine).toHaveLength(2);
      expect(await b.take('t1', 5, 3)).toHaveLength(1);
      expect(await b.take('t1', 1, 3)).toHaveLength(0);
      // Another tenant has its own permits.
      expect(await b.take('t2', 3, 3)).toHaveLength(3);
      mine[0]!();
      mine[0]!(); // idempotent
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await b.take('t1', 2, 3)).toHaveLength(1);
      // Renewed while held: still taken after several lease lengths.
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(await b.take('t1', 1, 3)).toHaveLength(0);
      // Worker a stops renewing (it died): its lease ends and the permit is free again.
      a.close();
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(await b.take('t1', 1, 3)).toHaveLength(1);
    } finally {
      a.close();
      b.close();
      await redis.del(`${prefix}:running:t1`, `${prefix}:running:t2`);
    }
  });

  it('a tenant with a limit never has more calls running at once; another tenant’s calls run beside them', async () => {
    const app = await startToolrun({ WORKER_CONCURRENCY: 32, CALLS_PER_JOB: 4 });
    try {
      await app.query(SetTenantLimitsDocument, { limits: { runningCalls: 2 } });
      const session = await newSession(app);
      const calls = Array.from({ length: 8 }, (_, i) => ({ id: `nap-${i}`, tool: 'sleep', args: { ms: 250 } }));
      const started = performance.now();
      const batch = await submitBatch(app, { sessionId: session.id, calls });
      // Another tenant, without a limit, is not held behind them.
      const otherKey = await app.newKey();
      const other = await newSession(app, otherKey);
      const theirs = await submitBatch(app, { sessionId: other.id, calls: [{ id: 'sum', tool: 'add', args: { a: 1, b: 2 } }], waitMs: 10_000 }, otherKey);
      expect(theirs.status).toBe('COMPLETED');
      const elapsedForOther = performance.now() - started;

      const done = await waitForBatch(app, session.id, batch.batchId, 30_000);
      expect(done.calls.nodes.every((call) => call.status === 'SUCCEEDED')).toBe(true);
      const spans = done.calls.nodes.map((call) => [Date.parse(call.startedAt!), Date.parse(call.completedAt!)] as const);
      let most = 0;
      for (const [start] of spans) most = Math.max(most, spans.filter(([s, e]) => s <= start && start < e).length);
      expect(most).toBeLessThanOrEqual(2);
      // 8 calls of 250 ms two at a time take at least 1 s.
      expect(Math.max(...spans.map(([, end]) => end)) - Math.min(...spans.map(([start]) => start))).toBeGreaterThanOrEqual(900);
      expect(elapsedForOther).toBeLessThan(5000);
      // Every permit went back.
      expect(await redis.zcard(`${app.services.config.REDIS_PREFIX}:running:${app.tenantId}`)).toBe(0);
    } finally {
      await app.close();
    }
  });
});

describe('fair dispatch', () => {
  let app: Toolrun;
  beforeAll(async () => {
    // A small worker: 6 call slots (1 kept for newcomers) and jobs of 2 calls, 4 jobs at once from the main queue.
    app = await startToolrun({ WORKER_CONCURRENCY: 6, CALLS_PER_JOB: 2, WORKER_NEWCOMER_SLOTS: 1, CALLS_EXPRESS_CONCURRENCY: 2 });
  });
  afterAll(() => app?.close());

  it("another tenant's lone call runs at once while one tenant's long calls hold every job slot and every call slot it may", async () => {
    const heavy = await newSession(app);
    const calls = Array.from({ length: 40 }, (_, i) => ({ id: `long-${i}`, tool: 'sleep', args: { ms: 6000 } }));
    const batch = await submitBatch(app, { sessionId: heavy.id, calls });
    const running = () => app.services.db.toolCall.count({ where: { sessionId: heavy.rowId, status: 'RUNNING' } });
    // Its 20 jobs go to the main queue, but for the first, dispatched before Redis said the tenant's backlog.
    const jobs = (queue: Queue) => queue.getJobCountByTypes('waiting', 'prioritized', 'active', 'delayed');
    await eventually(async () => (await jobs(app.services.queues.calls)) + (await jobs(app.services.queues.express)) === 20, 10_000, 50, 'the heavy jobs queued');
    expect(await jobs(app.services.queues.express)).toBeLessThanOrEqual(1);
    // The worker holds 4 of its jobs (8 calls) and runs 5 of them: the sixth slot is kept for a newcomer.
    await eventually(async () => (await running()) >= 5, 10_000, 50, 'the heavy tenant running 5 calls');

    const lightKey = await app.newKey();
    const light = await newSession(app, lightKey);
    const started = performance.now();
    const theirs = await submitBatch(app, { sessionId: light.id, calls: [{ id: 'sum', tool: 'add', args: { a: 1, b: 2 } }], waitMs: 3000 }, lightKey);
    const elapsed = performance.now() - started;
    // Without the express queue it would wait for one of the heavy jobs to end (6 s); without the
    // newcomer's slot, for one of the heavy calls.
    expect(theirs.status).toBe('COMPLETED');
    expect(elapsed).toBeLessThan(2000);
    expect(await running()).toBe(5);
    await app.query(CancelToolBatchDocument, { sessionId: heavy.id, batchId: batch.batchId });
    await waitForBatch(app, heavy.id, batch.batchId, 20_000);
  });

  it("counts a job into its tenant's backlog once, however often it is dispatched or starts, and never below zero", async () => {
    const redis = app.services.redis.command;
    // A dispatcher of its own, on queues no worker takes: only the counting is looked at.
    const prefix = `backlog-test-${randomUUID().slice(0, 8)}`;
    const queue = (name: string) => new Queue(name, { connection: redis, prefix: `${prefix}:bull` });
    const queues = { calls: queue('calls'), 'calls-express': queue('calls-express'), tasks: queue('tasks') };
    const dispatcherWith = (expressBacklog: number) => new JobDispatcher({ queues, expressBacklog, sql: app.services.sql, redis, prefix, logger: app.services.logger, enqueueTimeoutMs: 5000 });
    const dispatcher = dispatcherWith(0);
    const tenantId = `tenant-${randomUUID()}`;
    const key = `${prefix}:backlog`;
    const backlog = async () => Number(await redis.hget(key, tenantId));
    const job = (jobId: string, weight: number): OutboxJob => ({ jobId, queue: 'calls', name: 'run-calls', data: { tenantId, weight } });
    try {
      await dispatcher.enqueue([job('a', 3)]);
      await dispatcher.enqueue([job('a', 3)]); // dispatched again: a relay, or an add given up and retried
      await dispatcher.enqueue([job('b', 2)]);
      expect(await backlog()).toBe(5);
      dispatcher.started('a', tenantId);
      dispatcher.started('a', tenantId); // a second copy of the job starts
      await eventually(async () => (await backlog()) === 2, 5000, 20, 'a taken off once');
      await dispatcher.enqueue([job('a', 3)]); // dispatched again after it started
      expect(await backlog()).toBe(2);
      expect(await redis.ttl(key)).toBeGreaterThan(0);
      // Another process counted a heavy backlog: a process without a recent figure reads it before
      // choosing the queue, so this heavy tenant's lone job does not take the express queue.
      const heavy = dispatcherWith(16);
      await redis.hset(key, tenantId, 1000);
      await heavy.enqueue([job('c', 1)]);
      expect(await queues.calls.getJob('c')).toBeDefined();
      expect(await queues['calls-express'].getJob('c')).toBeUndefined();
      await redis.hset(key, tenantId, 1); // the count fell behind (its hash expired under a long backlog)
      dispatcher.started('b', tenantId);
      await eventually(async () => (await backlog()) === 0, 5000, 20, 'the backlog at zero, not below');
      // At zero the tenant leaves the hash: it holds only tenants with queued calls.
      expect(await redis.hexists(key, tenantId)).toBe(0);
    } finally {
      for (const each of Object.values(queues)) {
        await each.obliterate({ force: true });
        await each.close();
      }
      await redis.del(key, `${prefix}:backlog:job:a`, `${prefix}:backlog:job:b`, `${prefix}:backlog:job:c`);
    }
  });
});

describe('file store quotas', () => {
  let app: Toolrun;
  beforeAll(async () => {
    app = await startToolrun({ SESSION_FILE_MAX_BYTES: 4096, SESSION_FILE_MAX_FILES: 20, TENANT_FILE_MAX_BYTES: 8192, TENANT_FILE_MAX_FILES: 100 }, { worker: false });
  });
  afterAll(() => app?.close());

  const usage = async (sessionId: string) => app.services.sessions.sessionFileUsage(sessionId);
  const quotaFailure = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ToolFailureError);
    return (error as ToolFailureError).failure;
  };

  it('counts bytes and entries exactly through writes, appends, edits, mkdir and deletes', async () => {
    const { rowId } = await newSession(app);
    const files = app.services.sessions.files(rowId);
    await files.writeFile('/a/b/c.txt', 'hello');
    expect(await usage(rowId)).toEqual({ bytes: 5, files: 3 });
    await files.appendFile('/a/b/c.txt', ' world');
    await files.editFile('/a/b/c.txt', 'world', 'wörld');
    expect(await usage(rowId)).toEqual({ bytes: 12, files: 3 });
    await files.writeFile('/a/b/c.txt', 'x');
    await files.mkdir('/d/e');
    expect(await usage(rowId)).toEqual({ bytes: 1, files: 5 });
    await files.deleteFile('/a', { recursive: true });
    expect(await usage(rowId)).toEqual({ bytes: 0, files: 2 });
  });

  it('refuses writes past the session’s bytes and entries with a RESOURCE_LIMIT tool failure; shrinking writes still pass', async () => {
    const { rowId } = await newSession(app);
    const files = app.services.sessions.files(rowId);
    await files.writeFile('/big.txt', `A${'x'.repeat(3999)}`);
    const tooBig = await quotaFailure(files.writeFile('/more.txt', 'y'.repeat(200)));
    expect(tooBig).toMatchObject({ class: 'RESOURCE_LIMIT', code: 'file_quota_exceeded' });
    expect(tooBig.message).toMatch(/session's file store would exceed 4096 bytes \(4000 in use\)/);
    expect(await files.stat('/more.txt')).toBeNull();
    expect((await quotaFailure(files.appendFile('/big.txt', 'z'.repeat(100)))).code).toBe('file_quota_exceeded');
    expect((await quotaFailure(files.editFile('/big.txt', 'A', 'y'.repeat(200)))).code).toBe('file_quota_exceeded');
    // Replacing with something smaller, or deleting, is never refused.
    await files.writeFile('/big.txt', 'small');
    expect(await usage(rowId)).toEqual({ bytes: 5, files: 1 });

    for (let i = 0; i < 19; i++) await files.writeFile(`/f${i}`, '');
    const tooMany = await quotaFailure(files.writeFile('/one-more', ''));
    expect(tooMany.message).toMatch(/session's file store would exceed 20 entries/);
    expect((await quotaFailure(files.mkdir('/dir'))).code).toBe('file_quota_exceeded');
    // Overwriting an existing file adds no entry.
    await files.writeFile('/f0', 'again');
  });

  it('holds under concurrent writes, and across the tenant’s sessions', async () => {
    const { rowId } = await newSession(app);
    // The usage rows the writes lock exist before the first write (one a write created would be
    // invisible to the statements of concurrent writes already under way: they would count an empty store).
    const rows = await app.services.sql.query<{ sessions: number; tenants: number }>(
      `SELECT (SELECT count(*) FROM session_file_usage WHERE session_id = $1)::int AS sessions,
              (SELECT count(*) FROM tenant_file_usage WHERE tenant_id = (SELECT tenant_id FROM session WHERE id = $1))::int AS tenants`,
      [rowId],
    );
    expect(rows[0]).toEqual({ sessions: 1, tenants: 1 });
    const files = app.services.sessions.files(rowId);
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => files.writeFile(`/c${i}`, 'x'.repeat(200))));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(20);
    expect(await usage(rowId)).toEqual({ bytes: 4000, files: 20 });

    // The tenant's stores together: 8192 bytes (two earlier tests hold 5 + 4000 + 5 bytes... counted exactly).
    const tenant = await app.services.sessions.tenantFileUsage(app.tenantId);
    const second = await newSession(app);
    const more = app.services.sessions.files(second.rowId);
    const room = 8192 - tenant.bytes;
    await more.writeFile('/fits', 'x'.repeat(Math.min(room, 4096)));
    const failure = await quotaFailure(more.writeFile('/over', 'y'.repeat(200)));
    expect(failure.message).toMatch(/tenant's file stores would exceed 8192 bytes|session's file store would exceed 4096 bytes/);
    const { tenantSettings } = await app.query(TenantLimitsDocument, {});
    expect(tenantSettings.fileUsage.bytes).toBe(tenant.bytes + Math.min(room, 4096));
  });

  it('a tenant’s own lower quota applies to its write_file calls', async () => {
    const worker = await startToolrun({}, {});
    try {
      await worker.query(SetTenantLimitsDocument, { limits: { sessionFiles: 2 } });
      const session = await newSession(worker);
      const batch = await submitBatch(worker, {
        sessionId: session.id,
        calls: [
          { id: 'w1', tool: 'write_file', args: { path: '/one.txt', content: '1' } },
          { id: 'w2', tool: 'write_file', args: { path: '/two.txt', content: '2' } },
          { id: 'w3', tool: 'write_file', args: { path: '/three.txt', content: '3' } },
        ],
        waitMs: 15_000,
      });
      const statuses = batch.calls.nodes.map((call) => call.status).sort();
      expect(statuses).toEqual(['FAILED', 'SUCCEEDED', 'SUCCEEDED']);
      const failed = batch.calls.nodes.find((call) => call.status === 'FAILED')!;
      expect(failed.output).toMatchObject({ __typename: 'ToolFailure' });
      expect(JSON.stringify(failed.output)).toMatch(/file_quota_exceeded/);
      expect(JSON.stringify(failed.output)).toMatch(/RESOURCE_LIMIT/);
    } finally {
      await worker.close();
    }
  });
});

describe('sessionFiles', () => {
  let app: Toolrun;
  beforeAll(async () => {
    app = await startToolrun({ SESSION_FILES_MAX_CONTENT_CHARS: 10 }, { worker: false });
  });
  afterAll(() => app?.close());

  it('pages by path and cuts long contents (flagged); sessionFile reads one whole', async () => {
    const session = await newSession(app);
    const files = app.services.sessions.files(session.rowId);
    for (const name of ['b', 'a', 'e', 'c', 'd']) await files.writeFile(`/docs/${name}.txt`, `${name}`.repeat(25));
    await files.writeFile('/docs_other/z.txt', 'not below /docs');

    const seen: string[] = [];
    let after: string | null | undefined;
    for (let page = 0; page < 5; page++) {
      const { sessionFiles } = await app.query(SessionFilesDocument, { sessionId: session.id, path: '/docs', first: 2, after });
      seen.push(...sessionFiles.nodes.map((file) => file.path));
      for (const file of sessionFiles.nodes.filter((node) => !node.isDirectory)) {
        expect(file.content).toHaveLength(10);
        expect(file.contentTruncated).toBe(true);
        expect(file.size).toBe(25);
      }
      if (!sessionFiles.pageInfo.hasNextPage) break;
      after = sessionFiles.pageInfo.endCursor;
    }
    expect(seen).toEqual(['/docs', '/docs/a.txt', '/docs/b.txt', '/docs/c.txt', '/docs/d.txt', '/docs/e.txt']);

    const { sessionFile } = await app.query(SessionFileDocument, { sessionId: session.id, path: '/docs/c.txt' });
    expect(sessionFile).toMatchObject({ content: 'c'.repeat(25), contentTruncated: false, size: 25 });
    expect((await app.query(SessionFileDocument, { sessionId: session.id, path: '/nothing' })).sessionFile).toBeNull();

    // Another tenant sees nothing of it.
    const otherKey = await app.newKey();
    const foreign = await app.request(SessionFilesDocument, { sessionId: session.id, path: '/docs' }, otherKey);
    expect(foreign.data?.sessionFiles ?? null).toBeNull();
  });
});
