// Fields that every log line written while handling one request carries (request id, tenant),
// without passing a child logger through every layer: the logger's mixin reads them from here.
// Jobs do pass one (jobs/queue-worker.ts): an AsyncLocalStorage in use turns on async hooks, which
// on Node 20 slow every promise of the process, and a worker's jobs are its hot path.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface LogContext {
  requestId?: string;
  tenantId?: string;
  sessionId?: string;
  callId?: string;
  taskId?: string;
  jobId?: string;
}

const storage = new AsyncLocalStorage<LogContext>();

/** Runs `fn` with `fields` added to the current context (a copy: the caller's context is unchanged). */
export function withLogContext<T>(fields: LogContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...fields }, fn);
}

/** Adds fields learned along the way (a job's call id once its row is loaded) to the current context. */
export function addLogContext(fields: LogContext): void {
  const store = storage.getStore();
  if (store) Object.assign(store, fields);
}

export function currentLogContext(): LogContext | undefined {
  return storage.getStore();
}
