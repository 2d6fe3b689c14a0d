// How much of a process's thread one tenant's JSON Schemas may take to compile.
import { LimitExceededError } from '../../model/errors.js';

/**
 * Compiling a tool's parameters schema runs on the thread that serves every tenant: a 43 kB schema
 * of 200 `oneOf` objects takes 1–3 s, and a tenant may register tools (or point an MCP server that
 * lists large schemas and says `list_changed` over and over) as fast as its rate limit lets it. Each
 * tenant has an allowance of compile time per process: `burstMs` at once, refilled at
 * `refillPerSecond` ms each second. A compile that starts while the allowance is spent is refused
 * (LIMIT_EXCEEDED, saying when to try again); one that starts is charged what it took.
 */
const MAX_TRACKED = 10_000;

export class SchemaCompileAllowance {
  private readonly balances = new Map<string, { ms: number; at: number }>();

  constructor(
    private readonly burstMs = 5_000,
    private readonly refillPerSecond = 100,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Runs `compile` on `tenantId`'s allowance. */
  charge<T>(tenantId: string, compile: () => T): T {
    const started = this.now();
    const balance = this.balanceOf(tenantId, started);
    if (balance.ms <= 0) {
      const waitSeconds = Math.max(1, Math.ceil(-balance.ms / this.refillPerSecond));
      throw new LimitExceededError(
        'schemaCompileTime',
        this.burstMs,
        `Compiling this tenant's tool schemas has used the time it may take on this process (${this.burstMs / 1000} s at once, ${this.refillPerSecond / 1000} s more each second): try again in ${waitSeconds} s, or send smaller schemas`,
      );
    }
    try {
      return compile();
    } finally {
      const ended = this.now();
      balance.ms = this.refilled(balance, ended) - (ended - started);
      balance.at = ended;
    }
  }

  private balanceOf(tenantId: string, now: number): { ms: number; at: number } {
    let balance = this.balances.get(tenantId);
    if (!balance) {
      if (this.balances.size >= MAX_TRACKED) this.forgetRefilled(now);
      balance = { ms: this.burstMs, at: now };
      this.balances.set(tenantId, balance);
    }
    balance.ms = this.refilled(balance, now);
    balance.at = now;
    return balance;
  }

  private refilled(balance: { ms: number; at: number }, now: number): number {
    return Math.min(this.burstMs, balance.ms + ((now - balance.at) / 1000) * this.refillPerSecond);
  }

  /** Tenants whose allowance is whole again need no entry. */
  private forgetRefilled(now: number): void {
    for (const [tenantId, balance] of this.balances) if (this.refilled(balance, now) >= this.burstMs) this.balances.delete(tenantId);
  }
}
