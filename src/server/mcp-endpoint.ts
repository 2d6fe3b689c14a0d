// toolrun as an MCP server: a Streamable HTTP endpoint (`/mcp`) on the API port, authenticated
// with the API keys and roles of the GraphQL API. tools/list lists the tenant's tools (built-in,
// HTTP, external, MCP-sourced); each tools/call is a durable toolrun call in the toolrun session
// of the MCP session: its progress, approval wait and retries are sent as notifications/progress,
// the client's notifications/cancelled cancels it, and its outcome comes back as MCP content
// (text, plus structuredContent for an object value). Approval-gated tools wait for their
// approval. A task-augmented tools/call of a background-capable tool starts a background run and
// answers with its MCP task (tasks/get, tasks/result, tasks/list, tasks/cancel: `mcp-tasks.ts`).
//
// No sticky routing: the MCP session is a toolrun session (its id is the `Mcp-Session-Id`, made at
// initialize), and each request is served by a server and transport made for it alone, in
// whichever API process it reaches. So the call a cancel names is found by id (`mcp-` + the request
// id as JSON, unique in the session as the spec wants request ids), not in memory; progress streams on
// the response of the POST that made the call. There is no standalone GET stream (405): toolrun
// sends no server-initiated messages.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  type CallToolResult,
  CallToolRequestSchema,
  CancelledNotificationSchema,
  CancelTaskRequestSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  isInitializeRequest,
  isJSONRPCRequest,
  type JSONRPCRequest,
  ListTasksRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type RequestId,
  type ServerNotification,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ZodType } from 'zod';
import { bearerToken, type Viewer } from '../domain/tenants/api-keys.js';
import { NotFoundError } from '../model/errors.js';
import type { SessionEvent } from '../model/events.js';
import { formatOutputText, successValue, type ToolCallOutput } from '../model/outcome.js';
import { encodeToolValue, isJsonObject } from '../model/tool-value.js';
import { sessionEvents } from '../realtime/subscription.js';
import { unacceptableText } from '../model/storable-json.js';
import { checkJsonInput } from './plugins/use-input-limits.js';
import type { Services } from '../services.js';
import { overlongToolName, type ToolDefinition } from '../tools/types.js';
import { asMcpError, BackgroundRunTasks, McpRequestError, TASK_POLL_INTERVAL_MS } from './mcp-tasks.js';

const SERVER_INFO = { name: 'toolrun', version: '0.1.0' };

export interface McpEndpoint {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  close(): Promise<void>;
}

function sendError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/**
 * Why the transport would refuse a POST for its headers before reading it (the SDK's own checks,
 * with its statuses and messages), or null. An initialize is checked before its toolrun session is
 * created, so one the transport refuses opens none.
 */
function unservedHeaders(req: IncomingMessage): { status: number; message: string } | null {
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    return { status: 406, message: 'Not Acceptable: Client must accept both application/json and text/event-stream' };
  }
  if (!isJsonContentType(req.headers['content-type'])) return { status: 415, message: 'Unsupported Media Type: Content-Type must be application/json' };
  return null;
}

/** A body past the size limit: answered 413, and the connection closed (the rest of the body is never read). */
class BodyTooLarge extends Error {}

async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > maxBytes) throw new BodyTooLarge(`request body larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new McpRequestError(ErrorCode.ParseError, 'Parse error: the body is not JSON');
  }
}

/** A toolrun tool as an MCP tool. */
export function mcpToolOf(tool: ToolDefinition): Tool {
  const schema = tool.parametersSchema;
  return {
    name: tool.name,
    title: tool.displayName,
    description: tool.description,
    inputSchema: { ...schema, type: 'object' } as Tool['inputSchema'],
    annotations: {
      title: tool.displayName,
      readOnlyHint: tool.hints.readonly,
      destructiveHint: tool.hints.destructive,
      idempotentHint: tool.hints.idempotent,
      openWorldHint: tool.hints.openWorld,
    },
    ...(runsInBackground(tool) ? { execution: { taskSupport: 'optional' } } : {}),
  };
}

/** Whether a task-augmented tools/call of the tool can start a background run (`BackgroundService.checkTarget` decides). */
function runsInBackground(tool: ToolDefinition): boolean {
  return tool.hints.supportsBackground === true && tool.policy !== 'REQUIRES_APPROVAL';
}

/** How long a cancellation that came before its tools/call waits for it. */
const EARLY_CANCEL_TTL_S = 600;

/** Where a cancellation that found no call waits for the tools/call it names. */
function earlyCancelKey(redisPrefix: string, sessionId: string, callId: string): string {
  return `${redisPrefix}:mcp:early-cancel:${sessionId}:${callId}`;
}

/**
 * The toolrun call id of an MCP request: `mcp-` and the request id as JSON (`mcp-1`, `mcp-"1"`: a
 * number and a string are distinct ids), or `mcp-sha256:` and its hash when that is not printable
 * ASCII or too long for a call id. Request ids are unique within an MCP session (spec), and so is
 * this in its session.
 */
export function mcpCallId(requestId: RequestId): string {
  const id = JSON.stringify(requestId);
  return /^[\x21-\x7e]{1,252}$/.test(id) ? `mcp-${id}` : `mcp-sha256:${createHash('sha256').update(id).digest('hex')}`;
}

/** The params schema of each request toolrun answers, beyond initialize and ping. */
const REQUEST_SCHEMAS = new Map<string, ZodType>([
  ['tools/call', CallToolRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tasks/get', GetTaskRequestSchema],
  ['tasks/result', GetTaskPayloadRequestSchema],
  ['tasks/list', ListTasksRequestSchema],
  ['tasks/cancel', CancelTaskRequestSchema],
]);

/** Why a request's params do not fit its method, naming the first offending parameter; null if they fit. */
function invalidParams(request: JSONRPCRequest): string | null {
  const parsed = REQUEST_SCHEMAS.get(request.method)?.safeParse(request);
  const issue = parsed?.success === false ? parsed.error.issues[0] : undefined;
  if (!issue) return null;
  const path = issue.path[0] === 'params' ? issue.path.slice(1) : issue.path;
  return `Invalid ${request.method} params: \`${path.length > 0 ? path.join('.') : 'params'}\` (${issue.message.replace(/^Invalid input: /, '')})`;
}

/**
 * Answers a request whose params do not fit its method with -32602 and one short line. The SDK
 * parses params before it calls a handler, and would answer -32603 with its schema library's whole
 * error report.
 */
function refuseInvalidParams(transport: Transport): void {
  const deliver = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    const refusal = isJSONRPCRequest(message) ? invalidParams(message) : null;
    if (refusal !== null && isJSONRPCRequest(message)) {
      transport.send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: refusal } }).catch(() => undefined);
    } else {
      deliver(message, extra);
    }
  };
}

/**
 * The `progress` of the next notification of a call: the tool's own count where it moves past the
 * last value sent, else a thousandth past it. The spec wants the value to increase with every
 * notification, and a call's reports do not: a status line carries no count, an approval or a
 * retry says something between counts, and the next attempt counts from the start again.
 */
export function nextProgressValue(last: number, current: number | undefined): number {
  return current !== undefined && Number.isFinite(current) && current > last ? current : Math.round((last + 0.001) * 1000) / 1000;
}

/** A call's outcome as an MCP tool result. */
export function mcpResultOf(output: ToolCallOutput): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text', text: formatOutputText(output) }];
  if (output.status === 'SUCCESS') {
    const wire = encodeToolValue(successValue(output));
    return { content, ...(isJsonObject(wire) ? { structuredContent: wire as Record<string, unknown> } : {}) };
  }
  if (output.status === 'FAILURE') {
    const { class: failureClass, code, message, retry } = output.failure;
    return { content, isError: true, structuredContent: { status: 'FAILURE', failure: { class: failureClass, code, message, retry: retry.kind } } };
  }
  return { content, isError: true, structuredContent: { status: 'CANCELLED', message: output.cancellation.message } };
}

export function createMcpEndpoint(services: Services, shutdown: AbortSignal): McpEndpoint {
  const open = new Set<Server>();
  const { logger } = services;

  const viewerOf = (extra: { authInfo?: AuthInfo }): Viewer => {
    const viewer = extra.authInfo?.extra?.viewer as Viewer | undefined;
    if (!viewer) throw new McpRequestError(ErrorCode.InvalidRequest, 'Missing API key');
    return viewer;
  };

  /** A server for one request of the MCP session whose toolrun session is `sessionId`. */
  const buildServer = (viewer: Viewer, sessionId: string): Server => {
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: false }, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore: new BackgroundRunTasks(services, viewer, sessionId),
      defaultTaskPollInterval: TASK_POLL_INTERVAL_MS,
    });
    server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
      const viewer = viewerOf(extra);
      // Every tool is in the first page: no cursor of this list exists.
      if (request.params?.cursor !== undefined) throw new McpRequestError(ErrorCode.InvalidParams, '`cursor` is not a cursor of this list (tools/list answers every tool at once)');
      return { tools: (await services.registry.list(viewer.tenantId)).map(mcpToolOf) };
    });
    // The request a cancel names may run in another process: it is cancelled through its call's row.
    server.setNotificationHandler(CancelledNotificationSchema, async (notification) => {
      const { requestId } = notification.params;
      // Cancelling a call needs the submitter role, as calling does.
      if (requestId === undefined || !viewer.roles.includes('submitter')) return;
      const callId = mcpCallId(requestId);
      /** Whether the call was found (and cancelled, or found finished). */
      const cancel = () =>
        services.batches.cancelCall(viewer.tenantId, callId, sessionId).then(
          () => true,
          (error: unknown) => {
            if (error instanceof NotFoundError) return false;
            logger.warn({ err: error, requestId }, 'could not cancel an MCP call');
            return true;
          },
        );
      if (await cancel()) return;
      // No call yet: the client cancelled right after sending, and this notification was served
      // before its tools/call (any process may serve either). Leave word for the tools/call, then look
      // again: a call made meanwhile is cancelled here, a call made later finds the word.
      await services.redis.command.set(earlyCancelKey(services.config.REDIS_PREFIX, sessionId, callId), '1', 'EX', EARLY_CANCEL_TTL_S).catch((error: unknown) => {
        logger.warn({ err: error, requestId }, 'could not keep an early MCP cancellation');
      });
      await cancel();
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const viewer = viewerOf(extra);
      if (!viewer.roles.includes('submitter')) throw new McpRequestError(ErrorCode.InvalidRequest, 'This API key lacks the submitter role needed to call tools');
      // What GraphQL's input limits refuse is refused here too (the arguments may hold any text, as a call's args).
      const badName = unacceptableText(request.params.name) ?? overlongToolName(request.params.name);
      if (badName) throw new McpRequestError(ErrorCode.InvalidParams, `params.name ${badName}`);
      const badArguments = checkJsonInput(request.params.arguments ?? {}, 'params.arguments', services.config.MAX_JSON_DEPTH, false, true);
      if (badArguments) throw new McpRequestError(ErrorCode.InvalidParams, badArguments.message);
      if (request.params.task) return { task: await extra.taskStore!.createTask(request.params.task) };
      const callId = mcpCallId(extra.requestId);
      const head = await services.feed.head('session', sessionId);
      const submitted = await services.batches
        .submit({ tenantId: viewer.tenantId, apiKeyId: viewer.apiKeyId, sessionId, calls: [{ id: callId, tool: request.params.name, args: request.params.arguments ?? {} }] })
        .catch((error: unknown) => {
          throw asMcpError(error, logger);
        });
      // Ended already: at submission (unknown tool, invalid arguments), or a client's retry of a
      // request whose call ran (the same id and arguments submit nothing new): its outcome as stored.
      if (submitted.batch.status === 'COMPLETED') return mcpResultOf((await services.calls.findCall(viewer.tenantId, callId, sessionId)).output as unknown as ToolCallOutput);
      // Its cancellation came first (see the notification's handler): cancelled now, it ends as any cancelled call.
      const cancelledEarly = await services.redis.command.exists(earlyCancelKey(services.config.REDIS_PREFIX, sessionId, callId)).catch(() => 0);
      if (cancelledEarly) await services.batches.cancelCall(viewer.tenantId, callId, sessionId);
      const progressToken = request.params._meta?.progressToken;
      let sent = 0;
      let total: number | undefined;
      const notify = (progress: { current?: number; total?: number; message?: string }) => {
        if (progressToken === undefined) return;
        const value = nextProgressValue(sent, progress.current);
        // The total of the count the value is, while the value has not passed it.
        if (value === progress.current) total = progress.total;
        sent = value;
        const notification: ServerNotification = {
          method: 'notifications/progress',
          params: { progressToken, progress: sent, ...(total !== undefined && sent <= total ? { total } : {}), ...(progress.message ? { message: progress.message } : {}) },
        };
        extra.sendNotification(notification).catch(() => undefined);
      };
      // Waiting stops on shutdown or when the POST's stream goes away; the call itself goes on.
      const stop = new AbortController();
      const onStop = () => stop.abort();
      shutdown.addEventListener('abort', onStop);
      extra.signal.addEventListener('abort', onStop);
      try {
        const events = sessionEvents(services.feed, {
          tenantId: viewer.tenantId,
          sessionId,
          afterSeq: head,
          matches: (event) => event.callId === callId,
          until: (event) => event.type === 'ToolCallCompleted',
          signal: stop.signal,
        });
        for await (const event of events) {
          const result = resultOrProgress(event, notify);
          if (result) return result;
        }
        throw new McpRequestError(ErrorCode.InternalError, 'toolrun is shutting down; the call goes on: see its session in the GraphQL API');
      } finally {
        shutdown.removeEventListener('abort', onStop);
        extra.signal.removeEventListener('abort', onStop);
      }
    });
    return server;
  };

  /** Serves one request with a server and transport of its own, closed when its response ends. */
  const serve = async (req: IncomingMessage, res: ServerResponse, transport: StreamableHTTPServerTransport, server: Server, body?: unknown) => {
    open.add(server);
    res.on('close', () => {
      open.delete(server);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    refuseInvalidParams(transport);
    await transport.handleRequest(req, res, body);
  };

  return {
    async handle(req, res) {
      try {
        const viewer = await services.apiKeys.authenticate(bearerToken(req.headers.authorization ?? null));
        if (!viewer) return sendError(res, 401, -32001, 'Missing or invalid API key: send `Authorization: Bearer <key>`', { 'www-authenticate': 'Bearer' });
        // Every request with a valid key counts against its rate limit, as on /graphql.
        const refusal = await services.rateLimiter.take(viewer);
        if (refusal) {
          const { retryAfterMs } = refusal.extensions as { retryAfterMs: number };
          return sendError(res, 429, -32000, refusal.message, { 'retry-after': String(Math.ceil(retryAfterMs / 1000)) });
        }
        (req as IncomingMessage & { auth?: AuthInfo }).auth = { token: 'api-key', clientId: viewer.apiKeyId, scopes: viewer.roles, extra: { viewer } };
        const mcpSessionId = req.headers['mcp-session-id'];
        if (typeof mcpSessionId === 'string') {
          // Another tenant's session is as unknown as a closed one.
          const session = await services.sessions.findMcpSession(viewer.tenantId, mcpSessionId);
          if (!session) return sendError(res, 404, -32001, 'Session not found');
          if (req.method === 'DELETE') {
            // Ending a session is a change, as calling is: not a reader's.
            if (!viewer.roles.includes('submitter')) return sendError(res, 403, -32001, 'This API key lacks the submitter role needed to end an MCP session');
            await services.sessions.closeMcpSession(viewer.tenantId, session.id);
            res.writeHead(200).end();
            return;
          }
          if (req.method !== 'POST') return sendError(res, 405, -32000, 'Method not allowed: toolrun offers no standalone stream; send requests with POST', { allow: 'POST, DELETE' });
          const body = await readJson(req, services.config.MAX_REQUEST_BYTES);
          // Before the SDK parses it, which would drop a `__proto__` key without a word: refused as GraphQL refuses it.
          const badParams = checkJsonInput((body as { params?: unknown } | null)?.params ?? null, 'params', services.config.MAX_JSON_DEPTH, false, true);
          if (badParams) return sendError(res, 400, ErrorCode.InvalidParams, badParams.message);
          // Stateless: the session was checked above, so the transport keeps none of its own.
          return await serve(req, res, new StreamableHTTPServerTransport({ sessionIdGenerator: undefined }), buildServer(viewer, session.id), body);
        }
        if (req.method !== 'POST') return sendError(res, 400, -32000, 'Bad Request: no mcp-session-id header');
        const body = await readJson(req, services.config.MAX_REQUEST_BYTES);
        if (!isInitializeRequest(body)) {
          if ((body as { method?: unknown } | null)?.method === 'initialize') {
            return sendError(res, 400, ErrorCode.InvalidParams, 'Invalid params: initialize needs params {protocolVersion: string, capabilities: object, clientInfo: {name: string, version: string}}');
          }
          return sendError(res, 400, -32000, 'Bad Request: a request without mcp-session-id must be initialize');
        }
        const unserved = unservedHeaders(req);
        if (unserved) return sendError(res, unserved.status, -32000, unserved.message);
        // An MCP session is a toolrun session, created here: not a reader's, as createSession is not.
        if (!viewer.roles.includes('submitter')) return sendError(res, 403, -32001, 'This API key lacks the submitter role needed to open an MCP session (it creates a toolrun session)');
        // The client's name is kept with the session: what GraphQL's input limits refuse is refused here too.
        const badParams = checkJsonInput(body.params, 'params', services.config.MAX_JSON_DEPTH);
        if (badParams) return sendError(res, 400, ErrorCode.InvalidParams, badParams.message);
        const session = await services.sessions.openMcpSession(viewer.tenantId, body.params.clientInfo?.name ?? null);
        await serve(req, res, new StreamableHTTPServerTransport({ sessionIdGenerator: () => session.id }), buildServer(viewer, session.id), body);
      } catch (error) {
        if (error instanceof BodyTooLarge) return sendError(res, 413, ErrorCode.InvalidRequest, error.message, { connection: 'close' });
        if (error instanceof McpError) return sendError(res, 400, error.code, error.message);
        logger.error({ err: error }, 'MCP request failed');
        if (!res.headersSent) sendError(res, 500, ErrorCode.InternalError, 'Internal error');
        else res.end();
      }
    },
    async close() {
      const servers = [...open];
      open.clear();
      await Promise.all(servers.map((server) => server.close().catch(() => undefined)));
    },
  };
}

/** The result of a completed call, or null after turning a progress-like event into a notification. */
function resultOrProgress(event: SessionEvent, notify: (progress: { current?: number; total?: number; message?: string }) => void): CallToolResult | null {
  switch (event.type) {
    case 'ToolCallCompleted':
      return mcpResultOf(event.payload.output);
    case 'ToolCallProgress': {
      const { progress } = event.payload;
      notify({ ...(progress.current !== undefined ? { current: progress.current } : {}), ...(progress.total !== undefined ? { total: progress.total } : {}), message: progress.message ?? progress.label ?? '' });
      return null;
    }
    case 'ToolCallAwaitingApproval':
      notify({ message: 'waiting for approval (see the approvals inbox)' });
      return null;
    case 'ToolCallApproved':
      notify({ message: 'approved' });
      return null;
    case 'ToolCallAwaitingCompletion': {
      // An external tool's call waits for whoever does the work to complete it: say so, and until when.
      const { attempt, maxAttempts, deadline } = event.payload;
      notify({ message: `waiting for an external completion (attempt ${attempt}/${maxAttempts}, until ${deadline})` });
      return null;
    }
    case 'ToolCallRetrying': {
      notify({ message: `retrying after: ${event.payload.failure.message}` });
      return null;
    }
    default:
      return null;
  }
}
