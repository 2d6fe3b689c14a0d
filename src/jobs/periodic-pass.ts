// The loop the reaper and the task reaper share: a pass every interval, never two at once (a slow
// pass makes the next tick a no-op rather than a second pass beside it).
export abstract class PeriodicPass {
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  /** Starts the interval; with `now`, a first pass at once. */
  protected every(intervalMs: number, now: boolean): void {
    this.timer = setInterval(() => void this.tick(), intervalMs);
    if (now) void this.tick();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Runs a pass unless one is running. */
  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.pass();
    } finally {
      this.running = false;
    }
  }

  protected abstract pass(): Promise<void>;
}
