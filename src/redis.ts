import { Redis, type RedisOptions } from 'ioredis';

export type RedisRole = 'command' | 'subscriber' | 'bullmq' | 'producer';

/**
 * Redis connections by role. BullMQ workers need `maxRetriesPerRequest: null` (blocking commands
 * must wait out a reconnect). The producer (BullMQ queues: enqueues) has no offline queue, so an
 * enqueue while Redis is away fails at once and the outbox relay takes over; other commands retry
 * a little, then fail.
 */
export function createRedis(url: string, role: RedisRole, name = 'toolrun'): Redis {
  const options: RedisOptions = {
    connectionName: `${name}:${role}`,
    lazyConnect: false,
    retryStrategy: (times) => Math.min(50 * 2 ** times, 2000),
  };
  if (role === 'bullmq' || role === 'subscriber') options.maxRetriesPerRequest = null;
  else if (role === 'producer') {
    options.maxRetriesPerRequest = 1;
    options.enableOfflineQueue = false;
  } else {
    options.maxRetriesPerRequest = 2;
    options.enableOfflineQueue = true;
  }
  return new Redis(url, options);
}
