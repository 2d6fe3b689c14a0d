// The `toolrun` command, run as people run it (the compiled bin, a child process) against a test
// server: run with live progress, watch, calls list/cancel/approve/reject, tasks list/cancel, and the keys
// commands with an admin key.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelTaskDocument } from '../gql/graphql.js';
import { childEnv, ensureBuilt } from '../support/build.js';
import { Child, type Exit } from '../support/cluster.js';
import { TEST_DATABASE_URL } from '../support/database.js';
import { newSession, submitBatch, waitForStatus } from '../support/fixtures.js';
import { spawnRun } from '../support/background.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

let app: Toolrun;
let url: string;
const children: Child[] = [];

beforeAll(async () => {
  await ensureBuilt();
  app = await startToolrun({ ENABLE_TEST_TOOLS: true });
  url = (await app.endpoint.wsUrl()).replace(/^ws/, 'http');
}, 300_000);
afterAll(async () => {
  await Promise.all(children.map((child) => child.stop(5000)));
  await app?.close();
});

function toolrun(args: string[], env: Record<string, string | undefined> = {}): Child {
  const child = new Child('toolrun-cli', process.execPath, ['dist/src/bin/toolrun.js', ...args], childEnv({ TOOLRUN_URL: url, TOOLRUN_API_KEY: app.apiKey, ...env }));
  children.push(child);
  return child;
}

/** Runs the CLI to its end; its output lines and exit. */
async function finished(args: string[], env: Record<string, string | undefined> = {}): Promise<{ exit: Exit; lines: string[]; text: string }> {
  const child = toolrun(args, env);
  const exit = await child.exited;
  const text = child.output().split('\n').slice(1).join('\n');
  return { exit, lines: text.split('\n'), text };
}

/** The statuses of a session's calls, sorted. */
async function callStatuses(sessionId: string): Promise<string[]> {
  type Read = { session: { batches: { nodes: Array<{ calls: { nodes: Array<{ status: string }> } }> } } };
  const read = await app.request<Read, { id: string }>('query($id: ID!) { session(id: $id) { batches { nodes { calls { nodes { status } } } } } }', { id: sessionId });
  return read.data!.session.batches.nodes.flatMap((batch) => batch.calls.nodes.map((call) => call.status)).sort();
}

describe('toolrun run', () => {
  it('runs a call in a new session, showing each progress report as a bar, and exits 0 with its value', async () => {
    const { exit, lines, text } = await finished(['run', 'report_progress', '--args', '{"steps":3,"intervalMs":50}']);
    expect(exit, text).toEqual({ code: 0, signal: null });
    expect(lines[0]).toMatch(/^session \S+/);
    const bars = lines.filter((line) => line.startsWith('report_progress  ['));
    // Progress is coalesced while a write is in flight: at least the last report arrives.
    expect(bars.length, text).toBeGreaterThanOrEqual(1);
    expect(bars.at(-1)).toMatch(/\[#{24}\] 100% 3\/3/);
    expect(text).toMatch(/SUCCEEDED in \d+ ms/);
  });

  it('shows what the call is doing: a status line keeps the bar, a retry says which attempt failed and when the next starts, an approval says so', { timeout: 120_000 }, async () => {
    // report_progress sets a status line before each step's progress: the bar stays where the tool put it.
    const steps = await finished(['run', 'report_progress', '--args', '{"steps":3,"intervalMs":100}']);
    expect(steps.exit.code, steps.text).toBe(0);
    const drawn = steps.lines.filter((line) => line.startsWith('report_progress  ') && !line.includes('started'));
    const firstBar = drawn.findIndex((line) => line.includes('['));
    expect(firstBar, steps.text).toBeGreaterThanOrEqual(0);
    expect(drawn.slice(firstBar).filter((line) => !line.includes('[')), steps.text).toEqual([]);

    // Between its attempts the call is not running: the line says the first attempt failed and when the second starts.
    const retried = await finished(['run', 'failing_tool', '--args', '{"retry":"SAFE","retryAfterMs":1000,"succeedOnAttempt":2}']);
    expect(retried.exit.code, retried.text).toBe(0);
    const retryLine = retried.lines.findIndex((line) => /^failing_tool {2}attempt 1 failed: EXECUTION\/intentional_failure: .+; attempt 2 in 1000 ms$/.test(line));
    expect(retryLine, retried.text).toBeGreaterThan(0);
    expect(retried.lines.slice(retryLine)).toContain('failing_tool  started (attempt 2/3)');

    // Approved, the call waits in the queue: the line no longer asks for an approval.
    const session = await newSession(app);
    const waiting = toolrun(['run', 'delete_file', '--args', '{"path":"/nothing.txt"}', '--session', session.id]);
    const asked = await waiting.waitForLine(/^delete_file {2}awaiting approval: toolrun calls approve /, 15_000);
    const callId = asked.split(' ').at(-1)!;
    const tenant = await app.services.apiKeys.tenant(app.tenantId);
    const approved = await finished(['calls', 'approve', session.id, callId], { TOOLRUN_API_KEY: await app.newKey(tenant.name, ['approver']) });
    expect(approved.exit.code, approved.text).toBe(0);
    await waiting.waitForLine(/^delete_file {2}approved; queued to run$/, 15_000);
    expect((await waiting.exited).code).toBe(1); // the file does not exist
  });

  it('exits 1 with the failure when the call fails, and 2 with the usage for bad arguments', { timeout: 120_000 }, async () => {
    const failed = await finished(['run', 'add', '--args', '{"a":"x"}']);
    expect(failed.exit.code, failed.text).toBe(1);
    expect(failed.text).toMatch(/FAILED in \d+ ms\nINVALID_REQUEST\//);
    const usage = await finished(['run', 'add', '--args', '{nope']);
    expect(usage.exit.code).toBe(2);
    expect(usage.text).toContain('--args is not JSON');
    expect(usage.text).toContain('usage: toolrun <command>');
    // Arguments that are JSON but no object are refused before anything is sent.
    const notObject = await finished(['run', 'add', '--args', '[1,2]']);
    expect(notObject.exit.code).toBe(2);
    expect(notObject.text).toContain('toolrun: --args must be a JSON object');
    const noTool = await finished(['run']);
    expect(noTool.exit.code).toBe(2);
    expect(noTool.lines[0]).toBe('toolrun: run: expected a tool name');
    // An empty --key does not fall back to TOOLRUN_API_KEY.
    const emptyKey = await finished(['tasks', 'list', randomUUID(), '--key', '']);
    expect(emptyKey.exit.code).toBe(2);
    expect(emptyKey.lines[0]).toBe('toolrun: --key is empty');
    // A word too many is a mistake, not something to ignore.
    const extra = await finished(['tasks', 'cancel', randomUUID(), 'extra']);
    expect(extra.exit.code).toBe(2);
    expect(extra.lines[0]).toBe('toolrun: tasks cancel: unexpected argument "extra"');
    // So is an option the command does not take: nothing is sent (the API here is unreachable).
    const away = { TOOLRUN_URL: 'http://127.0.0.1:9/graphql' };
    const stray = await finished(['keys', 'rotate', 'trk_AbCdEf', '--expires-in', '1d'], away);
    expect(stray.exit.code, stray.text).toBe(2);
    expect(stray.lines[0]).toBe('toolrun: keys rotate: --expires-in is not an option of this command (it takes --overlap)');
    const strayWatch = await finished(['watch', randomUUID(), '--reason', 'why'], away);
    expect(strayWatch.exit.code, strayWatch.text).toBe(2);
    expect(strayWatch.lines[0]).toBe('toolrun: watch: --reason is not an option of this command');
    // node's own option errors, several lines long, come as one line.
    const dashed = await finished(['keys', 'create', '--expires-in', '-1d'], away);
    expect(dashed.exit.code, dashed.text).toBe(2);
    expect(dashed.lines[0]).toMatch(/^toolrun: Option '--expires-in' argument is ambiguous\. Did you forget .+ use '--expires-in=-XYZ'\.$/);
    expect(dashed.lines[1]).toBe('usage: toolrun <command> [options]');
    const emptySession = await finished(['run', 'add', '--session', ''], away);
    expect(emptySession.exit.code, emptySession.text).toBe(2);
    expect(emptySession.lines[0]).toBe('toolrun: --session is empty');
  });

  it('says in one line when the key is refused or the API cannot be reached', { timeout: 120_000 }, async () => {
    const refused = await finished(['calls', 'list', 'some-session'], { TOOLRUN_API_KEY: 'trk_not_a_key' });
    expect(refused.exit.code).toBe(1);
    expect(refused.lines.filter(Boolean)).toHaveLength(1);
    const away = await finished(['calls', 'list', 'some-session'], { TOOLRUN_URL: 'http://127.0.0.1:9/graphql' });
    expect(away.exit.code).toBe(1);
    expect(away.text).toMatch(/^toolrun: cannot reach http:\/\/127\.0\.0\.1:9\/graphql/m);
  });

  it('says what a server that is not toolrun answered in one line, its control characters escaped', { timeout: 60_000 }, async () => {
    // A proxy's error page: several lines, and escape sequences a terminal would act on.
    const server = createServer((_request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' });
      response.end('<html>\n<body>\x1b[2J\x1b[31mBad gateway\x07</body>\n</html>\n');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const answered = await finished(['calls', 'list', 'some-session'], { TOOLRUN_URL: `http://127.0.0.1:${port}/graphql` });
      expect(answered.exit.code).toBe(1);
      expect(answered.lines.filter(Boolean), answered.text).toHaveLength(1);
      expect(answered.text).toContain('answered HTTP 502, not GraphQL: <html>\\n<body>\\u001b[2J\\u001b[31mBad gateway\\u0007</body>\\n</html>');
      expect(answered.text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    } finally {
      server.close();
    }
  });
});

describe('toolrun watch and calls', () => {
  it('run cancels its call on Ctrl-C, shows how it ended and exits 130; a second Ctrl-C stops watching at once, the cancel standing', { timeout: 120_000 }, async () => {
    const session = await newSession(app);
    const run = toolrun(['run', 'sleep', '--args', '{"ms":60000,"progressIntervalMs":200}', '--session', session.id]);
    await run.waitForLine(/^sleep {2}\[/, 15_000);
    run.process.kill('SIGINT');
    await run.waitForLine(/^sleep {2}cancelling… \(Ctrl-C again to stop watching; the cancel stands\)$/, 15_000);
    expect(await run.exited, run.output()).toEqual({ code: 130, signal: null });
    expect(run.output()).toMatch(/^CANCELLED in \d+ ms$/m);
    expect(await callStatuses(session.id)).toEqual(['CANCELLED']);

    // A tool that takes its time to stop: the second Ctrl-C leaves at once, and the call still ends cancelled.
    const stubborn = toolrun(['run', 'sleep', '--args', '{"ms":60000,"progressIntervalMs":200}', '--session', session.id]);
    await stubborn.waitForLine(/^sleep {2}\[/, 15_000);
    stubborn.process.kill('SIGINT');
    stubborn.process.kill('SIGINT');
    expect(await stubborn.exited, stubborn.output()).toEqual({ code: 130, signal: null });
    await expect.poll(() => callStatuses(session.id), { timeout: 15_000 }).toEqual(['CANCELLED', 'CANCELLED']);
  });

  it('watch shows the live table as calls start and complete', async () => {
    const session = await newSession(app);
    const watch = toolrun(['watch', session.id]);
    await watch.waitForLine(/^CALL\s+TOOL\s+STATUS/, 15_000);
    const batch = await submitBatch(app, { sessionId: session.id, calls: [{ id: 'w-add', tool: 'add', args: { a: 2, b: 3 } }] });
    expect(batch.batchId).toBeTruthy();
    const line = await watch.waitForLine(/^w-add\s+add\s+SUCCEEDED/, 15_000);
    expect(line).toMatch(/\d+ ms\s+\{"result":5\}|\d+ ms\s+5/);
    expect(await watch.stop(5000)).toMatchObject({ signal: 'SIGTERM' });
  });

  it('watch and run say they are reconnecting while the API cannot be reached, then resume where they were', { timeout: 120_000 }, async () => {
    // The CLI reaches the API through a proxy the test can cut: a network loss, then the API back.
    const proxy = await startTcpProxy(Number(new URL(url).port));
    const through = { TOOLRUN_URL: `http://127.0.0.1:${proxy.port}/graphql` };
    try {
      const session = await newSession(app);
      const watch = toolrun(['watch', session.id], through);
      await watch.waitForLine(/^CALL\s+TOOL\s+STATUS/, 15_000);
      const run = toolrun(['run', 'sleep', '--args', '{"ms":4000,"progressIntervalMs":200}', '--session', session.id], through);
      await run.waitForLine(/^sleep {2}\[/, 15_000);
      proxy.refusing = true;
      proxy.cut();
      await watch.waitForLine(/^reconnecting to http:\/\/127\.0\.0\.1:\d+\/graphql… \(it resumes from the last event shown\)$/, 15_000);
      await run.waitForLine(/^reconnecting to http:\/\/127\.0\.0\.1:\d+\/graphql…/, 15_000);
      proxy.refusing = false;
      await watch.waitForLine(/^cli-\S+\s+sleep\s+SUCCEEDED/, 30_000);
      expect(await run.exited, run.output()).toMatchObject({ code: 0 });
      expect(run.output()).toMatch(/^SUCCEEDED in \d+ ms$/m);
      expect(await watch.stop(5000)).toMatchObject({ signal: 'SIGTERM' });
    } finally {
      proxy.close();
    }
  });

  it('watch shows a call waiting for its next attempt as retrying, with why, and the new attempt afresh', async () => {
    const session = await newSession(app);
    const watch = toolrun(['watch', session.id]);
    await watch.waitForLine(/^CALL\s+TOOL\s+STATUS/, 15_000);
    await submitBatch(app, { sessionId: session.id, calls: [{ id: 'w-retry', tool: 'failing_tool', args: { retry: 'SAFE', retryAfterMs: 1500, succeedOnAttempt: 2 } }] });
    await watch.waitForLine(/^w-retry\s+failing_tool\s+RETRYING\s+1\/3\s+attempt 1 failed: EXECUTION\/intentional_failure: .+; attempt 2 in 1500 ms$/, 15_000);
    await watch.waitForLine(/^w-retry\s+failing_tool\s+SUCCEEDED\s+2\/3\s+\d+ ms\s+\{"succeededOnAttempt":2\}$/, 15_000);
    expect(await watch.stop(5000)).toMatchObject({ signal: 'SIGTERM' });
  });

  it('lists, cancels, approves and rejects calls', { timeout: 180_000 }, async () => {
    const session = await newSession(app);
    await submitBatch(app, {
      sessionId: session.id,
      calls: [
        { id: 'slow', tool: 'sleep', args: { ms: 60_000 } },
        { id: 'del', tool: 'delete_file', args: { path: '/nothing.txt' } },
        { id: 'del-2', tool: 'delete_file', args: { path: '/keep.txt' } },
      ],
    });
    await waitForStatus(app, 'slow', session.id, 'RUNNING');
    await waitForStatus(app, 'del', session.id, 'AWAITING_APPROVAL');

    const listed = await finished(['calls', 'list', session.id]);
    expect(listed.exit.code, listed.text).toBe(0);
    expect(listed.text).toMatch(/^slow\s+sleep\s+RUNNING/m);
    expect(listed.text).toMatch(/^del\s+delete_file\s+AWAITING_APPROVAL/m);

    // The key that submitted may not approve its own call: an approver's key does.
    const tenant = await app.services.apiKeys.tenant(app.tenantId);
    const approver = await app.newKey(tenant.name, ['approver']);
    const own = await finished(['calls', 'approve', session.id, 'del']);
    expect(own.exit.code).toBe(1);
    expect(own.text).toMatch(/^toolrun: FORBIDDEN/m);
    const approved = await finished(['calls', 'approve', session.id, 'del'], { TOOLRUN_API_KEY: approver });
    expect(approved.exit.code, approved.text).toBe(0);
    expect(approved.text).toMatch(/^del\s+(QUEUED|RUNNING|FAILED|SUCCEEDED)/m);
    const noReason = await finished(['calls', 'reject', session.id, 'del-2'], { TOOLRUN_API_KEY: approver });
    expect(noReason.exit.code).toBe(2);
    expect(noReason.text).toContain('--reason is required');
    const rejected = await finished(['calls', 'reject', session.id, 'del-2', '--reason', 'keep that file'], { TOOLRUN_API_KEY: approver });
    expect(rejected.exit.code, rejected.text).toBe(0);
    expect(rejected.text).toMatch(/^del-2\s+FAILED/m);
    // Cancelling a call that already ended says that nothing was cancelled.
    const late = await finished(['calls', 'cancel', session.id, 'del-2']);
    expect(late.exit.code, late.text).toBe(0);
    expect(late.text).toMatch(/^del-2 {2}FAILED \(it had already ended: nothing was cancelled\)$/m);
    const outcome = await app.request(`query { toolCall(sessionId: "${session.id}", callId: "del-2") { outcome } }`);
    expect(JSON.stringify(outcome.data)).toContain('keep that file');

    const cancelled = await finished(['calls', 'cancel', session.id, 'slow']);
    expect(cancelled.exit.code, cancelled.text).toBe(0);
    await waitForStatus(app, 'slow', session.id, 'CANCELLED');
    const unknown = await finished(['calls', 'cancel', session.id, 'no-such-call']);
    expect(unknown.exit.code).toBe(1);
    expect(unknown.text).toMatch(/^toolrun: NOT_FOUND/m);
  });
});

describe('toolrun tasks', () => {
  it('lists and cancels background runs', { timeout: 120_000 }, async () => {
    const session = await newSession(app);
    const run = await spawnRun(app, { sessionId: session.id, tool: 'report_progress', args: { steps: 100, intervalMs: 500 }, title: 'long one' });
    const listed = await finished(['tasks', 'list', session.id]);
    expect(listed.exit.code, listed.text).toBe(0);
    expect(listed.text).toMatch(new RegExp(`^${run.taskId}\\s+background_tool\\s+\\w+\\s+report_progress\\s+long one`, 'm'));
    const cancelled = await finished(['tasks', 'cancel', run.taskId]);
    expect(cancelled.exit.code, cancelled.text).toBe(0);
    expect(cancelled.text).toMatch(new RegExp(`^${run.taskId}\\s+(RUNNING \\(cancel requested; it ends when its worker stops it\\)|CANCELED)$`, 'm'));

    // A title anyone with a key may set cannot clear or recolour the terminal, nor split its row.
    const hostile = await spawnRun(app, { sessionId: session.id, tool: 'report_progress', args: { steps: 1 }, title: '\u001b[2J\u001b[31mFAKE\nline2\r' });
    const shown = await finished(['tasks', 'list', session.id]);
    expect(shown.exit.code, shown.text).toBe(0);
    expect(shown.text).not.toMatch(/[\u001b\r]/);
    expect(shown.text).toMatch(new RegExp(`^${hostile.taskId}\\s.*\\\\u001b\\[2J\\\\u001b\\[31mFAKE\\\\nline2\\s`, 'm'));
    // A session that is not the key's tenant's is not found (not an empty list).
    const missing = await finished(['tasks', 'list', randomUUID()]);
    expect(missing.exit.code, missing.text).toBe(1);
    expect(missing.text).toMatch(/not found/i);
  });
});

describe('toolrun calls list and tasks list', () => {
  // A worker-less toolrun: the calls stay queued and a cancelled queued run ends at once, so a
  // session holds as many rows as the test makes, whatever the background-run limits.
  let lists: Toolrun;
  let listsUrl: string;
  beforeAll(async () => {
    lists = await startToolrun({}, { worker: false });
    listsUrl = (await lists.endpoint.wsUrl()).replace(/^ws/, 'http');
  }, 120_000);
  afterAll(() => lists?.close());

  it('prints every call of a session: more batches than a page, and more calls in a batch than a page', { timeout: 120_000 }, async () => {
    const session = await newSession(lists);
    await submitBatch(lists, { sessionId: session.id, calls: Array.from({ length: 150 }, (_, index) => ({ id: `big-${index}`, tool: 'add', args: { a: index, b: 1 } })) });
    for (let index = 0; index < 20; index += 1) await submitBatch(lists, { sessionId: session.id, calls: [{ id: `small-${index}`, tool: 'add', args: { a: index, b: 1 } }] });
    const listed = await finished(['calls', 'list', session.id], { TOOLRUN_URL: listsUrl, TOOLRUN_API_KEY: lists.apiKey });
    expect(listed.exit.code, listed.text).toBe(0);
    const calls = listed.lines.slice(1).filter(Boolean).map((line) => line.split(/\s+/)[0]!);
    const big = Array.from({ length: 150 }, (_, index) => `big-${index}`);
    expect([...calls].sort()).toEqual([...big, ...Array.from({ length: 20 }, (_, index) => `small-${index}`)].sort());
    // The oldest batch last, its calls in input order.
    expect(calls.slice(20)).toEqual(big);
  });

  it('stops quietly when its reader stops reading (`calls list … | head`)', { timeout: 120_000 }, async () => {
    const session = await newSession(lists);
    // More output than a pipe holds, so that writing goes on after the reader is gone.
    await submitBatch(lists, { sessionId: session.id, calls: Array.from({ length: 1000 }, (_, index) => ({ id: `many-${index}`, tool: 'add', args: { a: index, b: 1 } })) });
    // A real pipe (a child's stdio pipe would be a socket, holding more than a pipe does), closed by `head`.
    const child = spawn('sh', ['-c', `(${JSON.stringify(process.execPath)} dist/src/bin/toolrun.js calls list ${session.id}; echo "exit $?" >&2) | head -n 1`], {
      env: childEnv({ TOOLRUN_URL: listsUrl, TOOLRUN_API_KEY: lists.apiKey }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await once(child, 'exit');
    expect(stdout).toMatch(/^CALL\s+TOOL\s+STATUS/);
    expect(stderr).toBe('exit 0\n');
  });

  it('prints every task of a session, more than a page of them', { timeout: 120_000 }, async () => {
    const session = await newSession(lists);
    const taskIds: string[] = [];
    // Five at a time, the most a session may have active (no worker here: cancelled while queued).
    while (taskIds.length < 101) {
      const runs = await Promise.all(
        Array.from({ length: Math.min(5, 101 - taskIds.length) }, () => spawnRun(lists, { sessionId: session.id, tool: 'report_progress', args: { steps: 1, intervalMs: 10 } })),
      );
      const cancelled = await Promise.all(runs.map((run) => lists.query(CancelTaskDocument, { id: run.taskId })));
      for (const result of cancelled) expect(result.cancelTask).toMatchObject({ __typename: 'Task', state: 'CANCELED' });
      taskIds.push(...runs.map((run) => run.taskId));
    }
    const listed = await finished(['tasks', 'list', session.id], { TOOLRUN_URL: listsUrl, TOOLRUN_API_KEY: lists.apiKey });
    expect(listed.exit.code, listed.text).toBe(0);
    expect(listed.lines.slice(1).filter(Boolean).map((line) => line.split(/\s+/)[0]).sort()).toEqual(taskIds.sort());
  });
});

describe('toolrun keys', () => {
  it('creates, lists, rotates and revokes the keys of the admin key’s tenant', { timeout: 300_000 }, async () => {
    // A tenant of its own, whose first (admin) key comes from the database as `npm run apikey` makes it.
    const tenant = `cli-${randomUUID().slice(0, 8)}`;
    const { key: adminKey } = await app.services.apiKeys.createKey(tenant, { name: 'operator', roles: ['admin'] });
    const env = { TOOLRUN_API_KEY: adminKey };
    const created = await finished(['keys', 'create', '--name', 'ci', '--roles', 'submitter,admin', '--expires-in', '30d'], env);
    expect(created.exit.code, created.text).toBe(0);
    const key = /^key\s+(trk_\S+)$/m.exec(created.text)![1]!;
    const id = /^id\s+(\S+)$/m.exec(created.text)![1]!;
    expect(await app.services.apiKeys.authenticate(key)).toMatchObject({ roles: ['submitter', 'admin'] });

    const listed = await finished(['keys', 'list'], env);
    expect(listed.text).toMatch(new RegExp(`^${id}\\s+${key.slice(0, 10)}…\\s+ci\\s+submitter,admin\\s+\\S+\\s+active until \\S+\\s+\\S+$`, 'm'));
    expect(listed.text).toMatch(/^\S+\s+trk_\S+…\s+operator\s+admin\s+\S+\s+active\s+\d{4}-/m);

    const rotated = await finished(['keys', 'rotate', key.slice(0, 10), '--overlap', '1h'], env);
    expect(rotated.exit.code, rotated.text).toBe(0);
    const newKey = /^key\s+(trk_\S+)$/m.exec(rotated.text)![1]!;
    const newId = /^id\s+(\S+)$/m.exec(rotated.text)![1]!;
    expect(await app.services.apiKeys.authenticate(newKey)).toMatchObject({ roles: ['submitter', 'admin'] });
    // The old key keeps working for the overlap, and the command says until when.
    expect(rotated.text).toMatch(/^old key trk_\S+… \(\S+\) works until \d{4}-\d\d-\d\dT/m);
    expect(await app.services.apiKeys.authenticate(key)).not.toBeNull();

    const revoked = await finished(['keys', 'revoke', newId], env);
    expect(revoked.exit.code, revoked.text).toBe(0);
    const after = await finished(['keys', 'list'], env);
    expect(after.text).toMatch(new RegExp(`^${newId}\\s.*revoked`, 'm'));
    expect(await app.services.apiKeys.authenticate(newKey)).toBeNull();

    // Without --name the key is named `default`, as the usage says.
    const unnamed = await finished(['keys', 'create', '--roles', 'reader'], env);
    expect(unnamed.exit.code, unnamed.text).toBe(0);
    const unnamedKey = /^key\s+(trk_\S+)$/m.exec(unnamed.text)![1]!;

    // Without --overlap the old key is refused at once, and the command says so (not "works until").
    const atOnce = await finished(['keys', 'rotate', unnamedKey.slice(0, 10)], env);
    expect(atOnce.exit.code, atOnce.text).toBe(0);
    expect(atOnce.text).toMatch(/^old key trk_\S+… \(\S+\) refused from \d{4}-\d\d-\d\dT\S+$/m);
    expect(await app.services.apiKeys.authenticate(unnamedKey)).toBeNull();
    expect((await finished(['keys', 'list'], env)).text).toMatch(new RegExp(`^\\S+\\s+${unnamedKey.slice(0, 10)}…\\s+default\\s+reader\\s`, 'm'));
    expect((await finished(['--help'])).text).toContain('keys create [--name N] [--roles R,…] [--expires-in 90d]');

    // A duration past 100 years is refused in one line naming the option, before anything is sent.
    const keysBefore = (await finished(['keys', 'list'], env)).lines.filter(Boolean).length;
    for (const expiresIn of ['99999999999d', '36501d']) {
      const tooLong = await finished(['keys', 'create', '--name', 'far', '--expires-in', expiresIn], env);
      expect(tooLong.exit.code, tooLong.text).toBe(1);
      expect(tooLong.text.trim()).toBe('toolrun: --expires-in must be at most 36500d (100 years)');
    }
    expect((await finished(['keys', 'list'], env)).lines.filter(Boolean)).toHaveLength(keysBefore);
    const longest = await finished(['keys', 'create', '--name', 'far', '--roles', 'reader', '--expires-in', '36500d'], env);
    expect(longest.exit.code, longest.text).toBe(0);

    // The API keeps an old key at most 30 days after a rotation: the CLI says so before asking.
    const longOverlap = await finished(['keys', 'rotate', 'trk_nothing', '--overlap', '31d'], env);
    expect(longOverlap.exit.code, longOverlap.text).toBe(1);
    expect(longOverlap.text.trim()).toBe('toolrun: --overlap must be at most 30d');

    const missing = await finished(['keys', 'revoke', 'trk_nothing'], env);
    expect(missing.exit.code).toBe(1);
    expect(missing.lines.filter(Boolean)).toHaveLength(1);
    // A key without the admin role is refused, in one line.
    const { key: submitterKey } = await app.services.apiKeys.createKey(tenant, { name: 'agent', roles: ['submitter'] });
    const refused = await finished(['keys', 'list'], { TOOLRUN_API_KEY: submitterKey });
    expect(refused.exit.code).toBe(1);
    expect(refused.lines.filter(Boolean)).toHaveLength(1);
  });
});
