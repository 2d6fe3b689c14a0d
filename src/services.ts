// The composition root: the shared resources of a process and the domain services on top of
// them, built once and passed to whatever needs them (API, worker, tests), never imported as
// hidden globals. Ports the domain declares (domain/work.ts, tools' RegisteredToolSource) are
// wired to their implementations here.
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { Config } from './config.js';
import { createDb, type Db } from './db.js';
import { BatchService } from './domain/calls/batches.js';
import { CallDecisionService } from './domain/calls/call-decisions.js';
import { CallStore } from './domain/calls/store.js';
import { EventLog } from './domain/event-log.js';
import { SystemStatusService } from './domain/system-status.js';
import { WorkerRegistry } from './domain/workers.js';
import { SessionService } from './domain/sessions/sessions.js';
import { BackgroundService } from './domain/tasks/background.js';
import { TaskRecovery } from './domain/tasks/recovery.js';
import { TaskStore } from './domain/tasks/store.js';
import { ApiKeyService, type Viewer } from './domain/tenants/api-keys.js';
import { McpServerService, McpServerStore } from './domain/tenants/mcp-servers.js';
import { RegisteredToolService, RegisteredToolStore } from './domain/tenants/registered-tools.js';
import { SchemaCompileAllowance } from './domain/tenants/schema-compile-allowance.js';
import { SecretBox } from './domain/tenants/secret-box.js';
import { TenantLimitsService } from './domain/tenants/tenant-limits.js';
import { JobQueues } from './jobs/catalogue.js';
import { JobDispatcher } from './jobs/job-dispatcher.js';
import type { Logger } from './logger.js';
import { EventBus } from './realtime/event-bus.js';
import { EventFeed } from './realtime/event-feed.js';
import { EventReader } from './realtime/event-reader.js';
import { OpenStreams } from './realtime/open-streams.js';
import { waitForSessionEvent } from './realtime/subscription.js';
import { createRedis } from './redis.js';
import { KeyRateLimiter } from './server/rate-limit.js';
import { createPool, Sql } from './sql.js';
import { countCompletions, metricSources, OTHER_TOOLS_LABEL, recentDeliveryLag } from './telemetry/metrics.js';
import { builtinTools } from './tools/builtin/index.js';
import { McpConnections } from './tools/mcp-client.js';
import { ToolRegistry } from './tools/registry.js';
import { testTools } from './tools/testing/index.js';

export interface Services {
  config: Config;
  logger: Logger;
  /** The process's connections to PostgreSQL: node-postgres (`sql`) on the hot path, Prisma (`db`) for the rest. */
  pool: pg.Pool;
  sql: Sql;
  db: Db;
  redis: { command: Redis; subscriber: Redis; bullmq: Redis; producer: Redis };
  bus: EventBus;
  feed: EventFeed;
  /** Reads of the event log (history; live streams go through `feed`). */
  events: EventReader;
  /** The API's writes: a group holds one session's units (a write blocked on one session never delays another's). */
  eventLog: EventLog;
  /** The worker's writes: groups span sessions (one transaction for many calls). */
  workerEventLog: EventLog;
  dispatcher: JobDispatcher;
  workers: WorkerRegistry;
  registry: ToolRegistry;
  queues: JobQueues;
  apiKeys: ApiKeyService;
  /** Subscriptions open on this process, per key (limit, end on revocation). */
  streams: OpenStreams<Viewer>;
  sessions: SessionService;
  calls: CallStore;
  batches: BatchService;
  callDecisions: CallDecisionService;
  tasks: TaskStore;
  background: BackgroundService;
  taskRecovery: TaskRecovery;
  registeredTools: RegisteredToolService;
  mcpServers: McpServerService;
  /** This process's connections to MCP servers (tool sources). */
  mcpConnections: McpConnections;
  tenantLimits: TenantLimitsService;
  /** What the Health page shows: queue depths, workers alive, event lag, the tenant's unfinished calls. */
  systemStatus: SystemStatusService;
  /** Per-key request budgets of the API (shared by every API process through Redis). */
  rateLimiter: KeyRateLimiter;
  workerId: string;
}

export function createServices(config: Config, logger: Logger, options: { onQuery?: (sql: string) => void } = {}): Services {
  const pool = createPool(config.DATABASE_URL, config.DATABASE_POOL_SIZE, {
    statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
    lockTimeoutMs: config.DB_LOCK_TIMEOUT_MS,
    idleInTransactionTimeoutMs: config.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    lifetimeSeconds: config.DATABASE_CONNECTION_LIFETIME_S,
  });
  const sql = new Sql(pool, options.onQuery);
  const db = createDb(pool, { onQuery: options.onQuery });
  const redis = {
    command: createRedis(config.REDIS_URL, 'command'),
    subscriber: createRedis(config.REDIS_URL, 'subscriber'),
    bullmq: createRedis(config.REDIS_URL, 'bullmq'),
    producer: createRedis(config.REDIS_URL, 'producer'),
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
  const events = new EventReader(sql);
  const feed = new EventFeed(bus, events, logger, {
    ringSize: config.EVENT_RING_SIZE,
    subscriberQueue: config.SUBSCRIBER_QUEUE_EVENTS,
    freshnessIntervalMs: 15_000,
  });
  const toolLabel = (tool: string) => (registry.isBuiltin(tool) ? tool : OTHER_TOOLS_LABEL);
  const publish = (tenantId: string, events: Parameters<EventFeed['publish']>[1]) => {
    countCompletions(events, toolLabel);
    return feed.publish(tenantId, events);
  };
  const maxInFlight = Math.max(1, Math.floor(config.DATABASE_POOL_SIZE / 2));
  const eventLog = new EventLog(sql, db, publish, logger, { grouping: 'session', maxInFlight });
  const workerEventLog = new EventLog(sql, db, publish, logger, { grouping: 'shared', maxInFlight });
  const secrets = SecretBox.fromSettings(config);
  const mcpConnections = new McpConnections({
    allowPrivate: config.HTTP_TOOL_ALLOW_PRIVATE,
    allowLoopback: config.HTTP_TOOL_ALLOW_LOOPBACK,
    requestTimeoutMs: config.MCP_REQUEST_TIMEOUT_MS,
    maxResultBytes: config.HTTP_TOOL_MAX_RESPONSE_BYTES,
    maxMessageBytes: config.MCP_MAX_MESSAGE_BYTES,
  });
  const registry = new ToolRegistry(config.ENABLE_TEST_TOOLS ? [...builtinTools, ...testTools] : builtinTools, {
    registered: new RegisteredToolStore(db, secrets),
    mcp: { servers: new McpServerStore(db, secrets), connections: mcpConnections },
    http: {
      allowPrivate: config.HTTP_TOOL_ALLOW_PRIVATE,
      allowLoopback: config.HTTP_TOOL_ALLOW_LOOPBACK,
      maxResponseBytes: config.HTTP_TOOL_MAX_RESPONSE_BYTES,
      maxRetryAfterMs: config.HTTP_TOOL_MAX_RETRY_AFTER_MS,
    },
  });
  // Producers fail fast: an enqueue while Redis is away errors at once and the work waits in the
  // outbox (calls) or in PostgreSQL (runs, schedules) until Redis is back.
  const queues = new JobQueues(redis.producer, config.REDIS_PREFIX, logger);
  const dispatcher = new JobDispatcher({
    queues: queues.all,
    expressBacklog: config.CALLS_EXPRESS_BACKLOG ?? config.CALLS_PER_JOB,
    sql,
    redis: redis.command,
    prefix: config.REDIS_PREFIX,
    logger,
    enqueueTimeoutMs: config.ENQUEUE_TIMEOUT_MS,
  });
  // Never less than three heartbeats: a worker is not declared dead between two of its own beats.
  const workers = new WorkerRegistry(sql, config.REDIS_PREFIX, Math.max(config.WORKER_DEAD_AFTER_MS, 3 * config.HEARTBEAT_INTERVAL_MS));
  const workerId = config.WORKER_ID ?? `${hostname()}:${process.pid}`;
  const apiKeys = new ApiKeyService(db, bus, logger);
  const streams = new OpenStreams<Viewer>(apiKeys, config.MAX_SUBSCRIPTIONS_PER_KEY);
  const tenantLimits = new TenantLimitsService(db, config);
  const sessions = new SessionService(db, eventLog, { fileQuota: tenantLimits.deploymentDefaults, maxContentChars: config.SESSION_FILES_MAX_CONTENT_CHARS });
  const calls = new CallStore(db, sql);
  const tasks = new TaskStore(db);
  const batches = new BatchService({
    config,
    db,
    sql,
    eventLog,
    registry,
    dispatcher,
    bus,
    sessions,
    calls,
    workers,
    waitForEvent: (tenantId, sessionId, matches, timeoutMs, start) => waitForSessionEvent(feed, tenantId, sessionId, matches, timeoutMs, start),
  });
  const callDecisions = new CallDecisionService({ db, eventLog, calls, registry, dispatcher, logger });
  // Background-run slots: every live worker takes BACKGROUND_RUNS_PER_WORKER runs at once.
  const liveTaskWorkers = {
    live: async () => {
      const live = await workers.liveCount();
      return { workers: live, capacity: live * config.BACKGROUND_RUNS_PER_WORKER };
    },
    alive: (workerIds: string[], withinMs: number) => workers.alive(workerIds, withinMs),
  };
  const background = new BackgroundService({ config, eventLog, registry, work: queues, bus, workers: liveTaskWorkers, logger, sessions, tasks, tenantLimits });
  const taskRecovery = new TaskRecovery({ config, tasks, eventLog, registry, work: queues, logger });
  const schemaCompiles = new SchemaCompileAllowance();
  const registeredTools = new RegisteredToolService({ config, db, registry, secrets, schemaCompiles });
  const mcpServers = new McpServerService({ config, db, connections: mcpConnections, logger, secrets, schemaCompiles });
  mcpConnections.setHooks({ onToolListChanged: (target) => void mcpServers.toolsChanged(target), logger });
  const unregisterMetrics = metricSources.resources({
    pool,
    poolMax: config.DATABASE_POOL_SIZE,
    queues: queues.all,
    feed,
    liveWorkers: () => workers.liveCount(),
  });
  const services: Services = {
    config,
    logger,
    pool,
    sql,
    db,
    redis,
    bus,
    feed,
    events,
    eventLog,
    workerEventLog,
    dispatcher,
    workers,
    registry,
    queues,
    apiKeys,
    streams,
    sessions,
    calls,
    batches,
    callDecisions,
    tasks,
    background,
    taskRecovery,
    registeredTools,
    mcpServers,
    mcpConnections,
    tenantLimits,
    systemStatus: new SystemStatusService({ queues, workers, eventLag: recentDeliveryLag, calls }),
    rateLimiter: new KeyRateLimiter(redis.command, config),
    workerId,
  };
  metricsOff.set(services, unregisterMetrics);
  return services;
}

const metricsOff = new WeakMap<Services, () => void>();

export async function closeServices(services: Services): Promise<void> {
  metricsOff.get(services)?.();
  services.feed.close();
  await services.mcpConnections.close().catch(() => undefined);
  await services.dispatcher.settle().catch(() => undefined);
  await services.queues.close().catch(() => undefined);
  await services.db.$disconnect().catch(() => undefined);
  await services.pool.end().catch(() => undefined);
  for (const client of Object.values(services.redis)) {
    // quit() waits for Redis to answer, for ever when Redis is away: give it a second.
    await Promise.race([client.quit(), new Promise((resolve) => setTimeout(resolve, 1000).unref())]).catch(() => undefined);
    client.disconnect();
  }
}
