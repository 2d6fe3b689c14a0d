// A worker's call slots, shared fairly between tenants: when calls wait for a slot, a freed slot goes
// to the next tenant in turn (round robin), not to whoever queued first, so one tenant's burst never
// holds another tenant's call behind all of it. The last `newcomers` free slots go only to tenants
// with no call running here, so a tenant's first call starts at once even beside a tenant that
// could fill the worker (which then runs at most capacity − newcomers calls). A tenant may also be
// capped below the whole worker.
export interface CallSlotsOptions {
  /** At most this many slots for one tenant (defaults to all). */
  perTenant?: number;
  /** Slots kept for tenants holding none (defaults to none; at most capacity − 1). */
  newcomers?: number;
}

export class CallSlots {
  private used = 0;
  private readonly usedBy = new Map<string, number>();
  /** Tenants with waiters, in turn order; each with its waiters in arrival order. */
  private readonly waiting = new Map<string, Array<(granted: boolean) => void>>();
  private closed = false;

  private readonly perTenant: number;
  private readonly newcomers: number;

  constructor(
    private readonly capacity: number,
    options: CallSlotsOptions = {},
  ) {
    this.perTenant = options.perTenant ?? capacity;
    this.newcomers = Math.min(Math.max(0, options.newcomers ?? 0), capacity - 1);
  }

  get inUse(): number {
    return this.used;
  }

  get queued(): number {
    let count = 0;
    for (const list of this.waiting.values()) count += list.length;
    return count;
  }

  /**
   * Resolves true once the tenant holds a slot (call `release` when done), false once the slots are
   * closed, or when `giveUpAfterMs` passed first without one (the waiter is withdrawn).
   */
  acquire(tenantId: string, giveUpAfterMs?: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.mayTake(tenantId) && !this.waiting.has(tenantId)) {
      this.take(tenantId);
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const list = this.waiting.get(tenantId) ?? [];
      if (giveUpAfterMs === undefined) {
        list.push(resolve);
      } else {
        const timer = setTimeout(() => {
          const waiters = this.waiting.get(tenantId);
          const index = waiters?.indexOf(waiter) ?? -1;
          if (index < 0) return;
          waiters!.splice(index, 1);
          if (waiters!.length === 0) this.waiting.delete(tenantId);
          resolve(false);
        }, giveUpAfterMs);
        const waiter = (granted: boolean) => {
          clearTimeout(timer);
          resolve(granted);
        };
        list.push(waiter);
      }
      this.waiting.set(tenantId, list);
    });
  }

  /** No slot is given any more (the worker shuts down): every waiter, and every later acquire, gets false. */
  close(): void {
    this.closed = true;
    for (const list of this.waiting.values()) for (const resolve of list) resolve(false);
    this.waiting.clear();
  }

  release(tenantId: string): void {
    this.used--;
    const held = (this.usedBy.get(tenantId) ?? 1) - 1;
    if (held <= 0) this.usedBy.delete(tenantId);
    else this.usedBy.set(tenantId, held);
    this.grant();
  }

  /** Whether a slot is free for the tenant: any free one for a tenant holding none, else one beyond those kept for newcomers. */
  private mayTake(tenantId: string): boolean {
    const held = this.usedBy.get(tenantId) ?? 0;
    if (held >= this.perTenant) return false;
    return this.used < (held === 0 ? this.capacity : this.capacity - this.newcomers);
  }

  private take(tenantId: string): void {
    this.used++;
    this.usedBy.set(tenantId, (this.usedBy.get(tenantId) ?? 0) + 1);
  }

  private grant(): void {
    while (this.used < this.capacity) {
      let granted = false;
      for (const [tenantId, list] of this.waiting) {
        if (!this.mayTake(tenantId)) continue;
        const next = list.shift()!;
        // The tenant goes to the back of the turn order.
        this.waiting.delete(tenantId);
        if (list.length > 0) this.waiting.set(tenantId, list);
        this.take(tenantId);
        next(true);
        granted = true;
        break;
      }
      if (!granted) return;
    }
  }
}
