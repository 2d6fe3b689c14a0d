// `npm start` on a machine with nothing configured: when DATABASE_URL / REDIS_URL are unset and
// nothing answers at the local default address, start an embedded PostgreSQL and a redis-server
// there, with their data under TOOLRUN_DATA_DIR, and stop them with toolrun. With the variables
// set, or with servers already answering, nothing is started.
import { mkdir } from 'node:fs/promises';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { startEmbeddedPostgres } from './postgres.js';
import { startEmbeddedRedis } from './redis.js';
import type { ServerProcess } from './server-process.js';

export interface LocalServices {
  /** The configuration, with the URLs of the servers started here. */
  config: Config;
  /** Stops what was started here (nothing when nothing was). */
  stop(): Promise<void>;
}

/** Whether something accepts TCP connections at 127.0.0.1:`port`. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, timeout: 1000 });
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

export async function startLocalServices(config: Config, logger: Logger): Promise<LocalServices> {
  const dataDir = resolve(config.TOOLRUN_DATA_DIR);
  const started: ServerProcess[] = [];
  const stop = async () => {
    for (const server of started.splice(0).reverse()) await server.stop();
  };
  let resolved = config;
  try {
    if (config.defaults.database && !(await answers(config.LOCAL_POSTGRES_PORT))) {
      await mkdir(dataDir, { recursive: true });
      const postgres = await startEmbeddedPostgres({ dataDir, port: config.LOCAL_POSTGRES_PORT });
      started.push(postgres);
      resolved = { ...resolved, DATABASE_URL: postgres.url };
      logger.info({ url: postgres.url, dataDir, pid: postgres.pid }, 'started an embedded PostgreSQL (DATABASE_URL is not set and nothing answered there)');
    }
    if (config.defaults.redis && !(await answers(config.LOCAL_REDIS_PORT))) {
      await mkdir(dataDir, { recursive: true });
      const redis = await startEmbeddedRedis({ dataDir, port: config.LOCAL_REDIS_PORT });
      started.push(redis);
      resolved = { ...resolved, REDIS_URL: redis.url };
      logger.info({ url: redis.url, dataDir, pid: redis.pid }, 'started redis-server (REDIS_URL is not set and nothing answered there)');
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { config: resolved, stop };
}
