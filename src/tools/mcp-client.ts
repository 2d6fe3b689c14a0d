// MCP servers as tool sources, the client side: pooled connections (one per server and
// credentials, per process), tools/list over all pages, and tools/call for one attempt of a call.
//
// A call sends a progress token (notifications/progress → ToolCallProgress); when its signal
// fires (cancel, deadline, shutdown) the SDK sends notifications/cancelled. The result maps onto a
// tool value: structuredContent is the value, text content is text, image/audio/resource content
// becomes session files (images as attachments). `isError` results are EXECUTION failures with
// the server's message; transport failures and 5xx are EXTERNAL failures, safe to retry when the
// request never left or was not taken (refused, 429, 503) or the tool may run twice (read-only,
// idempotent); other HTTP statuses and protocol errors are typed failures that are not retried.
//
// A connection is dropped when its transport closes or fails (or a broken stream is followed by an
// unanswered ping); a server that restarted answers the old session with 404, and a request that
// found its connection closed never left: either is sent again on a new connection (it never ran).
import { createHash } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { type FailureClass, type RetryDisposition, ToolFailureError } from '../model/outcome.js';
import { Attachment, IMAGE_MEDIA_TYPES, type ImageMediaType } from '../model/tool-value.js';
import { firstCharacters } from '../model/text.js';
import { AddressNotAllowedError, type AddressPolicy } from './address-guard.js';
import { type GuardedFetch, guardedFetch } from './guarded-fetch.js';
import type { ToolContext } from './types.js';

type ClientModule = typeof import('@modelcontextprotocol/sdk/client/index.js');
type TransportModule = typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
type TypesModule = typeof import('@modelcontextprotocol/sdk/types.js');
interface Sdk {
  Client: ClientModule['Client'];
  StreamableHTTPClientTransport: TransportModule['StreamableHTTPClientTransport'];
  StreamableHTTPError: TransportModule['StreamableHTTPError'];
  McpError: TypesModule['McpError'];
  ErrorCode: TypesModule['ErrorCode'];
  ToolListChangedNotificationSchema: TypesModule['ToolListChangedNotificationSchema'];
}

/**
 * The SDK, loaded with the first connection: a process that never reaches an MCP server does not
 * load it (its schemas cost a fifth of a second of every start-up). Its errors can only come once it
 * is loaded, so the error checks read `sdk` as it is.
 */
let sdk: Sdk | null = null;

async function loadSdk(): Promise<Sdk> {
  if (!sdk) {
    const [client, transport, types] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    sdk = {
      Client: client.Client,
      StreamableHTTPClientTransport: transport.StreamableHTTPClientTransport,
      StreamableHTTPError: transport.StreamableHTTPError,
      McpError: types.McpError,
      ErrorCode: types.ErrorCode,
      ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    };
  }
  return sdk;
}

const WHO = 'MCP servers';
const CLIENT_INFO = { name: 'toolrun', version: '0.1.0' };
/** tools/list pages read at most (a server that pages for ever is not followed further). */
const MAX_LIST_PAGES = 100;
const ERROR_TEXT_CHARS = 2000;
/** How long a server whose response stream broke has to answer a ping before its connection is dropped. */
const PING_TIMEOUT_MS = 3000;

/** Bearer token and extra headers sent with every request to a server. */
export interface McpCredentials {
  bearerToken?: string;
  headers?: Record<string, string>;
}

export interface McpServerTarget {
  id: string;
  name: string;
  url: string;
  credentials: McpCredentials | null;
}

export interface McpClientSettings extends AddressPolicy {
  /** How long connecting and listing may take when no call deadline bounds them. */
  requestTimeoutMs: number;
  /** A result whose text and structured content are larger than this (UTF-8 bytes) fails RESOURCE_LIMIT. */
  maxResultBytes: number;
  /** A message from a server (a JSON body, an event of a stream) larger than this is not read on: its request fails RESOURCE_LIMIT. */
  maxMessageBytes: number;
}

export interface McpConnectionHooks {
  /** A server said its tools changed (notifications/tools/list_changed). */
  onToolListChanged?(target: McpServerTarget): void;
  logger?: Logger;
}

interface Connection {
  client: Client;
  http: GuardedFetch;
}

function fail(cls: FailureClass, code: string, message: string, retry: RetryDisposition = { kind: 'NEVER' }, raw?: unknown): ToolFailureError {
  return new ToolFailureError({ class: cls, code, message, retry, ...(raw !== undefined ? { raw } : {}) });
}

/** Pooled connections to the MCP servers of every tenant a process serves. */
export class McpConnections {
  private readonly connections = new Map<string, Promise<Connection>>();
  private hooks: McpConnectionHooks;

  constructor(
    private readonly settings: McpClientSettings,
    hooks: McpConnectionHooks = {},
  ) {
    this.hooks = hooks;
  }

  /** Wires the hooks once their receivers exist (the composition root builds both sides). */
  setHooks(hooks: McpConnectionHooks): void {
    this.hooks = hooks;
  }

  /** Every tool the server lists, all pages. Throws ToolFailureError when the server cannot be read. */
  async listTools(target: McpServerTarget, signal?: AbortSignal): Promise<Tool[]> {
    return this.withConnection(target, signal, true, async (client) => {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const result = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout: this.settings.requestTimeoutMs });
        tools.push(...result.tools);
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      return tools;
    }, 'list its tools');
  }

  /**
   * Runs one attempt of a call: tools/call with a progress token. Returns the tool value; throws
   * ToolFailureError. `rerunnable` (an idempotent or read-only tool): a transport failure after the
   * request was sent may be retried; for any other tool it may have run, so it is not.
   */
  async callTool(target: McpServerTarget, mcpName: string, args: Record<string, unknown>, context: ToolContext, rerunnable: boolean): Promise<unknown> {
    const result = await this.withConnection(target, context.signal, rerunnable, async (client) => {
      let step = 0;
      return (await client.callTool({ name: mcpName, arguments: args }, undefined, {
        signal: context.signal,
        // The call's own deadline (the signal) bounds it; the SDK's timer only backs it up.
        timeout: Math.max(1, context.deadline.getTime() - Date.now()) + 1000,
        onprogress: (progress) => {
          step += 1;
          context.reportProgress({
            current: progress.progress ?? step,
            ...(progress.total !== undefined ? { total: progress.total } : {}),
            ...(progress.message ? { message: progress.message } : {}),
          });
        },
      })) as CallToolResult;
    }, `call \`${context.tool}\``);
    return valueOfResult(result, context, this.settings.maxResultBytes);
  }

  /** Closes every connection (process shutdown). */
  async close(): Promise<void> {
    const pending = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(pending.map(async (connecting) => this.closeConnection(await connecting.catch(() => null))));
  }

  private key(target: McpServerTarget): string {
    return JSON.stringify([target.id, target.url, target.credentials]);
  }

  private async withConnection<T>(target: McpServerTarget, signal: AbortSignal | undefined, rerunnable: boolean, use: (client: Client) => Promise<T>, what: string): Promise<T> {
    for (let round = 0; ; round++) {
      const key = this.key(target);
      let connection: Connection;
      try {
        connection = await this.connection(key, target, signal);
      } catch (error) {
        throw this.failureOf(error, target, signal, `could not connect to MCP server \`${target.name}\` to ${what}`);
      }
      try {
        return await use(connection.client);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (error instanceof ToolFailureError) throw error;
        if (!(sdk && error instanceof sdk.McpError)) this.drop(key, connection);
        // The server restarted and forgot the session, or the connection was dropped (a failed ping)
        // before the request left: it never ran, so it is sent once more on a new connection.
        const unsent = error instanceof Error && error.message === 'Not connected';
        if (round < 2 && ((sdk && error instanceof sdk.StreamableHTTPError && error.code === 404) || unsent)) continue;
        const failure = this.failureOf(error, target, signal, `MCP server \`${target.name}\` failed to ${what}`);
        // Unless the request never left (a refused connection) or the server said it did not take it
        // (429, 503), it may have run.
        const notTaken = unsent || (sdk && error instanceof sdk.StreamableHTTPError && (error.code === 429 || error.code === 503)) || errnoOf(error) === 'ECONNREFUSED';
        if (!rerunnable && !notTaken && failure instanceof ToolFailureError && failure.failure.retry.kind === 'SAFE') {
          throw new ToolFailureError({ ...failure.failure, retry: { kind: 'NEVER' } });
        }
        throw failure;
      }
    }
  }

  private connection(key: string, target: McpServerTarget, signal: AbortSignal | undefined): Promise<Connection> {
    let connecting = this.connections.get(key);
    if (!connecting) {
      connecting = this.connect(key, target, signal);
      this.connections.set(key, connecting);
      connecting.catch(() => {
        if (this.connections.get(key) === connecting) this.connections.delete(key);
      });
    }
    return connecting;
  }

  private async connect(key: string, target: McpServerTarget, signal: AbortSignal | undefined): Promise<Connection> {
    const http = guardedFetch(this.settings, WHO);
    const headers: Record<string, string> = { ...(target.credentials?.headers ?? {}) };
    if (target.credentials?.bearerToken) headers.authorization = `Bearer ${target.credentials.bearerToken}`;
    const { Client, StreamableHTTPClientTransport, ToolListChangedNotificationSchema } = await loadSdk();
    const transport = new StreamableHTTPClientTransport(new URL(target.url), { fetch: limitMessages(http.fetch, this.settings.maxMessageBytes), requestInit: { headers } });
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const connection: Connection = { client, http };
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => this.hooks.onToolListChanged?.(target));
    client.onclose = () => this.forget(key, connection);
    // The standalone event stream reconnects by itself; a failed POST is seen by its caller. A
    // response stream that broke leaves its request waiting for an answer that will not come when
    // the server is gone: a ping tells, and a server that does not answer it is dropped (the
    // connection closes, so every request waiting on it fails at once instead of at its deadline).
    let probing = false;
    client.onerror = (error) => {
      this.hooks.logger?.debug({ err: error, mcpServer: target.name }, 'MCP connection error');
      if (probing || !/SSE stream disconnected|Failed to reconnect SSE stream/.test(error.message)) return;
      probing = true;
      client.ping({ timeout: PING_TIMEOUT_MS }).then(
        () => (probing = false),
        () => this.drop(key, connection),
      );
    };
    try {
      await client.connect(transport, { signal, timeout: this.settings.requestTimeoutMs });
    } catch (error) {
      http.close();
      await client.close().catch(() => undefined);
      throw error;
    }
    return connection;
  }

  private forget(key: string, connection: Connection): void {
    void this.connections.get(key)?.then((current) => {
      if (current === connection) this.connections.delete(key);
    }, () => undefined);
    connection.http.close();
  }

  private drop(key: string, connection: Connection): void {
    this.forget(key, connection);
    void this.closeConnection(connection);
  }

  private async closeConnection(connection: Connection | null): Promise<void> {
    if (!connection) return;
    await connection.client.close().catch(() => undefined);
    connection.http.close();
  }

  private failureOf(error: unknown, target: McpServerTarget, signal: AbortSignal | undefined, what: string): unknown {
    if (signal?.aborted) return signal.reason;
    if (error instanceof ToolFailureError) return error;
    if (error instanceof AddressNotAllowedError) return fail('PERMISSION_DENIED', 'address_not_allowed', `Refused to reach MCP server \`${target.name}\`: ${error.message}`);
    if (sdk && error instanceof sdk.StreamableHTTPError) {
      const status = error.code ?? 0;
      if (status >= 500 || status === 429) return fail('EXTERNAL', `mcp_http_${status}`, `${what}: it answered ${status}`, { kind: 'SAFE' });
      return fail('EXTERNAL', `mcp_http_${status}`, `${what}: it answered ${status}: ${firstCharacters(error.message, 300)}`);
    }
    if (sdk && error instanceof sdk.McpError) {
      const { ErrorCode } = sdk;
      if ((error.data as { toolrun?: unknown } | undefined)?.toolrun === MESSAGE_TOO_LARGE) {
        return fail('RESOURCE_LIMIT', 'mcp_result_too_large', `${what}: its answer is larger than ${this.settings.maxMessageBytes} bytes`);
      }
      // A server built with the SDK sends its error's message with the SDK's prefix, which ours repeats.
      const detail = error.message.replace(/^(MCP error -?\d+: )\1+/, '$1');
      if (error.code === ErrorCode.RequestTimeout) return fail('TIMEOUT', 'mcp_timeout', `${what}: no answer in time`, { kind: 'SAFE' });
      if (error.code === ErrorCode.ConnectionClosed) return fail('EXTERNAL', 'mcp_connection_closed', `${what}: the connection closed`, { kind: 'SAFE' });
      if (error.code === ErrorCode.InvalidParams) return fail('INVALID_REQUEST', 'mcp_invalid_params', `${what}: ${detail}`);
      if (error.code === ErrorCode.MethodNotFound) return fail('UNAVAILABLE', 'mcp_method_not_found', `${what}: ${detail}`);
      return fail('EXTERNAL', 'mcp_protocol_error', `${what}: ${detail}`, { kind: 'NEVER' }, { code: error.code });
    }
    const code = errnoOf(error);
    const message = error instanceof Error ? error.message : String(error);
    return fail('EXTERNAL', 'mcp_unreachable', `${what}: ${code ? `${code}: ` : ''}${message}`, { kind: 'SAFE' });
  }
}

/** The system error code (ECONNREFUSED, …) of an error or of its cause. */
function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code ?? (error as { cause?: NodeJS.ErrnoException }).cause?.code;
}

// --- message size -----------------------------------------------------------------------------

/** Marks the error toolrun answers in place of a server's message that is too large (`error.data.toolrun`). */
const MESSAGE_TOO_LARGE = 'message_too_large';
/** How much of an error status's body is read (the SDK puts it in its error's message). */
const ERROR_BODY_BYTES = 64 * 1024;
const EVENT_BOUNDARY = /\r\n\r\n|\n\n|\r\r/g;

/**
 * A fetch whose responses hold no server message larger than `maxBytes`: the SDK reads a whole
 * message into memory (and parses it) before toolrun can look at its size, so one server's huge
 * answer would take a worker's memory, and every call running on it. A JSON body, or an event of an
 * event stream, that grows past the limit is not read on: the requests of the POST get an error
 * response in its place (`MESSAGE_TOO_LARGE`), and the stream ends; on the standalone stream (a GET)
 * the event is skipped. The body of an error status is cut at `ERROR_BODY_BYTES`.
 */
export function limitMessages(fetch: GuardedFetch['fetch'], maxBytes: number): GuardedFetch['fetch'] {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body) return response;
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    const answer = (body: BodyInit) => new Response(body, { status: response.status, statusText: response.statusText, headers });
    if (!response.ok) return answer((await readUpTo(response.body, ERROR_BODY_BYTES)).toString('utf8'));
    const refusal = (id: string | number) => ({ jsonrpc: '2.0', id, error: { code: -32603, message: `The message is larger than ${maxBytes} bytes`, data: { toolrun: MESSAGE_TOO_LARGE } } });
    const ids = requestIds(init?.body);
    const type = response.headers.get('content-type') ?? '';
    if (type.includes('text/event-stream')) return answer(limitEvents(response.body, maxBytes, ids.map((id) => `data: ${JSON.stringify(refusal(id))}\n\n`).join('')));
    if (!type.includes('application/json')) return response;
    const body = await readUpTo(response.body, maxBytes + 1);
    if (body.length <= maxBytes) return answer(body.toString('utf8'));
    return answer(JSON.stringify(ids.length === 1 ? refusal(ids[0]!) : ids.map(refusal)));
  };
}

/** The ids of the JSON-RPC requests a POST body holds. */
function requestIds(body: unknown): Array<string | number> {
  if (typeof body !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(body);
    return [parsed]
      .flat()
      .flatMap((message) => (message && typeof message === 'object' && 'method' in message && 'id' in message ? [(message as { id: string | number }).id] : []));
  } catch {
    return [];
  }
}

/** The first `maxBytes` of a body; the rest is not read. */
async function readUpTo(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    while (bytes < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      bytes += value.length;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, maxBytes);
}

/**
 * An event stream passed on event by event; an event past `maxBytes` is skipped without being kept.
 * With `refusal` (the error responses of a POST's requests) it is sent in the event's place and the
 * stream ends there.
 */
function limitEvents(body: ReadableStream<Uint8Array>, maxBytes: number, refusal: string): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  // The event read so far (nothing of it passed on yet) in pieces (joined only when it is passed on,
  // never searched again: a large one is not copied for every chunk), its size, and its last characters
  // (where a boundary may begin).
  let pieces: string[] = [];
  let bytes = 0;
  let tail = '';
  let skipping = false;
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          if (!skipping && pieces.length > 0) controller.enqueue(encoder.encode(pieces.join('')));
          controller.close();
          return;
        }
        const text = decoder.decode(value, { stream: true });
        const window = tail + text;
        let out = '';
        let cut = 0;
        EVENT_BOUNDARY.lastIndex = 0;
        for (let boundary = EVENT_BOUNDARY.exec(window); boundary; boundary = EVENT_BOUNDARY.exec(window)) {
          const end = boundary.index + boundary[0].length - tail.length;
          if (!skipping) out += pieces.join('') + text.slice(cut, end);
          pieces = [];
          skipping = false;
          cut = end;
        }
        const rest = text.slice(cut);
        if (cut > 0) {
          bytes = 0;
          tail = '';
        }
        if (!skipping) pieces.push(rest);
        bytes += cut > 0 ? Buffer.byteLength(rest) : value.length;
        tail = (tail + rest).slice(-3);
        if (!skipping && bytes > maxBytes) {
          if (refusal) {
            controller.enqueue(encoder.encode(out + refusal));
            controller.close();
            await reader.cancel().catch(() => undefined);
            return;
          }
          // Skipped as it arrives, up to its end.
          skipping = true;
          pieces = [];
        }
        if (out) {
          controller.enqueue(encoder.encode(out));
          return;
        }
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

// --- results --------------------------------------------------------------------------------

const IMAGE_TYPES = new Map<string, ImageMediaType>([...IMAGE_MEDIA_TYPES.map((type) => [`image/${type}`, type] as const), ['image/jpg', 'jpeg']]);

function extensionOf(mimeType: string | undefined): string {
  const sub = mimeType?.split('/')[1]?.split(/[;+]/)[0]?.toLowerCase();
  return sub && /^[a-z0-9.-]{1,16}$/.test(sub) ? sub : 'bin';
}

/** A call id that is a path segment as it is: no `/`, not `.` or `..` (nor any name starting with a dot), short. */
const PLAIN_CALL_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,119}$/;

/**
 * Where a call's content files go: `mcp/<call id>/<n>.<ext>` (binary content base64-encoded,
 * `.base64`). A call id that is no plain path segment (`..`, `a/b`, a long one) is a folder named
 * `~` and its hash, which no plain id can be: the folder is the call's alone, within `/mcp/`.
 */
function contentPath(context: ToolContext, index: number, extension: string, binary: boolean): string {
  const call = PLAIN_CALL_ID.test(context.callId) ? context.callId : `~${createHash('sha256').update(context.callId).digest('hex').slice(0, 32)}`;
  return `mcp/${call}/${index + 1}.${extension}${binary ? '.base64' : ''}`;
}

/**
 * A tool result as a tool value (see the file's head); an error result becomes an EXECUTION
 * failure, one whose text and structured content exceed `maxBytes` a RESOURCE_LIMIT failure.
 */
export async function valueOfResult(result: CallToolResult, context: ToolContext, maxBytes: number): Promise<unknown> {
  const blocks = result.content ?? [];
  let bytes = result.structuredContent === undefined ? 0 : Buffer.byteLength(JSON.stringify(result.structuredContent));
  for (const block of blocks) if (block.type === 'text') bytes += Buffer.byteLength(block.text);
  if (bytes > maxBytes) {
    throw fail('RESOURCE_LIMIT', 'mcp_result_too_large', `The result of \`${context.tool}\` is larger than ${maxBytes} bytes of text and structured content (${bytes})`);
  }
  const texts: string[] = [];
  const attachments: unknown[] = [];
  for (const [index, block] of blocks.entries()) {
    if (block.type === 'text') {
      texts.push(block.text);
      continue;
    }
    if (result.isError) continue;
    if (block.type === 'image' || block.type === 'audio') {
      const path = contentPath(context, index, extensionOf(block.mimeType), true);
      const written = await context.files.writeFile(path, block.data);
      const byteLen = Buffer.from(block.data, 'base64').length;
      const image = block.type === 'image' ? IMAGE_TYPES.get(block.mimeType.toLowerCase()) : undefined;
      attachments.push(
        image
          ? new Attachment({ id: written.path, mediaType: { kind: 'image', type: image }, byteLen })
          : { type: block.type, path: written.path, mimeType: block.mimeType, byteLen, encoding: 'base64' },
      );
    } else if (block.type === 'resource') {
      const resource = block.resource;
      const isText = 'text' in resource && typeof resource.text === 'string';
      const path = contentPath(context, index, isText ? 'txt' : extensionOf(resource.mimeType), !isText);
      const written = await context.files.writeFile(path, isText ? (resource.text as string) : String((resource as { blob: string }).blob));
      attachments.push({ type: 'resource', uri: resource.uri, path: written.path, ...(resource.mimeType ? { mimeType: resource.mimeType } : {}), ...(isText ? {} : { encoding: 'base64' }) });
    } else if (block.type === 'resource_link') {
      attachments.push({ type: 'resource_link', uri: block.uri, name: block.name, ...(block.mimeType ? { mimeType: block.mimeType } : {}) });
    }
  }
  const text = texts.join('\n');
  if (result.isError) {
    const message = text.trim() ? firstCharacters(text, ERROR_TEXT_CHARS) : `The MCP tool \`${context.tool}\` reported an error`;
    throw new ToolFailureError({
      class: 'EXECUTION',
      code: 'mcp_tool_error',
      message,
      source: 'TOOL',
      ...(result.structuredContent !== undefined ? { raw: result.structuredContent } : {}),
    });
  }
  if (attachments.length === 0) return result.structuredContent !== undefined ? result.structuredContent : text;
  return {
    ...(text ? { text } : {}),
    attachments,
    ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
  };
}
