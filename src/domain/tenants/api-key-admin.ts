// Operator management of a tenant's API keys (the `toolrun keys` commands, run against the
// database like `npm run apikey`): list, revoke, rotate. A revoked key stops authenticating
// within the key cache's lifetime (10 s) in every process.
import type { Db } from '../../db.js';
import { NotFoundError, ValidationError } from '../../model/errors.js';
import { type ApiKeyService, type Role } from './api-keys.js';

export interface ApiKeyInfo {
  id: string;
  name: string;
  /** The first characters of the key, enough to recognise it. */
  prefix: string;
  roles: Role[];
  createdAt: Date;
  revokedAt: Date | null;
}

export class ApiKeyAdmin {
  constructor(
    private readonly db: Db,
    private readonly keys: ApiKeyService,
  ) {}

  /** The tenant's keys, oldest first (revoked ones too). */
  async list(tenantName: string): Promise<ApiKeyInfo[]> {
    const tenant = await this.tenant(tenantName);
    const rows = await this.db.apiKey.findMany({ where: { tenantId: tenant.id }, orderBy: { createdAt: 'asc' } });
    return rows.map((row) => ({ id: row.id, name: row.name, prefix: row.prefix, roles: row.roles as Role[], createdAt: row.createdAt, revokedAt: row.revokedAt }));
  }

  /** Revokes the key with this id or prefix; revoking a revoked key changes nothing. */
  async revoke(tenantName: string, idOrPrefix: string): Promise<ApiKeyInfo> {
    const key = await this.find(tenantName, idOrPrefix);
    if (key.revokedAt) return key;
    const row = await this.db.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
    return { ...key, revokedAt: row.revokedAt };
  }

  /** A new key with the same name and roles, and the old one revoked, in one transaction. */
  async rotate(tenantName: string, idOrPrefix: string): Promise<{ key: string; replaced: ApiKeyInfo; created: ApiKeyInfo }> {
    const old = await this.find(tenantName, idOrPrefix);
    if (old.revokedAt) throw new ValidationError(`key ${old.prefix}… is revoked; create a new one instead`, 'key');
    const { key, apiKeyId } = await this.keys.createKey(tenantName, { name: old.name, roles: old.roles });
    const row = await this.db.apiKey.update({ where: { id: old.id }, data: { revokedAt: new Date() } });
    const created = (await this.list(tenantName)).find((each) => each.id === apiKeyId)!;
    return { key, replaced: { ...old, revokedAt: row.revokedAt }, created };
  }

  private async tenant(name: string) {
    const tenant = await this.db.tenant.findUnique({ where: { name } });
    if (!tenant) throw new NotFoundError('tenant', name);
    return tenant;
  }

  private async find(tenantName: string, idOrPrefix: string): Promise<ApiKeyInfo> {
    const keys = await this.list(tenantName);
    // A key is named by its id, its prefix (as `keys list` shows it), or the key itself.
    const matches = keys.filter((key) => key.id === idOrPrefix || idOrPrefix.startsWith(key.prefix));
    if (matches.length === 0) throw new NotFoundError('API key', idOrPrefix);
    if (matches.length > 1) throw new ValidationError(`${idOrPrefix} names ${matches.length} keys of tenant ${tenantName}; give the key id`, 'key');
    return matches[0]!;
  }
}
