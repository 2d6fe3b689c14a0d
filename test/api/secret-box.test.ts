// Signing secrets at rest: AES-256-GCM under keys with ids, read with any configured key, and
// re-encrypted under the first one (also secrets stored in plaintext before encryption).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegisteredToolService, RegisteredToolStore } from '../../src/domain/tenants/registered-tools.js';
import { SchemaCompileAllowance } from '../../src/domain/tenants/schema-compile-allowance.js';
import { SecretBox, SecretKeysError } from '../../src/domain/tenants/secret-box.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

const OLD = SecretBox.newKeySpec('old');
const NEW = SecretBox.newKeySpec('new');

describe('secret box', () => {
  it('encrypts with the first key, decrypts with any, refuses unknown keys and tampering', () => {
    const old = new SecretBox(OLD);
    const stored = old.encrypt('whsec_abc');
    expect(stored).toMatch(/^v1\.old\./);
    expect(stored).not.toContain('abc');
    expect(old.encrypt('whsec_abc')).not.toBe(stored);
    const both = new SecretBox(`${NEW},${OLD}`);
    expect(both.decrypt(stored)).toBe('whsec_abc');
    expect(both.needsReencryption(stored)).toBe(true);
    expect(both.needsReencryption(both.encrypt('x'))).toBe(false);
    expect(() => new SecretBox(NEW).decrypt(stored)).toThrow(/key `old`/);
    const parts = stored.split('.');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(() => old.decrypt(parts.join('.'))).toThrow();
    expect(both.decrypt('whsec_plain')).toBe('whsec_plain');
    expect(() => new SecretBox('k:short')).toThrow(SecretKeysError);
    expect(() => new SecretBox(`${OLD},${OLD}`)).toThrow(/twice/);
  });
});

describe('re-encrypting stored secrets', () => {
  let toolrun: Toolrun;
  beforeAll(async () => {
    toolrun = await startToolrun({ HTTP_TOOL_ALLOW_LOOPBACK: true }, { worker: false });
  });
  afterAll(() => toolrun?.close());

  it('moves plaintext and old-key secrets to the primary key; tools keep their secrets', async () => {
    const { db, config, registry } = toolrun.services;
    const service = (keys: string) => new RegisteredToolService({ config, db, registry, secrets: new SecretBox(keys), schemaCompiles: new SchemaCompileAllowance() });
    const name = `t_${randomUUID().slice(0, 8)}`;
    const input = { name, description: 'd', parametersSchema: { type: 'object' }, url: 'http://127.0.0.1:9/x' };
    const { signingSecret } = await service(OLD).registerHttp(toolrun.tenantId, input);
    const legacy = `${name}_legacy`;
    await db.registeredTool.create({ data: { tenantId: toolrun.tenantId, name: legacy, kind: 'HTTP', definition: { ...input, name: legacy }, url: input.url, signingSecret: 'whsec_bGVnYWN5' } });

    const rotated = service(`${NEW},${OLD}`);
    // Scoped to this tenant: the shared test database holds other tests' tools under other keys.
    expect(await rotated.reencryptSecrets({ tenantId: toolrun.tenantId })).toBeGreaterThanOrEqual(2);
    const rows = await db.registeredTool.findMany({ where: { tenantId: toolrun.tenantId, name: { in: [name, legacy] } } });
    for (const row of rows) expect(row.signingSecret).toMatch(/^v1\.new\./);
    // Readable with the new key alone now.
    const store = new RegisteredToolStore(db, new SecretBox(NEW));
    const secrets = Object.fromEntries((await store.rows(toolrun.tenantId, [name, legacy])).map((row) => [row.name, row.signingSecrets]));
    expect(secrets).toEqual({ [name]: [signingSecret], [legacy]: ['whsec_bGVnYWN5'] });
    expect(await rotated.reencryptSecrets({ tenantId: toolrun.tenantId })).toBe(0);
  });
});
