// Cross-process pub/sub over Redis: one publishing and one subscribing connection per process,
// with an in-process fan-out so a channel is SUBSCRIBEd once however many listeners it has.
// Listeners are attached eagerly (before any replay), so nothing published after `subscribe`
// returns is missed while Redis stays connected; readers that need more (event streams) catch up
// from PostgreSQL on `onReconnect`.
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';

type Listener = (message: unknown) => void;

export class EventBus {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly reconnectListeners = new Set<() => void>();
  private pendingSubscribe = new Map<string, Promise<unknown>>();
  private wasDisconnected = false;

  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {
    subscriber.on('message', (channel: string, raw: string) => this.dispatch(channel, raw));
    subscriber.on('close', () => {
      this.wasDisconnected = true;
    });
    subscriber.on('ready', () => {
      if (!this.wasDisconnected) return;
      this.wasDisconnected = false;
      // ioredis re-subscribes by itself (autoResubscribe); messages sent meanwhile are lost.
      for (const listener of this.reconnectListeners) listener();
    });
  }

  channel(name: string): string {
    return `${this.prefix}:${name}`;
  }

  async publish(name: string, message: unknown): Promise<void> {
    await this.publisher.publish(this.channel(name), JSON.stringify(message));
  }

  /** Resolves once Redis has confirmed the subscription. */
  async subscribe(name: string, listener: Listener): Promise<() => Promise<void>> {
    const channel = this.channel(name);
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      this.pendingSubscribe.set(channel, this.whenReady().then(() => this.subscriber.subscribe(channel)));
    }
    set.add(listener);
    try {
      await this.pendingSubscribe.get(channel);
    } catch (error) {
      this.logger.warn({ err: error, channel }, 'redis subscribe failed; the stream will catch up from the database');
    }
    return async () => {
      const current = this.listeners.get(channel);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) {
        this.listeners.delete(channel);
        this.pendingSubscribe.delete(channel);
        await this.subscriber.unsubscribe(channel).catch(() => undefined);
      }
    };
  }

  /**
   * A SUBSCRIBE sent before the connection is ready can overtake ioredis' own ready check (INFO),
   * which Redis then refuses in subscriber mode, and ioredis drops the connection: wait for ready.
   * (After a reconnect ioredis resubscribes by itself.)
   */
  private async whenReady(): Promise<void> {
    if (this.subscriber.status === 'ready') return;
    await new Promise<void>((resolve) => this.subscriber.once('ready', () => resolve()));
  }

  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  private dispatch(channel: string, raw: string): void {
    const set = this.listeners.get(channel);
    if (!set) return;
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch {
      this.logger.warn({ channel }, 'dropped a malformed pub/sub message');
      return;
    }
    for (const listener of set) {
      try {
        listener(message);
      } catch (error) {
        this.logger.error({ err: error, channel }, 'pub/sub listener failed');
      }
    }
  }
}
