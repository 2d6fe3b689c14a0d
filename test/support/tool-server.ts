// A real HTTP server for HTTP tool tests: it verifies every request's Standard Webhooks signature
// the way the README tells receivers to (the `standardwebhooks` library, not toolrun's code),
// records what it got, and answers per path.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedCall {
  path: string;
  body: { callId: string; sessionId: string; tool: string; args: Record<string, unknown>; attempt: number };
  rawBody: string;
  headers: http.IncomingHttpHeaders;
  /** The signature matched one of the known secrets and its timestamp was fresh. */
  verified: boolean;
  receivedAt: number;
}

export type Handler = (call: ReceivedCall, response: http.ServerResponse) => void;

export interface ToolServer {
  base: string;
  received: ReceivedCall[];
  /** Secrets the server accepts (a tool's secret becomes known after registration). */
  secrets: Set<string>;
  route(path: string, handler: Handler): void;
  callsTo(path: string): ReceivedCall[];
  close(): Promise<void>;
}

/** The receiver side of the signature scheme, as documented in the README. */
/** Whether the request is signed with the secret, checked by the `standardwebhooks` library as receivers do. */
export function verifyWebhook(secret: string, rawBody: string, headers: http.IncomingHttpHeaders): boolean {
  const pick = (name: string) => String(headers[name] ?? '');
  try {
    new Webhook(secret).verify(rawBody, { 'webhook-id': pick('webhook-id'), 'webhook-timestamp': pick('webhook-timestamp'), 'webhook-signature': pick('webhook-signature') });
    return true;
  } catch {
    return false;
  }
}

export function json(response: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers });
  response.end(body);
}

export async function startToolServer(): Promise<ToolServer> {
  const routes = new Map<string, Handler>();
  const received: ReceivedCall[] = [];
  const secrets = new Set<string>();
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const path = (request.url ?? '/').split('?')[0]!;
      const call: ReceivedCall = {
        path,
        body: JSON.parse(rawBody || '{}'),
        rawBody,
        headers: request.headers,
        verified: [...secrets].some((secret) => verifyWebhook(secret, rawBody, request.headers)),
        receivedAt: Date.now(),
      };
      received.push(call);
      if (!call.verified) return json(response, 401, { error: 'bad signature' });
      const handler = routes.get(path);
      if (!handler) return json(response, 404, { error: `no route ${path}` });
      handler(call, response);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    received,
    secrets,
    route: (path, handler) => routes.set(path, handler),
    callsTo: (path) => received.filter((call) => call.path === path),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
