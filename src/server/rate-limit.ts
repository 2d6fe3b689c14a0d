// Per-key request rate limits, counted in Redis so that every API process shares one budget per
// key (rate-limiter-flexible's fixed window). An HTTP or SSE request, and each operation of a
// WebSocket, takes one point. A refusal is a GraphQL error with code RATE_LIMITED and
// `retryAfterMs`; over HTTP it answers 429 with `Retry-After`. While Redis is away each process
// counts on its own (the insurance limiter), so an outage neither blocks nor unlimits the API.
import { GraphQLError } from 'graphql';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import type { Viewer } from '../domain/tenants/api-keys.js';

export class KeyRateLimiter {
  private readonly limiter: RateLimiterRedis | null;

  constructor(redis: Redis, config: Pick<Config, 'RATE_LIMIT_REQUESTS' | 'RATE_LIMIT_WINDOW_SECONDS' | 'REDIS_PREFIX'>) {
    const points = config.RATE_LIMIT_REQUESTS;
    const duration = config.RATE_LIMIT_WINDOW_SECONDS;
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
    if (!this.limiter) return null;
    try {
      await this.limiter.consume(viewer.apiKeyId, 1);
      return null;
    } catch (result) {
      if (!(result instanceof RateLimiterRes)) throw result;
      return rateLimited(result.msBeforeNext, this.limiter.points, this.limiter.duration);
    }
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
