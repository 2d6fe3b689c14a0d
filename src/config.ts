// Configuration from environment variables, validated once at start-up.
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');
const int = (min: number, max: number) =>
  z.coerce
    .number({ error: `expected an integer from ${min} to ${max}` })
    .int(`expected an integer from ${min} to ${max}`)
    .min(min, `expected an integer from ${min} to ${max}`)
    .max(max, `expected an integer from ${min} to ${max}`);

const ConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** Unset: PostgreSQL at 127.0.0.1:LOCAL_POSTGRES_PORT, database `toolrun` (`npm start` starts an embedded one when none answers). */
  DATABASE_URL: z.string().url().refine((url) => /^postgres(ql)?:\/\//.test(url), 'expected a postgresql:// URL').optional(),
  DATABASE_POOL_SIZE: int(1, 200).default(10),
  /**
   * A pooled connection is closed (when next idle) this long after it opened, so its cached plans
   * are made again: a generic plan chosen while a table was small (a sequential scan) would otherwise
   * stay while the table grows, where autovacuum's ANALYZE does not run (0: connections live on).
   */
  DATABASE_CONNECTION_LIFETIME_S: int(0, 86_400).default(300),
  /** Unset: Redis at 127.0.0.1:LOCAL_REDIS_PORT (`npm start` starts `redis-server` from the PATH when none answers). */
  REDIS_URL: z.string().url().refine((url) => /^rediss?:\/\//.test(url), 'expected a redis:// or rediss:// URL').optional(),
  /** Where PostgreSQL and Redis look for the local servers when DATABASE_URL / REDIS_URL are unset, and where `npm start` starts its own. */
  LOCAL_POSTGRES_PORT: int(1, 65535).default(5432),
  LOCAL_REDIS_PORT: int(1, 65535).default(6379),
  /** Local state of `npm start`: the embedded servers' data, the development API key. Relative to the working directory. */
  TOOLRUN_DATA_DIR: z.string().default('.data'),
  /** Prefix of every Redis key and channel, so several deployments (or test runs) can share one Redis. */
  REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_.{}-]+$/, 'letters, digits, _ . - and { } (a Redis Cluster hash tag) only').default('toolrun'),
  HOST: z.string().default('127.0.0.1'),
  PORT: int(0, 65535).default(4000),
  /** A worker process serves /metrics on this port of HOST (unset: no metrics port; the API serves /metrics on PORT). */
  WORKER_METRICS_PORT: int(0, 65535).optional(),
  /** The bull-board queue dashboard at /admin/queues, for keys with the admin role. */
  BULL_BOARD_ENABLED: bool.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** A repeating infrastructure error (PostgreSQL or Redis away) is logged at most once per interval, with a count. */
  LOG_REPEAT_INTERVAL_MS: int(100, 3_600_000).default(30_000),
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
  /**
   * A worker's call slots kept for tenants with no call running on it, so their first call starts at
   * once beside a busy tenant (default: WORKER_CONCURRENCY / 8, rounded down; 0: none kept).
   */
  WORKER_NEWCOMER_SLOTS: int(0, 1000).optional(),
  /**
   * A calls job whose tenant has at most this many calls queued (the job's own included) goes to the
   * express queue, which workers take apart from the main one (default: CALLS_PER_JOB; 0: no express queue).
   */
  CALLS_EXPRESS_BACKLOG: int(0, 1_000_000).optional(),
  /**
   * Express jobs one worker runs at once, besides its jobs from the main calls queue. Express jobs
   * are small (their tenant has few calls queued): often one call each, as agents send them, so
   * their slots are many, or such calls would run a few at a time with call slots free.
   */
  CALLS_EXPRESS_CONCURRENCY: int(1, 1000).default(16),
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
  MAX_QUERY_COST: int(10, 10_000_000).default(100_000),
  MAX_QUERY_TOKENS: int(100, 100_000).default(5000),
  /** JSON in a request (variables, literals: tool args, metadata) may nest at most this many levels. */
  MAX_JSON_DEPTH: int(2, 1000).default(64),
  /** Tool calls one request may submit, summed over every executeToolBatch in it (aliases included). */
  MAX_CALLS_PER_REQUEST: int(1, 100_000).default(1000),
  /** Schema introspection (and GraphiQL's docs); unset: on, except when NODE_ENV=production. */
  INTROSPECTION: bool.optional(),
  WEB_FETCH_ALLOW_PRIVATE: bool.default(false),
  WEB_FETCH_ALLOW_LOOPBACK: bool.default(false),
  WEB_FETCH_MAX_BYTES: int(1, 50 * 1024 * 1024).default(1024 * 1024),
  WEB_FETCH_TIMEOUT_MS: int(100, 120_000).default(15_000),
  /** HTTP tools (registered per tenant) may reach private / loopback addresses only when allowed. */
  HTTP_TOOL_ALLOW_PRIVATE: bool.default(false),
  HTTP_TOOL_ALLOW_LOOPBACK: bool.default(false),
  /** Largest HTTP tool response body, and MCP tool result (text and structured content); a larger one fails the call RESOURCE_LIMIT. */
  HTTP_TOOL_MAX_RESPONSE_BYTES: int(1024, 50 * 1024 * 1024).default(1024 * 1024),
  /** A `Retry-After` longer than this is shortened to it. */
  HTTP_TOOL_MAX_RETRY_AFTER_MS: int(0, 24 * 3600 * 1000).default(10 * 60 * 1000),
  /** MCP servers (tool sources, reached under the HTTP tool address settings): how long connecting and tools/list may take. */
  MCP_REQUEST_TIMEOUT_MS: int(100, 120_000).default(15_000),
  /** Largest message toolrun reads from an MCP server (a JSON body, an event of a stream; binary content is base64 in it); a larger answer fails its call RESOURCE_LIMIT. */
  MCP_MAX_MESSAGE_BYTES: int(1024, 512 * 1024 * 1024).default(32 * 1024 * 1024),
  /** Background runs one task worker runs at once (its BullMQ concurrency); also the per-worker spawn limit. */
  BACKGROUND_RUNS_PER_WORKER: int(1, 1000).default(64),
  /** How often each worker looks for background runs with a stale heartbeat (and lost task jobs). */
  TASK_REAPER_INTERVAL_MS: int(100, 600_000).default(5000),
  /** Accept 6-field cron expressions (with seconds) in schedules. Off in production; tests use short intervals. */
  SCHEDULE_ALLOW_SECONDS: bool.default(false),
  /** Adds the test-only tools of src/tools/testing (never in production). */
  ENABLE_TEST_TOOLS: bool.default(false),
  /**
   * Per-tenant limits (docs: README "Limits and quotas"). Each is the deployment's default and also
   * the most a tenant may have: a tenant admin can only lower its own (`updateTenantSettings`).
   * Calls of one tenant running at once across every worker (0: no limit beyond the workers' slots).
   */
  TENANT_MAX_RUNNING_CALLS: int(0, 1_000_000).default(0),
  /** Active (queued or running) background runs of one tenant across every session. */
  TENANT_MAX_BACKGROUND_RUNS: int(1, 100_000).default(32),
  /** The file store of one session: UTF-8 bytes of content, and entries (files and directories). */
  SESSION_FILE_MAX_BYTES: int(1024, Number.MAX_SAFE_INTEGER).default(100 * 1024 * 1024),
  SESSION_FILE_MAX_FILES: int(1, 100_000_000).default(10_000),
  /** Every session file store of one tenant together. */
  TENANT_FILE_MAX_BYTES: int(1024, Number.MAX_SAFE_INTEGER).default(1024 * 1024 * 1024),
  TENANT_FILE_MAX_FILES: int(1, 100_000_000).default(100_000),
  /** Requests (HTTP and SSE requests, WebSocket operations) one API key may make per window, counted in Redis (0: no limit). */
  RATE_LIMIT_REQUESTS: int(0, 10_000_000).default(2000),
  RATE_LIMIT_WINDOW_SECONDS: int(1, 3600).default(10),
  /** `sessionFiles` returns a file's content up to this many characters; longer content is cut and flagged `contentTruncated`. */
  SESSION_FILES_MAX_CONTENT_CHARS: int(0, 10 * 1024 * 1024).default(64 * 1024),
  /** Development convenience: create this tenant and print a key on `npm start`. */
  DEV_TENANT: z.string().default('dev'),
  /** Web origins (comma-separated, e.g. `https://dash.example.com`) whose pages may call the API; default none but the API's own. */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((value) => value.split(',').map((origin) => origin.trim()).filter(Boolean))
    .pipe(z.array(z.string().regex(/^https?:\/\/[^/\s]+$/, 'origins like https://app.example.com, comma-separated'))),
  /**
   * A WebSocket is pinged this often, and dropped when it does not answer within as long once the ping
   * has left, plus the time a slow reader (8 KB/s) takes for what was sent before it (at most 60 s more).
   */
  WS_KEEPALIVE_MS: int(100, 600_000).default(12_000),
  /** Subscriptions one WebSocket may have open at once; one more is refused (LIMIT_EXCEEDED) and the socket stays open. */
  MAX_SUBSCRIPTIONS_PER_SOCKET: int(1, 100_000).default(100),
  /** Subscriptions (WebSocket and SSE) one API key may have open at once on one API process. */
  MAX_SUBSCRIPTIONS_PER_KEY: int(1, 1_000_000).default(500),
  /**
   * How far (in %) an API process's heap may grow past what its last full garbage collection kept
   * before the next one (V8's --heap-growing-percent; 0: V8's own factor, up to 4×).
   */
  API_HEAP_GROWING_PERCENT: int(0, 1000).default(25),
  /**
   * Keys that encrypt HTTP tools' signing secrets at rest: `<id>:<base64 of 32 bytes>`, comma-separated,
   * the first one encrypts, any one decrypts. Unset: a key generated once in TOOLRUN_DATA_DIR/secret-keys.
   */
  SECRET_KEYS: z.string().optional(),
});

type Settings = z.infer<typeof ConfigSchema>;

/** The settings, with the database and Redis URLs resolved (and whether they were given). */
export type Config = Omit<Settings, 'DATABASE_URL' | 'REDIS_URL' | 'INTROSPECTION'> & {
  DATABASE_URL: string;
  REDIS_URL: string;
  INTROSPECTION: boolean;
  /** Which URLs were not set, so that the local defaults apply (and `npm start` may start embedded servers). */
  defaults: { database: boolean; redis: boolean };
};

/** Every setting's name (the environment variables read). */
export const SETTINGS = Object.keys(ConfigSchema.shape) as Array<keyof Settings>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Record<keyof Settings, string | number | boolean>> = {}): Config {
  const input: Record<string, string> = {};
  for (const key of SETTINGS) {
    const value = (overrides as Record<string, unknown>)[key] ?? env[key];
    if (value !== undefined && value !== '') input[key] = typeof value === 'string' ? value : String(value);
  }
  const parsed = ConfigSchema.safeParse(input);
  if (!parsed.success) {
    const messages = new Map<string, string[]>();
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0]);
      const list = messages.get(key) ?? [];
      if (!list.includes(issue.message)) list.push(issue.message);
      messages.set(key, list);
    }
    const problems = [...messages].map(([key, list]) => {
      const value = key.endsWith('_URL') ? redactUrl(input[key] ?? '') : input[key];
      return `${key}=${JSON.stringify(value)} (${list.join('; ')})`;
    });
    throw new ConfigError(`invalid setting${problems.length > 1 ? 's' : ''}: ${problems.join('; ')}`);
  }
  const settings = parsed.data;
  return {
    ...settings,
    DATABASE_URL: settings.DATABASE_URL ?? `postgresql://postgres@127.0.0.1:${settings.LOCAL_POSTGRES_PORT}/toolrun`,
    REDIS_URL: settings.REDIS_URL ?? `redis://127.0.0.1:${settings.LOCAL_REDIS_PORT}`,
    INTROSPECTION: settings.INTROSPECTION ?? settings.NODE_ENV !== 'production',
    defaults: { database: settings.DATABASE_URL === undefined, redis: settings.REDIS_URL === undefined },
  };
}

/** A URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
  }
}
