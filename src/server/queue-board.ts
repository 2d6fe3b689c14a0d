// bull-board at /admin/queues (BULL_BOARD_ENABLED): the BullMQ queues' jobs, for keys with the admin
// role. A browser sends the key as the password of HTTP Basic authentication (any user name; it
// asks once and repeats it for the board's own requests); scripts may send `Authorization: Bearer`.
// The board can retry, promote and remove jobs: it is off unless enabled.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import express from 'express';
import { bearerToken } from '../domain/tenants/api-keys.js';
import type { Services } from '../services.js';
import { QUEUE_BOARD_PATH } from './paths.js';

export function createQueueBoard(services: Services): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({
    queues: Object.values(services.queues.all).map((queue) => new BullMQAdapter(queue)),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'toolrun queues' } },
  });
  const app = express();
  app.disable('x-powered-by');
  app.use(QUEUE_BOARD_PATH, serverAdapter.getRouter());

  return async (req, res) => {
    const viewer = await services.apiKeys.authenticate(keyOf(req.headers.authorization));
    if (!viewer) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="toolrun admin (password: an API key with the admin role)"', 'content-type': 'text/plain' });
      return void res.end('an API key with the admin role is required (HTTP Basic password, or Authorization: Bearer)\n');
    }
    if (!viewer.roles.includes('admin')) {
      res.writeHead(403, { 'content-type': 'text/plain' });
      return void res.end('this API key does not have the admin role\n');
    }
    app(req as express.Request, res as express.Response);
  };
}

/** The key of `Authorization: Bearer <key>` or of Basic authentication's password. */
function keyOf(header: string | undefined): string | null {
  const basic = header && /^Basic\s+(\S+)\s*$/i.exec(header);
  if (!basic) return bearerToken(header);
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  return decoded.slice(decoded.indexOf(':') + 1) || null;
}
