// web_fetch: one HTTP(S) GET or HEAD with a size cap, a time cap and an address guard.
//
// The address guard (../address-guard.ts) refuses non-public addresses unless configuration
// allows them; it checks IP-literal hosts before connecting and every address a host name
// resolves to at connect time. Each redirect hop is a new request through the same guard.
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { ToolFailureError } from '../../model/outcome.js';
import { AddressNotAllowedError, type AddressPolicy, checkHostLiteral, guardedLookup, isAddressAllowed } from '../address-guard.js';
import { defineBuiltinTool, type ToolContext } from '../types.js';

/** A URL as messages and results show it: without the credentials it may carry. */
function shown(url: URL): string {
  if (!url.username && !url.password) return url.href;
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href;
}

export const MAX_REDIRECTS = 5;
const PROGRESS_INTERVAL_MS = 100;
const USER_AGENT = 'toolrun-web-fetch/0.1';
const RETURNED_HEADERS = ['content-type', 'content-length', 'content-encoding', 'last-modified', 'etag', 'cache-control', 'date', 'server'];
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const WHO = 'web_fetch';

/** Kept here for existing importers; the guard lives in ../address-guard.ts. */
export { isAddressAllowed };

function failure(cls: 'INVALID_REQUEST' | 'PERMISSION_DENIED' | 'EXTERNAL' | 'TIMEOUT', code: string, message: string, retry = false) {
  return new ToolFailureError({ class: cls, code, message, retry: retry ? { kind: 'SAFE' } : { kind: 'NEVER' } });
}

function checkUrl(url: URL, policy: AddressPolicy, hop: number): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw hop === 0
      ? failure('INVALID_REQUEST', 'unsupported_scheme', `Only http and https URLs can be fetched, not ${url.protocol}`)
      : failure('EXTERNAL', 'unsupported_redirect', `Refusing to follow a redirect to ${url.protocol} (${shown(url)})`);
  }
  try {
    checkHostLiteral(url, policy, WHO);
  } catch (error) {
    if (!(error instanceof AddressNotAllowedError)) throw error;
    throw failure('PERMISSION_DENIED', 'address_not_allowed', `Refused to fetch ${shown(url)}: ${error.message}`);
  }
}

function charsetOf(contentType: string | undefined): string {
  const match = contentType?.match(/charset\s*=\s*"?([^";\s]+)"?/i);
  return match ? match[1]!.toLowerCase() : 'utf-8';
}

function decodeBody(chunks: Buffer[], contentType: string | undefined): string {
  const bytes = Buffer.concat(chunks);
  try {
    return new TextDecoder(charsetOf(contentType)).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

interface Exchange {
  request: http.ClientRequest;
  response: http.IncomingMessage;
}

function send(url: URL, method: 'GET' | 'HEAD', agent: http.Agent, lookup: net.LookupFunction, signal: AbortSignal): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const module = url.protocol === 'https:' ? https : http;
    const request = module.request(url, {
      method,
      agent,
      lookup,
      signal,
      headers: { 'user-agent': USER_AGENT, accept: '*/*', 'accept-encoding': 'identity' },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      // Later errors (a body cut short, our own destroy after truncation) surface through the
      // response stream; keep the request from raising an unhandled 'error'.
      request.removeListener('error', reject);
      request.on('error', () => {});
      resolve({ request, response });
    });
    request.end();
  });
}

export interface WebFetchResult {
  url: string;
  status: number;
  statusText: string;
  headers: Record<string, string>;
  contentType: string | null;
  body: string;
  bytes: number;
  truncated: boolean;
  redirects: number;
}

export async function webFetchExecute(args: Record<string, unknown>, context: ToolContext): Promise<WebFetchResult> {
  const settings = context.webFetch;
  const method = args.method === 'HEAD' ? 'HEAD' : 'GET';
  const maxBytes = Math.min(settings.maxBytes, typeof args.maxBytes === 'number' ? args.maxBytes : settings.maxBytes);
  const timeoutMs = Math.min(settings.timeoutMs, typeof args.timeoutMs === 'number' ? args.timeoutMs : settings.timeoutMs);
  let url: URL;
  try {
    url = new URL(String(args.url));
  } catch {
    throw failure('INVALID_REQUEST', 'invalid_url', `Invalid URL ${JSON.stringify(args.url)}`);
  }
  checkUrl(url, settings, 0);
  if (context.signal.aborted) throw context.signal.reason;

  const policy: AddressPolicy = { allowPrivate: settings.allowPrivate, allowLoopback: settings.allowLoopback };
  const lookup = guardedLookup(policy, WHO);
  const agents = { 'http:': new http.Agent({ keepAlive: false, lookup }), 'https:': new https.Agent({ keepAlive: false, lookup }) };
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('web_fetch time cap reached'));
  }, timeoutMs);
  const onAbort = () => controller.abort(context.signal.reason);
  context.signal.addEventListener('abort', onAbort, { once: true });

  try {
    let redirects = 0;
    for (;;) {
      const { response } = await send(url, method, agents[url.protocol as 'http:' | 'https:'], lookup, controller.signal);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(status) && location) {
        response.resume();
        if (redirects >= MAX_REDIRECTS) {
          throw failure('EXTERNAL', 'too_many_redirects', `Stopped after ${MAX_REDIRECTS} redirects (last: ${shown(url)} → ${location})`);
        }
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw failure('EXTERNAL', 'invalid_redirect', `${shown(url)} redirected to an invalid URL ${JSON.stringify(location)}`);
        }
        checkUrl(next, policy, redirects + 1);
        url = next;
        redirects++;
        continue;
      }

      const contentLength = Number(response.headers['content-length']);
      const total = Number.isFinite(contentLength) && contentLength >= 0 ? contentLength : undefined;
      const chunks: Buffer[] = [];
      let bytes = 0;
      let truncated = false;
      let lastReport = 0;
      const report = () => {
        lastReport = Date.now();
        context.reportProgress({ current: bytes, ...(total !== undefined ? { total } : {}), unit: 'bytes', label: 'fetching' });
      };
      if (method === 'GET') {
        for await (const chunk of response as AsyncIterable<Buffer>) {
          if (bytes + chunk.length > maxBytes) {
            chunks.push(chunk.subarray(0, maxBytes - bytes));
            bytes = maxBytes;
            truncated = true;
            break; // ends the iteration and destroys the response: nothing more is read
          }
          chunks.push(chunk);
          bytes += chunk.length;
          if (Date.now() - lastReport >= PROGRESS_INTERVAL_MS) report();
        }
      } else response.resume();
      report();

      const headers: Record<string, string> = {};
      for (const name of RETURNED_HEADERS) {
        const value = response.headers[name];
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      const contentType = response.headers['content-type'] ?? null;
      return {
        url: shown(url),
        status,
        statusText: response.statusMessage ?? '',
        headers,
        contentType,
        body: decodeBody(chunks, contentType ?? undefined),
        bytes,
        truncated,
        redirects,
      };
    }
  } catch (error) {
    if (error instanceof ToolFailureError) throw error;
    if (context.signal.aborted) throw context.signal.reason;
    if (error instanceof AddressNotAllowedError) {
      throw failure('PERMISSION_DENIED', 'address_not_allowed', `Refused to fetch ${shown(url)}: ${error.message}`);
    }
    if (timedOut) throw failure('TIMEOUT', 'fetch_timeout', `Fetching ${shown(url)} took longer than ${timeoutMs} ms`, true);
    const code = (error as NodeJS.ErrnoException).code;
    throw failure('EXTERNAL', 'network_error', `Fetching ${shown(url)} failed: ${code ? `${code}: ` : ''}${(error as Error).message}`, true);
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener('abort', onAbort);
    agents['http:'].destroy();
    agents['https:'].destroy();
  }
}

export const webFetch = defineBuiltinTool({
  name: 'web_fetch',
  description:
    'Fetches a public http(s) URL with GET or HEAD and returns its status, a few headers and the body as text. The body is cut at `maxBytes` (`truncated: true`); redirects are followed (at most 5); private and loopback addresses are refused.',
  parametersSchema: {
    type: 'object',
    properties: {
      url: { type: 'string', minLength: 1, maxLength: 8192, description: 'http:// or https:// URL' },
      maxBytes: { type: 'integer', minimum: 1, maximum: 50 * 1024 * 1024, description: 'Largest body to read (capped by the server configuration)' },
      timeoutMs: { type: 'integer', minimum: 100, maximum: 120_000, description: 'Time cap (capped by the server configuration)' },
      method: { type: 'string', enum: ['GET', 'HEAD'], default: 'GET' },
    },
    required: ['url'],
    additionalProperties: false,
  },
  hints: { readonly: true, idempotent: true, openWorld: true, supportsBackground: true },
  retry: { maxAttempts: 3, backoff: { type: 'EXPONENTIAL', delayMs: 500, maxDelayMs: 5000 } },
  timeoutMs: 130_000,
  execute: webFetchExecute,
});
