// At most one line per interval for a repeating message: the first occurrence is written at once,
// the ones after it within the interval are counted, and when the interval ends the count is
// written as one line (and the next interval starts). A key that stays quiet for a whole interval
// is forgotten, so the next occurrence is written at once again.

interface Window {
  suppressed: number;
  timer: NodeJS.Timeout;
  flush: (suppressed: number) => void;
}

export class RepeatLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(readonly intervalMs: number) {}

  /**
   * True when this occurrence of `key` should be written now. Otherwise it is counted, and
   * `flush` (the latest one given) is called with the count when the interval ends.
   */
  admit(key: string, flush: (suppressed: number) => void): boolean {
    const window = this.windows.get(key);
    if (window) {
      window.suppressed += 1;
      window.flush = flush;
      return false;
    }
    this.windows.set(key, { suppressed: 0, flush, timer: this.arm(key) });
    return true;
  }

  private arm(key: string): NodeJS.Timeout {
    const timer = setTimeout(() => {
      const window = this.windows.get(key);
      if (!window) return;
      if (window.suppressed === 0) {
        this.windows.delete(key);
        return;
      }
      const count = window.suppressed;
      window.suppressed = 0;
      window.timer = this.arm(key);
      window.flush(count);
    }, this.intervalMs);
    timer.unref();
    return timer;
  }

  /** Writes the pending counts now and forgets every key (at shutdown). */
  flushAll(): void {
    for (const [key, window] of this.windows) {
      clearTimeout(window.timer);
      this.windows.delete(key);
      if (window.suppressed > 0) window.flush(window.suppressed);
    }
  }
}
