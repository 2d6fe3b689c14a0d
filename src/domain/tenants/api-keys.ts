// Tenants and their API keys. A key is shown once, when it is created or rotated; only its sha256
// is stored. A key can expire, be revoked, and be rotated (the old key stays valid for a chosen
// overlap). Lookups are cached per process; every change to a key is announced on Redis
// (`api-keys`), so each process drops its cached entry and ends the streams open on a key that no
// longer works (`watch`) as soon as the message arrives.
import { randomBytes } from 'node:crypto';
import type { Db } from '../../db.js';
import type { ApiKey, Tenant } from '../../generated/prisma/client.js';
import type { Logger } from '../../logger.js';
import { NotFoundError, ValidationError } from '../../model/errors.js';
import { sha256Hex, UUID_PATTERN } from '../../model/ids.js';
import type { Broadcast } from '../broadcast.js';
import { longerThan } from '../../model/text.js';

/**
 * `reader`: queries and subscriptions only (what a dashboard in a browser should hold); every key
 * can read. `submitter`: run batches, spawn, cancel. `approver`: decide others' calls. `admin`:
 * tools, keys, tenant settings.
 */
export const ROLES = ['reader', 'submitter', 'approver', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export interface Viewer {
  tenantId: string;
  apiKeyId: string;
  roles: Role[];
  /** Epoch ms after which the key is refused; null: never. */
  expiresAt: number | null;
}

/** Why a key stopped working. */
export type KeyInvalidReason = 'revoked' | 'expired';

/** A key as its owners see it (never its secret). */
export type ApiKeyInfo = Omit<ApiKey, 'keyHash'>;

interface KeyOptions {
  name?: string | null;
  roles?: readonly string[];
  expiresAt?: Date | null;
}

/** A new key's roles and name, or the refusal of its options. */
function checkedKeyOptions(options: KeyOptions): { roles: Role[]; name: string } {
  const roles = checkedRoles(options.roles ?? ['submitter', 'approver']);
  // Stored trimmed, as tool display names are: a name of spaces names nothing.
  const name = (options.name ?? 'default').trim();
  if (name.length < 1 || longerThan(name, 100)) throw new ValidationError('name must be 1-100 characters, not counting spaces around it', 'name');
  if (options.expiresAt && options.expiresAt.getTime() <= Date.now()) throw new ValidationError('expiresAt must be in the future', 'expiresAt');
  return { roles, name };
}

const KEY_PREFIX = 'trk_';
/** Entries also expire by themselves, in case a change message was lost with a Redis connection. */
const CACHE_TTL_MS = 10_000;
/** `lastUsedAt` is written at most this often per key and process. */
const LAST_USED_RESOLUTION_MS = 60_000;
const MAX_OVERLAP_SECONDS = 30 * 24 * 3600;
/** setTimeout's largest delay; longer expiries re-arm. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const CHANNEL = 'api-keys';

/** What every process learns when a key changes. */
interface KeyChange {
  keyId: string;
  revoked: boolean;
  expiresAt: number | null;
}

interface Watcher {
  expiresAt: number | null;
  onInvalid: (reason: KeyInvalidReason) => void;
  timer: NodeJS.Timeout | null;
}

export class ApiKeyService {
  private readonly cache = new Map<string, { viewer: Viewer | null; expires: number }>();
  /** Cached token hashes per key id, to drop them when the key changes. */
  private readonly hashesOfKey = new Map<string, Set<string>>();
  private readonly watchers = new Map<string, Set<Watcher>>();
  private readonly lastTouched = new Map<string, number>();
  private listening: Promise<unknown> | null = null;
  /** Whether this process hears key changes yet; until then nothing is served from the cache. */
  private hearing = false;

  constructor(
    private readonly db: Db,
    private readonly bus?: Broadcast,
    private readonly logger?: Logger,
  ) {}

  async ensureTenant(name: string): Promise<Tenant> {
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name)) {
      throw new ValidationError('tenant name must be 1-64 letters, digits, dots, dashes or underscores', 'name');
    }
    return this.db.tenant.upsert({ where: { name }, update: {}, create: { name } });
  }

  /** The tenant of that name, which must exist (only `ensureTenant` creates one). */
  async tenantNamed(name: string): Promise<Tenant> {
    const tenant = await this.db.tenant.findUnique({ where: { name } });
    if (!tenant) throw new NotFoundError('Tenant', name);
    return tenant;
  }

  /** Creates a key for the tenant of that name (created if new); the command line's entry. */
  async createKey(tenantName: string, options: KeyOptions = {}): Promise<{ key: string; tenant: Tenant; apiKeyId: string; info: ApiKeyInfo }> {
    checkedKeyOptions(options); // before a new tenant is made for a key that would be refused
    const tenant = await this.ensureTenant(tenantName);
    const { key, info } = await this.issueKey(tenant.id, options);
    return { key, tenant, apiKeyId: info.id, info };
  }

  /** Creates a key for a tenant; the key itself is in the answer and nowhere else. */
  async issueKey(tenantId: string, options: KeyOptions): Promise<{ key: string; info: ApiKeyInfo }> {
    const { roles, name } = checkedKeyOptions(options);
    const key = newKey();
    const row = await this.db.apiKey.create({
      data: { tenantId, name, keyHash: sha256Hex(key), prefix: key.slice(0, 10), roles, expiresAt: options.expiresAt ?? null },
    });
    return { key, info: infoOf(row) };
  }

  /** The tenant's keys, newest first (revoked and expired ones too). */
  async listKeys(tenantId: string): Promise<ApiKeyInfo[]> {
    const rows = await this.db.apiKey.findMany({ where: { tenantId }, orderBy: { createdAt: 'desc' } });
    return rows.map(infoOf);
  }

  /** A key of the tenant by its id or its prefix (`trk_…`, as listed: pasted with its ellipsis too). */
  async findKey(tenantId: string, given: string): Promise<ApiKeyInfo> {
    const idOrPrefix = given.endsWith('…') ? given.slice(0, -1) : given;
    const where = UUID_PATTERN.test(idOrPrefix) ? { id: idOrPrefix.toLowerCase(), tenantId } : { prefix: idOrPrefix, tenantId };
    const rows = await this.db.apiKey.findMany({ where, take: 2 });
    if (rows.length !== 1) {
      if (rows.length > 1) throw new ValidationError(`more than one key starts with \`${idOrPrefix}\`; give its id`, 'id');
      throw new NotFoundError('ApiKey', idOrPrefix);
    }
    return infoOf(rows[0]!);
  }

  /** Revokes a key at once, everywhere. Revoking a revoked key changes nothing. */
  async revokeKey(tenantId: string, idOrPrefix: string): Promise<ApiKeyInfo> {
    const current = await this.findKey(tenantId, idOrPrefix);
    if (current.revokedAt) return current;
    const row = await this.db.apiKey.update({ where: { id: current.id }, data: { revokedAt: new Date() } });
    await this.announce(row);
    return infoOf(row);
  }

  /**
   * Replaces a key by a new one with the same name, roles and expiry; the old key keeps working for
   * `overlapSeconds` (0: stops at once), so clients can switch without a gap. A key is rotated once:
   * its successor is rotated next (so two rotations at once make one successor, and a successor
   * never inherits the overlap's end as its expiry).
   */
  async rotateKey(tenantId: string, idOrPrefix: string, overlapSeconds: number): Promise<{ key: string; info: ApiKeyInfo; previous: ApiKeyInfo }> {
    if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_OVERLAP_SECONDS) {
      throw new ValidationError(`overlapSeconds must be an integer from 0 to ${MAX_OVERLAP_SECONDS}`, 'overlapSeconds');
    }
    const current = await this.findKey(tenantId, idOrPrefix);
    if (current.revokedAt) throw new ValidationError('a revoked key cannot be rotated', 'id');
    const alreadyRotated = () => new ValidationError(`this key was already rotated; rotate its successor (the newest key named \`${current.name}\`)`, 'id');
    if (current.rotatedAt) throw alreadyRotated();
    const now = Date.now();
    if (current.expiresAt && current.expiresAt.getTime() <= now) throw new ValidationError('an expired key cannot be rotated', 'id');
    const overlapEnd = new Date(now + overlapSeconds * 1000);
    const oldExpiry = current.expiresAt && current.expiresAt < overlapEnd ? current.expiresAt : overlapEnd;
    const key = newKey();
    const { created, previous } = await this.db.$transaction(async (tx) => {
      // Conditional on the key as read: of two rotations at once, one changes it, the other is refused.
      const { count } = await tx.apiKey.updateMany({
        where: { id: current.id, rotatedAt: null, revokedAt: null },
        data: { expiresAt: oldExpiry, rotatedAt: new Date(now) },
      });
      if (count !== 1) throw alreadyRotated();
      return {
        created: await tx.apiKey.create({
          data: { tenantId, name: current.name, keyHash: sha256Hex(key), prefix: key.slice(0, 10), roles: current.roles, expiresAt: current.expiresAt },
        }),
        previous: await tx.apiKey.findUniqueOrThrow({ where: { id: current.id } }),
      };
    });
    await this.announce(previous);
    return { key, info: infoOf(created), previous: infoOf(previous) };
  }

  /** Whether an approver may decide calls its own key submitted (off by default). */
  async setAllowSelfApproval(tenantId: string, allow: boolean): Promise<Tenant> {
    return this.db.tenant.update({ where: { id: tenantId }, data: { allowSelfApproval: allow } });
  }

  async tenant(tenantId: string): Promise<Tenant> {
    return this.db.tenant.findUniqueOrThrow({ where: { id: tenantId } });
  }

  /** Resolves a bearer token to its viewer, or null for a missing, unknown, revoked or expired key. */
  async authenticate(token: string | null | undefined): Promise<Viewer | null> {
    if (!token || !token.startsWith(KEY_PREFIX) || token.length > 200) return null;
    // Not awaited (no request waits for Redis): until this process hears key changes, every
    // lookup goes to the database, since a cached entry could outlive a revocation.
    this.listening ??= this.listen();
    const now = Date.now();
    const hash = sha256Hex(token);
    const cached = this.hearing ? this.cache.get(hash) : undefined;
    let viewer: Viewer | null;
    if (cached && cached.expires > now) {
      viewer = cached.viewer;
    } else {
      const row = await this.db.apiKey.findUnique({ where: { keyHash: hash } });
      viewer = row && !row.revokedAt ? { tenantId: row.tenantId, apiKeyId: row.id, roles: row.roles as Role[], expiresAt: row.expiresAt?.getTime() ?? null } : null;
      this.remember(hash, viewer, now);
    }
    if (!viewer || (viewer.expiresAt !== null && viewer.expiresAt <= now)) return null;
    this.touch(viewer.apiKeyId, now);
    return viewer;
  }

  /**
   * Calls `onInvalid` once when the viewer's key is revoked or expires (a stream open on it must
   * end). Returns the function that stops watching.
   */
  watch(viewer: Viewer, onInvalid: (reason: KeyInvalidReason) => void): () => void {
    const watcher: Watcher = { expiresAt: viewer.expiresAt, onInvalid, timer: null };
    let set = this.watchers.get(viewer.apiKeyId);
    if (!set) this.watchers.set(viewer.apiKeyId, (set = new Set()));
    set.add(watcher);
    const stop = () => {
      if (watcher.timer) clearTimeout(watcher.timer);
      const current = this.watchers.get(viewer.apiKeyId);
      current?.delete(watcher);
      if (current?.size === 0) this.watchers.delete(viewer.apiKeyId);
    };
    watcher.onInvalid = (reason) => {
      stop();
      onInvalid(reason);
    };
    this.arm(watcher);
    return stop;
  }

  private arm(watcher: Watcher): void {
    if (watcher.timer) clearTimeout(watcher.timer);
    watcher.timer = null;
    if (watcher.expiresAt === null) return;
    const delay = watcher.expiresAt - Date.now();
    if (delay <= 0) return watcher.onInvalid('expired');
    watcher.timer = setTimeout(() => this.arm(watcher), Math.min(delay, MAX_TIMER_MS));
    watcher.timer.unref();
  }

  private remember(hash: string, viewer: Viewer | null, now: number): void {
    if (this.cache.size > 10_000) {
      this.cache.clear();
      this.hashesOfKey.clear();
    }
    this.cache.set(hash, { viewer, expires: now + CACHE_TTL_MS });
    if (!viewer) return;
    let hashes = this.hashesOfKey.get(viewer.apiKeyId);
    if (!hashes) this.hashesOfKey.set(viewer.apiKeyId, (hashes = new Set()));
    hashes.add(hash);
  }

  private touch(keyId: string, now: number): void {
    if ((this.lastTouched.get(keyId) ?? 0) > now - LAST_USED_RESOLUTION_MS) return;
    if (this.lastTouched.size > 10_000) this.lastTouched.clear();
    this.lastTouched.set(keyId, now);
    // Off the request's path: a lost update only makes lastUsedAt a minute older.
    this.db.apiKey
      .updateMany({ where: { id: keyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now - LAST_USED_RESOLUTION_MS) } }] }, data: { lastUsedAt: new Date(now) } })
      .catch((error: unknown) => this.logger?.warn({ err: error }, 'could not record when an API key was last used'));
  }

  /** Tells every process (this one included, at once) that a key changed. */
  private async announce(row: ApiKey): Promise<void> {
    const change: KeyChange = { keyId: row.id, revoked: row.revokedAt !== null, expiresAt: row.expiresAt?.getTime() ?? null };
    this.apply(change);
    if (!this.bus) return;
    try {
      await this.bus.publish(CHANNEL, change);
    } catch (error) {
      // Other processes' caches still expire within CACHE_TTL_MS; their open streams are re-checked on reconnect.
      this.logger?.warn({ err: error, apiKeyId: row.id }, 'could not announce an API key change');
    }
  }

  private async listen(): Promise<void> {
    if (!this.bus) return;
    // Messages sent while the connection was down are lost: forget every cached key and re-check open streams.
    this.bus.onReconnect(() => void this.recheckAll());
    await this.bus.subscribe(CHANNEL, (message) => this.apply(message as KeyChange));
    this.hearing = true;
  }

  private apply(change: KeyChange): void {
    for (const hash of this.hashesOfKey.get(change.keyId) ?? []) this.cache.delete(hash);
    this.hashesOfKey.delete(change.keyId);
    for (const watcher of [...(this.watchers.get(change.keyId) ?? [])]) {
      if (change.revoked) watcher.onInvalid('revoked');
      else {
        watcher.expiresAt = change.expiresAt;
        this.arm(watcher);
      }
    }
  }

  private async recheckAll(): Promise<void> {
    this.cache.clear();
    this.hashesOfKey.clear();
    const ids = [...this.watchers.keys()];
    if (ids.length === 0) return;
    try {
      const rows = await this.db.apiKey.findMany({ where: { id: { in: ids } } });
      for (const row of rows) this.apply({ keyId: row.id, revoked: row.revokedAt !== null, expiresAt: row.expiresAt?.getTime() ?? null });
    } catch (error) {
      this.logger?.warn({ err: error }, 'could not re-check the API keys of open streams');
    }
  }
}

function newKey(): string {
  return `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

function checkedRoles(roles: readonly string[]): Role[] {
  if (roles.length === 0) throw new ValidationError(`give at least one role (${ROLES.join(', ')})`, 'roles');
  for (const role of roles) if (!(ROLES as readonly string[]).includes(role)) throw new ValidationError(`unknown role \`${role}\` (roles: ${ROLES.join(', ')})`, 'roles');
  return [...new Set(roles)] as Role[];
}

function infoOf(row: ApiKey): ApiKeyInfo {
  const { keyHash: _hash, ...info } = row;
  return info;
}

/** Extracts the token from an `Authorization: Bearer <key>` value. */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}
