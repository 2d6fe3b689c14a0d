// Fast cross-process cancellation: every worker keeps a map from the ids it is running to an
// abort callback, and listens on the cancel channel. The durable record (cancel_requested_at)
// is the fallback, read on each heartbeat.
import { type Broadcast, subscribeCancels } from '../domain/broadcast.js';

export class CancelRegistry {
  private readonly running = new Map<string, () => void>();
  private unsubscribe: (() => Promise<void>) | null = null;

  constructor(private readonly bus: Broadcast) {}

  async start(): Promise<void> {
    this.unsubscribe = await subscribeCancels(this.bus, (id) => this.cancel(id));
  }

  register(id: string, onCancel: () => void): () => void {
    this.running.set(id, onCancel);
    return () => {
      if (this.running.get(id) === onCancel) this.running.delete(id);
    };
  }

  cancel(id: string): void {
    this.running.get(id)?.();
  }

  ids(): string[] {
    return [...this.running.keys()];
  }

  async stop(): Promise<void> {
    await this.unsubscribe?.();
    this.unsubscribe = null;
  }
}
