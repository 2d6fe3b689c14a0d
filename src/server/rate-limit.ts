// Per-key request rate limits, counted in Redis so that every API process shares one budget per
// key (rate-limiter-flexible's fixed window). An HTTP or SSE request, and each operation of a
// WebSocket, takes one point. A refusal is a GraphQL error with code RATE_LIMITED and
// `retryAfterMs`; over HTTP it answers 429 with `Retry-After`. While Redis is away each process
// counts on its own (the insurance limiter), so an outage neither blocks nor unlimits the API.
//
// A process takes a key's points from Redis a few at a time (a lease of `leaseSize`, 1 for budgets
// under 400) and spends them locally until they run out or the window ends, so most requests cost
// no round trip before they run; requests that come while a lease is being taken ask for a point of
// their own beside it. Nothing grants more than the budget: each answer counts the points asked for
// atomically, and one that finds fewer left than it asked for gets those. A spent budget is
// remembered until its window ends, so requests over the limit cost no round trip either. The
// price: points a process leased and did not spend by the window's end (at most `leaseSize - 1` per
// key and process) are lost to the others.
import { GraphQLError } from 'graphql';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import type { Viewer } from '../domain/tenants/api-keys.js';

/** At most this many points per lease. */
const MAX_LEASE = 10;
/** A lease is at most this share of the budget, so that several processes share a small budget fairly. */
const LEASE_SHARE = 1 / 200;
/** Leases of windows that ended are dropped once this many keys are held (then once twice as many are). */
const SWEEP_ABOVE = 10_000;

/** A key's points this process holds for the current window. */
interface Lease {
  left: number;
  /** When the window ends (ms, Date.now()), at the latest. */
  endsAt: number;
  /** The window's budget is spent: refused without asking Redis until it ends. */
  spent: boolean;
  /** A lease is being taken from Redis. */
  refilling: boolean;
}

export class KeyRateLimiter {
  private readonly limiter: RateLimiterRedis | null;
  private readonly leaseSize: number;
  private readonly leases = new Map<string, Lease>();
  private sweepAbove = SWEEP_ABOVE;

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
    const lease = this.current(viewer.apiKeyId);
    if (lease.left > 0) {
      lease.left--;
      return null;
    }
    if (lease.spent) return this.refusal(limiter, lease);
    // While a lease is being taken, a request asks for its own point beside it rather than wait
    // behind it (a burst of one key's requests would otherwise go to Redis one after another).
    const refill = !lease.refilling;
    lease.refilling ||= refill;
    try {
      const granted = await this.ask(limiter, viewer.apiKeyId, lease, refill ? this.leaseSize : 1);
      if (granted === 0) return this.refusal(limiter, lease);
      if (refill) lease.left += granted - 1;
      return null;
    } finally {
      if (refill) lease.refilling = false;
    }
  }

  private refusal(limiter: RateLimiterRedis, lease: Lease): GraphQLError {
    return rateLimited(lease.endsAt - Date.now(), limiter.points, limiter.duration);
  }

  /** The key's lease of the current window (a new, empty one when its window ended). */
  private current(apiKeyId: string): Lease {
    const now = Date.now();
    let lease = this.leases.get(apiKeyId);
    if (!lease || (lease.endsAt <= now && !lease.refilling)) {
      if (this.leases.size >= this.sweepAbove) {
        for (const [id, held] of this.leases) if (held.endsAt <= now && !held.refilling) this.leases.delete(id);
        this.sweepAbove = Math.max(SWEEP_ABOVE, this.leases.size * 2);
      }
      lease = { left: 0, endsAt: now, spent: false, refilling: false };
      this.leases.set(apiKeyId, lease);
    }
    return lease;
  }

  /**
   * Asks Redis for `wanted` points of the key's window: answers how many were granted (those within
   * the budget); none marks the lease spent. The window is taken to end when Redis said, counted from
   * before the question, so that points are never spent past its end.
   */
  private async ask(limiter: RateLimiterRedis, apiKeyId: string, lease: Lease, wanted: number): Promise<number> {
    const asked = Date.now();
    let result: RateLimiterRes;
    try {
      result = await limiter.consume(apiKeyId, wanted);
    } catch (refused) {
      if (!(refused instanceof RateLimiterRes)) throw refused;
      result = refused;
    }
    // The counter counts every point asked for; those past the budget were not granted (an answer
    // that counts nothing is a block: nothing granted).
    const before = result.consumedPoints - wanted;
    const granted = result.consumedPoints <= 0 ? 0 : Math.max(0, Math.min(wanted, limiter.points - before));
    lease.endsAt = asked + result.msBeforeNext;
    if (granted === 0) lease.spent = true;
    return granted;
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
