// Shared entry-point plumbing: configuration, preflight, services, signals.
import { type Config, ConfigError, loadConfig } from '../config.js';
import { createLogger, type Logger } from '../logger.js';
import { checkDatabase, checkRedis, migrateDatabase, StartupError } from '../preflight.js';
import { closeServices, createServices, type Services } from '../services.js';

export async function boot(options: { migrate: boolean }): Promise<{ config: Config; logger: Logger; services: Services }> {
  let config: Config;
  try {
    config = loadConfig();
    await checkDatabase(config);
    await checkRedis(config);
    if (options.migrate) migrateDatabase(config);
  } catch (error) {
    if (error instanceof StartupError || error instanceof ConfigError) {
      console.error(`toolrun: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config);
  return { config, logger, services: createServices(config, logger) };
}

/**
 * Runs `stop` once on SIGTERM/SIGINT, then exits. A stop that outlasts the workers' grace period
 * by 10 s (a close held up by a dependency that is away) is given up: the process exits anyway,
 * since every call is recorded in PostgreSQL and what it held is recovered by the others.
 */
export function onShutdown(services: Services, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    services.logger.info({ signal }, 'shutting down');
    const deadlineMs = services.config.CANCEL_GRACE_MS * 5 + 10_000;
    setTimeout(() => {
      services.logger.error({ deadlineMs }, 'shutdown did not finish in time; exiting anyway');
      process.exit(1);
    }, deadlineMs).unref();
    stop()
      .then(() => closeServices(services))
      .then(
        () => process.exit(0),
        (error: unknown) => {
          services.logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
