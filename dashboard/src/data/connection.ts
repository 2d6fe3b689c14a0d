// The dashboard's one link to toolrun: urql over HTTP for queries and mutations, and toolrun's
// typed client (`toolrun/client`, src/client/) for event streams: its `watch` resubscribes from
// the last cursor it delivered after any break (network loss, API restart) and reports the link
// state the header shows. `watch` here only hands its events to a view in batches, at most one
// per animation frame, so a burst of thousands of events costs a few renders.
import { type LinkState, ToolrunClient } from 'toolrun/client';
import { useEffect, useSyncExternalStore } from 'react';
import { type AnyVariables, Client, type CombinedError, type OperationContext, type TypedDocumentNode, cacheExchange, fetchExchange } from 'urql';

export type { LinkState };

export interface Link {
  urql: Client;
  toolrun: ToolrunClient;
  dispose(): void;
}

/** `onRefused`: the API refused the key (HTTP 401, or a stream closed 4401/4403), e.g. once it was revoked. */
export function createLink(apiKey: string, onRefused: () => void): Link {
  const urql = new Client({
    url: '/graphql',
    exchanges: [cacheExchange, fetchExchange],
    fetchOptions: () => ({ headers: { authorization: `Bearer ${apiKey}` } }),
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (response.status === 401) onRefused();
      return response;
    },
    requestPolicy: 'cache-and-network',
  });
  const toolrun = new ToolrunClient({
    url: `${location.origin}/graphql`,
    wsUrl: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    apiKey,
    maxRetryDelayMs: 4000,
  });
  return { urql, toolrun, dispose: () => void toolrun.close() };
}

/** "live", or "reconnecting" while any stream is catching up after a break. */
export function useLinkState(link: Link): LinkState {
  return useSyncExternalStore(
    (listener) => link.toolrun.onLinkState(listener),
    () => link.toolrun.linkState,
  );
}

export interface StreamEvent {
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
 * Follows a batched stream (a subscription with one root field, `…EventBatches`, whose messages
 * carry events with a cursor) from `variables.after` across disconnects, with toolrun's client.
 * Returns a function that stops it.
 */
export function watch<E extends StreamEvent, V extends AnyVariables & { after?: string | null }>(
  link: Link,
  document: TypedDocumentNode<Record<string, { events: E[] }>, V>,
  variables: V,
  handlers: WatchHandlers<E>,
): () => void {
  const abort = new AbortController();
  let pending: E[] = [];
  let frame = 0;
  const flush = () => {
    frame = 0;
    const events = pending;
    pending = [];
    if (!abort.signal.aborted && events.length > 0) handlers.onEvents(events);
  };
  const stream = link.toolrun.watch(document, (after) => ({ ...variables, after }), (data) => Object.values(data)[0]!, {
    after: variables.after ?? null,
    signal: abort.signal,
  });
  void (async () => {
    try {
      for await (const event of stream) {
        if (event.__typename === 'CursorExpired') {
          if (frame) cancelAnimationFrame(frame);
          flush();
          handlers.onExpired?.();
          return;
        }
        pending.push(event);
        if (!frame) frame = requestAnimationFrame(flush);
      }
    } catch (error) {
      // A key that stopped working: the app goes back to sign-in, saying so; nothing to report here.
      if ((error as { code?: string }).code === 'UNAUTHENTICATED') return;
      // An error answer (bad arguments): nothing to resume; the view keeps what it has.
      console.error('toolrun stream refused', error);
    }
  })();
  return () => {
    abort.abort();
    if (frame) cancelAnimationFrame(frame);
  };
}

/**
 * The cursor before a session's first event, for a session that has none yet
 * (`lastEventCursor` null): subscribing without a cursor would start at "now" and miss what
 * happens between the snapshot and the subscription. (Cursors are opaque; this file is the one
 * place that knows their form, until the API hands out start cursors itself.)
 */
export function sessionStartCursor(sessionId: string): string {
  return btoa(`evt:${sessionId}:0`).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** The cursor before a tenant's first event, for a tenant that has none yet (`tenantSettings.lastEventCursor` null). */
export function tenantStartCursor(tenantId: string): string {
  return btoa(`tevt:${tenantId}:0`).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** The raw id inside a Relay global id (an event's `sessionId`), as `Session.sessionId` shows it. */
export function rawIdOf(globalId: string): string {
  const decoded = atob(globalId);
  return decoded.slice(decoded.indexOf(':') + 1);
}

/**
 * How often a view that follows events reads again what no event announces: a batch whose calls all
 * wait in the queue (the workers busy, or none running) has had no event yet.
 */
export const UNANNOUNCED_READ_MS = 5000;

/** How long a read toolrun did not answer (away, restarting) waits to be sent again. */
export const READ_RETRY_MS = 2000;

/** What a view says of a failed query: one toolrun did not answer is being sent again. */
export function errorText(error: CombinedError): string {
  return error.networkError ? `toolrun does not answer (${error.message}); trying again…` : error.message;
}

/** A view's query that toolrun did not answer (a network error) is sent again every READ_RETRY_MS until it is. */
export function useReadAgainWhileAway(error: CombinedError | undefined, refetch: (context?: Partial<OperationContext>) => void): void {
  useEffect(() => {
    if (!error?.networkError) return;
    const timer = setTimeout(() => refetch({ requestPolicy: 'network-only' }), READ_RETRY_MS);
    return () => clearTimeout(timer);
  }, [error, refetch]);
}

/** Why a mutation did not do what it was asked: the typed error it answered, or why toolrun did not answer; null when it did. */
export function refusalOf(result: { data?: object | null; error?: CombinedError }): string | null {
  const answer = result.data ? (Object.values(result.data)[0] as { message?: unknown } | null) : null;
  if (answer && typeof answer.message === 'string') return answer.message;
  if (result.error?.networkError) return `toolrun does not answer (${result.error.message})`;
  return result.error?.message ?? null;
}
