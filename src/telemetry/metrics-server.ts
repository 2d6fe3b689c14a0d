// /metrics over HTTP: on the API's own port (app.ts routes it here) and, for a worker, on a port of
// its own (WORKER_METRICS_PORT). Like /health and /ready it needs no API key: keep the port private
// to the network Prometheus scrapes from.
import { createServer, type Server, type ServerResponse } from 'node:http';
import { renderMetrics } from './metrics.js';

export async function serveMetrics(res: ServerResponse): Promise<void> {
  try {
    const { contentType, body } = await renderMetrics();
    res.writeHead(200, { 'content-type': contentType });
    res.end(body);
  } catch (error) {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end(`collecting metrics failed: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}

export interface MetricsServer {
  server: Server;
  /** Resolves with the bound port. */
  listen(port: number, host: string): Promise<number>;
  close(): Promise<void>;
}

export function createMetricsServer(): MetricsServer {
  const server = createServer((req, res) => {
    if ((req.url ?? '/').split('?')[0] === '/metrics') return void serveMetrics(res);
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found: metrics are at /metrics\n');
  });
  return {
    server,
    listen: (port, host) => listenOn(server, port, host),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Starts an HTTP server on `port` (0: any free one); resolves with the bound port, rejects on a listen error. */
export function listenOn(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}
