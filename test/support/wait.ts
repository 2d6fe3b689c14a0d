// Waiting in tests: for a condition (polled), or — only where time itself is what is tested —
// for a while.
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `probe` until it returns a truthy value and returns that. A probe that throws counts as
 * "not yet" (a process still starting); the last error is reported if time runs out.
 */
export async function eventually<T>(probe: () => Promise<T | null | undefined | false>, timeoutMs = 10_000, intervalMs = 50, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what} not met within ${timeoutMs} ms${lastError ? ` (last error: ${(lastError as Error).message ?? String(lastError)})` : ''}`);
    }
    await sleep(intervalMs);
  }
}
