// `npm run apikey` (the compiled command, as the npm script runs it): create, list, rotate and
// revoke keys of a tenant; an API in this process sees each change at once through Redis.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, ensureBuilt, ROOT } from '../support/build.js';
import { TEST_DATABASE_URL } from '../support/database.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

const run = promisify(execFile);

describe('npm run apikey', () => {
  let toolrun: Toolrun;
  beforeAll(async () => {
    await ensureBuilt();
    toolrun = await startToolrun({}, { worker: false });
  }, 300_000);
  afterAll(() => toolrun?.close());

  const works = async (key: string) => (await toolrun.request('{ tools { name } }', undefined, key)).status === 200;
  async function within(ms: number, check: () => Promise<boolean>) {
    const start = Date.now();
    while (!(await check())) {
      if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('creates, lists, rotates and revokes keys; never prints a key but when it is made', async () => {
    const { config } = toolrun.services;
    const env = childEnv({ DATABASE_URL: TEST_DATABASE_URL, REDIS_URL: config.REDIS_URL, REDIS_PREFIX: config.REDIS_PREFIX, LOG_LEVEL: 'warn' });
    const cli = (...args: string[]) => run(process.execPath, ['dist/src/bin/apikey.js', ...args], { cwd: ROOT, env });
    const tenant = `cli-${randomUUID().slice(0, 8)}`;

    const created = await cli('create', tenant, '--name', 'ci', '--roles', 'reader', '--expires-in', '1d');
    const key = /^key +(trk_\S+)$/m.exec(created.stdout)![1]!;
    const id = /^id +(\S+)$/m.exec(created.stdout)![1]!;
    expect(created.stdout).toMatch(/^roles +reader$/m);
    expect(created.stdout).toMatch(/^state +active$/m);
    expect(await works(key)).toBe(true);

    const listed = await cli('list', tenant);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).not.toContain(key);

    const rotated = await cli('rotate', tenant, id, '--overlap', '0');
    const next = /^key +(trk_\S+)$/m.exec(rotated.stdout)![1]!;
    await within(1000, async () => !(await works(key)));
    expect(await works(next)).toBe(true);

    const revoked = await cli('revoke', tenant, next.slice(0, 10));
    expect(revoked.stdout).toContain('Revoked');
    await within(1000, async () => !(await works(next)));

    const bad = await cli('create', tenant, '--roles', 'owner').catch((error: { code: number; stderr: string }) => error);
    expect(bad).toMatchObject({ code: 1 });
    expect((bad as { stderr: string }).stderr).toContain('unknown role `owner`');

    // A duration past 100 years is refused in one line naming the option; no tenant is made for it.
    const newTenant = `cli-${randomUUID().slice(0, 8)}`;
    const far = await cli('create', newTenant, '--expires-in', '99999999999d').catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect(far).toMatchObject({ code: 1, stdout: '', stderr: 'toolrun: --expires-in must be at most 36500d (100 years)\n' });
    expect(await toolrun.services.db.tenant.count({ where: { name: newTenant } })).toBe(0);
  }, 300_000);

  it('refuses to list, revoke, rotate or set self-approval for a tenant that does not exist, and creates none', async () => {
    const { config, db } = toolrun.services;
    const env = childEnv({ DATABASE_URL: TEST_DATABASE_URL, REDIS_URL: config.REDIS_URL, REDIS_PREFIX: config.REDIS_PREFIX, LOG_LEVEL: 'warn' });
    const cli = (...args: string[]) => run(process.execPath, ['dist/src/bin/apikey.js', ...args], { cwd: ROOT, env });
    const tenant = `typo-${randomUUID().slice(0, 8)}`;
    const commands = [['list', tenant], ['revoke', tenant, 'trk_nothing'], ['rotate', tenant, 'trk_nothing'], ['self-approval', tenant, 'on']];
    const refusals = await Promise.all(
      commands.map((args) =>
        cli(...args).then(
          () => expect.unreachable(`apikey ${args[0]} of an unknown tenant succeeded`),
          (error: { code: number; stdout: string; stderr: string }) => error,
        ),
      ),
    );
    for (const refused of refusals) {
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toBe(`toolrun: Tenant \`${tenant}\` was not found\n`);
    }
    // A key refused for its options makes no tenant either.
    const badRole = await cli('create', tenant, '--roles', 'owner').then(
      () => expect.unreachable('apikey create with an unknown role succeeded'),
      (error: { code: number; stderr: string }) => error,
    );
    expect(badRole.code).toBe(1);
    expect(badRole.stderr).toContain('unknown role `owner`');
    // --help prints the usage; an unknown option says so in one line, then the usage (no stack).
    expect((await cli('--help')).stdout).toMatch(/^usage: npm run apikey -- create/);
    const unknown = await cli('list', tenant, '--bogus').then(
      () => expect.unreachable('an unknown option was accepted'),
      (error: { code: number; stderr: string }) => error,
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split('\n')[0]).toBe("toolrun: Unknown option '--bogus'");
    expect(unknown.stderr).not.toContain('    at ');
    // So does an option the command does not take (rotating with --expires-in would make a key that never expires).
    const stray = await cli('rotate', tenant, 'trk_nothing', '--expires-in', '1d').then(
      () => expect.unreachable('an option rotate does not take was accepted'),
      (error: { code: number; stderr: string }) => error,
    );
    expect(stray.code).toBe(2);
    expect(stray.stderr.split('\n')[0]).toBe('toolrun: rotate: --expires-in is not an option of this command (it takes --overlap)');
    const strayCreate = await cli('create', tenant, '--overlap', '1h').then(
      () => expect.unreachable('an option create does not take was accepted'),
      (error: { code: number; stderr: string }) => error,
    );
    expect(strayCreate.code).toBe(2);
    expect(strayCreate.stderr.split('\n')[0]).toBe('toolrun: create: --overlap is not an option of this command (it takes --name, --roles, --expires-in)');
    expect(await db.tenant.count({ where: { name: tenant } })).toBe(0);
  }, 120_000);
});
