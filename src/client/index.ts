// A small typed client of toolrun for Node and browsers (no Node built-ins): queries and
// mutations over HTTP, subscriptions over graphql-ws, and `watch`, which follows a stream from a
// cursor and, after any disconnect or server restart, subscribes again from the last cursor it
// delivered — so nothing is missed and nothing is delivered twice.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { type DocumentNode, print } from 'graphql';
import { type Client as WsClient, createClient } from 'graphql-ws';
import {
  ClientBatchStatusDocument,
  ClientExecuteToolBatchDocument,
  ClientSessionHeadDocument,
  type ClientExecuteToolBatchMutationVariables,
  ClientSpawnBackgroundDocument,
  type ClientSpawnBackgroundMutationVariables,
  ClientTaskEventBatchesDocument,
  type ClientTaskEventFragment,
  ClientTaskSessionHeadDocument,
  ClientTaskStateDocument,
  type ClientCallEventFragment,
  ClientToolCallEventBatchesDocument,
} from './gql/graphql.js';

export * from './gql/graphql.js';

export interface ToolrunClientOptions {
  /** The GraphQL endpoint, e.g. `http://localhost:4000/graphql`. */
  url: string;
  /** The graphql-ws endpoint (default: `url` with ws:// or wss://). */
  wsUrl?: string;
  apiKey: string;
  /** A WebSocket implementation where there is no global one (Node 20: `ws`). */
  webSocketImpl?: unknown;
  fetch?: typeof fetch;
  /** Longest wait between resubscription attempts (default 5 s). */
  maxRetryDelayMs?: number;
  /**
   * How often the socket pings the server (default 10 s); a ping unanswered for as long closes it,
   * so a frozen server or a half-open connection is noticed and the watches resume elsewhere.
   */
  keepAliveMs?: number;
}

/** A GraphQL error answer (errors, no data). */
export class ToolrunRequestError extends Error {
  override name = 'ToolrunRequestError';
  constructor(readonly errors: ReadonlyArray<{ message: string; extensions?: Record<string, unknown> }>) {
    super(errors.map((error) => error.message).join('; '));
  }
  get code(): string | undefined {
    return this.errors[0]?.extensions?.code as string | undefined;
  }
}

type ToolCallEvent = ClientCallEventFragment;
type TaskEvent = ClientTaskEventFragment;

/**
 * The client's event streams as a whole: `idle` before any watch started, `connecting` until the
 * first connection, `live` while every watch is subscribed, `reconnecting` while any watch is
 * resuming after a break (a closed socket, or one that stopped answering pings), `refused` once
 * the server refused the key (revoked, expired): nothing resumes with it.
 */
export type LinkState = 'idle' | 'connecting' | 'live' | 'reconnecting' | 'refused';

export interface WatchOptions {
  /** Resume after this cursor; absent: from now. */
  after?: string | null;
  /** Stops the watch (the iterator completes). */
  signal?: AbortSignal;
}

export class ToolrunClient {
  private ws: WsClient | null = null;
  private readonly fetchImpl: typeof fetch;
  private state: LinkState = 'idle';
  private watches = 0;
  private refused = false;
  private readonly stateListeners = new Set<(state: LinkState) => void>();
  /** Watches whose stream broke and that have not been subscribed on a new connection yet. */
  private readonly resuming = new Set<object>();
  /** Watches that subscribed again after a break while the socket was down: live once it connects. */
  private readonly resubscribed = new Set<object>();
  private connected = false;
  private connectedOnce = false;

  constructor(private readonly options: ToolrunClientOptions) {
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** Runs a query or mutation; throws ToolrunRequestError when the answer has errors. */
  async request<T, V>(document: TypedDocumentNode<T, V>, variables: V): Promise<T> {
    const response = await this.fetchImpl(this.options.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', authorization: `Bearer ${this.options.apiKey}` },
      body: JSON.stringify({ query: print(document as DocumentNode), variables }),
    });
    const text = await response.text();
    let body: { data?: T; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new ToolrunRequestError([{ message: `${this.options.url} answered HTTP ${response.status}, not GraphQL${text.trim() ? `: ${text.trim().slice(0, 200)}` : ' (an empty body): is this the GraphQL endpoint?'}` }]);
    }
    if (body.errors?.length) throw new ToolrunRequestError(body.errors);
    if (!body.data) throw new ToolrunRequestError([{ message: `HTTP ${response.status} without data` }]);
    return body.data;
  }

  /** Submits a batch; the answer carries `eventCursor`, what `watchBatch` follows from. */
  async executeBatch(variables: ClientExecuteToolBatchMutationVariables) {
    return (await this.request(ClientExecuteToolBatchDocument, variables)).executeToolBatch;
  }

  /** Starts a background run; the answer carries `eventCursor`, what `watchTask` follows from. */
  async spawn(variables: ClientSpawnBackgroundMutationVariables) {
    return (await this.request(ClientSpawnBackgroundDocument, variables)).spawnBackground;
  }

  /** Every event of a batch after `after` (its `eventCursor`; absent: from now), once each, until ToolBatchCompleted. */
  watchBatch(sessionId: string, batchId: string, options: WatchOptions = {}): AsyncIterableIterator<ToolCallEvent> {
    return this.watch(ClientToolCallEventBatchesDocument, (after) => ({ sessionId, batchId, after, completeWhenDone: true }), (data) => data.toolCallEventBatches, {
      ...options,
      now: async () => (await this.request(ClientSessionHeadDocument, { id: sessionId })).session?.lastEventCursor ?? null,
      isLast: (event) => event.__typename === 'ToolBatchCompleted' && event.batchId === batchId,
      finished: async () => (await this.request(ClientBatchStatusDocument, { sessionId, batchId })).toolBatch?.status === 'COMPLETED',
    });
  }

  /** Every event of a task after `after` (its `eventCursor`; absent: from now), once each, until TaskFinished. */
  watchTask(taskId: string, options: WatchOptions = {}): AsyncIterableIterator<TaskEvent> {
    return this.watch(ClientTaskEventBatchesDocument, (after) => ({ taskId, after, completeWhenDone: true }), (data) => data.taskEventBatches, {
      ...options,
      now: async () => (await this.request(ClientTaskSessionHeadDocument, { id: taskId })).task?.session.lastEventCursor ?? null,
      isLast: (event) => event.__typename === 'TaskFinished',
      finished: async () => FINISHED_TASK_STATES.has((await this.request(ClientTaskStateDocument, { id: taskId })).task?.state ?? ''),
    });
  }

  /**
   * Follows any subscription whose events carry a `cursor` (one event per message, or several, as
   * the `…EventBatches` streams send them: `eventOf` then gives the message, `{ events }`):
   * subscribes with `variables(after)`, yields each event, and when the stream breaks (socket
   * closed, server restarted, stream completed by a shutdown) subscribes again from the last cursor
   * it yielded. It ends when
   * `isLast` accepts an event, on `signal`, or on an error answer (bad arguments, CursorExpired is
   * delivered as an event and ends nothing by itself). A stream that completes at once, with no
   * event, ends it when `finished` says the watched work is done (a cursor at or past its last
   * event) on two rounds in a row: one such round may be a shutdown's completion. Without `after`,
   * `now` names the stream's head first, so that a break before the first event resumes from there
   * rather than from a later "now" (the events of the break would be lost).
   */
  async *watch<T, V, E extends { cursor: string; __typename?: string }>(
    document: TypedDocumentNode<T, V>,
    variables: (after: string | null) => V,
    eventOf: (data: T) => E | { events: readonly E[] },
    options: WatchOptions & { isLast?: (event: E) => boolean; finished?: () => Promise<boolean>; now?: () => Promise<string | null> } = {},
  ): AsyncIterableIterator<E> {
    let after = options.after ?? (options.now ? await options.now().catch(() => null) : null);
    let failures = 0;
    let emptyEnds = 0;
    const query = print(document as DocumentNode);
    const token = {};
    this.watches++;
    this.updateLinkState();
    try {
      while (!options.signal?.aborted) {
        const iterator = this.socket().iterate<T>({ query, variables: variables(after) as Record<string, unknown> });
        if (this.resuming.has(token)) {
          // On an open socket the subscribe goes out at once; else it goes out when the socket connects.
          if (this.connected) this.setResuming(token, false);
          else this.resubscribed.add(token);
        }
        const stop = () => void iterator.return?.();
        options.signal?.addEventListener('abort', stop, { once: true });
        let delivered = false;
        try {
          for await (const result of iterator) {
            if (result.errors?.length) throw new ToolrunRequestError(result.errors as ToolrunRequestError['errors']);
            const message = eventOf(result.data as T);
            failures = 0;
            emptyEnds = 0;
            delivered = true;
            for (const event of 'events' in message ? message.events : [message]) {
              after = event.cursor;
              yield event;
              if (options.isLast?.(event) || event.__typename === 'CursorExpired') return;
            }
          }
          if (!delivered && options.finished && !options.signal?.aborted) {
            if (!(await options.finished().catch(() => false))) emptyEnds = 0;
            else if (++emptyEnds >= 2) return;
          }
        } catch (error) {
          if (error instanceof ToolrunRequestError) throw error;
          // A refused key or a request the server will never accept: resubscribing cannot help.
          const code = (error as { code?: unknown } | null)?.code;
          if (typeof code === 'number' && REFUSALS.has(code)) {
            if (code !== 4400) {
              this.refused = true;
              this.updateLinkState();
            }
            const reason = (error as { reason?: unknown }).reason;
            throw new ToolrunRequestError([{ message: `the server refused the subscription (${code}${reason ? `: ${String(reason)}` : ''})`, extensions: { code: code === 4400 ? 'BAD_REQUEST' : 'UNAUTHENTICATED' } }]);
          }
          failures++;
        } finally {
          options.signal?.removeEventListener('abort', stop);
        }
        if (options.signal?.aborted) return;
        // The stream ended without its last event (a server going away completes it) or broke: resume.
        // A stream that ended empty on work already done is asked once more (see above): nothing broke,
        // so the link does not show it as reconnecting.
        this.resubscribed.delete(token);
        if (emptyEnds === 0) this.setResuming(token, true);
        await delay(Math.min(100 * 2 ** Math.min(failures, 10), this.options.maxRetryDelayMs ?? 5000), options.signal);
      }
    } finally {
      this.watches--;
      this.resubscribed.delete(token);
      this.setResuming(token, false);
    }
  }

  /** The state of the event streams now (see LinkState). */
  get linkState(): LinkState {
    return this.state;
  }

  /** Calls `listener` on every change of `linkState`; returns a function that stops it. */
  onLinkState(listener: (state: LinkState) => void): () => void {
    this.stateListeners.add(listener);
    return () => void this.stateListeners.delete(listener);
  }

  private updateLinkState(): void {
    // `live` says something is being followed: with no watch running the link is idle, whatever the socket does.
    const next: LinkState = this.refused
      ? 'refused'
      : this.watches === 0
        ? 'idle'
        : this.resuming.size > 0
          ? 'reconnecting'
          : this.connectedOnce
            ? 'live'
            : 'connecting';
    if (next === this.state) return;
    this.state = next;
    for (const listener of this.stateListeners) listener(next);
  }

  /** A watch's stream broke (`true`), or it subscribed again on an open connection or ended (`false`). */
  private setResuming(token: object, resuming: boolean): void {
    if (resuming) this.resuming.add(token);
    else this.resuming.delete(token);
    this.updateLinkState();
  }

  /** Closes the WebSocket connection. */
  async close(): Promise<void> {
    await this.ws?.dispose();
    this.ws = null;
  }

  private socket(): WsClient {
    if (this.ws) return this.ws;
    const keepAliveMs = this.options.keepAliveMs ?? 10_000;
    let unanswered: ReturnType<typeof setTimeout> | undefined;
    this.ws = createClient({
      url: this.options.wsUrl ?? this.options.url.replace(/^http/, 'ws'),
      connectionParams: { authorization: `Bearer ${this.options.apiKey}` },
      lazy: true,
      // watch resubscribes from its last cursor itself; graphql-ws's own retry would replay from the first.
      retryAttempts: 0,
      keepAlive: keepAliveMs,
      on: {
        ping: (received) => {
          if (received) return;
          clearTimeout(unanswered);
          // terminate, not close: a close handshake over a dead connection would wait as long as it.
          unanswered = setTimeout(() => this.ws?.terminate(), keepAliveMs);
        },
        pong: (received) => {
          if (received) clearTimeout(unanswered);
        },
        connected: () => {
          this.connected = true;
          this.connectedOnce = true;
          for (const token of this.resubscribed) this.resuming.delete(token);
          this.resubscribed.clear();
          this.updateLinkState();
        },
        closed: () => {
          clearTimeout(unanswered);
          this.connected = false;
        },
      },
      ...(this.options.webSocketImpl ? { webSocketImpl: this.options.webSocketImpl } : {}),
    });
    return this.ws;
  }
}

const FINISHED_TASK_STATES = new Set(['SUCCEEDED', 'FAILED', 'CANCELED']);

/** graphql-ws close codes that end a watch: bad request, unauthorized, forbidden (a refused or revoked key). */
const REFUSALS = new Set([4400, 4401, 4403]);

export function createToolrunClient(options: ToolrunClientOptions): ToolrunClient {
  return new ToolrunClient(options);
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}
