// The dashboard's one link to toolrun: urql over HTTP for queries and mutations, and one
// graphql-ws connection for event streams. `watch` is the resuming half of lossless delivery:
// it remembers the cursor of the last event it handed on and, whenever the stream breaks (network
// loss, API restart), subscribes again from that cursor; events at or below the last seen `seq`
// are dropped, so a view gets every event once, in order.
import { type Client as WsClient, createClient as createWsClient } from 'graphql-ws';
import { useSyncExternalStore } from 'react';
import { type AnyVariables, Client, type TypedDocumentNode, cacheExchange, fetchExchange, stringifyDocument } from 'urql';

export type LinkState = 'connecting' | 'live' | 'reconnecting';

let linkState: LinkState = 'connecting';
const linkListeners = new Set<() => void>();
const brokenStreams = new Set<object>();

function setLinkState(next: LinkState): void {
  if (next === linkState) return;
  linkState = next;
  for (const listener of linkListeners) listener();
}

function updateLinkState(): void {
  setLinkState(brokenStreams.size > 0 ? 'reconnecting' : 'live');
}

/** "live", or "reconnecting" while any stream is catching up after a break. */
export function useLinkState(): LinkState {
  return useSyncExternalStore(
    (listener) => {
      linkListeners.add(listener);
      return () => linkListeners.delete(listener);
    },
    () => linkState,
  );
}

export interface Link {
  urql: Client;
  ws: WsClient;
  dispose(): void;
}

export function createLink(apiKey: string): Link {
  const authorization = `Bearer ${apiKey}`;
  const urql = new Client({
    url: '/graphql',
    exchanges: [cacheExchange, fetchExchange],
    fetchOptions: () => ({ headers: { authorization } }),
    requestPolicy: 'cache-and-network',
  });
  const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  const ws = createWsClient({
    url: wsUrl,
    connectionParams: { authorization },
    lazy: true,
    // `watch` resubscribes from its own cursor; the client must not replay the first variables.
    retryAttempts: 0,
    keepAlive: 10_000,
    on: {
      // Every broken stream has sent its subscribe again on this connection, from its last cursor.
      connected: () => {
        brokenStreams.clear();
        updateLinkState();
      },
    },
  });
  return { urql, ws, dispose: () => void ws.dispose() };
}

export interface StreamEvent {
  seq: number;
  cursor: string;
  type: string;
  __typename?: string;
}

export interface WatchHandlers<E> {
  /** Events in order, each once; called with a batch of the events that arrived since the last call. */
  onEvents(events: E[]): void;
  /** The cursor fell out of retention: the view must reload its state and watch again from its new cursor. */
  onExpired?(): void;
}

/**
 * Follows a session stream from `after` and keeps following it across disconnects. Events are
 * handed on in batches, at most once per animation frame, so a burst of thousands of events
 * costs a few renders. Returns a function that stops it.
 */
export function watch<E extends StreamEvent, V extends AnyVariables & { after?: string | null }>(
  link: Link,
  document: TypedDocumentNode<Record<string, E>, V>,
  variables: V,
  handlers: WatchHandlers<E>,
): () => void {
  const query = stringifyDocument(document);
  const token = {};
  let lastCursor = variables.after ?? null;
  let lastSeq = -1;
  let stopped = false;
  let unsubscribe: (() => void) | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let retryDelay = 250;
  let pending: E[] = [];
  let frame = 0;

  const flush = () => {
    frame = 0;
    const events = pending;
    pending = [];
    if (!stopped && events.length > 0) handlers.onEvents(events);
  };

  const subscribe = () => {
    if (stopped) return;
    unsubscribe = link.ws.subscribe<Record<string, E>>(
      { query, variables: { ...variables, after: lastCursor } },
      {
        next: (result) => {
          const event = result.data ? Object.values(result.data)[0] : undefined;
          if (!event) return;
          retryDelay = 250;
          if (event.__typename === 'CursorExpired') {
            stop();
            handlers.onExpired?.();
            return;
          }
          if (event.seq <= lastSeq) return;
          lastSeq = event.seq;
          lastCursor = event.cursor;
          pending.push(event);
          if (!frame) frame = requestAnimationFrame(flush);
        },
        error: () => retry(),
        // The server ends streams when it shuts down: that is a break too, not the end of the work.
        complete: () => retry(),
      },
    );
  };

  const retry = () => {
    if (stopped) return;
    brokenStreams.add(token);
    updateLinkState();
    clearTimeout(retryTimer);
    retryTimer = setTimeout(subscribe, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 4000);
  };

  const stop = () => {
    stopped = true;
    clearTimeout(retryTimer);
    if (frame) cancelAnimationFrame(frame);
    if (brokenStreams.delete(token)) updateLinkState();
    unsubscribe?.();
  };

  subscribe();
  return stop;
}

/**
 * The cursor before a session's first event, for a session that has none yet
 * (`lastEventCursor` null): subscribing without a cursor would start at "now" and miss what
 * happens between the snapshot and the subscription. (Cursors are opaque; this is the one place
 * that knows their form, until the API hands out a start cursor itself.)
 */
export function sessionStartCursor(sessionId: string): string {
  return btoa(`evt:${sessionId}:0`).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}
