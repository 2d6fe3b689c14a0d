// The API process: HTTP (GraphQL, SSE, GraphiQL, health, the dashboard) and graphql-ws on one port.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { GraphQLError } from 'graphql';
import { type WebSocket, WebSocketServer } from 'ws';
import type { Viewer } from '../domain/tenants/api-keys.js';
import type { Services } from '../services.js';
import { withLogContext } from '../logging/context.js';
import { metricSources } from '../telemetry/metrics.js';
import { tokenFromConnectionParams } from './auth.js';
import { closeWhenKeyInvalid, countSubscription } from './ws-limits.js';
import { dashboardHandler } from './dashboard.js';
import { type EnvelopedArgs, serveGraphqlWs } from './graphql-ws.js';
import { CloseCode } from 'graphql-ws';
import { listenOn, serveMetrics } from '../telemetry/metrics-server.js';
import type { McpEndpoint } from './mcp-endpoint.js';
import { MCP_PATH, QUEUE_BOARD_PATH } from './paths.js';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js';
import { refusalOf } from './plugins/use-operation-checks.js';
import { createToolrunYoga, operationChecks, type ToolrunYoga } from './yoga.js';

export interface ApiServer {
  yoga: ToolrunYoga;
  server: Server;
  /** Resolves with the bound port. */
  listen(port: number, host: string): Promise<number>;
  close(): Promise<void>;
}


export function createApiServer(services: Services, options: { graphiqlApiKey?: string } = {}): ApiServer {
  const shutdown = new AbortController();
  const yoga = createToolrunYoga(services, { ...options, shutdown: shutdown.signal });
  const checks = operationChecks(services.config);
  // The MCP endpoint and the queue board (with their SDK and Express) load on their first request.
  let mcp: Promise<McpEndpoint> | null = null;
  const mcpEndpoint = () => (mcp ??= import('./mcp-endpoint.js').then((module) => module.createMcpEndpoint(services, shutdown.signal)));
  let queueBoard: Promise<(req: IncomingMessage, res: ServerResponse) => Promise<void>> | null = null;
  const queueBoardHandler = () => (queueBoard ??= import('./queue-board.js').then((module) => module.createQueueBoard(services)));
  const serveLoaded = (req: IncomingMessage, res: ServerResponse, serve: () => Promise<void>) =>
    void serve().catch((error: unknown) => {
      services.logger.error({ err: error, path: req.url }, 'request failed');
      if (!res.headersSent) res.writeHead(500).end();
    });
  const sockets = new Set<Socket>();
  const dashboard = dashboardHandler();
  const apiPaths = new Set([yoga.graphqlEndpoint, '/health', '/ready']);
  const READ_ONLY_PATHS = new Set(['/health', '/ready', '/metrics']);

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const requestId = requestIdOf(req);
    res.setHeader(REQUEST_ID_HEADER, requestId);
    withLogContext({ requestId }, () => route(req, res));
  });
  const route = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    // Probes and the scrape are read-only.
    if (READ_ONLY_PATHS.has(path) && req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end(`${req.method} is not allowed on ${path}: use GET\n`);
      return;
    }
    if (path === '/metrics') return void serveMetrics(res);
    // yoga's liveness check matches the URL's end: a probe's query string (a cache-buster) made it a 404.
    if (path === '/health' || path === '/ready') req.url = path;
    if (path === QUEUE_BOARD_PATH || path.startsWith(`${QUEUE_BOARD_PATH}/`)) {
      if (services.config.BULL_BOARD_ENABLED) return serveLoaded(req, res, async () => (await queueBoardHandler())(req, res));
      res.writeHead(404).end();
      return;
    }
    if (path === MCP_PATH) return serveLoaded(req, res, async () => (await mcpEndpoint()).handle(req, res));
    if (!apiPaths.has(path) && (req.method === 'GET' || req.method === 'HEAD')) return dashboard(req, res);
    void yoga.requestListener(req, res);
  };
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  // Upgrades are routed here rather than by `new WebSocketServer({ server })`, which re-emits the
  // HTTP server's errors (a port in use) as WebSocket errors that graphql-ws prints with a stack.
  const wsServer = new WebSocketServer({ noServer: true, maxPayload: services.config.MAX_REQUEST_BYTES });
  const unregisterMetrics = metricSources.server({ httpConnections: () => sockets.size, websocketConnections: () => wsServer.clients.size });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if ((req.url ?? '/').split('?')[0] !== yoga.graphqlEndpoint) return void socket.destroy();
    wsServer.handleUpgrade(req, socket, head, (ws) => wsServer.emit('connection', ws, req));
  });
  // A WebSocket connection is one request: its id is in the 101 answer and on every line of its operations.
  const wsRequestIds = new WeakMap<IncomingMessage, string>();
  const wsRequestId = (req: IncomingMessage | undefined) => {
    if (!req) return undefined;
    let id = wsRequestIds.get(req);
    if (!id) wsRequestIds.set(req, (id = requestIdOf(req)));
    return id;
  };
  wsServer.on('headers', (headers, req) => headers.push(`${REQUEST_ID_HEADER}: ${wsRequestId(req)}`));
  type Extra = { viewer?: Viewer; request?: IncomingMessage };
  /** The operation's arguments with the log fields of its connection. */
  type OperationArgs = EnvelopedArgs & { requestId: string | undefined; tenantId: string | undefined };
  const inRequest = <T>(ctx: { extra: unknown }, fn: () => T): T => withLogContext({ requestId: wsRequestId((ctx.extra as Extra).request) }, fn);
  const wsDisposable = serveGraphqlWs<Extra>(wsServer, {
    keepAliveMs: services.config.WS_KEEPALIVE_MS,
    // A slow reader's backlog waits as queued events (shared objects, bounded: realtime/hub.ts), not as
    // frames: at 64 KB, 1,000 subscribers behind on one session held ~115 MB more at peak than at 16 KB.
    highWaterBytes: 16 * 1024,
    logger: services.logger,
    // Results are shared among subscribers of one tenant (every field an event shows is the tenant's to see).
    sharingScope: (contextValue) => (contextValue as { viewer?: Viewer }).viewer?.tenantId ?? null,
    inOperation: (args, fn) => withLogContext({ requestId: (args as OperationArgs).requestId, tenantId: (args as OperationArgs).tenantId }, fn),
    refusal: (args) => refusalOf(checks, args),
    server: {
      onConnect: (ctx) =>
        inRequest(ctx, async () => {
          const viewer = await services.apiKeys.authenticate(tokenFromConnectionParams(ctx.connectionParams));
          if (!viewer) {
            // Unauthorized, not graphql-ws's default Forbidden: clients retry a 4403, never a 4401.
            (ctx.extra as { socket: WebSocket }).socket.close(CloseCode.Unauthorized, 'Unauthorized: missing or invalid API key');
            return false;
          }
          (ctx.extra as Extra).viewer = viewer;
          closeWhenKeyInvalid(services, viewer, (ctx.extra as { socket: WebSocket }).socket);
          return true;
        }),
      // onSubscribe hands the enveloped execute/subscribe along with the arguments.
      onSubscribe: (ctx, id, params) =>
        inRequest(ctx, async () => {
          const viewer = (ctx.extra as Extra).viewer;
          // Over its rate, the operation fails alone; the socket stays open.
          const refusal = viewer ? await services.rateLimiter.take(viewer) : null;
          if (refusal) {
            // What only HTTP uses (its status and Retry-After) stays out of a WebSocket error.
            const { http: _http, ...extensions } = refusal.extensions;
            return [new GraphQLError(refusal.message, { extensions })];
          }
          const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
            ...ctx,
            req: (ctx.extra as Extra).request,
            socket: (ctx.extra as { socket?: unknown }).socket,
            params,
            viewer,
          });
          let document;
          try {
            document = parse(params.query);
          } catch (error) {
            return [error instanceof GraphQLError ? error : new GraphQLError('Syntax error')];
          }
          let errors;
          try {
            errors = validate(schema, document);
          } catch (error) {
            // The limit rules (depth, aliases, directives) refuse by throwing: that operation fails, not the socket.
            if (error instanceof GraphQLError) return [error];
            throw error;
          }
          if (errors.length > 0) return errors;
          const refused = countSubscription(ctx, id, document, params.operationName, services.config.MAX_SUBSCRIPTIONS_PER_SOCKET);
          if (refused) return [refused];
          const args: OperationArgs = {
            schema,
            operationName: params.operationName ?? null,
            document,
            variableValues: params.variables ?? null,
            contextValue: await contextFactory(),
            execute,
            subscribe,
            requestId: wsRequestId((ctx.extra as Extra).request),
            tenantId: viewer?.tenantId,
          };
          return args;
        }),
    },
  });

  return {
    yoga,
    server,
    listen: (port, host) => listenOn(server, port, host),
    close: async () => {
      // Complete every live subscription first (SSE streams end with a `complete` event, graphql-ws
      // sends `complete`), so clients see a clean end rather than a cut connection.
      shutdown.abort();
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (mcp) await (await mcp).close();
      await wsDisposable.dispose();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Open SSE streams and keep-alive sockets would hold close() forever.
        setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, 1000).unref();
      });
      await yoga.dispose();
      unregisterMetrics();
    },
  };
}
