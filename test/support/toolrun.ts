// Starts a real toolrun (API on a real port + worker) against the test PostgreSQL and Redis,
// isolated by its own Redis prefix, and gives tests clients for HTTP, SSE and WebSocket.
import { randomUUID } from 'node:crypto';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { WebSocket } from 'ws';
import { type Config, loadConfig } from '../../src/config.js';
import { startWorkerRuntime, type WorkerRuntime } from '../../src/jobs/worker-runtime.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { createApiServer, type ApiServer } from '../../src/server/app.js';
import { closeServices, createServices, type Services } from '../../src/services.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './database.js';

export interface GraphQLResponse<T> {
  data?: T | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

export interface Toolrun {
  url: string;
  wsUrl: string;
  apiKey: string;
  tenantId: string;
  services: Services;
  worker: WorkerRuntime | null;
  api: ApiServer;
  /** SQL statements sent by this instance since the last `resetQueries()`. */
  queries: string[];
  resetQueries(): void;
  /** A key of another tenant (or the same tenant, with `tenant`). */
  newKey(tenant?: string, roles?: Array<'submitter' | 'approver' | 'admin'>): Promise<string>;
  request<T, V>(document: TypedDocumentNode<T, V> | string, variables?: V, apiKey?: string | null): Promise<GraphQLResponse<T> & { status: number }>;
  /** Like request, but fails the test on GraphQL errors. */
  query<T, V>(document: TypedDocumentNode<T, V>, variables?: V, apiKey?: string): Promise<T>;
  sse<T, V>(document: TypedDocumentNode<T, V>, variables: V, apiKey?: string): Subscription<T>;
  ws<T, V>(document: TypedDocumentNode<T, V>, variables: V, apiKey?: string): Subscription<T>;
  close(): Promise<void>;
}

export interface Subscription<T> {
  /** Resolves with the next payload (or throws the stream's error). */
  next(timeoutMs?: number): Promise<GraphQLResponse<T>>;
  /** Collects payloads until `done` says so. */
  until(done: (item: GraphQLResponse<T>, all: GraphQLResponse<T>[]) => boolean, timeoutMs?: number): Promise<GraphQLResponse<T>[]>;
  close(): Promise<void>;
}

export async function startToolrun(
  overrides: Partial<Record<keyof Config, string | number | boolean>> = {},
  options: { worker?: boolean; logger?: (config: Config) => Logger } = {},
): Promise<Toolrun> {
  const config = loadConfig(process.env, {
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: `toolrun-test-${randomUUID()}`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    NODE_ENV: 'test',
    PORT: 0,
    DATABASE_POOL_SIZE: 10,
    HEARTBEAT_INTERVAL_MS: 1000,
    ...overrides,
  });
  const queries: string[] = [];
  const services = createServices(config, options.logger?.(config) ?? createLogger(config), { onQuery: (sql) => queries.push(sql) });
  const worker = options.worker === false ? null : await startWorkerRuntime(services, { reconcileIntervalMs: 1000 });
  const api = createApiServer(services);
  const port = await api.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${port}/graphql`;
  const wsUrl = `ws://127.0.0.1:${port}/graphql`;
  const { key: apiKey, tenant } = await services.apiKeys.createKey(`tenant-${randomUUID().slice(0, 8)}`, { roles: ['submitter', 'approver', 'admin'] });
  const client = graphqlClient(url, wsUrl, apiKey);

  return {
    ...client,
    tenantId: tenant.id,
    services,
    queries,
    resetQueries: () => {
      queries.length = 0;
    },
    worker,
    api,
    newKey: async (name = `tenant-${randomUUID().slice(0, 8)}`, roles = ['submitter', 'approver']) => (await services.apiKeys.createKey(name, { roles })).key,
    close: async () => {
      await client.close();
      await api.close();
      await worker?.stop(500);
      await services.queues.calls.obliterate({ force: true }).catch(() => undefined);
      await services.queues.tasks.obliterate({ force: true }).catch(() => undefined);
      await closeServices(services);
    },
  };
}

export type GraphQLClient = Pick<Toolrun, 'url' | 'wsUrl' | 'apiKey' | 'request' | 'query' | 'sse' | 'ws'> & { close(): Promise<void> };

/** HTTP, SSE and graphql-ws clients for one API process. */
export function graphqlClient(url: string, wsUrl: string, apiKey: string): GraphQLClient {
  const wsClients: Client[] = [];
  const request: Toolrun['request'] = async (document, variables, key = apiKey) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ query: typeof document === 'string' ? document : print(document), variables }),
    });
    const body = (await response.json()) as GraphQLResponse<never>;
    return { ...body, status: response.status };
  };
  return {
    url,
    wsUrl,
    apiKey,
    request,
    query: async (document, variables, key) => {
      const result = await request(document, variables, key);
      if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
      return result.data as never;
    },
    sse: (document, variables, key = apiKey) => sseSubscription(url, print(document), variables, key),
    ws: (document, variables, key = apiKey) => {
      const client = createClient({ url: wsUrl, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${key}` }, retryAttempts: 0, lazy: true });
      wsClients.push(client);
      return wsSubscription(client, print(document), variables);
    },
    close: async () => {
      for (const client of wsClients.splice(0)) await client.dispose();
    },
  };
}

class Inbox<T> {
  private items: Array<GraphQLResponse<T>> = [];
  private failure: unknown = null;
  private ended = false;
  private waiter: (() => void) | null = null;

  push(item: GraphQLResponse<T>) {
    this.items.push(item);
    this.waiter?.();
  }
  fail(error: unknown) {
    this.failure = error;
    this.waiter?.();
  }
  end() {
    this.ended = true;
    this.waiter?.();
  }
  async next(timeoutMs = 10_000): Promise<GraphQLResponse<T>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const item = this.items.shift();
      if (item) return item;
      if (this.failure) throw this.failure;
      if (this.ended) throw new Error('subscription ended');
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`no subscription payload within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = null;
    }
  }
  async until(done: (item: GraphQLResponse<T>, all: GraphQLResponse<T>[]) => boolean, timeoutMs = 15_000): Promise<GraphQLResponse<T>[]> {
    const all: GraphQLResponse<T>[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const item = await this.next(Math.max(1, deadline - Date.now()));
      all.push(item);
      if (done(item, all)) return all;
    }
  }
}

export function wsSubscription<T>(client: Client, query: string, variables: unknown): Subscription<T> {
  const inbox = new Inbox<T>();
  const unsubscribe = client.subscribe<T>(
    { query, variables: variables as Record<string, unknown> },
    {
      next: (value) => inbox.push(value as GraphQLResponse<T>),
      error: (error) => inbox.fail(error instanceof Error ? error : new Error(JSON.stringify(error))),
      complete: () => inbox.end(),
    },
  );
  return {
    next: (timeoutMs) => inbox.next(timeoutMs),
    until: (done, timeoutMs) => inbox.until(done, timeoutMs),
    close: async () => unsubscribe(),
  };
}

export function sseSubscription<T>(url: string, query: string, variables: unknown, apiKey: string): Subscription<T> {
  const inbox = new Inbox<T>();
  const controller = new AbortController();
  void (async () => {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify({ query, variables }),
        signal: controller.signal,
      });
      if (!response.ok || !response.body) {
        inbox.fail(new Error(`SSE request failed with ${response.status}: ${await response.text()}`));
        return;
      }
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let split: number;
        while ((split = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, split);
          buffer = buffer.slice(split + 2);
          const lines = frame.split('\n');
          const event = lines.find((line) => line.startsWith('event:'))?.slice(6).trim();
          const data = lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('\n');
          if (event === 'complete') return inbox.end();
          if (data) inbox.push(JSON.parse(data) as GraphQLResponse<T>);
        }
      }
      inbox.end();
    } catch (error) {
      if (!controller.signal.aborted) inbox.fail(error);
    }
  })();
  return {
    next: (timeoutMs) => inbox.next(timeoutMs),
    until: (done, timeoutMs) => inbox.until(done, timeoutMs),
    close: async () => controller.abort(),
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns a truthy value. */
export async function eventually<T>(probe: () => Promise<T | null | undefined | false>, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}
