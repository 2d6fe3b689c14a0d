// Per-tenant limits: the deployment's defaults (configuration), which a tenant admin may lower for
// its own tenant (never raise: the defaults are what the operator allows one tenant). The rules
// that apply them live where the work is taken: running calls (jobs/running-calls.ts), background
// runs (tasks/background.ts), the file store (sessions/session-files.ts).
import type { Config } from '../../config.js';
import type { Db } from '../../db.js';
import type { TenantLimits as TenantLimitsRow } from '../../generated/prisma/client.js';
import { ValidationError } from '../../model/errors.js';

export interface TenantLimits {
  /** Calls running at once across every worker; 0: no limit beyond the workers' slots. */
  runningCalls: number;
  /** Queued or running background runs across every session. */
  backgroundRuns: number;
  sessionFileBytes: number;
  sessionFiles: number;
  tenantFileBytes: number;
  tenantFiles: number;
}

export type LimitName = keyof TenantLimits;

export const LIMIT_NAMES: readonly LimitName[] = ['runningCalls', 'backgroundRuns', 'sessionFileBytes', 'sessionFiles', 'tenantFileBytes', 'tenantFiles'];

/** A change of a tenant's own limits: a number sets it, null goes back to the default, absent keeps it. */
export type LimitsChange = Partial<Record<LimitName, number | null>>;

export function defaultLimits(config: Config): TenantLimits {
  return {
    runningCalls: config.TENANT_MAX_RUNNING_CALLS,
    backgroundRuns: config.TENANT_MAX_BACKGROUND_RUNS,
    sessionFileBytes: config.SESSION_FILE_MAX_BYTES,
    sessionFiles: config.SESSION_FILE_MAX_FILES,
    tenantFileBytes: config.TENANT_FILE_MAX_BYTES,
    tenantFiles: config.TENANT_FILE_MAX_FILES,
  };
}

/** How long a worker trusts the limits it read (a change reaches every worker within this). */
const CACHE_MS = 2000;

export class TenantLimitsService {
  private readonly defaults: TenantLimits;
  private readonly cache = new Map<string, { limits: Promise<TenantLimits>; until: number }>();

  constructor(
    private readonly db: Db,
    config: Config,
  ) {
    this.defaults = defaultLimits(config);
  }

  get deploymentDefaults(): TenantLimits {
    return { ...this.defaults };
  }

  /** The tenant's limits as they apply now. */
  async effective(tenantId: string): Promise<TenantLimits> {
    const row = await this.db.tenantLimits.findUnique({ where: { tenantId } });
    return this.merge(row);
  }

  /** `effective`, read at most every CACHE_MS per tenant (for the workers' hot path). */
  cached(tenantId: string): Promise<TenantLimits> {
    const now = Date.now();
    const hit = this.cache.get(tenantId);
    if (hit && hit.until > now) return hit.limits;
    const limits = this.effective(tenantId);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(tenantId, { limits, until: now + CACHE_MS });
    limits.catch(() => this.cache.delete(tenantId));
    return limits;
  }

  /** The tenant's own values (null where it uses the default). */
  async own(tenantId: string): Promise<Record<LimitName, number | null>> {
    const row = await this.db.tenantLimits.findUnique({ where: { tenantId } });
    return Object.fromEntries(LIMIT_NAMES.map((name) => [name, row?.[name] === null || row?.[name] === undefined ? null : Number(row[name])])) as Record<LimitName, number | null>;
  }

  /** Sets the tenant's own limits; each must be from 1 to the deployment's default (any positive number when the default is 0, no limit). */
  async update(tenantId: string, change: LimitsChange): Promise<TenantLimits> {
    const data: Record<string, number | bigint | null> = {};
    for (const name of LIMIT_NAMES) {
      const value = change[name];
      if (value === undefined) continue;
      if (value === null) {
        data[name] = null;
        continue;
      }
      const ceiling = this.defaults[name];
      if (!Number.isSafeInteger(value) || value < 1 || (ceiling > 0 && value > ceiling)) {
        const range = ceiling > 0 ? `from 1 to ${ceiling} (the deployment's limit)` : 'a positive integer';
        throw new ValidationError(`limits.${name} must be ${range}, or null for the deployment's default`, `limits.${name}`);
      }
      data[name] = name === 'sessionFileBytes' || name === 'tenantFileBytes' ? BigInt(value) : value;
    }
    const row = await this.db.tenantLimits.upsert({ where: { tenantId }, create: { tenantId, ...data }, update: data });
    this.cache.delete(tenantId);
    return this.merge(row);
  }

  private merge(row: TenantLimitsRow | null): TenantLimits {
    const limits = { ...this.defaults };
    if (!row) return limits;
    for (const name of LIMIT_NAMES) {
      const value = row[name];
      // An operator may have lowered the default since: the lower of the two applies.
      if (value !== null && value !== undefined) limits[name] = limits[name] > 0 ? Math.min(Number(value), limits[name]) : Number(value);
    }
    return limits;
  }
}
