// The dashboard in a real browser (Debian's chromium driven by playwright-core) against a real
// toolrun: an API process serving the built dashboard and a worker process, sharing a database
// of their own. Each scenario of issue 12 is one test; they share the processes and the browser.
// DASHBOARD_SCREENSHOTS=1 also writes the screenshots of the main views that the README shows.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyService } from '../../src/domain/tenants/api-keys.js';
import { CALL_EVENT_TYPES } from '../../src/model/events.js';
import {
  ApproveToolCallDocument,
  CancelToolBatchDocument,
  CompleteToolCallDocument,
  CreateSessionDocument,
  ExecuteToolBatchDocument,
  GetToolBatchDocument,
  GetToolCallDocument,
  RegisterExternalToolDocument,
  RejectToolCallDocument,
  SpawnBackgroundDocument,
  SystemStatusDocument,
  TenantCursorDocument,
  TenantEventsDocument,
} from '../gql/graphql.js';
import { ROOT } from '../support/build.js';
import { type ApiProcess, Cluster } from '../support/cluster.js';
import { eventually } from '../support/wait.js';

const CHROMIUM = '/usr/bin/chromium';
interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}
const SCREENSHOTS = process.env.DASHBOARD_SCREENSHOTS === '1';

describe.skipIf(!existsSync(CHROMIUM))('the dashboard in a browser', { timeout: 60_000 }, () => {
  let cluster: Cluster;
  let api: ApiProcess;
  let browser: Browser;
  let page: Page;
  /** A key with submitter and approver roles: the browser's (approvals need a key other than the submitter's). */
  let operatorKey: string;
  let readerKey: string;
  let base: string;

  beforeAll(async () => {
    // The browser starts while the processes do. (Cluster.start brings dist/, the dashboard included, up to date.)
    // Assigned as soon as it runs, so that afterAll closes it whatever fails meanwhile.
    const launching = chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] }).then((launched) => (browser = launched));
    cluster = await Cluster.start();
    const keys = new ApiKeyService(cluster.db);
    operatorKey = (await keys.createKey(`cluster-${cluster.id}`, { name: 'operator', roles: ['submitter', 'approver'] })).key;
    readerKey = (await keys.createKey(`cluster-${cluster.id}`, { name: 'reader', roles: ['reader'] })).key;
    [api] = await Promise.all([cluster.startApi('api'), cluster.startWorker('worker'), launching]);
    base = `http://127.0.0.1:${api.port}`;
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await cluster?.close();
  });

  const shot = async (name: string) => {
    if (SCREENSHOTS) await page.screenshot({ path: `${ROOT}docs/screenshots/${name}.png` });
  };
  const signIn = async (key: string) => {
    await page.goto(base);
    // Whoever was signed in in this tab is forgotten first.
    if (await page.evaluate(() => sessionStorage.getItem('toolrun.apiKey'))) {
      await page.evaluate(() => sessionStorage.removeItem('toolrun.apiKey'));
      await page.reload();
    }
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
  };
  /** Signed in with the operator key (each test may run alone). */
  const asOperator = async () => {
    if (page.url().startsWith(base) && (await page.evaluate(() => sessionStorage.getItem('toolrun.apiKey'))) === operatorKey) return;
    await signIn(operatorKey);
  };
  const newSession = async (title: string) => {
    const created = await api.query(CreateSessionDocument, { title });
    if (created.createSession.__typename !== 'Session') throw new Error(JSON.stringify(created.createSession));
    return created.createSession;
  };
  const submit = async (sessionId: string, calls: Array<{ id?: string; tool: string; args: unknown }>) => {
    const result = await api.query(ExecuteToolBatchDocument, { sessionId, calls });
    if (result.executeToolBatch.__typename !== 'ToolBatch') throw new Error(JSON.stringify(result.executeToolBatch));
    return result.executeToolBatch;
  };
  const openSession = async (sessionId: string) => {
    await page.evaluate((path) => {
      history.pushState(null, '', path);
      dispatchEvent(new PopStateEvent('popstate'));
    }, `/sessions/${sessionId}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
  };
  const row = (callId: string) => page.locator(`.call[data-call-id="${callId}"]`);
  /** A link of the main navigation (session titles in the lists may hold the same words). */
  const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
  /** The GraphQL operations the page sends over HTTP from now on (urql sends queries as GET; streams go over the WebSocket). */
  const recordQueries = () => {
    const sent: string[] = [];
    const onRequest = (request: { url(): string; method(): string; postData(): string | null }) => {
      const url = new URL(request.url());
      if (url.pathname !== '/graphql') return;
      const document = request.method() === 'GET' ? url.searchParams.get('query') : (JSON.parse(request.postData() ?? '{}') as { query?: string }).query;
      sent.push(/^\s*(?:query|mutation)\s+(\w+)/.exec(document ?? '')?.[1] ?? '?');
    };
    page.on('request', onRequest);
    return { sent, stop: () => page.off('request', onRequest) };
  };
  /**
   * Resolves once the page has sent no GraphQL request over HTTP for `quietMs` in a row: a page that
   * polls at any shorter interval never gets there, and the test fails on the timeout.
   */
  const noQueryFor = async (quietMs: number) => {
    let last = Date.now();
    const onRequest = (request: { url(): string }) => {
      if (new URL(request.url()).pathname === '/graphql') last = Date.now();
    };
    page.on('request', onRequest);
    try {
      await eventually(async () => Date.now() - last >= quietMs, 30_000, 100, `${quietMs} ms without a query`);
    } finally {
      page.off('request', onRequest);
    }
  };

  it('signs in with a key held in sessionStorage; a reader key watches, with buttons that need a role disabled and saying which', async () => {
    await page.goto(base);
    expect(page.url()).not.toContain('trk_');
    await signIn(readerKey);
    expect(page.url()).not.toContain(readerKey);
    expect(await page.evaluate(() => sessionStorage.getItem('toolrun.apiKey'))).toBe(readerKey);
    await expect.poll(() => page.locator('.who').textContent()).toContain('reader');
    const create = page.getByRole('button', { name: 'New session' });
    expect(await create.isDisabled()).toBe(true);
    expect(await create.getAttribute('title')).toBe('Needs an API key with the submitter role');
    // Why is on screen, not only in a tooltip (no hover on a phone or with a keyboard), and the button
    // takes the focus, described by it.
    const reason = page.locator(`#${await create.getAttribute('aria-describedby')}`);
    expect(await reason.isVisible()).toBe(true);
    expect(await reason.textContent()).toContain('no submitter role');
    expect(await page.getByText('This API key has no approver role').isVisible()).toBe(true);
    await create.focus();
    expect(await create.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    expect(new URL(page.url()).pathname).toBe('/');
    // A reload keeps the key (same tab); signing out forgets it.
    await page.reload();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(await page.evaluate(() => sessionStorage.getItem('toolrun.apiKey'))).toBeNull();
    await signIn(operatorKey);
    expect(await page.getByRole('button', { name: 'New session' }).isDisabled()).toBe(false);
  });

  it('runs a batch from the "try it" form and shows every bar complete', async () => {
    await asOperator();
    await nav('Tools').click();
    await page.locator('[data-tool="sleep"]').click();
    await page.getByLabel('ms *').fill('400');
    await page.getByLabel('Calls in the batch').fill('6');
    await shot('tools');
    await page.getByRole('button', { name: 'Run batch' }).click();
    await page.waitForURL(/\/sessions\/[0-9a-f-]+\?batch=/);
    const batch = page.locator('.batch').first();
    await expect.poll(() => batch.getAttribute('data-batch-status'), { timeout: 30_000 }).toBe('COMPLETED');
    const statuses = await page.locator('.call').evaluateAll((rows) => rows.map((el) => el.getAttribute('data-status')));
    expect(statuses).toEqual(Array(6).fill('SUCCEEDED'));
    expect(await page.locator('.bar-succeeded').count()).toBe(6);
    // Generated call ids share their start (a UUIDv7's timestamp): the rows still tell them apart.
    expect(new Set(await page.locator('.call-name .mono').allTextContents()).size).toBe(6);
    await shot('batch');
    // The drawer of a call: its arguments, output and what the model sees, read once.
    const detailReads: string[] = [];
    const countDetail = (request: { url(): string; postData(): string | null }) => {
      if (`${request.url()} ${request.postData() ?? ''}`.includes('CallDetail')) detailReads.push(request.url());
    };
    page.on('request', countDetail);
    await page.locator('.call-name').first().click();
    const drawer = page.getByRole('dialog');
    await expect.poll(() => drawer.textContent()).toContain('sleptMs');
    expect(await drawer.textContent()).toContain('ms: 400');
    await page.waitForTimeout(500);
    page.off('request', countDetail);
    expect(detailReads).toHaveLength(1);
    await shot('call-drawer');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
    // Focus goes back to the row that opened it.
    expect(await page.evaluate(() => document.activeElement?.classList.contains('call-name') ?? false)).toBe(true);
    // Escape closes it also when the focus has left it.
    await page.locator('.call-name').nth(1).click();
    await drawer.waitFor();
    await page.getByRole('heading', { level: 1 }).click();
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
    // The tabs: one tab stop, arrow keys (and Home, End) move between them.
    const selectedTab = () => page.evaluate(() => [document.activeElement?.textContent ?? '', document.querySelector('[role=tab][aria-selected=true]')?.textContent ?? '']);
    await page.getByRole('tab', { name: /^Batches/ }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await selectedTab()).toEqual(['Background tasks', 'Background tasks']);
    await page.keyboard.press('End');
    expect((await selectedTab())[1]).toMatch(/^Events/);
    await page.keyboard.press('ArrowRight');
    expect((await selectedTab())[1]).toMatch(/^Batches/);
    // The first keyboard stop of a page skips to its content.
    await page.reload();
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
  });

  it("describes each field of the try-it form by its parameter's description (select, text, number, checkbox, JSON)", async () => {
    await asOperator();
    await nav('Tools').click();
    await page.locator('[data-tool="failing_tool"]').click();
    const description = async (label: string) => {
      const field = page.getByLabel(label, { exact: true });
      const ids = (await field.getAttribute('aria-describedby'))?.split(' ') ?? [];
      return (await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()))).join(' ');
    };
    expect(await description('class')).toBe('Failure class');
    expect(await description('code')).toBe('Failure code');
    expect(await description('retryAfterMs')).toBe('With retry SAFE: wait this long before the next attempt');
    expect(await description('internal')).toContain('Throw a plain Error');
    expect(await description('raw')).toContain('raw value');
  });

  it('sends what a required field of the try-it form says: an untouched required checkbox is false, a required choice must be made; a default shows as such', async () => {
    await asOperator();
    const parametersSchema = {
      type: 'object',
      required: ['confirm', 'mode'],
      properties: {
        confirm: { type: 'boolean', description: 'Say yes' },
        mode: { enum: ['fast', 'slow'] },
        verbose: { type: 'boolean', default: true },
        unit: { enum: ['c', 'f'], default: 'c' },
      },
    };
    const registered = await api.query(RegisterExternalToolDocument, { input: { name: 'try_required', description: 'required fields', parametersSchema } });
    expect(registered.registerExternalTool.__typename).toBe('ToolDefinition');
    // The catalogue as it is now (a page open since an earlier scenario read it before this tool existed).
    await page.goto(`${base}/tools`);
    await page.locator('[data-tool="try_required"]').click();
    const mode = page.getByLabel('mode *', { exact: true });
    expect(await mode.locator('option').first().textContent()).toBe('(choose one)');
    expect(await page.getByLabel('unit', { exact: true }).locator('option').first().textContent()).toBe('(default: c)');
    // A checkbox shows the value the tool will get: its default until it is clicked.
    expect(await page.getByLabel('verbose', { exact: true }).isChecked()).toBe(true);
    expect(await page.getByLabel('confirm *', { exact: true }).isChecked()).toBe(false);
    // No choice made: the browser keeps the form (and says why), nothing is sent.
    await page.getByRole('button', { name: 'Run batch' }).click();
    expect(await mode.evaluate((element) => (element as HTMLSelectElement).validationMessage)).not.toBe('');
    expect(new URL(page.url()).pathname).toBe('/tools');
    await mode.selectOption({ label: 'slow' });
    await page.getByRole('button', { name: 'Run batch' }).click();
    await page.waitForURL(/\/sessions\/[0-9a-f-]+\?batch=/, { timeout: 15_000 });
    const url = new URL(page.url());
    const sessionId = url.pathname.split('/').at(-1)!;
    const batchId = url.searchParams.get('batch')!;
    const read = await api.request<{ toolBatch: { calls: { nodes: Array<{ status: string; args: unknown }> } } }, { s: string; b: string }>(
      'query($s: ID!, $b: String!) { toolBatch(sessionId: $s, batchId: $b) { calls { nodes { status args } } } }',
      { s: sessionId, b: batchId },
    );
    const [call] = read.data!.toolBatch.calls.nodes;
    expect(call!.args).toEqual({ confirm: false, mode: 'slow' });
    expect(call!.status).not.toBe('FAILED');
    // The call waits for an external completion: cancelled, so that no call of this scenario is left unfinished.
    await api.query(CancelToolBatchDocument, { sessionId, batchId });
  });

  it('takes a JSON field of the try-it form again once its bad JSON is cleared, saying meanwhile what is wrong', async () => {
    await asOperator();
    await nav('Tools').click();
    await page.locator('[data-tool="failing_tool"]').click();
    const raw = page.getByLabel('raw', { exact: true });
    await raw.fill('{not json');
    expect(await raw.getAttribute('aria-invalid')).toBe('true');
    expect(await raw.evaluate((element) => (element as HTMLTextAreaElement).validationMessage)).toBe('Not valid JSON');
    // Said on the page as well, not only in the browser's bubble on submission.
    const why = page.locator(`#${(await raw.getAttribute('aria-describedby'))!.split(' ').join(', #')}`);
    expect((await why.allTextContents()).join(' ')).toContain('Not valid JSON');
    await page.getByRole('button', { name: 'Run batch' }).click();
    expect(new URL(page.url()).pathname).toBe('/tools');
    // Emptied, the field is no argument: nothing is wrong with it any more.
    await raw.fill('');
    expect(await raw.evaluate((element) => (element as HTMLTextAreaElement).validationMessage)).toBe('');
    expect(await raw.getAttribute('aria-invalid')).not.toBe('true');
    await page.getByRole('button', { name: 'Run batch' }).click();
    await page.waitForURL(/\/sessions\/[0-9a-f-]+\?batch=/, { timeout: 15_000 });
  });

  it('shows a batch whose calls all wait in the queue (every worker slot busy), before any event of it', async () => {
    await asOperator();
    // 150 long sleeps of the same tenant take every call slot of the worker (64) and queue the rest.
    const busy = await newSession('busy');
    const filler = await submit(busy.sessionId, Array.from({ length: 150 }, (_, index) => ({ id: `fill-${index}`, tool: 'sleep', args: { ms: 30_000 } })));
    const waiting = await newSession('waiting');
    await openSession(waiting.sessionId);
    await submit(waiting.sessionId, [{ id: 'queued-add', tool: 'add', args: { a: 1, b: 2 } }]);
    const row = page.locator('.call[data-call-id="queued-add"]');
    try {
      await row.waitFor({ timeout: 15_000 });
      expect(await row.getAttribute('data-status')).toBe('QUEUED');
    } finally {
      await api.query(CancelToolBatchDocument, { sessionId: busy.sessionId, batchId: filler.batchId });
    }
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 20_000 }).toBe('SUCCEEDED');
  });

  it('counts in the sessions list a batch whose calls all wait in the queue (every worker slot busy), before any event of it', async () => {
    await asOperator();
    await nav('Sessions').click();
    const busy = await newSession('busy for the list');
    const filler = await submit(busy.sessionId, Array.from({ length: 150 }, (_, index) => ({ id: `fill-${index}`, tool: 'sleep', args: { ms: 30_000 } })));
    try {
      const waiting = await newSession('waits in the queue');
      const listRow = page.locator(`tr[data-session-id="${waiting.sessionId}"]`);
      await listRow.waitFor({ timeout: 15_000 });
      await submit(waiting.sessionId, [{ id: 'queued-add', tool: 'add', args: { a: 1, b: 2 } }]);
      await expect.poll(() => listRow.getAttribute('data-batches'), { timeout: 15_000 }).toBe('1');
      expect(await listRow.getAttribute('data-calls')).toBe('1');
      expect(await listRow.getAttribute('data-unfinished')).toBe('1');
      expect((await api.query(GetToolCallDocument, { sessionId: waiting.sessionId, callId: 'queued-add' })).toolCall?.status).toBe('QUEUED');
    } finally {
      await api.query(CancelToolBatchDocument, { sessionId: busy.sessionId, batchId: filler.batchId });
    }
  });

  it('draws a call waiting for its external completion striped amber from its start, after its grey wait in the queue', async () => {
    await asOperator();
    const registered = await api.query(RegisterExternalToolDocument, { input: { name: 'dashboard_external', description: 'completed by the test', parametersSchema: { type: 'object' } } });
    expect(registered.registerExternalTool.__typename).toBe('ToolDefinition');
    const session = await newSession('external');
    const batch = await submit(session.sessionId, [{ id: 'ext', tool: 'dashboard_external', args: {} }]);
    await openSession(session.sessionId);
    await expect.poll(() => row('ext').getAttribute('data-status'), { timeout: 15_000 }).toBe('PENDING_EXTERNAL');
    await page.waitForTimeout(1500);
    const bars = await row('ext')
      .locator('.bar')
      .evaluateAll((elements) => elements.map((element) => ({ className: element.className, background: getComputedStyle(element).backgroundImage, width: element.getBoundingClientRect().width })));
    const wait = bars.find((bar) => bar.className.includes('bar-wait'))!;
    const held = bars.find((bar) => bar.className.includes('bar-pending_external'))!;
    // The wait in the queue ended when the call started: grey. Since then it waits for its completion: striped, and growing.
    expect(wait.className).not.toContain('bar-hold');
    expect(held.background).toContain('repeating-linear-gradient');
    expect(held.width).toBeGreaterThan(wait.width);
    // Nothing completes it: cancelled, so that no call of this scenario is left unfinished.
    await api.query(CancelToolBatchDocument, { sessionId: session.sessionId, batchId: batch.batchId });
    await expect.poll(() => row('ext').getAttribute('data-status'), { timeout: 15_000 }).toBe('CANCELLED');
  });

  it('shows in a call\'s drawer a timeout only where one applies, and an external deadline only while the call waits for its completion', async () => {
    await asOperator();
    const registered = await api.query(RegisterExternalToolDocument, { input: { name: 'drawer_external', description: 'completed by the test', parametersSchema: { type: 'object' } } });
    expect(registered.registerExternalTool.__typename).toBe('ToolDefinition');
    const expiring = await api.query(RegisterExternalToolDocument, { input: { name: 'drawer_expiring', description: 'never completed', parametersSchema: { type: 'object' }, timeoutMs: 300 } });
    expect(expiring.registerExternalTool.__typename).toBe('ToolDefinition');
    const session = await newSession('timeouts and deadlines');
    await submit(session.sessionId, [
      { id: 'nowhere', tool: 'no_such_tool', args: {} },
      { id: 'awaited', tool: 'drawer_external', args: {} },
      { id: 'expired', tool: 'drawer_expiring', args: {} },
    ]);
    await openSession(session.sessionId);
    const drawer = page.getByRole('dialog');
    // An unknown tool's call never runs: no timeout applies to it (not "timeout 0 ms").
    await page.locator('.call[data-call-id="nowhere"] .call-name').click();
    await expect.poll(() => drawer.textContent()).toContain('no_such_tool');
    expect(await drawer.textContent()).not.toMatch(/timeout/i);
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });

    await expect.poll(() => row('awaited').getAttribute('data-status'), { timeout: 15_000 }).toBe('PENDING_EXTERNAL');
    await page.locator('.call[data-call-id="awaited"] .call-name').click();
    await expect.poll(() => drawer.textContent()).toContain('External deadline');
    expect(await drawer.textContent()).toMatch(/timeout \d+ ms/);
    const completed = await api.query(CompleteToolCallDocument, { callId: 'awaited', sessionId: session.sessionId, result: { value: 'done' } });
    expect(completed.completeToolCall.__typename).toBe('ToolCall');
    // Completed, the call waits for nothing: its deadline is gone from the drawer, read again at the new status.
    await expect.poll(() => row('awaited').getAttribute('data-status'), { timeout: 15_000 }).toBe('SUCCEEDED');
    await expect.poll(async () => {
      const text = (await drawer.textContent()) ?? '';
      return !text.includes('Loading') && !text.includes('Not finished') && text.includes('done');
    }).toBe(true);
    expect(await drawer.textContent()).not.toContain('External deadline');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });

    // A call whose wait ran out keeps showing the deadline that ended it.
    await expect.poll(() => row('expired').getAttribute('data-status'), { timeout: 15_000 }).toBe('FAILED');
    await page.locator('.call[data-call-id="expired"] .call-name').click();
    await expect.poll(() => drawer.textContent()).toContain('deadline_exceeded');
    expect(await drawer.textContent()).toContain('External deadline');
    await page.keyboard.press('Escape');
  });

  it("lists a retried call's attempts in its drawer", async () => {
    await asOperator();
    const session = await newSession('attempts');
    const batch = await submit(session.sessionId, [{ id: 'flaky', tool: 'failing_tool', args: { retry: 'SAFE', succeedOnAttempt: 2, code: 'flaked' } }]);
    await eventually(async () => (await api.query(GetToolBatchDocument, { sessionId: session.sessionId, batchId: batch.batchId })).toolBatch?.status === 'COMPLETED', 15_000, 100, 'the call retried and done');
    await openSession(session.sessionId);
    await page.locator('.call[data-call-id="flaky"] .call-name').click();
    const attempts = page.getByRole('list', { name: 'Attempts' }).getByRole('listitem');
    await expect.poll(() => attempts.evaluateAll((items) => items.map((item) => item.getAttribute('data-end'))), { timeout: 10_000 }).toEqual(['RETRIED', 'SUCCEEDED']);
    expect(await attempts.first().textContent()).toContain('flaked');
    await page.keyboard.press('Escape');
  });

  it('cancels a running sleep from its row', async () => {
    await asOperator();
    const session = await newSession('cancel a sleep');
    await openSession(session.sessionId);
    await submit(session.sessionId, [{ id: 'long-sleep', tool: 'sleep', args: { ms: 60_000 } }]);
    await expect.poll(() => row('long-sleep').getAttribute('data-status'), { timeout: 30_000 }).toBe('RUNNING');
    await page.getByRole('button', { name: 'Cancel call long-sleep' }).click();
    await expect.poll(() => row('long-sleep').getAttribute('data-status'), { timeout: 30_000 }).toBe('CANCELLED');
    const call = await api.query(GetToolCallDocument, { sessionId: session.sessionId, callId: 'long-sleep' });
    expect(call.toolCall?.status).toBe('CANCELLED');

    // A whole running batch with one button.
    const batch = await submit(session.sessionId, [
      { id: 'sleep-1', tool: 'sleep', args: { ms: 60_000 } },
      { id: 'sleep-2', tool: 'sleep', args: { ms: 60_000 } },
      { id: 'sleep-3', tool: 'sleep', args: { ms: 60_000 } },
    ]);
    await page.getByRole('button', { name: `Cancel batch ${batch.batchId}` }).click();
    const head = page.locator(`.batch[data-batch-id="${batch.batchId}"]`);
    await expect.poll(() => head.getAttribute('data-batch-status'), { timeout: 30_000 }).toBe('COMPLETED');
    expect(await page.getByRole('button', { name: `Cancel batch ${batch.batchId}` }).count()).toBe(0);
    for (const callId of ['sleep-1', 'sleep-2', 'sleep-3']) {
      expect((await api.query(GetToolCallDocument, { sessionId: session.sessionId, callId })).toolCall?.status).toBe('CANCELLED');
    }
  });

  it('keeps a collapsed batch live from the events (status, call count, outcome); batch ids tell batches apart; an open batch is as tall as its calls', async () => {
    await asOperator();
    const session = await newSession('collapsed batch');
    await openSession(session.sessionId);
    const first = await submit(session.sessionId, [{ id: 'solo', tool: 'echo', args: { message: 'solo' } }]);
    const firstPanel = page.locator(`.batch[data-batch-id="${first.batchId}"]`);
    await expect.poll(() => firstPanel.getAttribute('data-batch-status'), { timeout: 15_000 }).toBe('COMPLETED');
    // The first batch opens by itself; the next one stays collapsed.
    expect(await firstPanel.locator('.batch-head').getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => firstPanel.locator('.batch-head').textContent()).toContain(' · 1 call · 1 succeeded · ');

    const second = await submit(session.sessionId, [
      { id: 'quick', tool: 'echo', args: { message: 'quick' } },
      { id: 'gated', tool: 'delete_file', args: { path: '/gated.txt' } },
    ]);
    const panel = page.locator(`.batch[data-batch-id="${second.batchId}"]`);
    const head = panel.locator('.batch-head');
    // Running while its second call waits for approval, then completed once that call is rejected elsewhere.
    await expect.poll(() => head.textContent(), { timeout: 15_000 }).toContain(' · 2 calls · ');
    expect(await panel.getAttribute('data-batch-status')).toBe('RUNNING');
    const rejected = await api.query(RejectToolCallDocument, { sessionId: session.id, callId: 'gated', reason: 'not now' }, operatorKey);
    expect(rejected.rejectToolCall.__typename).toBe('ToolCall');
    await expect.poll(() => panel.getAttribute('data-batch-status'), { timeout: 15_000 }).toBe('COMPLETED');
    expect(await head.textContent()).toContain(' · 2 calls · 1 succeeded, 1 failed · ');
    expect(await head.getAttribute('aria-expanded')).toBe('false');

    // Ids: the prefix, the first 8 and the last 4 characters after it; the whole id on hover.
    const shownId = (batchId: string) => `tool-batch:${batchId.slice(11, 19)}…${batchId.slice(-4)}`;
    expect(await head.locator('[title]').textContent()).toBe(shownId(second.batchId));
    expect(await head.locator('[title]').getAttribute('title')).toBe(second.batchId);
    expect(await firstPanel.locator('.batch-head [title]').textContent()).toBe(shownId(first.batchId));
    expect(shownId(first.batchId)).not.toBe(shownId(second.batchId));

    // Opened: its two rows, and no empty space below them (30 px a row, 1 px of border).
    await head.click();
    await expect.poll(() => panel.locator('.call').evaluateAll((rows) => rows.map((el) => el.getAttribute('data-status'))), { timeout: 15_000 }).toEqual(['SUCCEEDED', 'FAILED']);
    expect((await panel.locator('.timeline').boundingBox())!.height).toBeLessThanOrEqual(2 * 30 + 2);
  });

  it('says on which day a call has waited since when it was not today, in the inbox and in its drawer', async () => {
    await asOperator();
    const session = await newSession('waiting for days');
    await submit(session.sessionId, [{ id: 'old-wait', tool: 'delete_file', args: { path: '/old.txt' } }]);
    await eventually(async () => expect((await api.query(GetToolCallDocument, { sessionId: session.sessionId, callId: 'old-wait' })).toolCall?.status).toBe('AWAITING_APPROVAL'));
    // Queued three days ago (as a call that nobody decided would be).
    const queuedAt = new Date(Date.now() - 3 * 86_400_000);
    await cluster.db.toolCall.updateMany({ where: { sessionId: session.sessionId, callId: 'old-wait' }, data: { queuedAt } });
    const day = await page.evaluate((at) => new Date(at).toLocaleDateString(), queuedAt.toISOString());
    await nav('Approvals').click();
    const card = page.locator('.approval[data-call-id="old-wait"]');
    await card.waitFor({ timeout: 15_000 });
    expect(await card.innerText()).toContain(`waiting since ${day}`);
    await openSession(session.sessionId);
    await page.locator('.call[data-call-id="old-wait"] .call-name').click({ timeout: 15_000 });
    const drawer = page.getByRole('dialog');
    await expect.poll(() => drawer.innerText(), { timeout: 10_000 }).toContain(day);
    // A time that is today says the time alone; an unknown duration is a dash, not "— ms".
    expect(await drawer.innerText()).not.toContain('— ms');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
    await api.query(RejectToolCallDocument, { sessionId: session.sessionId, callId: 'old-wait', reason: 'old' }, operatorKey);
  });

  it('approves one call from the inbox and rejects another with a reason; the inbox updates', async () => {
    await asOperator();
    const session = await newSession('approvals');
    await submit(session.sessionId, [
      { id: 'delete-a', tool: 'delete_file', args: { path: '/a.txt' } },
      { id: 'delete-b', tool: 'delete_file', args: { path: '/b.txt' } },
    ]);
    await nav('Approvals').click();
    const card = (callId: string) => page.locator(`.approval[data-call-id="${callId}"]`);
    await card('delete-a').waitFor({ timeout: 15_000 });
    await card('delete-b').waitFor();
    await shot('approvals');
    // By keyboard: Enter on Approve; the focus then goes on to the next card, whose reason Enter submits.
    await page.getByRole('button', { name: 'Approve delete-a' }).focus();
    await page.keyboard.press('Enter');
    await card('delete-a').waitFor({ state: 'detached', timeout: 15_000 });
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('.approval')?.getAttribute('data-call-id') ?? null)).toBe('delete-b');
    await card('delete-b').getByLabel('Reason').fill('not this file');
    await page.keyboard.press('Enter');
    await card('delete-b').waitFor({ state: 'detached', timeout: 15_000 });
    await page.getByText('Nothing waits for approval.').waitFor();
    const approved = await api.query(GetToolCallDocument, { sessionId: session.sessionId, callId: 'delete-a' });
    const rejected = await api.query(GetToolCallDocument, { sessionId: session.sessionId, callId: 'delete-b' });
    expect(approved.toolCall?.status).not.toBe('AWAITING_APPROVAL');
    expect(rejected.toolCall?.status).toBe('FAILED');
    const outcome = await api.request(`query { toolCall(sessionId: "${session.sessionId}", callId: "delete-b") { outcome } }`);
    expect(JSON.stringify(outcome.data)).toContain('not this file');
  });

  it('sends no decision from the inbox with a reader key, not even by Enter in the reason field', async () => {
    const session = await newSession('reader inbox');
    await submit(session.sessionId, [{ id: 'reader-delete', tool: 'delete_file', args: { path: '/reader.txt' } }]);
    await signIn(readerKey);
    await nav('Approvals').click();
    const card = page.locator('.approval[data-call-id="reader-delete"]');
    await card.waitFor({ timeout: 15_000 });
    const { sent, stop } = recordQueries();
    try {
      await card.getByLabel('Reason').fill('not mine to decide');
      await card.getByLabel('Reason').press('Enter');
      // A later fact: the Tools view's query, sent after anything Enter sent.
      await nav('Tools').click();
      await page.locator('[data-tool="add"]').waitFor();
    } finally {
      stop();
    }
    expect(sent).toContain('Tools');
    expect(sent).not.toContain('RejectCall');
    expect((await api.query(GetToolCallDocument, { sessionId: session.sessionId, callId: 'reader-delete' })).toolCall?.status).toBe('AWAITING_APPROVAL');
    // Decided, so that no later scenario finds it unfinished.
    await api.query(RejectToolCallDocument, { sessionId: session.sessionId, callId: 'reader-delete', reason: 'done' }, operatorKey);
    await signIn(operatorKey);
  });

  it('writes out bidirectional control characters in what a call or a title says, so an approver reads it as written', async () => {
    await asOperator();
    // U+202E would display `/tmp/gnp.exe` as `/tmp/exe.png`.
    const session = await newSession('spoof \u202Egnp.exe');
    await submit(session.sessionId, [{ id: 'spoofed', tool: 'delete_file', args: { path: '/tmp/\u202Egnp.exe' } }]);
    await nav('Approvals').click();
    const card = page.locator('.approval[data-call-id="spoofed"]');
    await card.waitFor({ timeout: 15_000 });
    const text = await card.innerText();
    expect(text).toContain('\\u202Egnp.exe');
    expect(text).not.toContain('\u202E');
    await card.getByLabel('Reason').fill('spoofed');
    await page.getByRole('button', { name: 'Reject spoofed' }).click();
    await card.waitFor({ state: 'detached', timeout: 15_000 });
    // What a tool answered, as the model sees it and raw, reads as written too (its batch, the newest, opens with the session).
    const echoed = await submit(session.sessionId, [{ id: 'echoed', tool: 'echo', args: { message: 'ok \u202Edesrever' } }]);
    await eventually(async () => (await api.query(GetToolBatchDocument, { sessionId: session.sessionId, batchId: echoed.batchId })).toolBatch?.status === 'COMPLETED', 15_000, 100, 'the echo done');
    await openSession(session.sessionId);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('spoof \\u202Egnp.exe');
    await page.locator('.call[data-call-id="echoed"] .call-name').click({ timeout: 15_000 });
    await expect.poll(() => page.locator('.model-text').innerText(), { timeout: 10_000 }).toContain('\\u202Edesrever');
    expect(await page.getByRole('dialog').innerText()).not.toContain('\u202E');
    await page.keyboard.press('Escape');
  });

  it('writes out control characters (NUL, ESC) in what a call says, and bidirectional ones in the tool name a call asked for', async () => {
    await asOperator();
    const session = await newSession('control characters');
    const batch = await submit(session.sessionId, [
      { id: 'nul-failure', tool: 'failing_tool', args: { message: 'before\u0000after\u001b[2J' } },
      // An unknown tool's name is whatever the caller sent: U+202E would show `rm_gnp` as `rm_png`.
      { id: 'spoofed-tool', tool: 'rm_\u202Egnp', args: {} },
    ]);
    await eventually(async () => (await api.query(GetToolBatchDocument, { sessionId: session.sessionId, batchId: batch.batchId })).toolBatch?.status === 'COMPLETED', 15_000, 100, 'the batch done');
    await openSession(session.sessionId);
    const named = page.locator('.call[data-call-id="spoofed-tool"] .call-name');
    await named.waitFor({ timeout: 15_000 });
    expect(await named.innerText()).toContain('rm_\\u202Egnp');
    expect(await named.innerText()).not.toContain('\u202E');
    await named.click();
    const drawer = page.getByRole('dialog');
    await expect.poll(() => drawer.locator('dd').first().innerText(), { timeout: 10_000 }).toBe('rm_\\u202Egnp');
    expect(await drawer.innerText()).not.toContain('\u202E');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
    await page.locator('.call[data-call-id="nul-failure"] .call-name').click();
    await expect.poll(() => drawer.locator('[data-failure-class]').innerText(), { timeout: 10_000 }).toContain('before\\u0000after\\u001B[2J');
    expect(await page.locator('.model-text').innerText()).toContain('before\\u0000after\\u001B[2J');
    expect(await drawer.innerText()).not.toMatch(/[\u0000\u001b]/);
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
  });

  it("writes out bidirectional control characters in the tool catalogue (a tool's name, description and parameters come from whoever registered it)", async () => {
    await asOperator();
    const spoof = 'gnp.exe \u202Eevil';
    const registered = await api.query(RegisterExternalToolDocument, {
      input: {
        name: 'dashboard_bidi',
        displayName: `Bidi ${spoof}`,
        description: `Describes ${spoof}`,
        parametersSchema: { type: 'object', properties: { target: { type: 'string', description: `Param ${spoof}` }, mode: { enum: [`opt ${spoof}`] } } },
      },
    });
    expect(registered.registerExternalTool.__typename).toBe('ToolDefinition');
    await nav('Tools').click();
    await page.locator('[data-tool="dashboard_bidi"]').click();
    await page.getByRole('heading', { level: 2, name: /^Bidi/ }).waitFor();
    const shown = await page.locator('.tools-view').evaluate((element) => element.textContent ?? '');
    expect(shown).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    for (const text of ['Bidi gnp.exe \\u202Eevil', 'Describes gnp.exe \\u202Eevil', 'Param gnp.exe \\u202Eevil', 'opt gnp.exe \\u202Eevil']) expect(shown).toContain(text);
  });

  /** A tenant's session made by a key that submits and approves, and another approver's key. */
  async function sessionOfTwoApprovers(tenant: string, name: string, title: string) {
    const { key } = await new ApiKeyService(cluster.db).createKey(tenant, { name, roles: ['submitter', 'approver'] });
    const { key: other } = await new ApiKeyService(cluster.db).createKey(tenant, { name: 'other approver', roles: ['approver'] });
    const created = await api.query(CreateSessionDocument, { title }, key);
    if (created.createSession.__typename !== 'Session') throw new Error(JSON.stringify(created.createSession));
    return { key, other, id: created.createSession.id, sessionId: created.createSession.sessionId };
  }

  it('lists every call waiting for approval past a page (the oldest too); a decision someone made first is refused where it shows', async () => {
    // A tenant of its own, so that only these calls wait.
    const tenant = `inbox-${cluster.id}`;
    const { key, other, sessionId } = await sessionOfTwoApprovers(tenant, 'inbox', 'inbox of 120');
    const calls = Array.from({ length: 120 }, (_, index) => ({ id: `ib${index}`, tool: 'delete_file', args: { path: `/f${index}` } }));
    const submitted = await api.query(ExecuteToolBatchDocument, { sessionId, calls }, key);
    expect(submitted.executeToolBatch.__typename).toBe('ToolBatch');
    await signIn(key);
    await nav('Approvals').click();
    const card = (callId: string) => page.locator(`.approval[data-call-id="${callId}"]`);
    await page.getByText('120 calls waiting for approval').waitFor({ timeout: 15_000 });
    await card('ib0').waitFor();
    expect(await page.locator('.approval').count()).toBe(120);

    // This tab approves ib0 while another approver rejects it: the answer comes after the card left.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/graphql*', async (route) => {
      if ((route.request().postData() ?? '').includes('approveToolCall')) await held;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Approve ib0' }).click();
    await api.query(RejectToolCallDocument, { sessionId, callId: 'ib0', reason: 'decided elsewhere' }, other);
    await card('ib0').waitFor({ state: 'detached', timeout: 15_000 });
    release();
    await page.getByRole('alert').filter({ hasText: 'Approving ib0 was refused' }).waitFor({ timeout: 15_000 });
    await page.unroute('**/graphql*');
    await page.getByText('119 calls waiting for approval').waitFor();
  });

  it('draws 2,000 waiting approvals 200 at a time, the longest waiting first, live as calls come and go', async () => {
    const tenant = `inbox-big-${cluster.id}`;
    const { key } = await new ApiKeyService(cluster.db).createKey(tenant, { name: 'big inbox', roles: ['submitter', 'approver'] });
    const { key: approver } = await new ApiKeyService(cluster.db).createKey(tenant, { name: 'approver in the browser', roles: ['approver'] });
    const { key: other } = await new ApiKeyService(cluster.db).createKey(tenant, { name: 'other approver', roles: ['approver'] });
    const created = await api.query(CreateSessionDocument, { title: 'two thousand approvals' }, key);
    if (created.createSession.__typename !== 'Session') throw new Error(JSON.stringify(created.createSession));
    const { id, sessionId } = created.createSession;
    for (const part of [0, 1]) {
      const calls = Array.from({ length: 1000 }, (_, index) => ({ id: `big${part * 1000 + index}`, tool: 'delete_file', args: { path: `/f${index}` } }));
      const submitted = await api.query(ExecuteToolBatchDocument, { sessionId, calls }, key);
      expect(submitted.executeToolBatch.__typename).toBe('ToolBatch');
    }
    await signIn(approver);
    await nav('Approvals').click();
    const status = page.getByRole('status').filter({ hasText: 'waiting for approval' });
    await expect.poll(() => status.textContent(), { timeout: 30_000 }).toBe('2000 calls waiting for approval (the 200 that have waited longest shown)');
    const shownIds = () => page.locator('.approval').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-call-id')));
    expect(await shownIds()).toEqual(Array.from({ length: 200 }, (_, index) => `big${index}`));
    // Decided elsewhere: it leaves, the next one waiting takes the last place.
    const rejected = await api.query(RejectToolCallDocument, { sessionId: id, callId: 'big0', reason: 'decided elsewhere' }, other);
    expect(rejected.rejectToolCall.__typename).toBe('ToolCall');
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe('1999 calls waiting for approval (the 200 that have waited longest shown)');
    expect(await shownIds()).toEqual(Array.from({ length: 200 }, (_, index) => `big${index + 1}`));
    // A new call is counted (it waited least: not drawn yet). Its session, new to the inbox, is read
    // for its title; the 2,000 waiting calls are not read again (20 pages) for it.
    const queries = recordQueries();
    const later = await api.query(CreateSessionDocument, { title: 'a later session' }, key);
    if (later.createSession.__typename !== 'Session') throw new Error(JSON.stringify(later.createSession));
    await api.query(ExecuteToolBatchDocument, { sessionId: later.createSession.sessionId, calls: [{ id: 'newest', tool: 'delete_file', args: { path: '/newest' } }] }, key);
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe('2000 calls waiting for approval (the 200 that have waited longest shown)');
    await expect.poll(() => queries.sent, { timeout: 15_000 }).toContain('SessionTitles');
    await page.waitForTimeout(500);
    queries.stop();
    expect(queries.sent).toEqual(['SessionTitles']);
    // Keyboard: a decision moves the focus on to the next card.
    await page.getByRole('button', { name: 'Approve big1', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.locator('.approval[data-call-id="big1"]').waitFor({ state: 'detached', timeout: 15_000 });
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('.approval')?.getAttribute('data-call-id') ?? null)).toBe('big2');
    await page.getByRole('button', { name: 'Show 200 more' }).click();
    await expect.poll(() => page.locator('.approval').count()).toBe(400);
    expect(await status.textContent()).toBe('1999 calls waiting for approval (the 400 that have waited longest shown)');
  });

  it('shows a refused self-approval on its card once: it does not come back when someone else decides the call', async () => {
    const tenant = `self-${cluster.id}`;
    const { key, other, id, sessionId } = await sessionOfTwoApprovers(tenant, 'submits and approves', 'own call');
    const submitted = await api.query(ExecuteToolBatchDocument, { sessionId, calls: [{ id: 'own', tool: 'delete_file', args: { path: '/own.txt' } }] }, key);
    expect(submitted.executeToolBatch.__typename).toBe('ToolBatch');
    await signIn(key);
    await nav('Approvals').click();
    const card = page.locator('.approval[data-call-id="own"]');
    await card.waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Approve own' }).click();
    await card.getByRole('alert').filter({ hasText: 'cannot approve or reject it' }).waitFor({ timeout: 15_000 });
    const rejected = await api.query(RejectToolCallDocument, { sessionId: id, callId: 'own', reason: 'not yours to approve' }, other);
    expect(rejected.rejectToolCall.__typename).toBe('ToolCall');
    await card.waitFor({ state: 'detached', timeout: 15_000 });
    await page.getByText('Nothing waits for approval.').waitFor();
    expect(await page.getByRole('alert').allTextContents()).toEqual([]);
  });

  it('goes back to sign-in, saying why, when the key is revoked while a page follows events', async () => {
    const { key, apiKeyId } = await new ApiKeyService(cluster.db).createKey(`cluster-${cluster.id}`, { name: 'soon revoked', roles: ['reader'] });
    const session = await newSession('revoked while watching');
    await signIn(key);
    await openSession(session.sessionId);
    await expect.poll(() => page.locator('[data-link-state]').getAttribute('data-link-state'), { timeout: 15_000 }).toBe('live');
    const revoked = await api.request('mutation($id: String!) { revokeApiKey(id: $id) { __typename } }', { id: apiKeyId });
    expect(revoked.errors).toBeUndefined();
    await page.getByRole('alert').filter({ hasText: 'This API key was revoked or has expired' }).waitFor({ timeout: 15_000 });
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('toolrun.apiKey'))).toBeNull();
  });

  it('shows a task spawned while the Tasks view is open, even while another task reports often', async () => {
    await asOperator();
    const session = await newSession('tasks appear live');
    await openSession(session.sessionId);
    await page.getByRole('tab', { name: 'Background tasks' }).click();
    await page.getByText('No background tasks.').waitFor();
    const spawn = async (title: string, args: unknown) => {
      const spawned = await api.query(SpawnBackgroundDocument, { sessionId: session.sessionId, tool: 'report_progress', args, title });
      if (spawned.spawnBackground.__typename !== 'BackgroundRun') throw new Error(JSON.stringify(spawned.spawnBackground));
    };
    // Progress every 50 ms for 15 s: events never pause for long.
    await spawn('chatty', { steps: 300, intervalMs: 50 });
    await expect.poll(() => page.locator('.task').count(), { timeout: 10_000 }).toBe(1);
    await spawn('second', { steps: 1, intervalMs: 0 });
    await expect.poll(() => page.locator('.task').count(), { timeout: 5_000 }).toBe(2);
    expect(await cluster.db.task.count({ where: { title: 'chatty', state: 'RUNNING' } })).toBe(1);
  });

  it("says how many of a session's tasks it shows, and shows the older ones past the first 50 on demand", async () => {
    await asOperator();
    const session = await newSession('sixty tasks');
    // Five runs at most are active in a session: each spawn refused for that waits for one to end.
    for (let i = 0; i < 60; i++) {
      await eventually(async () => {
        const spawned = await api.query(SpawnBackgroundDocument, { sessionId: session.sessionId, tool: 'report_progress', args: { steps: 1, intervalMs: 0 }, title: `run ${i}` });
        return spawned.spawnBackground.__typename === 'BackgroundRun';
      }, 30_000, 50, `run ${i} spawned`);
    }
    await openSession(session.sessionId);
    await page.getByRole('tab', { name: 'Background tasks' }).click();
    await expect.poll(() => page.locator('.task').count(), { timeout: 15_000 }).toBe(50);
    await page.getByText('The 50 newest of 60 tasks').waitFor();
    await page.getByRole('button', { name: 'Show older tasks (10 more)' }).click();
    await expect.poll(() => page.locator('.task').count(), { timeout: 15_000 }).toBe(60);
    expect(new Set(await page.locator('.task strong').allTextContents()).size).toBe(60);
    await page.getByText('60 tasks', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: /^Show older tasks/ }).count()).toBe(0);
  });

  it('fits a narrow (375 px) screen: no page wider than it, long titles wrapped, the header’s controls on screen', async () => {
    await asOperator();
    const session = await newSession(`narrow-${'x'.repeat(400)}`);
    const longPath = `/${'deep-directory-name/'.repeat(8)}file.txt`;
    await submit(session.sessionId, [
      { id: 'narrow-call', tool: 'echo', args: { message: 'y'.repeat(2000) } },
      { id: 'narrow-file', tool: 'write_file', args: { path: longPath, content: 'z' } },
    ]);
    await page.setViewportSize({ width: 375, height: 740 });
    try {
      for (const path of ['/', '/approvals', '/tools', '/status', `/sessions/${session.sessionId}`]) {
        await page.evaluate((target) => {
          history.pushState(null, '', target);
          dispatchEvent(new PopStateEvent('popstate'));
        }, path);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await page.waitForTimeout(300);
        expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(375);
        const signOut = await page.getByRole('button', { name: 'Sign out' }).boundingBox();
        expect(signOut && signOut.x + signOut.width, path).toBeLessThanOrEqual(375);
      }
      // A call's row fits, its tool named; a long path wraps in the files tab.
      const row = await page.locator('.call[data-call-id="narrow-call"]').boundingBox();
      expect(row && row.x + row.width).toBeLessThanOrEqual(375);
      expect(await page.locator('.call[data-call-id="narrow-call"] .call-name').innerText()).toContain('echo');
      await page.getByRole('tab', { name: 'Messages & files' }).click();
      await page.getByText('file.txt', { exact: false }).first().waitFor({ timeout: 10_000 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });

  it("fits each call's status in its column on a phone (375 px): none runs over the next", async () => {
    await asOperator();
    const session = await newSession('statuses on a phone');
    const batch = await submit(session.sessionId, [
      { id: 'phone-ok', tool: 'echo', args: { message: 'ok' } },
      { id: 'phone-gate', tool: 'delete_file', args: { path: '/phone.txt' } },
    ]);
    await page.setViewportSize({ width: 375, height: 667 });
    try {
      await openSession(session.sessionId);
      await expect.poll(() => row('phone-gate').getAttribute('data-status'), { timeout: 15_000 }).toBe('AWAITING_APPROVAL');
      await expect.poll(() => row('phone-ok').getAttribute('data-status'), { timeout: 15_000 }).toBe('SUCCEEDED');
      for (const callId of ['phone-ok', 'phone-gate']) {
        const [status, attempt] = await Promise.all([row(callId).locator('.status').boundingBox(), row(callId).locator('.attempt').boundingBox()]);
        expect(status!.x + status!.width, callId).toBeLessThanOrEqual(attempt!.x);
        expect(await row(callId).locator('.status').evaluate((element) => element.scrollWidth <= element.clientWidth && element.scrollHeight <= element.clientHeight)).toBe(true);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
      await api.query(CancelToolBatchDocument, { sessionId: session.sessionId, batchId: batch.batchId });
    }
  });

  it('wraps a 90-character call id in the Events tab on a phone (375 × 667): all of it on screen, rows apart, no sideways scroll', async () => {
    await asOperator();
    const session = await newSession('long call id');
    const callId = `call-${'0123456789abcdef'.repeat(6)}`.slice(0, 90);
    const batch = await submit(session.sessionId, [{ id: callId, tool: 'add', args: { a: 1, b: 2 } }]);
    await eventually(async () => (await api.query(GetToolBatchDocument, { sessionId: session.sessionId, batchId: batch.batchId })).toolBatch?.status === 'COMPLETED', 15_000, 100, 'the call done');
    await page.setViewportSize({ width: 375, height: 667 });
    try {
      await openSession(session.sessionId);
      await page.getByRole('tab', { name: /^Events/ }).click();
      const rows = page.locator('.activity-row');
      await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(3);
      const boxes = await rows.evaluateAll((elements) =>
        elements.map((element) => {
          const box = element.getBoundingClientRect();
          return { text: element.textContent ?? '', top: box.top, bottom: box.bottom, right: box.right, overflows: element.scrollWidth > element.clientWidth };
        }),
      );
      expect(boxes.filter((box) => box.text.includes(callId))).toHaveLength(2);
      for (const [index, box] of boxes.entries()) {
        expect(box.overflows, box.text).toBe(false);
        expect(box.right).toBeLessThanOrEqual(375);
        if (index > 0) expect(box.top).toBeGreaterThanOrEqual(boxes[index - 1]!.bottom - 1);
      }
      expect(await page.locator('.activity').evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });

  it('keeps the sessions list and the approvals inbox live from the tenant events, without reading their pages again', async () => {
    await asOperator();
    await nav('Sessions').click();
    const before = await newSession('before');
    await submit(before.sessionId, [{ tool: 'echo', args: { message: 'before' } }]);
    await page.locator(`tr[data-session-id="${before.sessionId}"]`).waitFor({ timeout: 15_000 });
    // Loaded, and nothing of the tenant moves (no call unfinished, so no event on its way): no
    // request for longer than the old refresh interval (3 s).
    await expect.poll(async () => (await api.query(SystemStatusDocument, {})).systemStatus.tenantCalls.unfinished, { timeout: 30_000 }).toBe(0);
    await expect.poll(() => page.locator(`tr[data-session-id="${before.sessionId}"]`).getAttribute('data-unfinished'), { timeout: 15_000 }).toBe('0');
    // No background run of an earlier scenario still sends events (each rightly re-reads its row).
    await expect.poll(() => cluster.db.task.count({ where: { state: { in: ['QUEUED', 'RUNNING'] } } }), { timeout: 30_000 }).toBe(0);
    // Once the last re-read is done, 4 s without a request (rather than a fixed second for that
    // re-read, then 4 s that must be empty): still longer than the old refresh interval (the rows
    // are read again every 5 s, for batches whose calls wait in the queue: no event announces them).
    await noQueryFor(4000);

    // While a search is set, the server says what matches: a new session that does shows, one that does not stays out.
    const search = page.getByLabel('Search');
    await search.fill('live list');
    const unsearched = await newSession('not searched for');
    const session = await newSession('live list');
    const listRow = page.locator(`tr[data-session-id="${session.sessionId}"]`);
    const unsearchedRow = page.locator(`tr[data-session-id="${unsearched.sessionId}"]`);
    await listRow.waitFor({ timeout: 15_000 });
    expect(await listRow.getAttribute('data-calls')).toBe('0');
    await expect.poll(() => unsearchedRow.count(), { timeout: 10_000 }).toBe(0);
    await search.fill('');
    await unsearchedRow.waitFor({ timeout: 5_000 });
    // Without one, a new session appears from its SessionCreated alone, without a read of the page
    // (the rows shown are read again every 5 s, for batches no event announces: that read may fall here).
    const queries = recordQueries();
    const unread = await newSession('appears unread');
    await page.locator(`tr[data-session-id="${unread.sessionId}"]`).waitFor({ timeout: 15_000 });
    expect(queries.sent.filter((name) => name !== 'SessionRows')).toEqual([]);
    // Its counts follow the events.
    await submit(session.sessionId, [1, 2, 3].map((n) => ({ id: `e${n}`, tool: 'echo', args: { message: `${n}` } })));
    await expect.poll(() => listRow.getAttribute('data-calls'), { timeout: 15_000 }).toBe('3');
    await expect.poll(() => listRow.getAttribute('data-unfinished'), { timeout: 15_000 }).toBe('0');
    await submit(session.sessionId, [
      { id: 'more', tool: 'echo', args: { message: 'more' } },
      { id: 'gate-1', tool: 'delete_file', args: { path: '/one.txt' } },
    ]);
    await expect.poll(() => listRow.getAttribute('data-calls'), { timeout: 15_000 }).toBe('5');
    await expect.poll(() => listRow.getAttribute('data-unfinished'), { timeout: 15_000 }).toBe('1');
    queries.stop();
    // Only reads asked for by events: the new session's row once it has calls, never the page.
    expect(queries.sent.length).toBeGreaterThan(0);
    expect(new Set(queries.sent)).toEqual(new Set(['SessionRows']));
    await shot('sessions');

    // The inbox: the waiting call from its snapshot, a new one from its event, both gone when decided elsewhere.
    await nav('Approvals').click();
    const card = (callId: string) => page.locator(`.approval[data-call-id="${callId}"]`);
    await card('gate-1').waitFor({ timeout: 15_000 });
    await submit(session.sessionId, [{ id: 'gate-2', tool: 'delete_file', args: { path: '/two.txt' } }]);
    await card('gate-2').waitFor({ timeout: 15_000 });
    await expect.poll(() => card('gate-2').getByRole('link').textContent()).toBe('live list');
    const inboxQuiet = recordQueries();
    await page.waitForTimeout(3000);
    inboxQuiet.stop();
    expect(inboxQuiet.sent).toEqual([]);
    const approved = await api.query(ApproveToolCallDocument, { sessionId: session.id, callId: 'gate-1' }, operatorKey);
    expect(approved.approveToolCall.__typename).toBe('ToolCall');
    await card('gate-1').waitFor({ state: 'detached', timeout: 15_000 });
    const rejected = await api.query(RejectToolCallDocument, { sessionId: session.id, callId: 'gate-2', reason: 'decided elsewhere' }, operatorKey);
    expect(rejected.rejectToolCall.__typename).toBe('ToolCall');
    await card('gate-2').waitFor({ state: 'detached', timeout: 15_000 });
    await page.getByText('Nothing waits for approval.').waitFor();
  });

  it('opens a link in a new tab on Ctrl+click or Shift+click, leaving this page where it is', async () => {
    await asOperator();
    const session = await newSession('opened in a new tab');
    await submit(session.sessionId, [{ id: 'tab-delete', tool: 'delete_file', args: { path: '/tab.txt' } }]);
    for (const [view, link] of [
      ['Sessions', () => page.locator(`tr[data-session-id="${session.sessionId}"] a`)],
      ['Approvals', () => page.locator('.approval[data-call-id="tab-delete"] a')],
    ] as const) {
      await nav(view).click();
      await link().waitFor({ timeout: 15_000 });
      const here = page.url();
      for (const modifier of ['Control', 'Shift'] as const) {
        const opened = page.context().waitForEvent('page', { timeout: 10_000 });
        await link().click({ modifiers: [modifier] });
        const other = await opened;
        // Where the new page goes is the point, not whether it finished loading (a busy machine may take long).
        await expect.poll(() => new URL(other.url()).pathname, { timeout: 15_000 }).toBe(`/sessions/${session.sessionId}`);
        await other.close();
        expect(page.url()).toBe(here);
      }
    }
    // The main navigation too.
    const opened = page.context().waitForEvent('page', { timeout: 10_000 });
    await nav('Tools').click({ modifiers: ['Control'] });
    const other = await opened;
    await expect.poll(() => new URL(other.url()).pathname, { timeout: 15_000 }).toBe('/tools');
    await other.close();
    expect(new URL(page.url()).pathname).toBe('/approvals');
    await api.query(RejectToolCallDocument, { sessionId: session.sessionId, callId: 'tab-delete', reason: 'done' }, operatorKey);
  });

  it('says a tenant without sessions has none yet (not that none match), and that a search matches none', async () => {
    const fresh = (await new ApiKeyService(cluster.db).createKey(`empty-${cluster.id}`, { name: 'fresh', roles: ['submitter'] })).key;
    await signIn(fresh);
    await page.getByText(/No sessions yet/).waitFor({ timeout: 15_000 });
    expect(await page.getByText('No sessions match.').count()).toBe(0);
    await page.getByRole('searchbox').fill('anything');
    await page.getByText('No sessions match.').waitFor({ timeout: 15_000 });
    await page.getByRole('searchbox').fill('');
    await signIn(operatorKey);
  });

  it('finds sessions past the first page by title and by what they wait for; a whole session id opens it', async () => {
    await asOperator();
    await nav('Sessions').click();
    const needle = await newSession('needle in the list');
    await submit(needle.sessionId, [{ id: 'gate', tool: 'delete_file', args: { path: '/needle.txt' } }]);
    for (let i = 0; i < 26; i++) await newSession(`hay ${i}`);
    const needleRow = page.locator(`tr[data-session-id="${needle.sessionId}"]`);
    await page.locator('tr[data-session-id]').nth(24).waitFor({ timeout: 15_000 });
    await expect.poll(() => needleRow.count(), { timeout: 10_000 }).toBe(0);
    // On the next page; opened from there, Back returns to that page, as a reload does.
    await page.getByRole('button', { name: 'Next' }).click();
    await needleRow.waitFor({ timeout: 10_000 });
    await needleRow.getByRole('link').click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('needle in the list');
    await page.goBack();
    await needleRow.waitFor({ timeout: 10_000 });
    await page.getByText('Page 2').waitFor();
    await page.reload();
    await needleRow.waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(() => needleRow.count(), { timeout: 10_000 }).toBe(0);
    await page.getByLabel('Search').fill('NEEDLE');
    await needleRow.waitFor({ timeout: 10_000 });
    await expect.poll(() => page.locator('tr[data-session-id]').count()).toBe(1);
    await page.getByLabel('Search').fill('');
    await expect.poll(() => needleRow.count(), { timeout: 10_000 }).toBe(0);
    await page.getByLabel('Show').selectOption('approvals');
    await needleRow.waitFor({ timeout: 10_000 });
    await page.getByLabel('Show').selectOption('running');
    await needleRow.waitFor({ timeout: 10_000 });
    await page.getByLabel('Show').selectOption('all');
    // The id as the table shows it (its first 8 characters: the sessions made in the same minute share them) lists those sessions.
    const shown = needle.sessionId.slice(0, 8);
    await page.getByLabel('Search').fill(shown);
    await expect.poll(async () => {
      const ids = await page.locator('tr[data-session-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-session-id')!));
      return ids.length > 0 && ids.every((id) => id.startsWith(shown));
    }, { timeout: 10_000 }).toBe(true);
    // A whole id lists that session alone, and offers to open it.
    await page.getByLabel('Search').fill(needle.sessionId);
    await expect.poll(() => page.locator('tr[data-session-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-session-id'))), { timeout: 10_000 }).toEqual([needle.sessionId]);
    await page.getByRole('link', { name: `Open session ${needle.sessionId}` }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('needle in the list');
    // Back: the search as it was.
    await page.goBack();
    await expect.poll(() => page.getByLabel('Search').inputValue()).toBe(needle.sessionId);
    await expect.poll(() => page.locator('tr[data-session-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-session-id'))), { timeout: 10_000 }).toEqual([needle.sessionId]);
    // Nothing left waiting for the scenarios after this one.
    const rejected = await api.query(RejectToolCallDocument, { sessionId: needle.id, callId: 'gate', reason: 'done looking' }, operatorKey);
    expect(rejected.rejectToolCall.__typename).toBe('ToolCall');
  });

  it("shows a session's older batches past the first 50 on demand", async () => {
    await asOperator();
    const session = await newSession('many batches');
    for (let i = 0; i < 53; i++) await submit(session.sessionId, [{ id: `b${i}`, tool: 'echo', args: { message: `${i}` } }]);
    await openSession(session.sessionId);
    await expect.poll(() => page.getByRole('tab', { name: /^Batches/ }).textContent(), { timeout: 10_000 }).toBe('Batches (50 of 53)');
    await page.getByRole('button', { name: 'Show older batches' }).click();
    await expect.poll(() => page.locator('.batch[data-batch-id]').count(), { timeout: 10_000 }).toBe(53);
    expect(await page.getByRole('tab', { name: /^Batches/ }).textContent()).toBe('Batches (53)');
    expect(await page.getByRole('button', { name: 'Show older batches' }).count()).toBe(0);
  });

  it("pages through a session's files and opens a file whole, past what a listing carries", async () => {
    await asOperator();
    const session = await newSession('many files');
    const big = 'x'.repeat(69_999) + 'END';
    const batch = await submit(session.sessionId, [
      ...Array.from({ length: 204 }, (_, i) => ({ id: `f${i}`, tool: 'write_file', args: { path: `/files/f${String(i).padStart(3, '0')}.txt`, content: `${i}` } })),
      { id: 'big', tool: 'write_file', args: { path: '/big.txt', content: big } },
    ]);
    await eventually(async () => (await api.query(GetToolBatchDocument, { sessionId: session.sessionId, batchId: batch.batchId })).toolBatch?.status === 'COMPLETED', 60_000, 200, 'the files written');
    await openSession(session.sessionId);
    await page.getByRole('tab', { name: 'Messages & files' }).click();
    const list = page.getByRole('list', { name: 'Session files' });
    // 204 files, their directory and /big.txt: 206 entries, 200 to a page.
    await expect.poll(() => list.getAttribute('data-entry-count'), { timeout: 10_000 }).toBe('200');
    await page.getByRole('button', { name: 'Show more files' }).click();
    await expect.poll(() => list.getAttribute('data-entry-count'), { timeout: 10_000 }).toBe('206');
    await page.getByRole('button', { name: /^\/big\.txt/ }).click();
    const view = page.getByLabel('Contents of /big.txt');
    await expect.poll(async () => ((await view.locator('pre').textContent()) ?? '').length, { timeout: 10_000 }).toBe(70_002);
    expect((await view.locator('pre').textContent())!.endsWith('END')).toBe(true);
  });

  it("reads a session's files and a file's contents again once toolrun answers, when they were read while it was away (not 'This file is gone.')", async () => {
    await asOperator();
    const session = await newSession('files while away');
    const batch = await submit(session.sessionId, [{ id: 'note', tool: 'write_file', args: { path: '/notes/away.txt', content: 'written before the outage' } }]);
    await eventually(async () => (await api.query(GetToolBatchDocument, { sessionId: session.sessionId, batchId: batch.batchId })).toolBatch?.status === 'COMPLETED', 15_000, 100, 'the file written');
    await openSession(session.sessionId);
    const alerts = () => page.getByRole('alert').allTextContents().then((texts) => texts.join(' | '));
    // The listing, read while toolrun is away: it says it tries again, and does (no Refresh).
    await api.child.stop();
    await page.getByRole('tab', { name: 'Messages & files' }).click();
    await expect.poll(alerts, { timeout: 10_000 }).toMatch(/Reading the files failed: .*trying again/);
    api = await cluster.startApi('api-files', { PORT: String(api.port) });
    const file = page.getByRole('button', { name: /^\/notes\/away\.txt/ });
    await file.waitFor({ timeout: 20_000 });
    // A file opened while toolrun is away is not gone: it shows once toolrun answers.
    await api.child.stop();
    await file.click();
    const view = page.getByLabel('Contents of /notes/away.txt');
    await expect.poll(alerts, { timeout: 10_000 }).toMatch(/does not answer.*trying again/);
    expect(await view.textContent()).not.toContain('This file is gone.');
    api = await cluster.startApi('api-file', { PORT: String(api.port) });
    await expect.poll(() => view.textContent(), { timeout: 20_000 }).toContain('written before the outage');
    await expect.poll(alerts, { timeout: 5_000 }).toBe('');
  });

  it('shows queue depths, workers alive and event lag on the Health page, refreshed every few seconds', async () => {
    await asOperator();
    await nav('Health').click();
    await expect.poll(() => page.locator('[data-workers-alive]').getAttribute('data-workers-alive'), { timeout: 15_000 }).toBe('1');
    // The page follows no stream: the header says nothing of one.
    await expect.poll(() => page.locator('[data-link-state]').getAttribute('data-link-state')).toBe('idle');
    expect(await page.locator('tr[data-queue]').evaluateAll((rows) => rows.map((el) => el.getAttribute('data-queue')))).toEqual(['calls', 'tasks']);
    // A call the page sees running, then done; the event lag counts the deliveries to this API of
    // the events it streams (here to a subscriber of the tenant's events).
    const { tenantSettings } = await api.query(TenantCursorDocument, {});
    const stream = api.ws(TenantEventsDocument, { after: tenantSettings.lastEventCursor, types: ['ToolCallStarted'] });
    const session = await newSession('health');
    // The page refreshes every 3 s: one refresh at least falls while it runs, with 2 s to spare.
    await submit(session.sessionId, [{ id: 'slow', tool: 'sleep', args: { ms: 5000 } }]);
    await expect.poll(() => page.locator('[data-running]').getAttribute('data-running'), { timeout: 15_000 }).toBe('1');
    await expect.poll(() => page.locator('tr[data-queue="calls"]').getAttribute('data-active'), { timeout: 15_000 }).toBe('1');
    await stream.next(15_000);
    await expect.poll(async () => Number(await page.locator('[data-event-lag-messages]').getAttribute('data-event-lag-messages')), { timeout: 15_000 }).toBeGreaterThan(0);
    await shot('health');
    await stream.close();
    await expect.poll(() => page.locator('[data-running]').getAttribute('data-running'), { timeout: 20_000 }).toBe('0');
  });

  it('names each page in its document title (a tab, the history, a screen reader), a session by its title', async () => {
    await asOperator();
    for (const [path, name] of [
      ['/', 'Sessions'],
      ['/approvals', 'Approvals'],
      ['/tools', 'Tools'],
      ['/status', 'Health'],
      ['/no-such-page', 'Page not found'],
    ] as const) {
      await page.goto(base + path);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await expect.poll(() => page.title()).toBe(`${name} · toolrun`);
    }
    const session = await newSession('named <b>tab</b> \u202Egnp');
    await openSession(session.sessionId);
    await expect.poll(() => page.title(), { timeout: 10_000 }).toBe('named <b>tab</b> \\u202Egnp · toolrun');
    await nav('Sessions').click();
    await expect.poll(() => page.title()).toBe('Sessions · toolrun');
    // Signed out, the page is the sign-in.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.title()).toBe('Sign in · toolrun');
    await signIn(operatorKey);
  });

  it('opens every page by its address (a reload, a link), Health at /status with /health left to the API; nothing it asks for fails', async () => {
    await asOperator();
    const failed: string[] = [];
    const onResponse = (response: { status(): number; url(): string }) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    };
    page.on('response', onResponse);
    try {
      for (const [path, name] of [
        ['/', 'Sessions'],
        ['/approvals', 'Approvals'],
        ['/tools', 'Tools'],
        ['/status', 'Health'],
      ] as const) {
        await page.goto(base + path);
        await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
        expect(await nav(name).getAttribute('aria-current'), path).toBe('page');
      }
      expect(await nav('Health').getAttribute('href')).toBe('/status');
      await page.locator('[data-workers-alive]').waitFor();
      // An address that names no page says so (it showed the sessions).
      await page.goto(`${base}/no-such-page`);
      await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    } finally {
      page.off('response', onResponse);
    }
    expect(failed).toEqual([]);
    // Chromium fetches /favicon.ico outside the page's requests (Playwright does not see it): the page must declare its icon inline.
    expect(await page.evaluate(() => document.querySelector('link[rel="icon"]')?.getAttribute('href') ?? null)).toMatch(/^data:image\/svg\+xml,/);
    // The script (400 KB) goes compressed to a browser that accepts it.
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(await (await fetch(base)).text())?.[1];
    expect(script).toBeDefined();
    for (const encoding of ['br', 'gzip']) {
      const asset = await fetch(base + script, { headers: { 'accept-encoding': encoding } });
      expect(asset.headers.get('content-encoding')).toBe(encoding);
      expect(Number(asset.headers.get('content-length'))).toBeLessThan(200_000);
      expect((await asset.text()).length).toBeGreaterThan(200_000);
    }
    const liveness = await fetch(`${base}/health`);
    expect(liveness.status).toBe(200);
    expect(await liveness.text()).not.toContain('<div id="root">');
  });

  it("says a session's tasks, messages and files are loading until toolrun answers, not that there are none", async () => {
    await asOperator();
    const session = await newSession('slow tabs');
    await openSession(session.sessionId);
    // Their reads are held (a slow network) until released.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/graphql*', async (route) => {
      const request = route.request();
      const document = request.method() === 'GET' ? new URL(request.url()).searchParams.get('query') : request.postData();
      if (/query (SessionTasks|SessionMessages|SessionFiles)\b/.test(document ?? '')) await held;
      await route.continue();
    });
    try {
      await page.getByRole('tab', { name: 'Background tasks' }).click();
      await page.getByText('Loading tasks and schedules…').waitFor();
      expect(await page.getByText('No background tasks.').count()).toBe(0);
      await page.getByRole('tab', { name: 'Messages & files' }).click();
      await page.getByText('Loading messages…').waitFor();
      await page.getByText('Loading files…').waitFor();
      expect(await page.getByText('No messages.').count()).toBe(0);
      release();
      await page.getByText('No messages.').waitFor({ timeout: 10_000 });
      await page.getByText('No files.').waitFor();
      await page.getByRole('tab', { name: 'Background tasks' }).click();
      await page.getByText('No background tasks.').waitFor({ timeout: 10_000 });
    } finally {
      release();
      await page.unroute('**/graphql*');
    }
  });

  it("keeps a session's tab in its address: a reload and Back return to it", async () => {
    await asOperator();
    const session = await newSession('tab in the address');
    await openSession(session.sessionId);
    await page.getByRole('tab', { name: 'Background tasks' }).click();
    await page.reload();
    await page.getByRole('tab', { name: 'Background tasks', selected: true }).waitFor({ timeout: 10_000 });
    await nav('Tools').click();
    await page.goBack();
    await page.getByRole('tab', { name: 'Background tasks', selected: true }).waitFor({ timeout: 10_000 });
    await page.getByRole('tab', { name: /^Batches/ }).click();
    expect(new URL(page.url()).search).toBe('');
  });

  it("shows a background task's progress bar reach 100 % while its log tail grows", async () => {
    await asOperator();
    const session = await newSession('background');
    await openSession(session.sessionId);
    await page.getByRole('tab', { name: 'Background tasks' }).click();
    const spawned = await api.query(SpawnBackgroundDocument, { sessionId: session.sessionId, tool: 'report_progress', args: { steps: 10, intervalMs: 600, label: 'step' }, title: 'progress demo' });
    if (spawned.spawnBackground.__typename !== 'BackgroundRun') throw new Error(JSON.stringify(spawned.spawnBackground));
    const task = page.locator(`.task[data-task-id="${spawned.spawnBackground.taskId}"]`);
    const seenLines = new Set<number>();
    const seenPercents = new Set<number>();
    await eventually(async () => {
      const lines = Number((await task.locator('.log-tail').getAttribute('data-lines', { timeout: 1000 }).catch(() => '0')) ?? 0);
      const percent = Number((await task.locator('progress').getAttribute('data-percent', { timeout: 1000 }).catch(() => '0')) ?? 0);
      seenLines.add(lines);
      seenPercents.add(percent);
      return percent === 100 && (await task.getAttribute('data-state')) === 'SUCCEEDED';
    }, 30_000, 100, 'the task at 100 %');
    await shot('tasks');
    // It was watched moving: several intermediate widths and log lengths, ending with all 10 lines.
    expect([...seenPercents].filter((p) => p > 0 && p < 100).length).toBeGreaterThanOrEqual(2);
    expect([...seenLines].filter((n) => n > 0 && n < 10).length).toBeGreaterThanOrEqual(2);
    await expect.poll(() => task.locator('.log-tail').getAttribute('data-lines')).toBe('10');
    // Done: when it finished, not how old its last heartbeat grows (that reads as a lost worker).
    await expect.poll(() => task.locator('.task-head').textContent()).toMatch(/· finished \d/);
    expect(await task.locator('.task-head').textContent()).not.toContain('heartbeat');
    // The newest line is in view: the box follows the end of the log.
    expect(await task.locator('.log-tail').evaluate((box) => box.scrollTop + box.clientHeight >= box.scrollHeight - 4)).toBe(true);
  });

  it('pauses, resumes, runs now and cancels a schedule from the Tasks view; a reader sees those buttons disabled', async () => {
    const session = await newSession('schedules');
    const spawned = await api.query(SpawnBackgroundDocument, {
      sessionId: session.sessionId,
      tool: 'report_progress',
      args: { steps: 1, intervalMs: 0 },
      title: 'hourly report',
      schedule: { cronExpression: '0 * * * *' },
    });
    if (spawned.spawnBackground.__typename !== 'ScheduledMonitor') throw new Error(JSON.stringify(spawned.spawnBackground));
    const scheduleId = spawned.spawnBackground.scheduleId;
    const schedule = page.locator('tr[data-schedule-id]', { hasText: 'hourly report' });
    const openTasks = async () => {
      await openSession(session.sessionId);
      await page.getByRole('tab', { name: 'Background tasks' }).click();
      await expect.poll(() => schedule.getAttribute('data-status'), { timeout: 15_000 }).toBe('ACTIVE');
    };

    await signIn(readerKey);
    await openTasks();
    for (const name of ['Pause schedule hourly report', 'Run schedule hourly report now', 'Cancel schedule hourly report']) {
      const button = page.getByRole('button', { name });
      expect(await button.isDisabled(), name).toBe(true);
      expect(await button.getAttribute('title')).toBe('Needs an API key with the submitter role');
    }

    await signIn(operatorKey);
    await openTasks();
    await page.getByRole('button', { name: 'Pause schedule hourly report' }).click();
    await expect.poll(() => schedule.getAttribute('data-status'), { timeout: 15_000 }).toBe('PAUSED');
    expect(await schedule.textContent()).toContain('paused since');
    await page.getByRole('button', { name: 'Resume schedule hourly report' }).click();
    await expect.poll(() => schedule.getAttribute('data-status'), { timeout: 15_000 }).toBe('ACTIVE');
    const tasksBefore = await page.locator('.task').count();
    await page.getByRole('button', { name: 'Run schedule hourly report now' }).click();
    await expect.poll(() => page.locator('.task').count(), { timeout: 15_000 }).toBe(tasksBefore + 1);
    await expect.poll(() => cluster.db.task.count({ where: { scheduleId, kind: 'background_tool' } })).toBe(1);
    await shot('schedules');
    await page.getByRole('button', { name: 'Cancel schedule hourly report' }).click();
    await expect.poll(() => schedule.getAttribute('data-status'), { timeout: 15_000 }).toBe('CANCELED');
    expect(await schedule.getByRole('button').count()).toBe(0);
  });

  it('shows in the Events tab what happened before the page opened, then what happens while it is open, each once, in order', async () => {
    await asOperator();
    const session = await newSession('history');
    const first = await submit(session.sessionId, [
      { id: 'h1', tool: 'add', args: { a: 1, b: 2 } },
      { id: 'h2', tool: 'echo', args: { text: 'hi' } },
    ]);
    const storedCallEvents = async () =>
      (await cluster.db.event.findMany({ where: { sessionId: session.sessionId, type: { in: [...CALL_EVENT_TYPES] } }, orderBy: { seq: 'asc' }, select: { seq: true } })).map((event) => Number(event.seq));
    await eventually(async () => (await api.query(GetToolBatchDocument, { sessionId: session.sessionId, batchId: first.batchId })).toolBatch?.status === 'COMPLETED', 15_000, 100, 'the first batch completed');
    await openSession(session.sessionId);
    await page.getByRole('tab', { name: /^Events/ }).click();
    const seqs = async () => ((await page.locator('.activity').getAttribute('data-event-seqs')) ?? '').split(',').filter(Boolean).map(Number);
    await expect.poll(seqs, { timeout: 10_000 }).toEqual(await storedCallEvents());
    expect(await page.locator('.activity').textContent()).toContain('ToolBatchCompleted');
    const live = await submit(session.sessionId, [{ id: 'h3', tool: 'add', args: { a: 3, b: 4 } }]);
    await eventually(async () => (await api.query(GetToolBatchDocument, { sessionId: session.sessionId, batchId: live.batchId })).toolBatch?.status === 'COMPLETED', 15_000, 100, 'the second batch completed');
    const all = await storedCallEvents();
    expect(all.length).toBeGreaterThan(5);
    await expect.poll(seqs, { timeout: 15_000 }).toEqual(all);
  });

  it('signs in once toolrun answers again when it was away at sign-in, saying so meanwhile', async () => {
    await page.goto(base);
    await page.evaluate(() => sessionStorage.removeItem('toolrun.apiKey'));
    await page.reload();
    await page.getByLabel('API key').waitFor();
    await api.child.stop();
    await page.getByLabel('API key').fill(operatorKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 10_000 }).toMatch(/does not answer.*trying again/);
    expect(await page.getByRole('button', { name: 'Use another key' }).count()).toBe(1);
    api = await cluster.startApi('api-back', { PORT: String(api.port) });
    await page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout: 30_000 });
  });

  it('catches up after the API restarts mid-stream: no row missing, none twice', async () => {
    await asOperator();
    const session = await newSession('restart');
    await openSession(session.sessionId);
    // 40 calls ending over about 6 s; the API goes away in the middle of it (a restart takes 2–3 s).
    const calls = Array.from({ length: 40 }, (_, i) => ({ id: `r${String(i).padStart(2, '0')}`, tool: 'sleep', args: { ms: 150 * (i + 1), progressIntervalMs: 500 } }));
    const batch = await submit(session.sessionId, calls);
    const panel = page.locator(`.batch[data-batch-id="${batch.batchId}"]`);
    await expect.poll(() => panel.locator('.call[data-status="SUCCEEDED"]').count(), { timeout: 30_000 }).toBeGreaterThan(2);
    await api.child.stop();
    await expect.poll(() => page.locator('[data-link-state]').getAttribute('data-link-state'), { timeout: 15_000 }).toBe('reconnecting');
    await shot('reconnecting');
    api = await cluster.startApi('api-again', { PORT: String(api.port) });
    await expect.poll(() => panel.getAttribute('data-batch-status'), { timeout: 45_000 }).toBe('COMPLETED');
    await expect.poll(() => page.locator('[data-link-state]').getAttribute('data-link-state')).toBe('live');
    const done = await api.query(GetToolBatchDocument, { sessionId: session.sessionId, batchId: batch.batchId });
    expect(done.toolBatch?.status).toBe('COMPLETED');
    expect(await panel.locator('.timeline').getAttribute('data-row-count')).toBe('40');
    // Every tool call event of the session, each once, in order: what the database holds.
    await page.getByRole('tab', { name: /^Events/ }).click();
    const seqs = (await page.locator('.activity').getAttribute('data-event-seqs'))!.split(',').map(Number);
    const stored = await cluster.db.event.findMany({ where: { sessionId: session.sessionId, type: { in: [...CALL_EVENT_TYPES] } }, orderBy: { seq: 'asc' }, select: { seq: true } });
    expect(seqs).toEqual(stored.map((event) => Number(event.seq)));
  });

  it("keeps following a session's tasks after the task stream's cursor fell out of the retention", async () => {
    await asOperator();
    const session = await newSession('tasks after expiry');
    // The page's cursor is the session's head now; the Tasks view follows from it when opened.
    await openSession(session.sessionId);
    await page.getByText(/No batches yet/).waitFor();
    const batch = await submit(session.sessionId, Array.from({ length: 30 }, (_, i) => ({ id: `exp${i}`, tool: 'add', args: { a: i, b: 1 } })));
    await expect.poll(() => page.locator(`.batch[data-batch-id="${batch.batchId}"]`).getAttribute('data-batch-status'), { timeout: 20_000 }).toBe('COMPLETED');
    // The session's oldest events are pruned, as EVENT_RETENTION_HOURS does, and the API restarts so that none is
    // held in memory: the Tasks view's cursor is now expired (CursorExpired).
    await cluster.db.event.deleteMany({ where: { sessionId: session.sessionId, seq: { lte: 40 } } });
    await api.child.stop();
    api = await cluster.startApi('api-expiry', { PORT: String(api.port) });
    await expect.poll(() => page.locator('[data-link-state]').getAttribute('data-link-state'), { timeout: 20_000 }).toBe('live');
    await page.getByRole('tab', { name: 'Background tasks' }).click();
    await page.getByText('No background tasks.').waitFor();
    // A task spawned after that shows, and so does its end: the view follows again from the session's head.
    const spawned = await api.query(SpawnBackgroundDocument, { sessionId: session.sessionId, tool: 'report_progress', args: { steps: 3, intervalMs: 300 }, title: 'after expiry' });
    if (spawned.spawnBackground.__typename !== 'BackgroundRun') throw new Error(JSON.stringify(spawned.spawnBackground));
    await page.locator(`.task[data-task-id="${spawned.spawnBackground.taskId}"][data-state="SUCCEEDED"]`).waitFor({ timeout: 20_000 });
  });

  it('fills the sessions list and the approvals inbox once toolrun answers again when they were opened while it was away', async () => {
    await asOperator();
    const session = await newSession('opened while away');
    await submit(session.sessionId, [{ id: 'away-delete', tool: 'delete_file', args: { path: '/away.txt' } }]);
    await eventually(async () => expect((await api.query(GetToolCallDocument, { sessionId: session.sessionId, callId: 'away-delete' })).toolCall?.status).toBe('AWAITING_APPROVAL'));
    await openSession(session.sessionId);
    // Each list read its tenant cursor while toolrun was away: it says so, then fills in once toolrun is back (no reload).
    for (const [view, shown] of [
      ['Sessions', page.locator(`tr[data-session-id="${session.sessionId}"]`)],
      ['Approvals', page.locator('.approval[data-call-id="away-delete"]')],
    ] as const) {
      await api.child.stop();
      await nav(view).click();
      await expect.poll(async () => (await page.getByRole('alert').allTextContents()).join(' '), { timeout: 10_000 }).toMatch(/does not answer.*trying again/);
      api = await cluster.startApi(`api-${view.toLowerCase()}`, { PORT: String(api.port) });
      await shown.waitFor({ timeout: 20_000 });
      expect(await page.getByRole('alert').count()).toBe(0);
    }
  });

  it("says a call's details were not read while toolrun is away (not that the call is not found), and shows them once it answers", async () => {
    await asOperator();
    const session = await newSession('drawer while away');
    await submit(session.sessionId, [{ id: 'away-echo', tool: 'echo', args: { message: 'read once toolrun is back' } }]);
    await openSession(session.sessionId);
    await expect.poll(() => row('away-echo').getAttribute('data-status'), { timeout: 15_000 }).toBe('SUCCEEDED');
    await api.child.stop();
    await row('away-echo').locator('.call-name').click();
    const drawer = page.getByRole('dialog');
    await expect.poll(async () => (await drawer.getByRole('alert').allTextContents()).join(' '), { timeout: 10_000 }).toMatch(/does not answer.*trying again/);
    expect(await drawer.textContent()).not.toContain('Not found');
    api = await cluster.startApi('api-drawer', { PORT: String(api.port) });
    await expect.poll(() => drawer.textContent(), { timeout: 20_000 }).toContain('read once toolrun is back');
    expect(await drawer.getByRole('alert').count()).toBe(0);
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
  });

  it('shows a session and a batch whose reads toolrun did not answer once it answers again', async () => {
    await asOperator();
    const session = await newSession('read while away');
    const other = await newSession('opened while away');
    const first = await submit(session.sessionId, [{ id: 'older-add', tool: 'add', args: { a: 1, b: 2 } }]);
    await submit(session.sessionId, [{ id: 'newer-add', tool: 'add', args: { a: 2, b: 3 } }]);
    await openSession(session.sessionId);
    await row('newer-add').waitFor({ timeout: 15_000 });
    // The older batch is opened while toolrun is away: its calls are read once it is back.
    await api.child.stop();
    await page.locator(`.batch[data-batch-id="${first.batchId}"] .batch-head`).click();
    await page.getByText('Loading calls…').waitFor();
    await page.waitForTimeout(2500);
    api = await cluster.startApi('api-batch', { PORT: String(api.port) });
    await row('older-add').waitFor({ timeout: 20_000 });
    // A session opened while toolrun is away says so, then shows once toolrun is back.
    await api.child.stop();
    await page.evaluate((path) => {
      history.pushState(null, '', path);
      dispatchEvent(new PopStateEvent('popstate'));
    }, `/sessions/${other.sessionId}`);
    await expect.poll(async () => (await page.getByRole('alert').allTextContents()).join(' '), { timeout: 10_000 }).toMatch(/does not answer.*trying again/);
    api = await cluster.startApi('api-session', { PORT: String(api.port) });
    await page.getByRole('heading', { level: 1, name: 'opened while away' }).waitFor({ timeout: 20_000 });
  });

  it("shows a session's tasks and the tools once toolrun answers again when they were read while it was away", async () => {
    await asOperator();
    const session = await newSession('tasks read while away');
    await openSession(session.sessionId);
    const says = () => expect.poll(async () => (await page.getByRole('alert').allTextContents()).join(' '), { timeout: 10_000 }).toMatch(/does not answer.*trying again/);
    await api.child.stop();
    await page.getByRole('tab', { name: 'Background tasks' }).click();
    await says();
    api = await cluster.startApi('api-tasks', { PORT: String(api.port) });
    await page.getByText('No background tasks.').waitFor({ timeout: 20_000 });
    await api.child.stop();
    await nav('Tools').click();
    await says();
    api = await cluster.startApi('api-tools', { PORT: String(api.port) });
    await page.locator('[data-tool="add"]').waitFor({ timeout: 20_000 });
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it('says why no session was created (toolrun away) by New session and by the try-it form, and creates one once it answers', async () => {
    await asOperator();
    await nav('Tools').click();
    await page.locator('[data-tool="add"]').click();
    await page.getByLabel('a *').fill('1');
    await page.getByLabel('b *').fill('2');
    await api.child.stop();
    await page.getByRole('button', { name: 'Run batch' }).click();
    const alerts = () => page.getByRole('alert').allTextContents().then((texts) => texts.join(' | '));
    await expect.poll(alerts, { timeout: 10_000 }).toMatch(/Creating a session failed: .*does not answer/);
    expect(new URL(page.url()).pathname).toBe('/tools');
    await nav('Sessions').click();
    await page.getByRole('button', { name: 'New session' }).click();
    await expect.poll(alerts, { timeout: 10_000 }).toMatch(/Creating a session failed: .*does not answer/);
    expect(new URL(page.url()).pathname).toBe('/');
    api = await cluster.startApi('api-create', { PORT: String(api.port) });
    await nav('Sessions').click();
    await expect.poll(() => page.locator('[data-link-state]').getAttribute('data-link-state'), { timeout: 20_000 }).toBe('live');
    await page.getByRole('button', { name: 'New session' }).click();
    await page.waitForURL(/\/sessions\/[0-9a-f-]+$/, { timeout: 15_000 });
  });

  it('says on its card that a decision was not made because toolrun did not answer, and decides once it answers', async () => {
    await asOperator();
    const session = await newSession('decide while away');
    await submit(session.sessionId, [{ id: 'away-approve', tool: 'delete_file', args: { path: '/away-approve.txt' } }]);
    await nav('Approvals').click();
    const card = page.locator('.approval[data-call-id="away-approve"]');
    await card.waitFor({ timeout: 15_000 });
    await api.child.stop();
    await page.getByRole('button', { name: 'Approve away-approve' }).click();
    await expect.poll(async () => (await card.getByRole('alert').allTextContents()).join(' '), { timeout: 10_000 }).toMatch(/^toolrun does not answer/);
    api = await cluster.startApi('api-decide', { PORT: String(api.port) });
    await expect.poll(() => page.locator('[data-link-state]').getAttribute('data-link-state'), { timeout: 20_000 }).toBe('live');
    await page.getByRole('button', { name: 'Approve away-approve' }).click();
    await card.waitFor({ state: 'detached', timeout: 15_000 });
  });

  it('says so when older batches were not read (toolrun away), and reads them once it answers', async () => {
    await asOperator();
    const session = await newSession('older while away');
    for (let i = 0; i < 51; i++) await submit(session.sessionId, [{ id: `ow${i}`, tool: 'echo', args: { message: `${i}` } }]);
    const alerts = () => page.getByRole('alert').allTextContents().then((texts) => texts.join(' | '));
    await openSession(session.sessionId);
    await expect.poll(() => page.getByRole('tab', { name: /^Batches/ }).textContent(), { timeout: 10_000 }).toBe('Batches (50 of 51)');
    await api.child.stop();
    await page.getByRole('button', { name: 'Show older batches' }).click();
    await expect.poll(alerts, { timeout: 10_000 }).toMatch(/Reading older batches failed: toolrun does not answer/);
    api = await cluster.startApi('api-older', { PORT: String(api.port) });
    await expect.poll(() => page.locator('[data-link-state]').getAttribute('data-link-state'), { timeout: 20_000 }).toBe('live');
    await page.getByRole('button', { name: 'Show older batches' }).click();
    await expect.poll(() => page.locator('.batch[data-batch-id]').count(), { timeout: 10_000 }).toBe(51);
    await expect.poll(alerts, { timeout: 5_000 }).toBe('');
  });

  it("reads a session's older tasks asked for while toolrun was away once it answers, as it says", async () => {
    await asOperator();
    const session = await newSession('older tasks while away');
    for (let i = 0; i < 51; i++) {
      await eventually(async () => {
        const spawned = await api.query(SpawnBackgroundDocument, { sessionId: session.sessionId, tool: 'report_progress', args: { steps: 1, intervalMs: 0 }, title: `older ${i}` });
        return spawned.spawnBackground.__typename === 'BackgroundRun';
      }, 30_000, 50, `run ${i} spawned`);
    }
    await expect.poll(() => cluster.db.task.count({ where: { sessionId: session.sessionId, state: { in: ['QUEUED', 'RUNNING'] } } }), { timeout: 30_000 }).toBe(0);
    await openSession(session.sessionId);
    await page.getByRole('tab', { name: 'Background tasks' }).click();
    await page.getByText('The 50 newest of 51 tasks').waitFor({ timeout: 15_000 });
    await api.child.stop();
    await page.getByRole('button', { name: 'Show older tasks (1 more)' }).click();
    await expect.poll(async () => (await page.getByRole('alert').allTextContents()).join(' | '), { timeout: 10_000 }).toMatch(/Reading older tasks failed: .*does not answer.*trying again/);
    api = await cluster.startApi('api-older-tasks', { PORT: String(api.port) });
    // Read again by itself, as the message said.
    await expect.poll(() => page.locator('.task').count(), { timeout: 20_000 }).toBe(51);
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it('says so when a cancel was not done (toolrun away), and cancels once it answers', async () => {
    await asOperator();
    const session = await newSession('cancel while away');
    await submit(session.sessionId, [{ id: 'long-sleep', tool: 'sleep', args: { ms: 120_000 } }]);
    await openSession(session.sessionId);
    await expect.poll(() => row('long-sleep').getAttribute('data-status'), { timeout: 15_000 }).toBe('RUNNING');
    await api.child.stop();
    await page.getByRole('button', { name: 'Cancel call long-sleep' }).click();
    await expect.poll(async () => (await page.getByRole('alert').allTextContents()).join(' '), { timeout: 10_000 }).toMatch(/Cancelling call long-sleep failed/);
    api = await cluster.startApi('api-cancel', { PORT: String(api.port) });
    await page.getByRole('button', { name: 'Cancel call long-sleep' }).click();
    await expect.poll(() => row('long-sleep').getAttribute('data-status'), { timeout: 20_000 }).toBe('CANCELLED');
    // What was read while toolrun was away is read again within 2 s: then nothing is left to say.
    await expect.poll(async () => (await page.getByRole('alert').allTextContents()).join(' | '), { timeout: 5_000 }).toBe('');
  });

  it('shows every call of a batch larger than one page (MAX_CALLS_PER_BATCH above 1,000)', async () => {
    await asOperator();
    const session = await newSession('fifteen hundred calls');
    // Submitted through an API that takes batches of 1,500; the page reads them through its own.
    const wide = await cluster.startApi('api-wide', { MAX_CALLS_PER_BATCH: '1500', MAX_CALLS_PER_REQUEST: '1500' });
    try {
      const calls = Array.from({ length: 1500 }, (_, i) => ({ id: `w${String(i).padStart(4, '0')}`, tool: 'echo', args: { message: `call ${i}` } }));
      const result = await wide.query(ExecuteToolBatchDocument, { sessionId: session.sessionId, calls });
      if (result.executeToolBatch.__typename !== 'ToolBatch') throw new Error(JSON.stringify(result.executeToolBatch));
      await openSession(session.sessionId);
      const panel = page.locator(`.batch[data-batch-id="${result.executeToolBatch.batchId}"]`);
      await panel.waitFor({ timeout: 30_000 });
      if ((await panel.locator('.batch-head').getAttribute('aria-expanded')) !== 'true') await panel.locator('.batch-head').click();
      await expect.poll(() => panel.locator('.timeline').getAttribute('data-row-count'), { timeout: 30_000 }).toBe('1500');
      expect(await panel.locator('.batch-head').textContent()).toContain('1500 calls');
    } finally {
      await wide.child.stop();
    }
  }, 120_000);

  it('keeps a 1,000-call batch responsive while its events stream (no main-thread task over 50 ms)', async () => {
    await asOperator();
    const session = await newSession('a thousand calls');
    await openSession(session.sessionId);
    // Long tasks by the Performance API (wall time), and the main thread's own time per task from a
    // trace: on a machine shared by many processes a task's wall time includes time the thread
    // waited for a CPU, which says nothing about the page.
    await page.evaluate(() => {
      const w = window as unknown as { longTasks: number[] };
      w.longTasks = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) w.longTasks.push(Math.round(entry.duration));
      }).observe({ type: 'longtask' });
    });
    await browser.startTracing(page, { categories: ['toplevel', '__metadata'] });
    const calls = Array.from({ length: 1000 }, (_, i) => ({ id: `c${String(i).padStart(4, '0')}`, tool: 'echo', args: { message: `call ${i}` } }));
    const batch = await submit(session.sessionId, calls);
    const panel = page.locator(`.batch[data-batch-id="${batch.batchId}"]`);
    await expect.poll(() => panel.getAttribute('data-batch-status'), { timeout: 60_000 }).toBe('COMPLETED');
    expect(await panel.locator('.timeline').getAttribute('data-row-count')).toBe('1000');
    await expect.poll(() => panel.locator('.call[data-status="SUCCEEDED"]').count()).toBeGreaterThan(5);
    // Virtualised: only the visible rows are in the document.
    expect(await panel.locator('.call').count()).toBeLessThan(60);
    const trace = JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] };
    const longTasks = await page.evaluate(() => (window as unknown as { longTasks: number[] }).longTasks);
    const mainThreads = new Set(trace.traceEvents.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
    const tasks = trace.traceEvents.filter((e) => (e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask') && e.ph === 'X' && mainThreads.has(`${e.pid}:${e.tid}`) && typeof e.tdur === 'number');
    expect(tasks.length).toBeGreaterThan(100);
    const longestMs = Math.max(...tasks.map((e) => e.tdur! / 1000));
    console.log(`1,000-call batch: ${tasks.length} main-thread tasks, longest ${longestMs.toFixed(1)} ms of thread time; Performance API long tasks (wall time) ${JSON.stringify(longTasks)}`);
    expect(longestMs).toBeLessThanOrEqual(50);
    await nav('Sessions').click();
    await page.locator(`tr[data-session-id="${session.sessionId}"]`).waitFor();
  });
});
