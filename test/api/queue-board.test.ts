// bull-board at /admin/queues: off by default; when enabled, only keys with the admin role see it
// (HTTP Basic with the key as password, or Bearer), and its API lists toolrun's queues.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

const basic = (key: string) => `Basic ${Buffer.from(`admin:${key}`).toString('base64')}`;

describe('queue board', () => {
  let enabled: Toolrun;
  let disabled: Toolrun;
  let base: string;
  beforeAll(async () => {
    [enabled, disabled] = await Promise.all([startToolrun({ BULL_BOARD_ENABLED: true }), startToolrun()]);
    base = (await enabled.endpoint.wsUrl()).replace(/^ws/, 'http').replace(/\/graphql$/, '');
  });
  afterAll(async () => Promise.all([enabled?.close(), disabled?.close()]));

  it('is not served unless BULL_BOARD_ENABLED', async () => {
    const url = (await disabled.endpoint.wsUrl()).replace(/^ws/, 'http').replace(/\/graphql$/, '/admin/queues');
    const admin = await disabled.newKey(undefined, ['admin']);
    expect((await fetch(url, { headers: { authorization: basic(admin) } })).status).toBe(404);
  });

  it('asks for a key, refuses keys without the admin role, and serves the board to an admin', async () => {
    const anonymous = await fetch(`${base}/admin/queues`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    expect((await fetch(`${base}/admin/queues`, { headers: { authorization: basic('trk_unknown') } })).status).toBe(401);
    const submitter = await enabled.newKey(undefined, ['submitter']);
    expect((await fetch(`${base}/admin/queues`, { headers: { authorization: basic(submitter) } })).status).toBe(403);

    const admin = await enabled.newKey(undefined, ['admin']);
    const page = await fetch(`${base}/admin/queues`, { headers: { authorization: basic(admin) } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('toolrun queues');
    const api = await fetch(`${base}/admin/queues/api/queues`, { headers: { authorization: `Bearer ${admin}` } });
    expect(api.status).toBe(200);
    const body = (await api.json()) as { queues: Array<{ name: string }> };
    expect(body.queues.map((queue) => queue.name).sort()).toEqual(['calls', 'calls-express', 'tasks']);
  });
});
