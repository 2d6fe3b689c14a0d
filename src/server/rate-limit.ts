// Per-key request rate limits, counted in Redis so that every API process shares one budget per
// key (rate-limiter-flexible's fixed window). An HTTP or SSE request, and each operation of a
// WebSocket, takes one point. A refusal is a GraphQL error with code RATE_LIMITED and
// `retryAfterMs`; over HTTP it answers 429 with `Retry-After`. While Redis is away each process
// counts on its own (the insurance limiter), so an outage neither blocks nor unlimits the API.
//
// A process takes a key's points from Redis a few at a time (a lease of `leaseSize`, 1 for budgets
// under 400) and spends them locally until they run out or the window ends, so most requests cost
// no round trip before they run. Leases never grant more than the budget: a lease that finds fewer
// points left than it asked for gets those. A spent budget is remembered until its window ends, so
// requests over the limit cost no round trip either. The price: points a process leased and did
// not spend by the window's end (at most `leaseSize - 1` per key and process) are lost to the others.
import { GraphQLError } from 'graphql';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import type { Viewer } from '../domain/tenants/api-keys.js';

/** At most this many points per lease. */
const MAX_LEASE = 10;
/** A lease is at most this share of the budget, so that several processes share a small budget fairly. */
const LEASE_SHARE = 1 / 200;
/** Leases of windows that ended are dropped once this many keys are held. */
const SWEEP_ABOVE = 10_000;

/** A key's points this process holds for the current window (`left` 0 and no refill: the budget is spent). */
interface Lease {
  left: number;
  /** When the window ends (ms, Date.now()). */
  endsAt: number;
  spent: boolean;
  refill: Promise<void> | null;
}

export class KeyRateLimiter {
  private readonly limiter: RateLimiterRedis | null;
  private readonly leaseSize: number;
  private readonly leases = new Map<string, Lease>();

  constructor(redis: Redis, config: Pick<Config, 'RATE_LIMIT_REQUESTS' | 'RATE_LIMIT_WINDOW_SECONDS' | 'REDIS_PREFIX'>) {
    const points = config.RATE_LIMIT_REQUESTS;
    const duration = config.RATE_LIMIT_WINDOW_SECONDS;
    this.leaseSize = Math.max(1, Math.min(MAX_LEASE, Math.floor(points * LEASE_SHARE)));
    this.limiter =
      points > 0
        ? new RateLimiterRedis({
            storeClient: redis,
            keyPrefix: `${config.REDIS_PREFIX}:rate:key`,
            points,
            duration,
            rejectIfRedisNotReady: true,
            insuranceLimiter: new RateLimiterMemory({ points, duration }),
          })
        : null;
  }

  /** Takes one request of the key's budget: null when allowed, else the error to answer with. */
  async take(viewer: Viewer): Promise<GraphQLError | null> {
    const limiter = this.limiter;
    if (!limiter) return null;
    for (;;) {
      const lease = this.current(viewer.apiKeyId);
      if (lease.left > 0) {
        lease.left--;
        return null;
      }
      if (lease.spent) return rateLimited(lease.endsAt - Date.now(), limiter.points, limiter.duration);
      lease.refill ??= this.refill(limiter, viewer.apiKeyId, lease).finally(() => (lease.refill = null));
      await lease.refill;
    }
  }

  /** The key's lease of the current window (a new, empty one when its window ended). */
  private current(apiKeyId: string): Lease {
    const now = Date.now();
    let lease = this.leases.get(apiKeyId);
    if (!lease || (lease.endsAt <= now && !lease.refill)) {
      if (this.leases.size >= SWEEP_ABOVE) for (const [id, held] of this.leases) if (held.endsAt <= now && !held.refill) this.leases.delete(id);
      lease = { left: 0, endsAt: now, spent: false, refill: null };
      this.leases.set(apiKeyId, lease);
    }
    return lease;
  }

  /** Takes up to `leaseSize` points of the key's window from Redis into `lease`; none left: the budget is spent. */
  private async refill(limiter: RateLimiterRedis, apiKeyId: string, lease: Lease): Promise<void> {
    let result: RateLimiterRes;
    try {
      result = await limiter.consume(apiKeyId, this.leaseSize);
    } catch (refused) {
      if (!(refused instanceof RateLimiterRes)) throw refused;
      result = refused;
    }
    // The counter counts every point asked for; those past the budget were not granted.
    const before = result.consumedPoints - this.leaseSize;
    const granted = Math.max(0, Math.min(this.leaseSize, limiter.points - before));
    lease.left = granted;
    lease.spent = granted === 0;
    lease.endsAt = Date.now() + result.msBeforeNext;
  }
}

export function rateLimited(retryAfterMs: number, points: number, seconds: number): GraphQLError {
  const wait = Math.max(1, Math.ceil(retryAfterMs));
  return new GraphQLError(`Rate limit exceeded: this API key may make ${points} requests per ${seconds} s; retry in ${wait} ms`, {
    extensions: {
      code: 'RATE_LIMITED',
      retryAfterMs: wait,
      http: { status: 429, headers: { 'Retry-After': String(Math.ceil(wait / 1000)) } },
    },
  });
}
