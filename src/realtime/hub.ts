// One ordered event stream (a session's, by seq; a tenant's, by tenant seq) as one API process sees
// it, shared by all of the process's subscribers to it. The hub turns published events into a
// gap-free sequence — a jump means a lost announcement, filled from PostgreSQL once for everyone —
// and keeps the most recent events in memory, so a subscriber that resumes a little behind replays
// without a query. Each subscriber has a bounded queue; one that falls too far behind drops it and
// resumes from its cursor, so a slow client never costs unbounded memory.
import type { SessionEvent as CommittedEvent } from '../model/events.js';
import type { Logger } from '../logger.js';
import { type EventReader, PAGE_SIZE, positionOf, type StreamKey } from './event-reader.js';

export interface HubLimits {
  /** Recent events kept in memory for subscribers that resume a little behind. */
  ringSize: number;
  /** Events queued for one subscriber before it drops them and resumes by cursor. */
  subscriberQueue: number;
}

export interface StreamOptions {
  /** Deliver events after this position; undefined: from now. */
  after?: number;
  matches?: (event: CommittedEvent) => boolean;
  /** The stream completes right after delivering an event this accepts. */
  until?: (event: CommittedEvent) => boolean;
  /** Ends the stream (e.g. the server shuts down). */
  signal?: AbortSignal;
}

/** The cursor a subscriber resumed from is older than the retention. */
export interface ExpiredCursor {
  expired: true;
  /** The oldest position still retained. */
  oldest: number;
}

export type StreamItem = CommittedEvent | ExpiredCursor;

/**
 * A stream's optional push side: its consumer hands it a sink, and while the consumer waits in
 * `next()` with nothing queued, live events go straight to the sink instead of through `next()`'s
 * promises (at thousands of subscribers, that chain per event and subscriber is most of the cost).
 * The sink answers false when it cannot take an event now (a full socket, a result still being
 * computed): that event and the ones after it are queued for `next()` as usual, and `next()` offers
 * each queued event to the sink before returning it, so a subscriber catches up through the sink
 * too once its socket drains.
 */
export const PUSH = Symbol('toolrun.push');
export type PushSink = (event: CommittedEvent) => boolean;
export interface Pushable {
  [PUSH]?(sink: PushSink | null): void;
}

/**
 * A stream's optional take side: the events it holds ready after the one `next()` last returned,
 * taken at once without waiting (at most `max`, in order, each once, as `next()` would have
 * returned them). A consumer that sends several events per message takes them after each `next()`.
 */
export const TAKE_READY = Symbol('toolrun.takeReady');
export interface TakesReady {
  [TAKE_READY]?(max: number): CommittedEvent[];
}

/** Forwards a wrapped stream's push and take sides (wrappers that pass events through unchanged). */
export function forwardSides<T extends object>(wrapper: T, inner: object): T & Pushable & TakesReady {
  const push = (inner as Pushable)[PUSH];
  if (push) (wrapper as Pushable)[PUSH] = (sink) => push.call(inner, sink);
  const take = (inner as TakesReady)[TAKE_READY];
  if (take) (wrapper as TakesReady)[TAKE_READY] = (max) => take.call(inner, max);
  return wrapper as T & Pushable & TakesReady;
}

const READ_ATTEMPTS = 8;

/** Runs a read, retrying failures with backoff (about 10 s in all), so a stream outlasts a short database outage. */
export async function retrying<T>(read: () => Promise<T>, stopped: () => boolean = () => false): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (attempt >= READ_ATTEMPTS || stopped()) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 2000)));
    }
  }
}

export class Hub {
  private last = 0;
  private ring: CommittedEvent[] = [];
  private readonly early = new Map<number, CommittedEvent>();
  private filling: Promise<void> | null = null;
  private fillAgain = false;
  private readonly subscribers = new Set<Subscriber>();
  private refs = 0;
  private started = false;
  readonly ready: Promise<void>;

  constructor(
    readonly key: StreamKey,
    private readonly reader: EventReader,
    private readonly limits: HubLimits,
    private readonly logger: Logger,
    /** The stream's head when the hub starts (read after its live subscription is in place). */
    head: () => Promise<number>,
    private readonly onIdle: (hub: Hub) => void,
  ) {
    // Nothing is delivered before the head is known: events published meanwhile wait in `early`,
    // so the ring never holds a stretch that the head then skips over.
    this.ready = retrying(head).then((value) => {
      this.last = value;
      this.started = true;
      this.drainEarly();
      if (this.early.size > 0) void this.catchUp();
    });
  }

  get position(): number {
    return this.last;
  }

  get active(): boolean {
    return this.refs > 0;
  }

  acquire(): void {
    this.refs++;
  }

  release(): void {
    if (--this.refs === 0) this.onIdle(this);
  }

  private positionOf(event: CommittedEvent): number {
    return positionOf(this.key.kind, event);
  }

  /** Events published for this stream (any order, possibly repeated). */
  onPublished(events: CommittedEvent[]): void {
    if (!this.started) {
      for (const event of events) this.early.set(this.positionOf(event), event);
      return;
    }
    let gap = false;
    for (const event of events) {
      const position = this.positionOf(event);
      if (position <= this.last) continue;
      if (position === this.last + 1 && !this.filling) this.deliver(event);
      else {
        this.early.set(position, event);
        gap = true;
      }
    }
    this.drainEarly();
    if (gap && this.early.size > 0) void this.catchUp();
  }

  /** Reads whatever PostgreSQL has after the hub's position (a lost announcement, a reconnect). */
  catchUp(): Promise<void> {
    if (!this.started) return this.ready;
    if (this.filling) {
      this.fillAgain = true;
      return this.filling;
    }
    this.filling = (async () => {
      do {
        this.fillAgain = false;
        try {
          for (;;) {
            const page = await retrying(() => this.reader.read(this.key, this.last, Number.MAX_SAFE_INTEGER, PAGE_SIZE), () => !this.active);
            for (const event of page) {
              const position = this.positionOf(event);
              if (position <= this.last) continue;
              if (position > this.last + 1) this.logger.warn({ stream: this.key, from: this.last, to: position }, 'events missing from the log (pruned?)');
              this.deliver(event);
            }
            if (page.length < PAGE_SIZE) break;
          }
        } catch (error) {
          this.logger.warn({ err: error, stream: this.key }, 'catching up from the event log failed; retrying on the next signal');
          break;
        }
      } while (this.fillAgain);
    })().finally(() => {
      this.filling = null;
      this.drainEarly();
      if (this.early.size > 0) void this.catchUp();
    });
    return this.filling;
  }

  private drainEarly(): void {
    for (;;) {
      const next = this.early.get(this.last + 1);
      if (!next) break;
      this.early.delete(this.last + 1);
      this.deliver(next);
    }
    for (const position of this.early.keys()) if (position <= this.last) this.early.delete(position);
  }

  private deliver(event: CommittedEvent): void {
    const position = this.positionOf(event);
    // The ring is indexed by position: it holds one unbroken stretch.
    if (position !== this.last + 1) this.ring = [];
    this.last = position;
    this.ring.push(event);
    if (this.ring.length > this.limits.ringSize * 2) this.ring = this.ring.slice(-this.limits.ringSize);
    for (const subscriber of this.subscribers) subscriber.push(event);
  }

  /** Events after `after` held in memory, or null when the ring does not reach back that far. */
  recent(after: number): CommittedEvent[] | null {
    const first = this.ring[0];
    if (after >= this.last) return [];
    if (!first || this.positionOf(first) > after + 1) return null;
    const start = after + 1 - this.positionOf(first);
    const from = this.ring[start];
    if (!from || this.positionOf(from) !== after + 1) return null;
    return this.ring.slice(start);
  }

  /** Subscribers attached now. */
  get subscriberCount(): number {
    return this.subscribers.size;
  }

  attach(subscriber: Subscriber): void {
    this.subscribers.add(subscriber);
  }

  detach(subscriber: Subscriber): void {
    this.subscribers.delete(subscriber);
  }

  read(after: number, upTo: number): Promise<CommittedEvent[]> {
    return this.reader.read(this.key, after, upTo, PAGE_SIZE);
  }

  /** A subscriber's stream: replay after the cursor, then live, in order, each event once. */
  stream(options: StreamOptions): AsyncIterableIterator<StreamItem> {
    return new Subscriber(this, options, this.limits.subscriberQueue);
  }
}

class Subscriber implements AsyncIterableIterator<StreamItem>, Pushable, TakesReady {
  private cursor = -1;
  private sink: PushSink | null = null;
  private readonly queue: CommittedEvent[] = [];
  private mode: 'replay' | 'live' | 'done' = 'replay';
  private wake: (() => void) | null = null;
  private readonly started: Promise<void>;
  private readonly onAbort = () => this.finish();

  constructor(
    private readonly hub: Hub,
    private readonly options: StreamOptions,
    private readonly maxQueue: number,
  ) {
    hub.acquire();
    this.started = hub.ready.then(() => {
      this.cursor = options.after ?? hub.position;
    });
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
    if (options.signal?.aborted) this.finish();
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<StreamItem> {
    return this;
  }

  [PUSH](sink: PushSink | null): void {
    this.sink = sink;
  }

  /** A live event from the hub. */
  push(event: CommittedEvent): void {
    // The consumer waits with nothing queued: everything before this event has been handed on.
    if (this.sink && this.wake && this.queue.length === 0 && this.mode === 'live') {
      const position = positionOf(this.hub.key.kind, event);
      if (position <= this.cursor) return;
      if (this.options.matches && !this.options.matches(event)) {
        this.cursor = position;
        return;
      }
      if (this.sink(event)) {
        this.cursor = position;
        if (this.options.until?.(event)) this.finish();
        return;
      }
    }
    if (this.queue.length >= this.maxQueue) {
      // Too far behind: drop what is queued, resume from the cursor by replay.
      this.queue.length = 0;
      this.hub.detach(this);
      this.mode = 'replay';
    } else this.queue.push(event);
    this.wake?.();
  }

  [TAKE_READY](max: number): CommittedEvent[] {
    const taken: CommittedEvent[] = [];
    while (taken.length < max && this.mode !== 'done') {
      const event = this.queue.shift();
      if (!event) break;
      if (!this.admit(event)) continue;
      taken.push(event);
      if (this.options.until?.(event)) this.finish();
    }
    return taken;
  }

  /** Moves the cursor past a queued event; true when the event is one to hand on (new, and matching). */
  private admit(event: CommittedEvent): boolean {
    const position = positionOf(this.hub.key.kind, event);
    if (position <= this.cursor) return false;
    this.cursor = position;
    return !this.options.matches || this.options.matches(event);
  }

  async next(): Promise<IteratorResult<StreamItem>> {
    await this.started;
    for (;;) {
      if (this.mode === 'done') return { value: undefined, done: true };
      const event = this.queue.shift();
      if (event) {
        if (!this.admit(event)) continue;
        const last = this.options.until?.(event) ?? false;
        // Everything before this event has been handed on, so it may go straight to the sink too: a
        // subscriber that fell behind (its socket was full) catches up without a round through the
        // consumer per event.
        if (this.sink?.(event)) {
          if (last) this.finish();
          continue;
        }
        if (last) this.finish();
        return { value: event, done: false };
      }
      if (this.mode === 'replay') {
        const expired = await this.replayStep();
        if (expired) {
          this.finish();
          return { value: expired, done: false };
        }
        continue;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        if (this.queue.length > 0 || this.mode !== 'live') resolve();
      });
      this.wake = null;
    }
  }

  /** Queues the next events after the cursor, attaching to the hub once caught up. */
  private async replayStep(): Promise<ExpiredCursor | null> {
    const head = this.hub.position;
    if (this.cursor >= head) {
      this.attach();
      return null;
    }
    const recent = this.hub.recent(this.cursor);
    if (recent) {
      this.queue.push(...recent);
      this.attach();
      return null;
    }
    const page = await retrying(() => this.hub.read(this.cursor, head), () => this.mode === 'done');
    if (this.mode === 'done') return null;
    const first = page[0];
    if (!first) return { expired: true, oldest: head + 1 };
    const position = positionOf(this.hub.key.kind, first);
    if (position > this.cursor + 1) return { expired: true, oldest: position };
    this.queue.push(...page);
    return null;
  }

  private attach(): void {
    if (this.mode === 'done') return;
    this.mode = 'live';
    this.hub.attach(this);
  }

  private finish(): void {
    if (this.mode === 'done') return;
    this.mode = 'done';
    this.queue.length = 0;
    this.hub.detach(this);
    this.hub.release();
    this.options.signal?.removeEventListener('abort', this.onAbort);
    this.wake?.();
  }

  async return(): Promise<IteratorResult<StreamItem>> {
    this.finish();
    return { value: undefined, done: true };
  }

  async throw(error?: unknown): Promise<IteratorResult<StreamItem>> {
    this.finish();
    throw error;
  }
}
