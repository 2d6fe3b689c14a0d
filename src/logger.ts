// pino for every process. Each line carries the fields of the request or job it was written for
// (logging/context.ts), and errors that only say PostgreSQL or Redis is away are written without
// stacks, at most one line per LOG_REPEAT_INTERVAL_MS for each message, with a count.
import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';
import type { Config } from './config.js';
import { currentLogContext } from './logging/context.js';
import { isInfrastructureError, summarizeError } from './logging/infrastructure-errors.js';
import { RepeatLimiter } from './logging/repeat-limiter.js';

export type { Logger };

export interface LoggerSettings {
  name?: string;
  /** Where lines go (default stdout). */
  destination?: DestinationStream;
  /** More fields for every line, e.g. the active trace's ids. */
  mixins?: Array<() => Record<string, unknown>>;
}

const DEFAULT_REPEAT_INTERVAL_MS = 30_000;

export function createLogger(
  config: Pick<Config, 'LOG_LEVEL'> & Partial<Pick<Config, 'LOG_REPEAT_INTERVAL_MS'>>,
  settings: LoggerSettings = {},
): Logger {
  const limiter = new RepeatLimiter(config.LOG_REPEAT_INTERVAL_MS ?? DEFAULT_REPEAT_INTERVAL_MS);
  const mixins = settings.mixins ?? [];
  // Lines the limiter writes itself (the counts) pass through the hook untouched.
  const summaries = new WeakSet<object>();
  // Error summaries are written as they are (pino's error serializer would add an empty stack).
  const summarized = new WeakSet<object>();
  const options: LoggerOptions = {
    name: settings.name ?? 'toolrun',
    level: config.LOG_LEVEL,
    serializers: { err: (err: unknown) => (err && typeof err === 'object' && summarized.has(err) ? err : pino.stdSerializers.err(err as Error)) },
    mixin: () => {
      const context = currentLogContext();
      if (mixins.length === 0) return context ?? {};
      return Object.assign({}, context, ...mixins.map((mixin) => mixin()));
    },
    hooks: {
      logMethod(args, method, level) {
        const [fields, message] = args as unknown[];
        if (!fields || typeof fields !== 'object' || summaries.has(fields) || !('err' in fields)) return method.apply(this, args);
        const { err } = fields as { err: unknown };
        if (!isInfrastructureError(err)) return method.apply(this, args);
        const summary = summarizeError(err);
        summarized.add(summary);
        const text = typeof message === 'string' ? message : '';
        const line = { ...(fields as object), err: summary };
        const key = `${level}\u0000${text}\u0000${summary.code ?? summary.type}`;
        const admitted = limiter.admit(key, (repeated) => {
          const counted = { ...line, repeated, intervalMs: limiter.intervalMs };
          summaries.add(counted);
          method.apply(this, [counted, `${text} (repeated ${repeated} times in ${Math.round(limiter.intervalMs / 1000)} s)`] as never);
        });
        if (admitted) method.apply(this, [line, ...args.slice(1)] as never);
      },
    },
  };
  return settings.destination ? pino(options, settings.destination) : pino(options);
}
