// The web dashboard (dashboard/, built by Vite into dist/dashboard/) served at `/` and below, as
// static files with the single-page fallback to index.html. The API keeps /graphql, /health, /ready.
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import sirv from 'sirv';
import { PACKAGE_ROOT } from '../package-root.js';

export type DashboardHandler = (req: IncomingMessage, res: ServerResponse) => void;

export const DASHBOARD_DIR = join(PACKAGE_ROOT, 'dist', 'dashboard');

/** Serves the built dashboard; without a build, `/` says how to make one. */
export function dashboardHandler(dir = DASHBOARD_DIR): DashboardHandler {
  if (!existsSync(join(dir, 'index.html'))) {
    return (_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('The dashboard is not built: run `npm run build` (GraphiQL is at /graphql)\n');
    };
  }
  // Hashed assets are immutable; index.html is revalidated, so browsers take a new build as soon as
  // the server serves it. sirv lists the files once, at start: a build made meanwhile is served after
  // a restart (`npm run dashboard:dev` is the way to work on the dashboard).
  const serve = sirv(dir, {
    single: true,
    etag: true,
    // The build writes .br and .gz beside each text file (dashboard/vite.config.ts).
    brotli: true,
    gzip: true,
    setHeaders: (res, pathname) => {
      res.setHeader('cache-control', pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  return (req, res) =>
    serve(req, res, () => {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Not found\n');
    });
}
