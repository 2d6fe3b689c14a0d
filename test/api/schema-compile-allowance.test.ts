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
    // 20 ms at once, 100 ms more each second, on a clock of the test's: a 40 ms compile leaves it 20 ms short.
    let clock = 0;
    const allowance = new SchemaCompileAllowance(20, 100, () => clock);
    allowance.charge('t', () => (clock += 40));
    expect(() => allowance.charge('t', () => 0)).toThrow(LimitExceededError);
    clock += 150; // 15 ms back: still 5 ms short
    expect(() => allowance.charge('t', () => 0)).toThrow(/try again in 1 s/);
    clock += 100;
    expect(allowance.charge('t', () => 'ran')).toBe('ran');
    // Another tenant's allowance is whole.
    expect(allowance.charge('u', () => 'ran')).toBe('ran');
  });
});
