// A worker's call slots, shared fairly between tenants: when calls wait for a slot, a freed slot goes
// to the next tenant in turn (round robin), not to whoever queued first, so one tenant's burst never
// holds another tenant's call behind all of it. A tenant may also be capped below the whole worker.
export class CallSlots {
  private used = 0;
  private readonly usedBy = new Map<string, number>();
  /** Tenants with waiters, in turn order; each with its waiters in arrival order. */
  private readonly waiting = new Map<string, Array<(granted: boolean) => void>>();
  private closed = false;

  constructor(
    private readonly capacity: number,
    /** At most this many slots for one tenant (defaults to all). */
    private readonly perTenant = capacity,
  ) {}

  get inUse(): number {
    return this.used;
  }

  get queued(): number {
    let count = 0;
    for (const list of this.waiting.values()) count += list.length;
    return count;
  }

  /** Resolves true once the tenant holds a slot (call `release` when done), false once the slots are closed. */
  acquire(tenantId: string): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.used < this.capacity && (this.usedBy.get(tenantId) ?? 0) < this.perTenant && !this.waiting.has(tenantId)) {
      this.take(tenantId);
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const list = this.waiting.get(tenantId) ?? [];
      list.push(resolve);
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

  private take(tenantId: string): void {
    this.used++;
    this.usedBy.set(tenantId, (this.usedBy.get(tenantId) ?? 0) + 1);
  }

  private grant(): void {
    while (this.used < this.capacity) {
      let granted = false;
      for (const [tenantId, list] of this.waiting) {
        if ((this.usedBy.get(tenantId) ?? 0) >= this.perTenant) continue;
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
