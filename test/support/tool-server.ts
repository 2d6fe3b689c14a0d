// A real HTTP server for HTTP tool tests: it verifies every request's X-Toolrun-Signature the way
// the README tells receivers to (its own HMAC code, not toolrun's), records what it got, and
// answers per path.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

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
export function verifyToolrunSignature(secret: string, rawBody: string, header: string | undefined, toleranceSeconds = 300): boolean {
  if (!header) return false;
  const fields = Object.fromEntries(header.split(',').map((part) => part.trim().split('=', 2)));
  const timestamp = Number(fields.t);
  if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest();
  const given = Buffer.from(String(fields.v1 ?? ''), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
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
      const header = request.headers['x-toolrun-signature'] as string | undefined;
      const path = (request.url ?? '/').split('?')[0]!;
      const call: ReceivedCall = {
        path,
        body: JSON.parse(rawBody || '{}'),
        rawBody,
        headers: request.headers,
        verified: [...secrets].some((secret) => verifyToolrunSignature(secret, rawBody, header)),
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
