// The composition root: the shared resources of a process and the domain services on top of
// them, built once and passed to whatever needs them (API, worker, tests), never imported as
// hidden globals. Ports the domain declares (domain/work.ts, tools' RegisteredToolSource) are
// wired to their implementations here.
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import { createDb, type Db } from './db.js';
import { BatchService } from './domain/calls/batches.js';
import { CallDecisionService } from './domain/calls/call-decisions.js';
import { CallStore } from './domain/calls/store.js';
import { EventLog } from './domain/event-log.js';
import { SessionService } from './domain/sessions/sessions.js';
import { BackgroundService } from './domain/tasks/background.js';
import { TaskRecovery } from './domain/tasks/recovery.js';
import { TaskStore } from './domain/tasks/store.js';
import { ApiKeyService } from './domain/tenants/api-keys.js';
import { RegisteredToolService, RegisteredToolStore } from './domain/tenants/registered-tools.js';
import { JobQueues } from './jobs/catalogue.js';
import { TaskWorkerRegistry } from './jobs/task-worker-registry.js';
import type { Logger } from './logger.js';
import { EventBus } from './realtime/event-bus.js';
import { createRedis } from './redis.js';
import { builtinTools } from './tools/builtin/index.js';
import { ToolRegistry } from './tools/registry.js';
import { testTools } from './tools/testing/index.js';

export interface Services {
  config: Config;
  logger: Logger;
  db: Db;
  redis: { command: Redis; subscriber: Redis; bullmq: Redis };
  bus: EventBus;
  eventLog: EventLog;
  registry: ToolRegistry;
  queues: JobQueues;
  apiKeys: ApiKeyService;
  sessions: SessionService;
  calls: CallStore;
  batches: BatchService;
  callDecisions: CallDecisionService;
  tasks: TaskStore;
  background: BackgroundService;
  taskRecovery: TaskRecovery;
  registeredTools: RegisteredToolService;
  taskWorkers: TaskWorkerRegistry;
  workerId: string;
}

export function createServices(config: Config, logger: Logger, options: { onQuery?: (sql: string) => void } = {}): Services {
  const db = createDb(config.DATABASE_URL, { poolSize: config.DATABASE_POOL_SIZE, onQuery: options.onQuery });
  const redis = {
    command: createRedis(config.REDIS_URL, 'command'),
    subscriber: createRedis(config.REDIS_URL, 'subscriber'),
    bullmq: createRedis(config.REDIS_URL, 'bullmq'),
  };
  for (const [role, client] of Object.entries(redis)) {
    let failing = false;
    // Rate-limited by the logger while Redis stays away; every client reconnects by itself.
    client.on('error', (error) => {
      failing = true;
      logger.warn({ err: error, role }, 'redis connection error');
    });
    client.on('ready', () => {
      if (failing) logger.info({ role }, 'redis connection restored');
      failing = false;
    });
  }
  const bus = new EventBus(redis.command, redis.subscriber, config.REDIS_PREFIX, logger);
  const eventLog = new EventLog(db, bus, logger);
  const registry = new ToolRegistry(config.ENABLE_TEST_TOOLS ? [...builtinTools, ...testTools] : builtinTools, {
    registered: new RegisteredToolStore(db),
    http: {
      allowPrivate: config.HTTP_TOOL_ALLOW_PRIVATE,
      allowLoopback: config.HTTP_TOOL_ALLOW_LOOPBACK,
      maxResponseBytes: config.HTTP_TOOL_MAX_RESPONSE_BYTES,
      maxRetryAfterMs: config.HTTP_TOOL_MAX_RETRY_AFTER_MS,
    },
  });
  // Producers use the fail-fast connection: an enqueue while Redis is away errors within a second
  // (the reconciler enqueues later) instead of holding a request until Redis is back.
  const queues = new JobQueues(redis.command, config.REDIS_PREFIX, logger);
  const workerId = config.WORKER_ID ?? `${hostname()}:${process.pid}`;
  const apiKeys = new ApiKeyService(db);
  const sessions = new SessionService(db);
  const calls = new CallStore(db);
  const tasks = new TaskStore(db);
  const batches = new BatchService({ config, db, eventLog, registry, work: queues, bus, sessions, calls });
  const callDecisions = new CallDecisionService({ db, eventLog, calls, registry, work: queues, logger });
  const taskWorkers = new TaskWorkerRegistry(redis.command, config.REDIS_PREFIX);
  const background = new BackgroundService({ config, eventLog, registry, work: queues, bus, workers: taskWorkers, logger, sessions, tasks });
  const taskRecovery = new TaskRecovery({ config, tasks, eventLog, registry, work: queues, logger });
  const registeredTools = new RegisteredToolService({ config, db, registry });
  return {
    config,
    logger,
    db,
    redis,
    bus,
    eventLog,
    registry,
    queues,
    apiKeys,
    sessions,
    calls,
    batches,
    callDecisions,
    tasks,
    background,
    taskRecovery,
    registeredTools,
    taskWorkers,
    workerId,
  };
}

export async function closeServices(services: Services): Promise<void> {
  await services.queues.close().catch(() => undefined);
  await services.db.$disconnect().catch(() => undefined);
  for (const client of Object.values(services.redis)) {
    // quit() waits for Redis to answer, for ever when Redis is away: give it a second.
    await Promise.race([client.quit(), new Promise((resolve) => setTimeout(resolve, 1000).unref())]).catch(() => undefined);
    client.disconnect();
  }
}
