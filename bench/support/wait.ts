// Waiting with a deadline, and the statistics the figures report.

/** A run that broke (lost or duplicated work, a crashed process, a wait that timed out): the bench exits non-zero. */
export class BenchError extends Error {
  override name = 'BenchError';
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** Rejects as soon as one of the bench's essential child processes exits on its own. */
const crash = deferred<never>();
export function reportCrash(error: BenchError): void {
  crash.reject(error);
}

/** `promise`, unless `ms` pass first or a child process crashes meanwhile. `what` may say how far it got. */
export async function within<T>(what: string | (() => string), ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BenchError(`${typeof what === 'string' ? what : what()}: not done within ${(ms / 1000).toFixed(0)} s`)), ms);
  });
  try {
    return await Promise.race([promise, timeout, crash.promise]);
  } finally {
    clearTimeout(timer);
  }
}

/** Never resolves; rejects when `promise` rejects. Race it against a wait that `promise` runs alongside. */
export function failureOf(promise: Promise<unknown>): Promise<never> {
  return promise.then(() => new Promise<never>(() => undefined));
}

/** Polls `probe` until it returns a value other than null/undefined/false. */
export async function until<T>(what: string, ms: number, probe: () => Promise<T | null | undefined | false>, intervalMs = 100): Promise<T> {
  return within(what, ms, (async () => {
    for (;;) {
      const value = await probe().catch(() => null);
      if (value !== null && value !== undefined && value !== false) return value;
      await sleep(intervalMs);
    }
  })());
}

/** Nearest-rank percentile (p in 0..100) of the values. */
export function percentile(values: ArrayLike<number>, p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

export const median = (values: ArrayLike<number>) => percentile(values, 50);
