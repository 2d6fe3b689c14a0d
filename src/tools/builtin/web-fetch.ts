// web_fetch: one HTTP(S) GET or HEAD with a size cap, a time cap and an address guard.
//
// The guard refuses every non-public address (private, loopback, link-local, unique-local,
// multicast, unspecified, reserved, …: anything ipaddr.js does not classify as `unicast`) unless
// the deployment allows private addresses (all of them) or loopback ones. It runs where the
// connection is made: IP-literal hosts are checked before connecting, and host names through a
// `lookup` on the request's Agent, which checks every address DNS returns at connect time. So a
// name that resolves to an internal address, DNS rebinding and redirects (each hop is a new
// request through the same guard) are all covered.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { ToolFailureError } from '../../domain/outcome.js';
import { defineBuiltinTool, type ToolContext, type WebFetchSettings } from '../types.js';

export const MAX_REDIRECTS = 5;
const PROGRESS_INTERVAL_MS = 100;
const USER_AGENT = 'toolrun-web-fetch/0.1';
const RETURNED_HEADERS = ['content-type', 'content-length', 'content-encoding', 'last-modified', 'etag', 'cache-control', 'date', 'server'];
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

type AddressPolicy = Pick<WebFetchSettings, 'allowPrivate' | 'allowLoopback'>;

/** The ipaddr.js range of an address (`unicast` means public); IPv4-mapped IPv6 counts as IPv4. */
export function addressRange(address: string): string {
  let parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range();
}

export function isAddressAllowed(address: string, policy: AddressPolicy): boolean {
  if (policy.allowPrivate) return true;
  let range: string;
  try {
    range = addressRange(address);
  } catch {
    return false;
  }
  return range === 'unicast' || (policy.allowLoopback && range === 'loopback');
}

class AddressNotAllowedError extends Error {
  override name = 'AddressNotAllowedError';
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    let range = 'invalid';
    try {
      range = addressRange(address);
    } catch {
      // keep 'invalid'
    }
    super(
      `${host === address ? address : `${host} resolves to ${address}, which`} is a non-public address (${range}); web_fetch only reaches public addresses`,
    );
  }
}

function guardedLookup(policy: AddressPolicy): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const refused = addresses.find((entry) => !isAddressAllowed(entry.address, policy));
      if (refused) return callback(new AddressNotAllowedError(hostname, refused.address), '');
      if (addresses.length === 0) {
        return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '');
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

function failure(cls: 'INVALID_REQUEST' | 'PERMISSION_DENIED' | 'EXTERNAL' | 'TIMEOUT', code: string, message: string, retry = false) {
  return new ToolFailureError({ class: cls, code, message, retry: retry ? { kind: 'SAFE' } : { kind: 'NEVER' } });
}

function checkUrl(url: URL, policy: AddressPolicy, hop: number): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw hop === 0
      ? failure('INVALID_REQUEST', 'unsupported_scheme', `Only http and https URLs can be fetched, not ${url.protocol}`)
      : failure('EXTERNAL', 'unsupported_redirect', `Refusing to follow a redirect to ${url.protocol} (${url.href})`);
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && !isAddressAllowed(host, policy)) {
    throw failure('PERMISSION_DENIED', 'address_not_allowed', `Refused to fetch ${url.href}: ${new AddressNotAllowedError(host, host).message}`);
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
  const lookup = guardedLookup(policy);
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
          throw failure('EXTERNAL', 'too_many_redirects', `Stopped after ${MAX_REDIRECTS} redirects (last: ${url.href} → ${location})`);
        }
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw failure('EXTERNAL', 'invalid_redirect', `${url.href} redirected to an invalid URL ${JSON.stringify(location)}`);
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
        url: url.href,
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
      throw failure('PERMISSION_DENIED', 'address_not_allowed', `Refused to fetch ${url.href}: ${error.message}`);
    }
    if (timedOut) throw failure('TIMEOUT', 'fetch_timeout', `Fetching ${url.href} took longer than ${timeoutMs} ms`, true);
    const code = (error as NodeJS.ErrnoException).code;
    throw failure('EXTERNAL', 'network_error', `Fetching ${url.href} failed: ${code ? `${code}: ` : ''}${(error as Error).message}`, true);
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
