// toolrun as an MCP server: a Streamable HTTP endpoint (`/mcp`) on the API port, authenticated
// with the API keys and roles of the GraphQL API. tools/list lists the tenant's tools (built-in,
// HTTP, external, MCP-sourced); each tools/call is a durable toolrun call in the toolrun session
// of the MCP session (made at its first call): its progress, approval wait and retries are sent
// as notifications/progress, the client's notifications/cancelled cancels it, and its outcome
// comes back as MCP content (text, plus structuredContent for an object value). Approval-gated
// tools wait for their approval. Background runs: the SDK's task utilities are experimental, so
// background runs are reached through the `spawn_background` tool like any other.
//
// MCP sessions live in the API process that created them: several API processes need sticky
// routing of `/mcp` by the `mcp-session-id` header.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  type CallToolResult,
  CallToolRequestSchema,
  ErrorCode,
  isInitializeRequest,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { bearerToken, type Viewer } from '../domain/tenants/api-keys.js';
import { DomainError } from '../model/errors.js';
import type { SessionEvent } from '../model/events.js';
import { formatOutputText, successValue, type ToolCallOutput } from '../model/outcome.js';
import { encodeToolValue, isJsonObject } from '../model/tool-value.js';
import { sessionEvents } from '../realtime/subscription.js';
import type { Services } from '../services.js';
import type { ToolDefinition } from '../tools/types.js';

export const MCP_PATH = '/mcp';
const SERVER_INFO = { name: 'toolrun', version: '0.1.0' };

interface McpSession {
  tenantId: string;
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** The toolrun session its calls run in, made at the first call. */
  toolrunSession?: Promise<string>;
  clientName?: string;
}

export interface McpEndpoint {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  close(): Promise<void>;
}

function sendError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > maxBytes) throw new McpError(ErrorCode.InvalidRequest, `request body larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new McpError(ErrorCode.ParseError, 'Parse error: the body is not JSON');
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
  };
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
  const sessions = new Map<string, McpSession>();
  const { logger } = services;

  const viewerOf = (extra: { authInfo?: AuthInfo }): Viewer => {
    const viewer = extra.authInfo?.extra?.viewer as Viewer | undefined;
    if (!viewer) throw new McpError(ErrorCode.InvalidRequest, 'Missing API key');
    return viewer;
  };

  const toolrunSession = (session: McpSession, mcpSessionId: string): Promise<string> => {
    session.toolrunSession ??= services.sessions
      .create(session.tenantId, { title: `MCP session${session.clientName ? ` (${session.clientName})` : ''}`, metadata: { mcpSessionId } })
      .then((created) => created.id);
    session.toolrunSession.catch(() => (session.toolrunSession = undefined));
    return session.toolrunSession;
  };

  const buildServer = (session: McpSession): Server => {
    const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } } });
    server.oninitialized = () => {
      session.clientName = server.getClientVersion()?.name;
    };
    server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
      const viewer = viewerOf(extra);
      return { tools: (await services.registry.list(viewer.tenantId)).map(mcpToolOf) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const viewer = viewerOf(extra);
      if (!viewer.roles.includes('submitter')) throw new McpError(ErrorCode.InvalidRequest, 'This API key lacks the submitter role needed to call tools');
      const sessionId = await toolrunSession(session, extra.sessionId ?? '');
      const callId = `mcp-${randomUUID()}`;
      const head = await services.feed.head('session', sessionId);
      try {
        await services.batches.submit({
          tenantId: viewer.tenantId,
          apiKeyId: viewer.apiKeyId,
          sessionId,
          calls: [{ id: callId, tool: request.params.name, args: request.params.arguments ?? {} }],
        });
      } catch (error) {
        if (error instanceof DomainError) throw new McpError(ErrorCode.InvalidParams, error.message);
        throw error;
      }
      const progressToken = request.params._meta?.progressToken;
      let step = 0;
      const notify = (progress: { current?: number; total?: number; message?: string }) => {
        if (progressToken === undefined) return;
        step += 1;
        const notification: ServerNotification = {
          method: 'notifications/progress',
          params: { progressToken, progress: progress.current ?? step, ...(progress.total !== undefined ? { total: progress.total } : {}), ...(progress.message ? { message: progress.message } : {}) },
        };
        extra.sendNotification(notification).catch(() => undefined);
      };
      const stop = new AbortController();
      const onShutdown = () => stop.abort();
      shutdown.addEventListener('abort', onShutdown);
      const onCancel = () => {
        void services.batches.cancelCall(viewer.tenantId, callId, sessionId).catch((error: unknown) => logger.warn({ err: error, callId }, 'could not cancel an MCP call'));
      };
      extra.signal.addEventListener('abort', onCancel, { once: true });
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
        throw new McpError(ErrorCode.InternalError, 'toolrun is shutting down; the call goes on: see its session in the GraphQL API');
      } finally {
        shutdown.removeEventListener('abort', onShutdown);
        extra.signal.removeEventListener('abort', onCancel);
      }
    });
    return server;
  };

  return {
    async handle(req, res) {
      try {
        const viewer = await services.apiKeys.authenticate(bearerToken(req.headers.authorization ?? null));
        if (!viewer) return sendError(res, 401, -32001, 'Missing or invalid API key: send `Authorization: Bearer <key>`', { 'www-authenticate': 'Bearer' });
        (req as IncomingMessage & { auth?: AuthInfo }).auth = { token: 'api-key', clientId: viewer.apiKeyId, scopes: viewer.roles, extra: { viewer } };
        const sessionId = req.headers['mcp-session-id'];
        if (typeof sessionId === 'string') {
          const session = sessions.get(sessionId);
          // Another tenant's session is as unknown as an expired one.
          if (!session || session.tenantId !== viewer.tenantId) return sendError(res, 404, -32001, 'Session not found');
          return await session.transport.handleRequest(req, res);
        }
        if (req.method !== 'POST') return sendError(res, 400, -32000, 'Bad Request: no mcp-session-id header');
        const body = await readJson(req, services.config.MAX_REQUEST_BYTES);
        if (!isInitializeRequest(body)) return sendError(res, 400, -32000, 'Bad Request: a request without mcp-session-id must be initialize');
        let session: McpSession;
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, session),
          onsessionclosed: (id) => void sessions.delete(id),
        });
        transport.onclose = () => {
          if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        session = { tenantId: viewer.tenantId, transport, server: undefined as unknown as Server };
        session.server = buildServer(session);
        await session.server.connect(transport);
        await transport.handleRequest(req, res, body);
      } catch (error) {
        if (error instanceof McpError) return sendError(res, 400, error.code, error.message);
        logger.error({ err: error }, 'MCP request failed');
        if (!res.headersSent) sendError(res, 500, ErrorCode.InternalError, 'Internal error');
        else res.end();
      }
    },
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((session) => session.server.close().catch(() => undefined)));
    },
  };
}

/** The result of a completed call, or null after turning a progress-like event into a notification. */
function resultOrProgress(event: SessionEvent, notify: (progress: { current?: number; total?: number; message?: string }) => void): CallToolResult | null {
  const payload = event.payload as Record<string, unknown>;
  switch (event.type) {
    case 'ToolCallCompleted':
      return mcpResultOf(payload.output as ToolCallOutput);
    case 'ToolCallProgress': {
      const progress = payload.progress as { current?: number; total?: number; message?: string; label?: string };
      notify({ ...(progress.current !== undefined ? { current: progress.current } : {}), ...(progress.total !== undefined ? { total: progress.total } : {}), message: progress.message ?? progress.label ?? '' });
      return null;
    }
    case 'ToolCallAwaitingApproval':
      notify({ message: 'waiting for approval (see the approvals inbox)' });
      return null;
    case 'ToolCallApproved':
      notify({ message: 'approved' });
      return null;
    case 'ToolCallRetrying': {
      const failure = payload.failure as { message?: string } | undefined;
      notify({ message: `retrying after: ${failure?.message ?? 'a failure'}` });
      return null;
    }
    default:
      return null;
  }
}
