// Tenants and their API keys. A key is shown once when created; only its sha256 is stored.
import { randomBytes } from 'node:crypto';
import type { Db } from '../../db.js';
import type { Tenant } from '../../generated/prisma/client.js';
import { ValidationError } from '../../model/errors.js';
import { sha256Hex } from '../../model/ids.js';

/** `reader`: queries and subscriptions only; every key can read. */
export const ROLES = ['reader', 'submitter', 'approver', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export interface Viewer {
  tenantId: string;
  apiKeyId: string;
  roles: Role[];
}

const KEY_PREFIX = 'trk_';
const CACHE_TTL_MS = 10_000;

export class ApiKeyService {
  private readonly cache = new Map<string, { viewer: Viewer | null; expires: number }>();

  constructor(private readonly db: Db) {}

  async ensureTenant(name: string): Promise<Tenant> {
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name)) {
      throw new ValidationError('tenant name must be 1-64 letters, digits, dots, dashes or underscores', 'name');
    }
    return this.db.tenant.upsert({ where: { name }, update: {}, create: { name } });
  }

  async createKey(tenantName: string, options: { name?: string; roles?: Role[] } = {}): Promise<{ key: string; tenant: Tenant; apiKeyId: string }> {
    const tenant = await this.ensureTenant(tenantName);
    const roles = options.roles ?? ['submitter', 'approver'];
    for (const role of roles) if (!ROLES.includes(role)) throw new ValidationError(`unknown role ${role}`, 'roles');
    const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
    const row = await this.db.apiKey.create({
      data: { tenantId: tenant.id, name: options.name ?? 'default', keyHash: sha256Hex(key), prefix: key.slice(0, 10), roles },
    });
    return { key, tenant, apiKeyId: row.id };
  }

  /** Whether an approver may decide calls its own key submitted (off by default). */
  async setAllowSelfApproval(tenantId: string, allow: boolean): Promise<Tenant> {
    return this.db.tenant.update({ where: { id: tenantId }, data: { allowSelfApproval: allow } });
  }

  async tenant(tenantId: string): Promise<Tenant> {
    return this.db.tenant.findUniqueOrThrow({ where: { id: tenantId } });
  }

  /** Resolves a bearer token to its viewer, or null for a missing, unknown or revoked key. */
  async authenticate(token: string | null | undefined): Promise<Viewer | null> {
    if (!token || !token.startsWith(KEY_PREFIX) || token.length > 200) return null;
    const hash = sha256Hex(token);
    const cached = this.cache.get(hash);
    if (cached && cached.expires > Date.now()) return cached.viewer;
    const row = await this.db.apiKey.findUnique({ where: { keyHash: hash } });
    const viewer = row && !row.revokedAt ? { tenantId: row.tenantId, apiKeyId: row.id, roles: row.roles as Role[] } : null;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(hash, { viewer, expires: Date.now() + CACHE_TTL_MS });
    return viewer;
  }
}

/** Extracts the token from an `Authorization: Bearer <key>` value. */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}
