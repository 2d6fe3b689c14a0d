import { Redis, type RedisOptions } from 'ioredis';

export type RedisRole = 'command' | 'subscriber' | 'bullmq';

/**
 * Redis connections by role. BullMQ workers need `maxRetriesPerRequest: null` (blocking commands
 * must wait out a reconnect); commands issued on a request path fail fast instead of queueing
 * while Redis is away, so a client hears about it rather than hanging.
 */
export function createRedis(url: string, role: RedisRole, name = 'toolrun'): Redis {
  const options: RedisOptions = {
    connectionName: `${name}:${role}`,
    lazyConnect: false,
    retryStrategy: (times) => Math.min(50 * 2 ** times, 2000),
  };
  if (role === 'bullmq' || role === 'subscriber') options.maxRetriesPerRequest = null;
  else {
    options.maxRetriesPerRequest = 2;
    options.enableOfflineQueue = true;
  }
  return new Redis(url, options);
}
