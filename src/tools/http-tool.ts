// HTTP tools: a tenant's tool that runs as a signed JSON POST to the tenant's endpoint.
//
// Request: POST <url> with the body `{"callId","sessionId","tool","args","attempt"}`, signed the
// Standard Webhooks way (https://www.standardwebhooks.com; its libraries verify it):
//   webhook-id: <replay key>:<attempt>
//   webhook-timestamp: <unix seconds>
//   webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<raw body>")>
// where key is the base64 after `whsec_` in the tool's signing secret; during a secret rotation's
// overlap a second, space-separated `v1,…` is made with the old secret. Plus
// `Idempotency-Key: <replay key>` — the same on every attempt.
//
// Response: 2xx with a JSON body (or an empty one, read as null) is the tool value; a malformed
// tagged value fails the call. 4xx (and 3xx) is an EXTERNAL failure that is never retried; 5xx, 429 and
// network errors are EXTERNAL failures that are safe to retry (Retry-After honoured, capped);
// hitting the call's deadline is a TIMEOUT failure that is safe to retry. Redirects are not
// followed. A body larger than the configured cap fails RESOURCE_LIMIT. The address guard
// refuses private and loopback endpoints unless configuration allows them.
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { type FailureClass, type RetryDisposition, ToolFailureError } from '../model/outcome.js';
import { decodeToolValue, type Json, MalformedToolValueError } from '../model/tool-value.js';
import { firstCharacters } from '../model/text.js';
import { AddressNotAllowedError, type AddressPolicy, checkHostLiteral, guardedLookup } from './address-guard.js';
import type { ToolContext } from './types.js';

export const SIGNATURE_HEADER = 'webhook-signature';
const USER_AGENT = 'toolrun-http-tool/0.1';
const SECRET_PREFIX = 'whsec_';
/** How much of an error response's body is kept for `raw` (characters, cut between them; the message quotes its first 200). */
const ERROR_BODY_CHARS = 1000;
const WHO = 'HTTP tools';

export interface HttpToolSettings extends AddressPolicy {
  maxResponseBytes: number;
  maxRetryAfterMs: number;
}

export interface HttpToolTarget {
  url: string;
  /** The current secret first; an old one still in its rotation overlap after it. */
  signingSecrets: string[];
}

export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The Standard Webhooks headers of a request body, one signature per secret. */
export function webhookHeaders(secrets: readonly string[], id: string, body: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  const signed = `${id}.${timestamp}.${body}`;
  const signatures = secrets.map((secret) => {
    // Secrets made before Standard Webhooks were base64url; Node reads both alphabets.
    const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
    return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
  });
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), [SIGNATURE_HEADER]: signatures.join(' ') };
}

function fail(cls: FailureClass, code: string, message: string, retry: RetryDisposition = { kind: 'NEVER' }, raw?: Json): ToolFailureError {
  return new ToolFailureError({ class: cls, code, message, retry, ...(raw !== undefined ? { raw } : {}) });
}

/** Retry-After as milliseconds: delta seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its day first (`Sun, 06 Nov 1994 08:49:37 GMT`, or the two obsolete forms);
  // anything else (`1.5`, `-5`, which Date.parse reads as years) is no Retry-After: the backoff applies.
  if (!HTTP_DATE_START.test(text)) return null;
  // HTTP dates are in GMT; the asctime form does not say so (Date.parse would read local time).
  const at = Date.parse(/GMT$/.test(text) ? text : `${text} GMT`);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

const HTTP_DATE_START = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /;

class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
}

/** Reads at most `maxBytes` of the body; with `truncate` a longer body is cut, else it throws. */
async function readBody(response: http.IncomingMessage, maxBytes: number, truncate: boolean): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    if (bytes + chunk.length > maxBytes) {
      if (!truncate) throw new BodyTooLargeError();
      chunks.push(chunk.subarray(0, maxBytes - bytes));
      break; // ends the iteration and destroys the response
    }
    chunks.push(chunk);
    bytes += chunk.length;
  }
  return Buffer.concat(chunks);
}

function send(url: URL, body: string, headers: Record<string, string>, agent: http.Agent, signal: AbortSignal): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const module = url.protocol === 'https:' ? https : http;
    const request = module.request(url, { method: 'POST', agent, signal, headers });
    request.on('error', reject);
    request.on('response', (response) => {
      // Later errors surface through the response stream.
      request.removeListener('error', reject);
      request.on('error', () => {});
      resolve(response);
    });
    request.end(body);
  });
}

function isTimeout(signal: AbortSignal): boolean {
  return (signal.reason as { kind?: unknown } | undefined)?.kind === 'timeout';
}

/** Runs one attempt of an HTTP tool call. Returns the tool value; throws ToolFailureError. */
export async function callHttpTool(target: HttpToolTarget, args: Record<string, unknown>, context: ToolContext, settings: HttpToolSettings): Promise<unknown> {
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    throw fail('INVALID_REQUEST', 'invalid_url', `The URL of tool \`${context.tool}\` is invalid`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw fail('INVALID_REQUEST', 'unsupported_scheme', `Tool \`${context.tool}\` has a ${url.protocol} URL; only http and https are supported`);
  }
  const where = `${url.origin}${url.pathname}`;
  try {
    checkHostLiteral(url, settings, WHO);
  } catch (error) {
    if (error instanceof AddressNotAllowedError) throw fail('PERMISSION_DENIED', 'address_not_allowed', `Refused to call ${where}: ${error.message}`);
    throw error;
  }
  if (context.signal.aborted) throw context.signal.reason;

  const body = JSON.stringify({ callId: context.callId, sessionId: context.sessionId, tool: context.tool, args, attempt: context.attempt });
  const headers = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    accept: 'application/json',
    'accept-encoding': 'identity',
    'user-agent': USER_AGENT,
    'idempotency-key': context.replayKey,
    ...webhookHeaders(target.signingSecrets, `${context.replayKey}:${context.attempt}`, body),
  };
  const lookup = guardedLookup(settings, WHO);
  const agent = url.protocol === 'https:' ? new https.Agent({ keepAlive: false, lookup }) : new http.Agent({ keepAlive: false, lookup });
  try {
    const response = await send(url, body, headers, agent, context.signal);
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) return await successValue(response, context, settings, where);

    const snippet = firstCharacters((await readBody(response, ERROR_BODY_CHARS * 4, true)).toString('utf8'), ERROR_BODY_CHARS);
    const said = `${where} answered ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}`;
    const raw: Json = { status, body: snippet };
    if (status === 429 || status >= 500) {
      const afterMs = parseRetryAfter(response.headers['retry-after']);
      const retry: RetryDisposition = afterMs === null ? { kind: 'SAFE' } : { kind: 'SAFE', afterMs: Math.min(afterMs, settings.maxRetryAfterMs) };
      throw fail('EXTERNAL', `http_${status}`, `Tool \`${context.tool}\` failed: ${said}`, retry, raw);
    }
    const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
    throw fail('EXTERNAL', `http_${status}`, `Tool \`${context.tool}\` failed: ${said}${redirect}${snippet ? `: ${firstCharacters(snippet, 200)}` : ''}`, { kind: 'NEVER' }, raw);
  } catch (error) {
    if (error instanceof ToolFailureError) throw error;
    if (context.signal.aborted) {
      if (isTimeout(context.signal)) {
        throw fail('TIMEOUT', 'http_timeout', `Tool \`${context.tool}\` got no complete answer from ${where} before its deadline`, { kind: 'SAFE' });
      }
      throw context.signal.reason;
    }
    if (error instanceof AddressNotAllowedError) throw fail('PERMISSION_DENIED', 'address_not_allowed', `Refused to call ${where}: ${error.message}`);
    const code = (error as NodeJS.ErrnoException).code;
    throw fail('EXTERNAL', 'network_error', `Tool \`${context.tool}\` could not reach ${where}: ${code ? `${code}: ` : ''}${(error as Error).message}`, { kind: 'SAFE' });
  } finally {
    agent.destroy();
  }
}

async function successValue(response: http.IncomingMessage, context: ToolContext, settings: HttpToolSettings, where: string): Promise<unknown> {
  const tooLarge = () =>
    fail('RESOURCE_LIMIT', 'response_too_large', `Tool \`${context.tool}\`: the response of ${where} is larger than ${settings.maxResponseBytes} bytes`);
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > settings.maxResponseBytes) {
    response.destroy();
    throw tooLarge();
  }
  let bytes: Buffer;
  try {
    bytes = await readBody(response, settings.maxResponseBytes, false);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw tooLarge();
    throw error;
  }
  const text = bytes.toString('utf8');
  if (text.trim() === '') return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw fail('EXTERNAL', 'invalid_response', `Tool \`${context.tool}\`: ${where} answered ${response.statusCode} without a JSON body`, { kind: 'NEVER' }, {
      status: response.statusCode ?? 0,
      body: firstCharacters(text, ERROR_BODY_CHARS),
    });
  }
  try {
    return decodeToolValue(json);
  } catch (error) {
    if (error instanceof MalformedToolValueError) {
      throw fail('EXTERNAL', 'invalid_tool_value', `Tool \`${context.tool}\`: ${where} answered with an invalid tool value: ${error.message}`);
    }
    throw error;
  }
}
