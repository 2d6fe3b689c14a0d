// Fields that every log line written while handling one request or job carries (request id,
// tenant, session, call, task), without passing a child logger through every layer: the logger's
// mixin reads them from here. Traces and metrics can read the same context later.
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
