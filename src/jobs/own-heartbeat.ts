// Whether this worker may judge other workers' heartbeats (and their background runs'). After an
// outage of PostgreSQL that every worker shared, or a stall of this process itself (a long pause of
// its event loop, SIGSTOP), every heartbeat is old, live workers' too: judged then, live workers
// would be declared dead and their calls run again or failed `worker_lost`. So a worker judges
// heartbeats silent for a window only when its own have landed through all of that window without a
// gap that could have left a live worker's as old as the window (longer than the window less one
// heartbeat interval).

export class OwnHeartbeat {
  private lastAt = 0;
  /** Gaps longer than the interval between heartbeats that landed: when each ended and how long it was (a registration is an endless one). */
  private gaps: Array<{ endedAt: number; ms: number }> = [];

  constructor(
    /** HEARTBEAT_INTERVAL_MS. */
    private readonly intervalMs: number,
    /** Gaps that ended longer ago than this are forgotten (the longest window judged). */
    private readonly keepMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.registered();
  }

  /** This worker registered (again): nothing before counts. */
  registered(): void {
    this.lastAt = this.now();
    this.gaps = [{ endedAt: this.lastAt, ms: Number.POSITIVE_INFINITY }];
  }

  /** A heartbeat of this worker landed. */
  landed(): void {
    const now = this.now();
    const gap = now - this.lastAt;
    this.lastAt = now;
    if (gap > this.intervalMs) this.gaps.push({ endedAt: now, ms: gap });
    this.gaps = this.gaps.filter((entry) => entry.endedAt >= now - this.keepMs);
  }

  /** Whether heartbeats silent for `windowMs` may be taken for a lost worker now. */
  mayJudge(windowMs: number): boolean {
    const now = this.now();
    const longest = windowMs - this.intervalMs;
    if (now - this.lastAt > longest) return false;
    return !this.gaps.some((entry) => entry.ms > longest && entry.endedAt > now - windowMs);
  }
}
