import type { YogaLogger } from 'graphql-yoga';
import type { Logger } from '../logger.js';

/**
 * Yoga logs like console (`logger.warn('text', value, …)`): the first string becomes pino's
 * message, an Error becomes `err`, and the other values go under `args`.
 */
export function yogaLogger(logger: Logger): YogaLogger {
  const adapt =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]): void => {
      if (!logger.isLevelEnabled(level)) return;
      const messageIndex = args.findIndex((arg) => typeof arg === 'string');
      const errorIndex = args.findIndex((arg) => arg instanceof Error);
      const rest = args.filter((_, index) => index !== messageIndex && index !== errorIndex);
      const fields: Record<string, unknown> = { component: 'yoga' };
      if (errorIndex >= 0) fields.err = args[errorIndex];
      if (rest.length > 0) fields.args = rest;
      const message = messageIndex >= 0 ? (args[messageIndex] as string) : errorIndex >= 0 ? (args[errorIndex] as Error).message : level;
      logger[level](fields, message);
    };
  return { debug: adapt('debug'), info: adapt('info'), warn: adapt('warn'), error: adapt('error') };
}
