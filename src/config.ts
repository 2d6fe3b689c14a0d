// Configuration from environment variables, validated once at start-up.
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const ConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/toolrun'),
  DATABASE_POOL_SIZE: int(1, 200).default(10),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  /** Prefix of every Redis key and channel, so several deployments (or test runs) can share one Redis. */
  REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]+$/).default('toolrun'),
  HOST: z.string().default('127.0.0.1'),
  PORT: int(0, 65535).default(4000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WORKER_ID: z.string().optional(),
  WORKER_CONCURRENCY: int(1, 1000).default(64),
  /** Per-call timeout ceiling; a call's requested timeout is clamped to it. */
  MAX_CALL_TIMEOUT_MS: int(100, 24 * 3600 * 1000).default(10 * 60 * 1000),
  MAX_CALLS_PER_BATCH: int(1, 10_000).default(1000),
  MAX_BATCH_WAIT_MS: int(0, 300_000).default(60_000),
  /** How long a cancelled running call gets to stop before it is recorded CANCELLED anyway. */
  CANCEL_GRACE_MS: int(0, 60_000).default(2000),
  /** How often a worker proves it is alive (its row in `worker`) and a background run its attempt. */
  HEARTBEAT_INTERVAL_MS: int(100, 60_000).default(500),
  /** A worker silent for this long is declared dead: its running work is recovered, its later writes refused. */
  WORKER_DEAD_AFTER_MS: int(500, 600_000).default(5000),
  /** On SIGTERM a worker lets running calls finish for this long, then hands back (or fails) the rest. */
  WORKER_DRAIN_MS: int(0, 600_000).default(10_000),
  /** Parallel calls of a batch carried by one job (the queue's cost is shared by them). */
  CALLS_PER_JOB: int(1, 1000).default(16),
  /** At most this many of a worker's call slots go to one tenant (default: all of them). */
  TENANT_CALLS_PER_WORKER: int(1, 1000).optional(),
  /** Every database connection's limits: no stuck process holds a lock for longer. */
  DB_STATEMENT_TIMEOUT_MS: int(100, 600_000).default(2000),
  DB_LOCK_TIMEOUT_MS: int(100, 600_000).default(2000),
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: int(100, 600_000).default(2000),
  /** An enqueue slower than this is left to the outbox relay (Redis away): requests never wait on Redis. */
  ENQUEUE_TIMEOUT_MS: int(50, 60_000).default(500),
  /** Events queued for one subscriber before it drops them and resumes from its cursor. */
  SUBSCRIBER_QUEUE_EVENTS: int(10, 1_000_000).default(2000),
  /** Recent events each live stream keeps in memory for subscribers that resume a little behind. */
  EVENT_RING_SIZE: int(0, 1_000_000).default(2048),
  /** A BullMQ job whose lock is not renewed for this long is considered stalled. */
  JOB_LOCK_MS: int(1000, 600_000).default(30_000),
  EVENT_RETENTION_HOURS: int(1, 24 * 365).default(24 * 7),
  /** How often each worker reaps: dead workers' work, outbox rows left behind, overdue external calls, old events. */
  RECONCILE_INTERVAL_MS: int(100, 600_000).default(1000),
  MAX_REQUEST_BYTES: int(1024, 64 * 1024 * 1024).default(2 * 1024 * 1024),
  MAX_QUERY_DEPTH: int(2, 100).default(16),
  MAX_QUERY_ALIASES: int(1, 1000).default(30),
  MAX_QUERY_COST: int(10, 1_000_000).default(20_000),
  MAX_QUERY_TOKENS: int(100, 100_000).default(5000),
  WEB_FETCH_ALLOW_PRIVATE: bool.default(false),
  WEB_FETCH_ALLOW_LOOPBACK: bool.default(false),
  WEB_FETCH_MAX_BYTES: int(1, 50 * 1024 * 1024).default(1024 * 1024),
  WEB_FETCH_TIMEOUT_MS: int(100, 120_000).default(15_000),
  /** HTTP tools (registered per tenant) may reach private / loopback addresses only when allowed. */
  HTTP_TOOL_ALLOW_PRIVATE: bool.default(false),
  HTTP_TOOL_ALLOW_LOOPBACK: bool.default(false),
  /** Largest HTTP tool response body; a larger one fails the call RESOURCE_LIMIT. */
  HTTP_TOOL_MAX_RESPONSE_BYTES: int(1024, 50 * 1024 * 1024).default(1024 * 1024),
  /** A `Retry-After` longer than this is shortened to it. */
  HTTP_TOOL_MAX_RETRY_AFTER_MS: int(0, 24 * 3600 * 1000).default(10 * 60 * 1000),
  /** Background runs one task worker runs at once (its BullMQ concurrency); also the per-worker spawn limit. */
  BACKGROUND_RUNS_PER_WORKER: int(1, 1000).default(64),
  /** How often each worker looks for background runs with a stale heartbeat (and lost task jobs). */
  TASK_REAPER_INTERVAL_MS: int(100, 600_000).default(5000),
  /** Accept 6-field cron expressions (with seconds) in schedules. Off in production; tests use short intervals. */
  SCHEDULE_ALLOW_SECONDS: bool.default(false),
  /** Adds the test-only tools of src/tools/testing (never in production). */
  ENABLE_TEST_TOOLS: bool.default(false),
  /** Development convenience: create this tenant and print a key on `npm start`. */
  DEV_TENANT: z.string().default('dev'),
});

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Record<keyof Config, string | number | boolean>> = {}): Config {
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.shape)) {
    const value = (overrides as Record<string, unknown>)[key] ?? env[key];
    if (value !== undefined && value !== '') input[key] = typeof value === 'string' ? value : String(value);
  }
  const parsed = ConfigSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new ConfigError(`Invalid configuration: ${problems}`);
  }
  return parsed.data;
}
