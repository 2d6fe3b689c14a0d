// Log lines: yoga's lines have a message, every line of a request carries its request id (the
// caller's x-request-id, else a generated one, echoed in the response), worker lines carry the
// tenant, session and call ids, and an outage of Redis or PostgreSQL is logged without stacks,
// at most once per interval with a count.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { loadConfig } from '../../src/config.js';
import { createDb } from '../../src/db.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { closeServices, createServices } from '../../src/services.js';
import { freePort } from '../support/cluster.js';
import { TEST_DATABASE_URL } from '../support/database.js';
import { createSession, submitBatch } from '../support/fixtures.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';
import { sleep } from '../support/wait.js';

type Line = Record<string, unknown> & { msg?: string; level: number };

/** A logger as the processes make it, writing into an array. */
function capture(settings: { level?: string; repeatMs?: number } = {}): { lines: Line[]; logger: Logger } {
  const lines: Line[] = [];
  const logger = createLogger(
    { LOG_LEVEL: (settings.level ?? 'debug') as 'debug', LOG_REPEAT_INTERVAL_MS: settings.repeatMs ?? 30_000 },
    { destination: { write: (line: string) => void lines.push(JSON.parse(line) as Line) } },
  );
  return { lines, logger };
}

describe('request ids', () => {
  let app: Toolrun;
  let lines: Line[];
  beforeAll(async () => {
    const captured = capture();
    lines = captured.lines;
    app = await startToolrun({}, { logger: () => captured.logger });
  });
  afterAll(async () => app?.close());

  // Request ids belong to the HTTP server (server/app.ts), so these requests go over its real port.
  const post = async (headers: Record<string, string>) =>
    fetch((await app.endpoint.wsUrl()).replace(/^ws/, 'http'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${app.apiKey}`, ...headers },
      body: JSON.stringify({ query: '{ tools { name } }' }),
    });

  it("keeps the caller's x-request-id, echoes it, and puts it on every line of the request", async () => {
    const id = `req-${randomUUID()}`;
    const response = await post({ 'x-request-id': id });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe(id);
    const mine = lines.filter((line) => line.requestId === id);
    // Yoga's debug lines: each has a message, none puts its text under "0".
    expect(mine.length).toBeGreaterThan(0);
    for (const line of mine) {
      expect(typeof line.msg).toBe('string');
      expect(line).not.toHaveProperty('0');
    }
    expect(mine.some((line) => line.component === 'yoga')).toBe(true);
    expect(mine.every((line) => typeof line.tenantId === 'string' || line.component === 'yoga')).toBe(true);
  });

  it('generates an id when there is none or it is not a plausible id', async () => {
    const variants: Array<Record<string, string>> = [{}, { 'x-request-id': 'has spaces and ; semicolons' }, { 'x-request-id': 'x'.repeat(300) }];
    for (const headers of variants) {
      const response = await post(headers);
      const id = response.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(lines.some((line) => line.requestId === id)).toBe(true);
    }
    const ids = lines.map((line) => line.requestId);
    expect(ids).not.toContain('has spaces and ; semicolons');
  });

  it('answers a WebSocket upgrade with the id of the connection', async () => {
    const id = `ws-${randomUUID()}`;
    const socket = new WebSocket(await app.endpoint.wsUrl(), 'graphql-transport-ws', { headers: { 'x-request-id': id } });
    const [response] = (await once(socket, 'upgrade')) as [{ headers: Record<string, string> }];
    expect(response.headers['x-request-id']).toBe(id);
    socket.close();
  });

  it('puts the tenant, session, call and job ids on the worker lines of a call', async () => {
    const sessionId = await createSession(app);
    const batch = await submitBatch(app, { sessionId, waitMs: 10_000, calls: [{ id: 'logged-call', tool: 'echo', args: { message: 'hi' } }] });
    expect(batch.status).toBe('COMPLETED');
    const ended = lines.find((line) => line.msg === 'call attempt ended' && line.callId === 'logged-call');
    expect(ended).toMatchObject({ tenantId: app.tenantId, status: 'SUCCESS', recorded: true });
    expect(ended?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(ended?.jobId).toMatch(/^run:/);
    // The job's own line names the job, its tenant and session (a job runs several calls).
    const done = lines.find((line) => line.msg === 'job done' && line.jobId === ended?.jobId);
    expect(done).toMatchObject({ tenantId: app.tenantId, sessionId: ended?.sessionId, job: 'run-calls' });
  });
});

describe('infrastructure errors', () => {
  it('logs a Redis outage as one line per interval with a count, without stacks', async () => {
    const { lines, logger } = capture({ level: 'info', repeatMs: 1000 });
    // Nothing listens on this port: every reconnect attempt of the three connections fails.
    const config = loadConfig({}, { DATABASE_URL: TEST_DATABASE_URL, REDIS_URL: `redis://127.0.0.1:${await freePort()}`, LOG_LEVEL: 'info' });
    const services = createServices(config, logger);
    let errors = 0;
    for (const client of Object.values(services.redis)) client.on('error', () => void (errors += 1));
    await sleep(2600);
    await closeServices(services);

    const redisLines = lines.filter((line) => String(line.msg).startsWith('redis connection error'));
    expect(errors).toBeGreaterThan(10);
    // The first at once, then one count at the end of each of the (at most three) intervals.
    expect(redisLines.length).toBeGreaterThanOrEqual(2);
    expect(redisLines.length).toBeLessThanOrEqual(4);
    expect(redisLines[0]).not.toHaveProperty('repeated');
    const counted = redisLines.slice(1);
    expect(counted.every((line) => typeof line.repeated === 'number' && line.repeated > 0 && / \(repeated \d+ times in 1 s\)$/.test(String(line.msg)))).toBe(true);
    expect(1 + counted.reduce((sum, line) => sum + (line.repeated as number), 0)).toBeLessThanOrEqual(errors);
    for (const line of redisLines) {
      expect(line.err).toMatchObject({ code: 'ECONNREFUSED' });
      expect(line.err).not.toHaveProperty('stack');
    }
  });

  it('rate-limits PostgreSQL connection errors per message, and leaves other errors (with stacks) alone', async () => {
    const { lines, logger } = capture({ level: 'info', repeatMs: 60_000 });
    const db = createDb(`postgresql://postgres@127.0.0.1:${await freePort()}/nothing`);
    for (let n = 0; n < 5; n++) {
      const error = await db.$queryRawUnsafe('SELECT 1').catch((caught: unknown) => caught);
      logger.warn({ err: error }, 'reconciler pass failed');
      logger.warn({ err: new Error('a real bug') }, 'reconciler pass failed');
    }
    await db.$disconnect();
    const outage = lines.filter((line) => (line.err as { message?: string }).message?.includes('127.0.0.1'));
    expect(outage).toHaveLength(1);
    expect(outage[0]!.err).toMatchObject({ message: expect.stringMatching(/^DatabaseNotReachable at 127\.0\.0\.1:\d+$/) });
    expect(outage[0]!.err).not.toHaveProperty('stack');
    const bugs = lines.filter((line) => (line.err as { message?: string }).message === 'a real bug');
    expect(bugs).toHaveLength(5);
    expect(bugs[0]!.err).toHaveProperty('stack');
  });
});
