// The live side of the event log in one process: committed events are published once per tenant per
// transaction; this process subscribes to a tenant's channel while anyone here watches one of its
// streams, and hands each message to the hubs of the streams it touches. Nothing here polls per
// subscriber: a Redis reconnect, a gap, or one batched head check per interval for all active hubs
// (an announcement that never came) make the hubs catch up from PostgreSQL.
import type { SessionEvent as CommittedEvent } from '../model/events.js';
import type { Logger } from '../logger.js';
import { observeDelivery } from '../telemetry/metrics.js';
import type { EventBus } from './event-bus.js';
import type { EventReader, StreamKey } from './event-reader.js';
import { Hub, type HubLimits, type StreamItem, type StreamOptions } from './hub.js';

export const tenantEventsChannel = (tenantId: string) => `t:${tenantId}`;

export interface PublishedEvents {
  tenantId: string;
  events: CommittedEvent[];
}

export interface EventFeedOptions extends HubLimits {
  /** How often active hubs compare their position with the database (one query for all). */
  freshnessIntervalMs: number;
}

interface TenantChannel {
  hubs: number;
  ready: Promise<() => Promise<void>>;
}

export class EventFeed {
  private readonly hubs = new Map<string, Hub>();
  private readonly channels = new Map<string, TenantChannel>();
  private readonly timer: NodeJS.Timeout;
  private readonly offReconnect: () => void;

  constructor(
    private readonly bus: EventBus,
    private readonly reader: EventReader,
    private readonly logger: Logger,
    private readonly options: EventFeedOptions,
  ) {
    this.timer = setInterval(() => void this.checkFreshness(), options.freshnessIntervalMs);
    this.timer.unref();
    this.offReconnect = bus.onReconnect(() => {
      for (const hub of this.hubs.values()) void hub.catchUp();
    });
  }

  /** Publishes committed events (the event log's publish function). */
  publish(tenantId: string, events: CommittedEvent[]): Promise<void> {
    return this.bus.publish(tenantEventsChannel(tenantId), { tenantId, events } satisfies PublishedEvents);
  }

  /** A session's events (by seq), replayed after `after` then live. The caller has checked access. */
  session(tenantId: string, sessionId: string, options: StreamOptions): AsyncIterableIterator<StreamItem> {
    return this.hub(tenantId, { kind: 'session', id: sessionId }).stream(options);
  }

  /** A tenant's events (by tenant seq), replayed after `after` then live. */
  tenant(tenantId: string, options: StreamOptions): AsyncIterableIterator<StreamItem> {
    return this.hub(tenantId, { kind: 'tenant', id: tenantId }).stream(options);
  }

  /** A stream's head (its last position) as the database has it now. */
  async head(kind: StreamKey['kind'], id: string): Promise<number> {
    return (await this.reader.heads(kind, [id])).get(id)?.head ?? 0;
  }

  private hub(tenantId: string, key: StreamKey): Hub {
    const name = `${key.kind}:${key.id}`;
    let hub = this.hubs.get(name);
    if (hub) return hub;
    const channel = this.channel(tenantId);
    hub = new Hub(
      key,
      this.reader,
      this.options,
      this.logger,
      async () => {
        await channel.ready;
        return (await this.reader.heads(key.kind, [key.id])).get(key.id)?.head ?? 0;
      },
      (idle) => {
        if (this.hubs.get(name) !== idle) return;
        this.hubs.delete(name);
        this.releaseChannel(tenantId);
      },
    );
    this.hubs.set(name, hub);
    return hub;
  }

  private channel(tenantId: string): TenantChannel {
    let channel = this.channels.get(tenantId);
    if (!channel) {
      channel = {
        hubs: 0,
        ready: this.bus.subscribe(tenantEventsChannel(tenantId), (message) => this.dispatch(message as PublishedEvents)),
      };
      this.channels.set(tenantId, channel);
    }
    channel.hubs++;
    return channel;
  }

  private releaseChannel(tenantId: string): void {
    const channel = this.channels.get(tenantId);
    if (!channel || --channel.hubs > 0) return;
    this.channels.delete(tenantId);
    void channel.ready.then((unsubscribe) => unsubscribe()).catch(() => undefined);
  }

  /** Live streams and their subscribers, for the metrics. */
  stats(): { streams: number; subscribers: number } {
    let subscribers = 0;
    for (const hub of this.hubs.values()) subscribers += hub.subscriberCount;
    return { streams: this.hubs.size, subscribers };
  }

  private dispatch(message: PublishedEvents): void {
    observeDelivery(message.events);
    this.hubs.get(`tenant:${message.tenantId}`)?.onPublished(message.events);
    let bySession: Map<string, CommittedEvent[]> | null = null;
    for (const event of message.events) {
      if (!this.hubs.has(`session:${event.sessionId}`)) continue;
      bySession ??= new Map();
      const list = bySession.get(event.sessionId) ?? [];
      list.push(event);
      bySession.set(event.sessionId, list);
    }
    if (bySession) for (const [sessionId, events] of bySession) this.hubs.get(`session:${sessionId}`)?.onPublished(events);
  }

  /** One query for every active hub: those behind the database catch up. */
  private async checkFreshness(): Promise<void> {
    const active = [...this.hubs.values()].filter((hub) => hub.active);
    if (active.length === 0) return;
    try {
      for (const kind of ['session', 'tenant'] as const) {
        const hubs = active.filter((hub) => hub.key.kind === kind);
        const heads = await this.reader.heads(kind, hubs.map((hub) => hub.key.id));
        for (const hub of hubs) if ((heads.get(hub.key.id)?.head ?? 0) > hub.position) void hub.catchUp();
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'event freshness check failed');
    }
  }

  close(): void {
    clearInterval(this.timer);
    this.offReconnect();
  }
}
