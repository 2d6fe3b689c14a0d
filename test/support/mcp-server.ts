// A real MCP server built with the SDK (Streamable HTTP, one SDK Server per session) for tests of
// MCP servers as tool sources: tools with progress, a slow tool that records cancellations, an
// image result, an error result, tools added and removed with list_changed, a bearer token it
// requires, 5xx answers on demand, and a restart on the same port (which forgets every session).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, type CallToolResult, ErrorCode, isInitializeRequest, ListToolsRequestSchema, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';

/** A 1×1 PNG. */
export const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

type Handler = (args: Record<string, unknown>, extra: { signal: AbortSignal; progress: (progress: number, total?: number, message?: string) => Promise<void> }) => Promise<CallToolResult>;

interface TestTool {
  tool: Tool;
  run: Handler;
}

export interface TestMcpServer {
  url: string;
  /** Every tools/call the server received, by tool name. */
  calls: string[];
  /** Tools whose call the client cancelled (notifications/cancelled reached the tool). */
  cancelled: string[];
  /** Answer the next `count` tools/call requests with this HTTP status. */
  failNextCalls(count: number, status: number): void;
  addTool(tool: Tool, run: Handler): Promise<void>;
  removeTool(name: string): Promise<void>;
  /** Sessions open now. */
  sessionCount(): number;
  /** Stops and starts again on the same port: every session is forgotten. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
}

const delay = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });

export async function startTestMcpServer(options: { bearerToken?: string } = {}): Promise<TestMcpServer> {
  const calls: string[] = [];
  const cancelled: string[] = [];
  const tools = new Map<string, TestTool>();
  const sessions = new Map<string, { server: Server; transport: StreamableHTTPServerTransport }>();
  let failures = { count: 0, status: 503 };

  const define = (tool: Tool, run: Handler) => tools.set(tool.name, { tool, run });
  define(
    { name: 'echo', description: 'Says the text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, annotations: { readOnlyHint: true } },
    async (args) => ({ content: [{ type: 'text', text: String(args.text) }] }),
  );
  define(
    {
      name: 'count-Up',
      description: 'Counts to `steps`, reporting progress',
      inputSchema: { type: 'object', properties: { steps: { type: 'integer', minimum: 1 } }, required: ['steps'] },
      annotations: { idempotentHint: true, destructiveHint: false, openWorldHint: false },
    },
    async (args, extra) => {
      const steps = Number(args.steps);
      for (let step = 1; step <= steps; step++) await extra.progress(step, steps, `step ${step}`);
      return { content: [{ type: 'text', text: `counted to ${steps}` }], structuredContent: { counted: steps } };
    },
  );
  define({ name: 'slow', description: 'Waits `ms` unless cancelled', inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } } }, async (args, extra) => {
    try {
      await delay(Number(args.ms ?? 60_000), extra.signal);
    } catch (error) {
      cancelled.push('slow');
      throw error;
    }
    return { content: [{ type: 'text', text: 'done waiting' }] };
  });
  define({ name: 'picture', description: 'Returns an image', inputSchema: { type: 'object' } }, async () => ({
    content: [
      { type: 'text', text: 'one pixel' },
      { type: 'image', data: PIXEL_PNG, mimeType: 'image/png' },
    ],
  }));
  define({ name: 'broken', description: 'Always reports an error', inputSchema: { type: 'object' } }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'the widget is broken' }],
  }));

  define({ name: 'explode', description: 'Answers with a JSON-RPC error', inputSchema: { type: 'object' } }, async () => {
    throw new McpError(ErrorCode.InternalError, 'the server fell over');
  });

  const newServer = () => {
    const server = new Server({ name: 'test-mcp', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      // Two pages, so clients must follow nextCursor.
      const all = [...tools.values()].map((entry) => entry.tool);
      const half = Math.ceil(all.length / 2);
      if (!request.params?.cursor) return { tools: all.slice(0, half), nextCursor: 'page-2' };
      return { tools: all.slice(half) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const entry = tools.get(request.params.name);
      calls.push(request.params.name);
      if (!entry) return { isError: true, content: [{ type: 'text', text: `unknown tool ${request.params.name}` }] };
      const token = request.params._meta?.progressToken;
      return entry.run(request.params.arguments ?? {}, {
        signal: extra.signal,
        progress: async (progress, total, message) => {
          if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total, message } });
        },
      });
    });
    return server;
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (options.bearerToken && req.headers.authorization !== `Bearer ${options.bearerToken}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'unauthorized' }, id: null }));
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
      }
      if (req.method !== 'POST') return session.transport.handleRequest(req, res);
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const message = JSON.parse(Buffer.concat(chunks).toString() || 'null') as { method?: string } | null;
      if (message?.method === 'tools/call' && failures.count > 0) {
        failures.count -= 1;
        res.writeHead(failures.status);
        return void res.end('unavailable');
      }
      return session.transport.handleRequest(req, res, message);
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString() || 'null');
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      res.writeHead(400);
      return void res.end();
    }
    const server = newServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { server, transport }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const sockets = new Set<Socket>();
  let httpServer = http.createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  const track = (server: http.Server) =>
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
  track(httpServer);
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const port = (httpServer.address() as AddressInfo).port;

  const stop = async () => {
    for (const { server } of sessions.values()) await server.close().catch(() => undefined);
    sessions.clear();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => httpServer.close(() => resolve()));
  };
  const notifyAll = async () => {
    for (const { server } of sessions.values()) await server.sendToolListChanged().catch(() => undefined);
  };

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    cancelled,
    failNextCalls: (count, status) => {
      failures = { count, status };
    },
    addTool: async (tool, run) => {
      define(tool, run);
      await notifyAll();
    },
    removeTool: async (name) => {
      tools.delete(name);
      await notifyAll();
    },
    sessionCount: () => sessions.size,
    restart: async () => {
      await stop();
      httpServer = http.createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
      track(httpServer);
      await new Promise<void>((resolve) => httpServer.listen(port, '127.0.0.1', resolve));
    },
    stop,
    close: stop,
  };
}
