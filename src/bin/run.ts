// Shared entry-point plumbing: configuration, local servers, preflight, services, listening,
// signals. Every expected start-up failure ends the process with one line on stderr, no stack.
// The services' module graph (and each entry's server or worker) loads only once the checks pass:
// a process that fails them ends on a third of the CPU, without loading what it would not use.
import v8 from 'node:v8';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { type LocalServices, startLocalServices } from '../embedded/local-services.js';
import { createLogger, type Logger } from '../logger.js';
import { checkDatabase, checkRedis, listenProblem, migrateDatabase, StartupError } from '../preflight.js';
import type { ApiServer } from '../server/app.js';
import type { Services } from '../services.js';
import { startTracing, type Tracing } from '../telemetry/tracing.js';

export interface Booted {
  config: Config;
  logger: Logger;
  services: Services;
  /** Servers started for this process (`npm start` with nothing configured); stopped with it. */
  local: LocalServices | null;
  /** OpenTelemetry traces, when the OTEL_* variables configure them; flushed at shutdown. */
  tracing: Tracing | null;
  /** Closes the services' connections. */
  closeServices(): Promise<void>;
}

/** Ends the process with one line for an expected failure; anything else is a fault and keeps its stack. */
function failed(error: unknown): never {
  if (error instanceof StartupError || error instanceof ConfigError) {
    console.error(`toolrun: ${error.message}`);
    process.exit(1);
  }
  throw error;
}

/**
 * `migrate`: create and migrate the database (`npm start`, apikey); otherwise it must exist and be
 * migrated already. `localServices`: start embedded PostgreSQL / redis-server where nothing is
 * configured and nothing answers (`npm start` only). `service`: the process's name in traces
 * (tracing starts only for a named service, and only when the OTEL_* variables ask for it).
 */
export async function boot(options: { migrate: boolean; localServices?: boolean; service?: string }): Promise<Booted> {
  // Until onShutdown takes over, a signal ends the process at once; exiting (rather than dying
  // of the signal) lets the local servers' exit handlers stop them.
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  let local: LocalServices | null = null;
  let tracing: Tracing | null = null;
  try {
    let config = loadConfig();
    const logger = createLogger(config);
    tracing = options.service ? await startTracing({ serviceName: options.service }) : null;
    if (options.localServices) {
      local = await startLocalServices(config, logger);
      config = local.config;
    }
    await checkDatabase(config, { requireSchema: !options.migrate });
    await checkRedis(config);
    if (options.migrate) migrateDatabase(config);
    const { createServices, closeServices } = await import('../services.js');
    const services = createServices(config, logger);
    return { config, logger, services, local, tracing, closeServices: () => closeServices(services) };
  } catch (error) {
    await local?.stop().catch(() => undefined);
    await tracing?.shutdown().catch(() => undefined);
    failed(error);
  }
}

/**
 * Listens on PORT of HOST (the API), or on another port and the setting that names it (`port`: a
 * worker's metrics); a port in use, an unresolvable HOST and the like end the process with one line
 * naming the setting to change.
 */
export async function listen(
  api: Pick<ApiServer, 'listen'>,
  booted: Booted,
  options: { port?: { value: number; setting: string }; cleanup?: () => Promise<void> } = {},
): Promise<number> {
  const { HOST: host } = booted.config;
  const { value: port, setting } = options.port ?? { value: booted.config.PORT, setting: 'PORT' };
  const cleanup = options.cleanup ?? (async () => undefined);
  if (!options.port) tuneApiHeap(booted.config.API_HEAP_GROWING_PERCENT);
  return orFail(
    booted,
    () =>
      api.listen(port, host).catch((error: unknown) => {
        const problem = listenProblem(error, host, port, setting);
        throw problem ? new StartupError(problem) : error;
      }),
    cleanup,
  );
}

/**
 * A step of starting, after boot: when it fails, `cleanup` and what boot opened are closed, and a
 * StartupError ends the process with its one line (a worker's WORKER_ID in use, a port in use).
 */
export async function orFail<T>(booted: Booted, step: () => Promise<T>, cleanup: () => Promise<void> = async () => undefined): Promise<T> {
  try {
    return await step();
  } catch (error) {
    await cleanup().catch(() => undefined);
    await booted.closeServices().catch(() => undefined);
    await booted.local?.stop().catch(() => undefined);
    failed(error);
  }
}

/**
 * An API process writes events to many sockets in bursts. With V8's own growing factor its heap grew
 * to about four times its live set without a full collection during a burst (bench P3, 1,000
 * subscribers: RSS 270–420 MB over repetitions for a 50–75 MB live set); at 25 % it stayed at
 * 240–260 MB and delivered as fast. V8 reads the flag at each full collection, so setting it now
 * takes effect from the next one.
 */
function tuneApiHeap(growingPercent: number): void {
  if (growingPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${growingPercent}`);
}

/**
 * The one listener of SIGTERM and SIGINT for the life of the process: it stops a process that is
 * still starting, and drains one that runs (onShutdown). It is never replaced, because removing a
 * signal's last listener closes Node's handle for it, and a signal that had arrived but was not
 * yet dispatched to that handle would be dropped, not delivered to the next listener.
 */
let shutdownHandler: ((signal: NodeJS.Signals) => void) | null = null;

function onSignal(signal: NodeJS.Signals): void {
  if (shutdownHandler) return shutdownHandler(signal);
  console.error(`toolrun: ${signal} while starting; stopped`);
  process.exit(1);
}

/**
 * Runs `stop` once on SIGTERM/SIGINT, then exits. A stop that outlasts the workers' drain and
 * cancel grace by 8 s (a close held up by a dependency that is away) is given up: the process exits anyway,
 * since every call is recorded in PostgreSQL and what it held is recovered by the others.
 */
export function onShutdown(booted: Booted, stop: () => Promise<void>): void {
  const { services, logger, local, tracing } = booted;
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // A worker's close is bounded by its drain, then the cancel grace and a few seconds (worker-runtime.ts).
    const deadlineMs = services.config.WORKER_DRAIN_MS + services.config.CANCEL_GRACE_MS + 8_000;
    setTimeout(() => {
      logger.error({ deadlineMs }, 'shutdown did not finish in time; exiting anyway');
      process.exit(1);
    }, deadlineMs).unref();
    stop()
      .then(() => booted.closeServices())
      .then(() => tracing?.shutdown())
      .then(() => local?.stop())
      .then(
        () => {
          logger.info('stopped');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  shutdownHandler = handler;
}
