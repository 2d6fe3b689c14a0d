// How the CLI talks to a toolrun API: through the repository's typed client (src/client/), whose
// `watch` resubscribes from the last cursor after any disconnect. The commands see only `Transport`.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { parse } from 'graphql';
import { WebSocket } from 'ws';
import { createToolrunClient, ToolrunRequestError } from '../client/index.js';

export interface Transport {
  /** Runs a query or mutation; GraphQL errors become a CliError. */
  request<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
  /**
   * Follows a subscription whose single field carries a `cursor`, from `variables.after`, calling
   * `onEvent` with each payload (each event once, across reconnects) until it returns true, the
   * stream completes, or it fails.
   */
  subscribe<T>(query: string, variables: Record<string, unknown>, onEvent: (data: T) => boolean | void): Promise<void>;
  /**
   * Calls `listener` whenever the event streams break or resume: `true` while a subscription is
   * resuming after a break (the API went away, the connection dropped), `false` once it is
   * subscribed again. Returns a function that stops it.
   */
  onReconnecting(listener: (reconnecting: boolean) => void): () => void;
  /** The API's address, as the user gave it. */
  readonly url: string;
  close(): Promise<void>;
}

/** A failure the CLI reports in one line (exit status 1). */
export class CliError extends Error {
  override name = 'CliError';
}

const documents = new Map<string, TypedDocumentNode<unknown, Record<string, unknown>>>();
function documentOf<T>(query: string): TypedDocumentNode<T, Record<string, unknown>> {
  let document = documents.get(query);
  if (!document) documents.set(query, (document = parse(query) as TypedDocumentNode<unknown, Record<string, unknown>>));
  return document as TypedDocumentNode<T, Record<string, unknown>>;
}

export function httpTransport(options: { url: string; apiKey: string }): Transport {
  const client = createToolrunClient({ url: options.url, apiKey: options.apiKey, webSocketImpl: WebSocket });
  const failure = (error: unknown): CliError => {
    if (error instanceof ToolrunRequestError) return new CliError(error.message);
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    return new CliError(`cannot reach ${options.url}: ${cause ?? (error as Error).message}`);
  };
  return {
    async request<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
      try {
        return await client.request(documentOf<T>(query), variables);
      } catch (error) {
        throw failure(error);
      }
    },
    async subscribe<T>(query: string, variables: Record<string, unknown>, onEvent: (data: T) => boolean | void): Promise<void> {
      const field = (data: T) => Object.values(data as Record<string, { cursor: string }>)[0]!;
      const events = client.watch(documentOf<T>(query), (after) => ({ ...variables, after }), (data) => ({ cursor: field(data).cursor, data }), {
        after: (variables.after as string | null | undefined) ?? null,
      });
      try {
        for await (const event of events) if (onEvent(event.data) === true) return;
      } catch (error) {
        throw failure(error);
      }
    },
    onReconnecting(listener: (reconnecting: boolean) => void): () => void {
      let reconnecting = false;
      return client.onLinkState((state) => {
        if ((state === 'reconnecting') === reconnecting) return;
        reconnecting = !reconnecting;
        listener(reconnecting);
      });
    },
    url: options.url,
    close: () => client.close(),
  };
}
