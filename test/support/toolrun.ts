// An in-process toolrun for API tests: services, a worker (unless `worker: false`) and the yoga
// instance against the test PostgreSQL and Redis, isolated by its own Redis prefix. HTTP and SSE
// go through `yoga.fetch`, without a port; a real port is opened only for WebSocket clients.
// graphqlClient also drives the real API processes of test/support/cluster.ts.
import { randomUUID } from 'node:crypto';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { WebSocket } from 'ws';
import { type Config, loadConfig } from '../../src/config.js';
import type { Role } from '../../src/domain/tenants/api-keys.js';
import { startWorkerRuntime, type WorkerRuntime } from '../../src/jobs/worker-runtime.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { createApiServer, type ApiServer } from '../../src/server/app.js';
import { closeServices, createServices, type Services } from '../../src/services.js';
import { deleteKeysMatching, TEST_DATABASE_URL, TEST_REDIS_URL } from './database.js';

export interface GraphQLResponse<T> {
  data?: T | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

/** Where a GraphQL client sends its requests. */
export interface Endpoint {
  /** The GraphQL URL (for the in-process API, a URL `fetch` below understands). */
  url: string;
  fetch: (url: string, init?: RequestInit) => Promise<Response>;
  /** The graphql-ws URL; an in-process API opens its port on first use. */
  wsUrl: () => Promise<string>;
}

export interface GraphQLClient {
  endpoint: Endpoint;
  apiKey: string;
  request<T, V>(document: TypedDocumentNode<T, V> | string, variables?: V, apiKey?: string | null): Promise<GraphQLResponse<T> & { status: number }>;
  /** Like request, but fails the test on GraphQL errors. */
  query<T, V>(document: TypedDocumentNode<T, V>, variables?: V, apiKey?: string): Promise<T>;
  sse<T, V>(document: TypedDocumentNode<T, V>, variables: V, apiKey?: string): Subscription<T>;
  ws<T, V>(document: TypedDocumentNode<T, V>, variables: V, apiKey?: string): Subscription<T>;
  close(): Promise<void>;
}

export interface Toolrun extends GraphQLClient {
  tenantId: string;
  services: Services;
  worker: WorkerRuntime | null;
  api: ApiServer;
  /** A request to another path of the API (`/health`, `/ready`, GraphiQL), in process. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** The API on a real port (opened on first use): `http://127.0.0.1:<port>`, for paths served outside yoga (`/mcp`). */
  baseUrl(): Promise<string>;
  /** SQL statements sent by this instance since the last `resetQueries()`. */
  queries: string[];
  resetQueries(): void;
  /** A key of another tenant (or the same tenant, with `tenant`). */
  newKey(tenant?: string, roles?: Role[]): Promise<string>;
}

export interface Subscription<T> {
  /** Resolves with the next payload (or throws the stream's error). */
  next(timeoutMs?: number): Promise<GraphQLResponse<T>>;
  /** Collects payloads until `done` says so. */
  until(done: (item: GraphQLResponse<T>, all: GraphQLResponse<T>[]) => boolean, timeoutMs?: number): Promise<GraphQLResponse<T>[]>;
  close(): Promise<void>;
}

const IN_PROCESS = 'http://toolrun.test';

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
    // Several toolruns may run in one test process: each worker its own id (the default is host:pid).
    WORKER_ID: `in-process-${randomUUID()}`,
    ...overrides,
  });
  const queries: string[] = [];
  const services = createServices(config, options.logger?.(config) ?? createLogger(config), { onQuery: (sql) => queries.push(sql) });
  const worker = options.worker === false ? null : await startWorkerRuntime(services, { reconcileIntervalMs: 1000 });
  const api = createApiServer(services);
  let listening: Promise<number> | null = null;
  const inProcess = (url: string, init?: RequestInit) => Promise.resolve(api.yoga.fetch(new Request(url, init)));
  const endpoint: Endpoint = {
    url: `${IN_PROCESS}/graphql`,
    fetch: inProcess,
    wsUrl: async () => `ws://127.0.0.1:${await (listening ??= api.listen(0, '127.0.0.1'))}/graphql`,
  };
  const { key: apiKey, tenant } = await services.apiKeys.createKey(`tenant-${randomUUID().slice(0, 8)}`, { roles: ['submitter', 'approver', 'admin'] });
  const client = graphqlClient(endpoint, apiKey);

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
    fetch: (path, init) => inProcess(`${IN_PROCESS}${path}`, init),
    baseUrl: async () => `http://127.0.0.1:${await (listening ??= api.listen(0, '127.0.0.1'))}`,
    newKey: async (name = `tenant-${randomUUID().slice(0, 8)}`, roles = ['submitter', 'approver']) => (await services.apiKeys.createKey(name, { roles })).key,
    close: async () => {
      await client.close();
      await api.close();
      await worker?.stop(500);
      for (const queue of Object.values(services.queues.all)) await queue.obliterate({ force: true }).catch(() => undefined);
      // Its epoch, backlog marks, rate windows: runs leave nothing behind.
      await deleteKeysMatching(services.redis.command, `${services.config.REDIS_PREFIX}:*`).catch(() => undefined);
      await closeServices(services);
    },
  };
}

/** HTTP, SSE and graphql-ws clients of one API (in process or a real process). */
export function graphqlClient(endpoint: Endpoint, apiKey: string): GraphQLClient {
  const wsClients: Client[] = [];
  const request: GraphQLClient['request'] = async (document, variables, key = apiKey) => {
    const response = await endpoint.fetch(endpoint.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ query: typeof document === 'string' ? document : print(document), variables }),
    });
    const body = (await response.json()) as GraphQLResponse<never>;
    return { ...body, status: response.status };
  };
  return {
    endpoint,
    apiKey,
    request,
    query: async (document, variables, key) => {
      const result = await request(document, variables, key);
      if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
      return result.data as never;
    },
    sse: (document, variables, key = apiKey) => sseSubscription(endpoint, print(document), variables, key),
    ws: (document, variables, key = apiKey) => {
      const client = wsClient(endpoint, key);
      wsClients.push(client);
      return wsSubscription(client, print(document), variables);
    },
    close: async () => {
      for (const client of wsClients.splice(0)) await client.dispose();
    },
  };
}

/** A graphql-ws client of the endpoint with the key (it connects with its first subscription, and never retries). */
export function wsClient(endpoint: Endpoint, apiKey: string): Client {
  return createClient({ url: endpoint.wsUrl, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${apiKey}` }, retryAttempts: 0, lazy: true });
}

/** A real API process's endpoint. */
export function httpEndpoint(base: string): Endpoint {
  const wsUrl = `${base.replace(/^http/, 'ws')}/graphql`;
  return { url: `${base}/graphql`, fetch: (url, init) => fetch(url, init), wsUrl: async () => wsUrl };
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

export function sseSubscription<T>(endpoint: Endpoint, query: string, variables: unknown, apiKey: string): Subscription<T> {
  const inbox = new Inbox<T>();
  const controller = new AbortController();
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  void (async () => {
    try {
      const response = await endpoint.fetch(endpoint.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify({ query, variables }),
        signal: controller.signal,
      });
      if (!response.ok || !response.body) {
        inbox.fail(new Error(`SSE request failed with ${response.status}: ${await response.text()}`));
        return;
      }
      reader = response.body.getReader();
      if (controller.signal.aborted) return void (await reader.cancel());
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
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
    close: async () => {
      controller.abort();
      // Cancelling the body ends the stream on the server side too, in process as over a socket.
      await reader?.cancel().catch(() => undefined);
    },
  };
}

