import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, name = 'toolrun'): Logger {
  return pino({ name, level: config.LOG_LEVEL });
}
