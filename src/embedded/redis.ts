// A local Redis for `npm start` on a machine without one: `redis-server` from the PATH (no npm
// package ships a Redis server), with its data (append-only file) under TOOLRUN_DATA_DIR/redis.
import { spawnSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { StartupError } from '../preflight.js';
import { type ServerProcess, spawnServer, untilReady } from './server-process.js';

export interface EmbeddedRedis extends ServerProcess {
  url: string;
}

export async function startEmbeddedRedis(options: { dataDir: string; port: number }): Promise<EmbeddedRedis> {
  const url = `redis://127.0.0.1:${options.port}`;
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).error) {
    throw new StartupError(
      `nothing answers at ${url} and there is no redis-server on the PATH to start: install Redis (apt-get install redis-server, dnf install redis, brew install redis), or run \`docker compose up -d redis\`, or set REDIS_URL`,
    );
  }
  const dir = join(options.dataDir, 'redis');
  await mkdir(dir, { recursive: true });
  const log = join(options.dataDir, 'redis.log');
  const server = await spawnServer({
    name: 'Redis',
    command: 'redis-server',
    args: [
      '--port', String(options.port),
      '--bind', '127.0.0.1',
      '--dir', dir,
      '--pidfile', join(dir, 'redis.pid'),
      '--daemonize', 'no',
      '--appendonly', 'yes',
      '--save', '',
      // BullMQ needs every key kept.
      '--maxmemory-policy', 'noeviction',
    ],
    log,
    // SIGTERM: Redis flushes its append-only file and exits.
    stopSignal: 'SIGTERM',
  });
  try {
    await untilReady(server, {
      name: 'redis-server',
      log,
      probe: async () => {
        const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1000 });
        client.on('error', () => undefined);
        try {
          await client.connect();
          await client.ping();
        } finally {
          client.disconnect();
        }
      },
    });
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { ...server, url };
}
