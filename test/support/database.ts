import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/** The database the test suite owns; CI and developers can point it elsewhere. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/toolrun_test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A Redis key prefix for the processes one test file starts (each adds its own part after it), so
 * that `deleteRedisKeys` removes every key they left when the file ends.
 */
export function redisPrefixOfFile(name: string): string {
  return `${name}-${randomUUID().slice(0, 8)}`;
}

/** Deletes every key whose name starts with `prefix`, on the test Redis. */
export async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await deleteKeysMatching(redis, `${prefix}*`);
  } finally {
    redis.disconnect();
  }
}

/** Deletes every key matching the pattern (SCAN's MATCH). */
export async function deleteKeysMatching(redis: Pick<Redis, 'scan' | 'del'>, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}
