import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

/** A caller's id is kept when it is a plausible id (a proxy's, a client's); anything else gets a new one. */
const ACCEPTED = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  const value = Array.isArray(given) ? given[0] : given;
  return value && ACCEPTED.test(value) ? value : randomUUID();
}
