// Compiling tenants' tool schemas runs on the thread that serves every tenant: each tenant has an
// allowance of compile time per process, and a registration while its allowance is spent is
// refused with LIMIT_EXCEEDED, other tenants unaffected.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LimitExceededError } from '../../src/model/errors.js';
import { RegisteredToolService } from '../../src/domain/tenants/registered-tools.js';
import { SchemaCompileAllowance } from '../../src/domain/tenants/schema-compile-allowance.js';
import { SecretBox } from '../../src/domain/tenants/secret-box.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

let toolrun: Toolrun;
beforeAll(async () => {
  toolrun = await startToolrun({}, { worker: false });
});
afterAll(() => toolrun?.close());

/** A schema of 1,000 properties: tens to hundreds of ms to compile. */
const largeSchema = () => ({ type: 'object', properties: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`p${i}_${randomUUID().slice(0, 4)}`, { type: 'integer', minimum: i }])) });

describe('the compile-time allowance of a tenant’s schemas', () => {
  it('refuses a registration once a tenant has spent it, says when to try again, and leaves other tenants alone', async () => {
    const { db, config, registry } = toolrun.services;
    const secrets = SecretBox.fromSettings(config);
    // 1 ms at once, refilled at 1 ms a second: the first large schema spends it.
    const service = new RegisteredToolService({ config, db, registry, secrets, schemaCompiles: new SchemaCompileAllowance(1, 1) });
    const other = await db.tenant.create({ data: { name: `other-${randomUUID().slice(0, 8)}` } });
    const register = (tenantId: string) => service.registerExternal(tenantId, { name: `t_${randomUUID().slice(0, 8)}`, description: 'd', parametersSchema: largeSchema() });

    await register(toolrun.tenantId);
    const refused = await register(toolrun.tenantId).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LimitExceededError);
    expect(refused).toMatchObject({ code: 'LIMIT_EXCEEDED', message: expect.stringMatching(/^Compiling this tenant's tool schemas has used the time it may take on this process .*: try again in \d+ s, or send smaller schemas$/) });
    // Nothing was written for the refused one; another tenant registers as before.
    await expect(register(other.id)).resolves.toMatchObject({ tool: { kind: 'EXTERNAL' } });
  });

  it('refills with time', () => {
    // 20 ms at once, 100 ms more each second: a 40 ms compile leaves it 20 ms short, 500 ms of waiting refill it.
    const allowance = new SchemaCompileAllowance(20, 100);
    const spin = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    allowance.charge('t', () => spin(40));
    expect(() => allowance.charge('t', () => 0)).toThrow(LimitExceededError);
    spin(500);
    expect(allowance.charge('t', () => 'ran')).toBe('ran');
  });
});
