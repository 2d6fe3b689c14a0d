// A tenant's limit on calls running at once across every worker (TENANT_MAX_RUNNING_CALLS, or the
// tenant's own lower one). Permits are members of a Redis sorted set per tenant, scored by when
// their lease ends: taking them is one script (drop expired leases, count, add up to the limit),
// so workers in any number of processes never overshoot it; a worker renews its leases while it
// holds them, and the leases of a worker that died expire on their own. With no limit (0, the
// default) nothing is asked of Redis. While Redis is away calls run unlimited (no job is handed
// out by BullMQ then anyway).
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';

const TAKE = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms)
local free = tonumber(ARGV[1]) - redis.call('ZCARD', KEYS[1])
local wanted = #ARGV - 2
local granted = math.max(0, math.min(free, wanted))
for i = 1, granted do redis.call('ZADD', KEYS[1], ms + tonumber(ARGV[2]), ARGV[i + 2]) end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return granted`;

const RENEW = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', ms + tonumber(ARGV[1]), ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) * 2)
return 0`;

type PermitRedis = Redis & {
  takeRunningPermits(key: string, limit: number, leaseMs: number, ...members: string[]): Promise<number>;
  renewRunningPermits(key: string, leaseMs: number, ...members: string[]): Promise<number>;
};

/** Gives back one permit (idempotent). */
export type Release = () => void;

export class RunningCallPermits {
  private readonly redis: PermitRedis;
  /** Members held here, per tenant (renewed until released). */
  private readonly held = new Map<string, Set<string>>();
  private readonly renewal: NodeJS.Timeout;
  private sequence = 0;

  constructor(
    redis: Redis,
    private readonly options: { prefix: string; holder: string; leaseMs: number; logger: Logger },
  ) {
    this.redis = redis as PermitRedis;
    if (!('takeRunningPermits' in this.redis)) {
      redis.defineCommand('takeRunningPermits', { numberOfKeys: 1, lua: TAKE });
      redis.defineCommand('renewRunningPermits', { numberOfKeys: 1, lua: RENEW });
    }
    this.renewal = setInterval(() => this.renew(), Math.max(100, Math.floor(options.leaseMs / 3)));
    this.renewal.unref();
  }

  private key(tenantId: string): string {
    return `${this.options.prefix}:running:${tenantId}`;
  }

  /** Takes up to `wanted` of the tenant's permits (each call of a job needs one); 0 when the tenant is at its limit. */
  async take(tenantId: string, wanted: number, limit: number): Promise<Release[]> {
    const members = Array.from({ length: wanted }, () => `${this.options.holder}:${++this.sequence}`);
    let granted: number;
    try {
      granted = await this.redis.takeRunningPermits(this.key(tenantId), limit, this.options.leaseMs, ...members);
    } catch (error) {
      this.options.logger.warn({ err: error, tenantId }, 'taking running-call permits failed; running the calls without');
      return members.map(() => () => undefined);
    }
    const mine = members.slice(0, granted);
    const set = this.held.get(tenantId) ?? new Set();
    for (const member of mine) set.add(member);
    if (set.size > 0) this.held.set(tenantId, set);
    return mine.map((member) => () => this.release(tenantId, member));
  }

  private release(tenantId: string, member: string): void {
    const set = this.held.get(tenantId);
    if (!set?.delete(member)) return;
    if (set.size === 0) this.held.delete(tenantId);
    this.redis.zrem(this.key(tenantId), member).catch(() => undefined);
  }

  private renew(): void {
    for (const [tenantId, set] of this.held) {
      this.redis.renewRunningPermits(this.key(tenantId), this.options.leaseMs, ...set).catch((error: unknown) => {
        this.options.logger.warn({ err: error, tenantId }, 'renewing running-call permits failed');
      });
    }
  }

  close(): void {
    clearInterval(this.renewal);
  }
}
