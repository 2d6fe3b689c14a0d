// The subscriptions open on this process, per API key: at most `maxPerKey` at once, and each ends
// when its key stops working (revoked or expired) or the process shuts down. A stream ended by its
// key says so in its last item (`KeyStopped`): over SSE no close code can.
import { LimitExceededError } from '../model/errors.js';
import { forwardSides } from './hub.js';

interface KeyHolder {
  apiKeyId: string;
}

/** Tells when a key stops working, and why (ApiKeyService: `revoked`, `expired`). */
export interface KeyWatch<V extends KeyHolder> {
  watch(viewer: V, onInvalid: (reason: string) => void): () => void;
}

export interface OpenStream {
  /** Aborts when the stream must end: key revoked or expired, or the process shutting down. */
  signal: AbortSignal;
  /** Why the key stopped working, when that ended the stream. */
  readonly keyStopped: string | null;
  /** Frees the stream's slot; call once, when the stream ends. */
  close(): void;
}

/** The last item of a stream whose key stopped working (`reason`: revoked, expired). */
export class KeyStopped {
  constructor(readonly reason: string) {}
}

export class OpenStreams<V extends KeyHolder> {
  private readonly perKey = new Map<string, number>();

  constructor(
    private readonly keys: KeyWatch<V>,
    private readonly maxPerKey: number,
  ) {}

  open(viewer: V, shutdown?: AbortSignal): OpenStream {
    const count = this.perKey.get(viewer.apiKeyId) ?? 0;
    if (count >= this.maxPerKey) {
      throw new LimitExceededError(
        'subscriptionsPerKey',
        this.maxPerKey,
        `This API key already has ${this.maxPerKey} subscriptions open (MAX_SUBSCRIPTIONS_PER_KEY); end one first`,
      );
    }
    this.perKey.set(viewer.apiKeyId, count + 1);
    const ended = new AbortController();
    let keyStopped: string | null = null;
    const unwatch = this.keys.watch(viewer, (reason) => {
      keyStopped ??= reason;
      ended.abort('key');
    });
    let closed = false;
    return {
      signal: shutdown ? AbortSignal.any([ended.signal, shutdown]) : ended.signal,
      get keyStopped() {
        return keyStopped;
      },
      close: () => {
        if (closed) return;
        closed = true;
        unwatch();
        const left = (this.perKey.get(viewer.apiKeyId) ?? 1) - 1;
        if (left > 0) this.perKey.set(viewer.apiKeyId, left);
        else this.perKey.delete(viewer.apiKeyId);
      },
    };
  }

  /** Open streams of a key on this process. */
  count(apiKeyId: string): number {
    return this.perKey.get(apiKeyId) ?? 0;
  }
}

/**
 * The stream's events, freeing its slot once they end or their consumer stops; when its key
 * stopped working, a last `KeyStopped` item says so.
 */
export function endingWith<T>(iterator: AsyncIterableIterator<T>, stream: OpenStream): AsyncIterableIterator<T | KeyStopped> {
  let told = false;
  return forwardSides({
    [Symbol.asyncIterator]() {
      return this;
    },
    next: async () => {
      try {
        const item = await iterator.next();
        if (!item.done) return item;
        stream.close();
        if (stream.keyStopped === null || told) return item;
        told = true;
        return { done: false, value: new KeyStopped(stream.keyStopped) };
      } catch (error) {
        stream.close();
        throw error;
      }
    },
    return: async (value?: unknown) => {
      stream.close();
      return iterator.return ? iterator.return(value) : { value: undefined, done: true };
    },
    throw: async (error?: unknown) => {
      stream.close();
      return iterator.throw ? iterator.throw(error) : Promise.reject(error);
    },
  } as AsyncIterableIterator<T | KeyStopped>, iterator);
}
