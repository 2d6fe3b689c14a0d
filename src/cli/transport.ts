// How the CLI talks to a toolrun API: queries and mutations over HTTP (fetch), subscriptions over
// graphql-ws. The commands see only `Transport`, so the typed resuming client of src/client/ can
// take its place without touching them.
import { createClient } from 'graphql-ws';
import { WebSocket } from 'ws';

export interface Transport {
  /** Runs a query or mutation; GraphQL errors become a CliError. */
  request<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
  /** Calls `onEvent` with each payload until `onEvent` returns true, the stream ends, or it fails. */
  subscribe<T>(query: string, variables: Record<string, unknown>, onEvent: (data: T) => boolean | void): Promise<void>;
  close(): Promise<void>;
}

/** A failure the CLI reports in one line (exit status 1). */
export class CliError extends Error {
  override name = 'CliError';
}

interface GraphQLResult<T> {
  data?: T | null;
  errors?: Array<{ message: string }>;
}

export function httpTransport(options: { url: string; apiKey: string }): Transport {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` };
  let ws: ReturnType<typeof createClient> | null = null;
  const wsClient = () =>
    (ws ??= createClient({
      url: options.url.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${options.apiKey}` },
      lazy: true,
      // The stream resumes from the last cursor the command saw, so a dropped connection retries.
      retryAttempts: 5,
    }));
  return {
    async request<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
      let response: Response;
      try {
        response = await fetch(options.url, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
      } catch (error) {
        throw new CliError(`cannot reach ${options.url}: ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}`);
      }
      const text = await response.text();
      let body: GraphQLResult<T>;
      try {
        body = JSON.parse(text) as GraphQLResult<T>;
      } catch {
        throw new CliError(`${options.url} answered ${response.status}: ${text.slice(0, 200)}`);
      }
      if (body.errors?.length) throw new CliError(body.errors.map((error) => error.message).join('; '));
      if (!body.data) throw new CliError(`${options.url} answered ${response.status} without data`);
      return body.data;
    },
    subscribe<T>(query: string, variables: Record<string, unknown>, onEvent: (data: T) => boolean | void): Promise<void> {
      return new Promise((resolve, reject) => {
        const unsubscribe = wsClient().subscribe<T>(
          { query, variables },
          {
            next: (result) => {
              if (result.errors?.length) {
                unsubscribe();
                return reject(new CliError(result.errors.map((error) => error.message).join('; ')));
              }
              if (result.data && onEvent(result.data as T) === true) {
                unsubscribe();
                resolve();
              }
            },
            error: (error) => reject(new CliError(subscriptionProblem(error, options.url))),
            complete: () => resolve(),
          },
        );
      });
    },
    async close() {
      await ws?.dispose();
    },
  };
}

function subscriptionProblem(error: unknown, url: string): string {
  if (Array.isArray(error)) return error.map((each: { message?: string }) => each.message).join('; ');
  if (error instanceof Error) return `${url}: ${error.message}`;
  const event = error as { code?: number; reason?: string };
  if (event?.code === 4403 || event?.code === 4401) return 'the API key was refused';
  return `the WebSocket connection to ${url} closed${event?.code ? ` (${event.code}${event.reason ? `: ${event.reason}` : ''})` : ''}`;
}
