// The subscriptions open on this process, per API key: at most `maxPerKey` at once, and each ends
// when its key stops working (revoked or expired) or the process shuts down.
import { LimitExceededError } from '../model/errors.js';
import { forwardPush } from './hub.js';

interface KeyHolder {
  apiKeyId: string;
}

/** Tells when a key stops working (ApiKeyService). */
export interface KeyWatch<V extends KeyHolder> {
  watch(viewer: V, onInvalid: () => void): () => void;
}

export interface OpenStream {
  /** Aborts when the stream must end: key revoked or expired, or the process shutting down. */
  signal: AbortSignal;
  /** Frees the stream's slot; call once, when the stream ends. */
  close(): void;
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
    const unwatch = this.keys.watch(viewer, () => ended.abort('key'));
    let closed = false;
    return {
      signal: shutdown ? AbortSignal.any([ended.signal, shutdown]) : ended.signal,
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

/** The iterator, calling `onEnd` once when it finishes or its consumer stops. */
export function endingWith<T>(iterator: AsyncIterableIterator<T>, onEnd: () => void): AsyncIterableIterator<T> {
  return forwardPush({
    [Symbol.asyncIterator]() {
      return this;
    },
    next: async () => {
      try {
        const item = await iterator.next();
        if (item.done) onEnd();
        return item;
      } catch (error) {
        onEnd();
        throw error;
      }
    },
    return: async (value?: unknown) => {
      onEnd();
      return iterator.return ? iterator.return(value) : { value: undefined, done: true };
    },
    throw: async (error?: unknown) => {
      onEnd();
      return iterator.throw ? iterator.throw(error) : Promise.reject(error);
    },
  } as AsyncIterableIterator<T>, iterator);
}
