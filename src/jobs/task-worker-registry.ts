// Which task workers are alive, and how many background runs each takes at once. Each worker
// announces itself every heartbeat in a Redis sorted set (member = its id and capacity, score =
// when the announcement expires); a worker that stops announcing (killed, partitioned) drops
// out after its TTL. The API reads the live capacity to apply the per-worker limit at spawn.
import type { Redis } from 'ioredis';
import type { LiveTaskWorkers } from '../domain/work.js';

export interface LiveCapacity {
  workers: number;
  /** Sum of the live workers' background-run slots. */
  capacity: number;
}

export class TaskWorkerRegistry implements LiveTaskWorkers {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `${prefix}:task-workers`;
  }

  private member(workerId: string, capacity: number): string {
    return JSON.stringify({ workerId, capacity });
  }

  async announce(workerId: string, capacity: number, ttlMs: number): Promise<void> {
    const now = Date.now();
    await this.redis.multi().zadd(this.key, now + ttlMs, this.member(workerId, capacity)).zremrangebyscore(this.key, '-inf', now).exec();
  }

  async withdraw(workerId: string, capacity: number): Promise<void> {
    await this.redis.zrem(this.key, this.member(workerId, capacity));
  }

  async live(): Promise<LiveCapacity> {
    const members = await this.redis.zrangebyscore(this.key, Date.now(), '+inf');
    let capacity = 0;
    for (const member of members) {
      try {
        capacity += Number((JSON.parse(member) as { capacity: number }).capacity) || 0;
      } catch {
        // a foreign member; ignore it
      }
    }
    return { workers: members.length, capacity };
  }
}
