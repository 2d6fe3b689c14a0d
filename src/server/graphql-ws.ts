// graphql-ws on a `ws` server, with fan-out that costs the same whatever the number of subscribers.
//
// graphql-ws (its makeServer) speaks the protocol; this module is the socket adapter (in place of
// graphql-ws/use/ws) plus one change to how subscription results are made: an event reaches many
// subscribers of the same stream, so its result is executed and serialised once per distinct
// selection (and tenant), and the same JSON is written to every socket. graphql-ws serialises each
// message itself; a shared result stands in it as a placeholder string that `send` swaps for the
// ready JSON (JSON.stringify and send run back to back in graphql-ws, with nothing in between).
//
// A socket's frames of one tick are written together (one allocation, one syscall; see
// FrameWriter), and a socket that does not drain makes its subscriptions wait, so their bounded
// queues (realtime/hub.ts) take over from there.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import {
  createSourceEventStream,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  execute as executeDocument,
  type FragmentDefinitionNode,
  GraphQLError,
  getOperationAST,
  Kind,
  type OperationDefinitionNode,
  print,
  visit,
} from 'graphql';
import { compileQuery, type CompiledQuery, isCompiledQuery } from 'graphql-jit';
import { CloseCode, makeServer, type ServerOptions } from 'graphql-ws';
import type { WebSocket, WebSocketServer } from 'ws';
import type { Logger } from '../logger.js';
import { PUSH, type Pushable } from '../realtime/hub.js';
import { maskError } from './mask-error.js';

/** The slowest reading a live client is allowed: it gets this long per byte queued ahead of a ping to answer it. */
const SLOW_READER_BYTES_PER_SECOND = 8 * 1024;
/** At most this much longer than the keep-alive to answer a ping, however much was queued ahead of it. */
const MAX_BACKLOG_WAIT_MS = 60_000;
const PLACEHOLDER = '\u0001toolrun:shared-result\u0001';
const PLACEHOLDER_TAIL = `"payload":${JSON.stringify(PLACEHOLDER)}}`;

/** A subscription result executed and serialised once, written as is to every subscriber. */
class SharedResult {
  private encoded: Buffer | null = null;
  constructor(readonly json: string) {}
  /** The JSON as UTF-8, encoded once for every socket it is written to. */
  get bytes(): Buffer {
    return (this.encoded ??= Buffer.from(this.json));
  }
  toJSON(): string {
    pendingShared = this;
    return PLACEHOLDER;
  }
}
let pendingShared: SharedResult | null = null;

export interface GraphqlWsOptions<E extends Record<PropertyKey, unknown>> {
  /** Pings every this many ms; a client that does not pong within as long is dropped. */
  keepAliveMs: number;
  /** A socket with more than this many bytes unsent makes its subscriptions wait. */
  highWaterBytes: number;
  logger: Logger;
  /** Subscribers whose results may be shared must have the same scope (e.g. the tenant). */
  sharingScope(contextValue: unknown): string | null;
  /** Runs an operation's execute or subscribe (e.g. within its log context). */
  inOperation?<T>(args: ExecutionArgs, run: () => T): T;
  /**
   * The checks the server's envelop runs as it subscribes (input, cost: server/plugins): a shared
   * subscription does not subscribe through it, so it asks them here first.
   */
  refusal?(args: ExecutionArgs): GraphQLError | null;
  server: ServerOptions<Record<string, unknown> | undefined, E>;
}

export function serveGraphqlWs<E extends Record<PropertyKey, unknown>>(wss: WebSocketServer, options: GraphqlWsOptions<E>): { dispose(): Promise<void> } {
  const inOperation = <T>(args: ExecutionArgs, run: () => T): T => (options.inOperation ? options.inOperation(args, run) : run());
  const server = makeServer<Record<string, unknown> | undefined, E>({
    ...options.server,
    onSubscribe: async (ctx, id, payload) => {
      const result = await options.server.onSubscribe?.(ctx, id, payload);
      if (result && !Array.isArray(result)) {
        const connection = connections.get((ctx.extra as { socket?: object }).socket ?? {});
        if (connection) directTargets.set(result, { ...connection, frameHead: Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`), live: () => id in ctx.subscriptions });
      }
      return result;
    },
    execute: (args) => inOperation(args, () => (args as EnvelopedArgs).execute(args)),
    subscribe: (args) =>
      inOperation(args, () => {
        const refused = options.refusal?.(args);
        if (refused) return { errors: [refused] };
        return sharedSubscribe(args as EnvelopedArgs, options.sharingScope) as Promise<AsyncIterable<ExecutionResult> | ExecutionResult>;
      }),
    onNext: async (ctx, id, payload, args, result) => {
      if (result instanceof SharedResult) return result as unknown as ExecutionResult;
      return options.server.onNext ? options.server.onNext(ctx, id, payload, args, result) : undefined;
    },
  });
  wss.options.handleProtocols = (protocols) => (protocols.has('graphql-transport-ws') ? 'graphql-transport-ws' : false);

  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    socket.once('error', (error) => {
      options.logger.warn({ err: error }, 'websocket error');
      socket.close(CloseCode.InternalServerError, 'Internal server error');
    });
    const raw = (socket as unknown as { _socket: Socket })._socket;
    let pongWait: NodeJS.Timeout | null = null;
    // Bytes sent up to the last ping the client answered, and up to the ping in flight.
    let answeredBytes = 0;
    let pingBytes = 0;
    const ping = setInterval(() => {
      if (socket.readyState !== socket.OPEN || pongWait) return;
      const expire = (ms: number) => setTimeout(() => socket.terminate(), ms);
      pongWait = expire(options.keepAliveMs);
      socket.once('pong', () => {
        if (pongWait) clearTimeout(pongWait);
        pongWait = null;
        answeredBytes = pingBytes;
      });
      // A client answers a ping once it has read what was sent before it: the wait for the pong
      // starts again when the ping has left this process (a busy but reading client is alive; one
      // that reads nothing never lets the ping leave, and the first wait ends it), and is longer by
      // the time a slow reader takes for what was sent since its last answer, up to a bound.
      socket.ping(undefined, undefined, () => {
        if (!pongWait) return;
        clearTimeout(pongWait);
        pingBytes = raw.bytesWritten;
        const backlogMs = (1000 * (pingBytes - answeredBytes)) / SLOW_READER_BYTES_PER_SECOND;
        pongWait = expire(options.keepAliveMs + Math.min(MAX_BACKLOG_WAIT_MS, backlogMs));
      });
    }, options.keepAliveMs);
    const frames = new FrameWriter(socket, raw);
    const full = () => socket.readyState !== socket.OPEN || socket.bufferedAmount + frames.pendingBytes > options.highWaterBytes;
    connections.set(socket, { frames, full });
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) => {
          if (socket.readyState !== socket.OPEN) return;
          const shared = pendingShared;
          pendingShared = null;
          // The shared result's bytes go in as they are (encoded once for every socket), not copied into the message's text.
          if (shared && data.endsWith(PLACEHOLDER_TAIL)) frames.add([Buffer.from(`${data.slice(0, -PLACEHOLDER_TAIL.length)}"payload":`), shared.bytes, FRAME_TAIL]);
          else frames.add([Buffer.from(data)]);
          if (full()) return drained(socket, raw, frames);
        },
        close: (code, reason) => {
          frames.flush();
          socket.close(code, reason);
        },
        onMessage: (handle) =>
          socket.on('message', (message) => {
            handle(String(message)).catch((error: unknown) => {
              options.logger.error({ err: error }, 'graphql-ws message handling failed');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      { socket, request } as unknown as E,
    );
    socket.once('close', (code, reason) => {
      clearInterval(ping);
      if (pongWait) clearTimeout(pongWait);
      void closed(code, String(reason));
    });
  });

  return {
    dispose: async () => {
      for (const client of wss.clients) client.close(1001, 'Going away');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

function drained(socket: WebSocket, raw: Socket, frames: FrameWriter): Promise<void> {
  frames.flush();
  // The kernel may have taken all of it at once: then no 'drain' is coming, and none is needed.
  if (!raw.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      raw.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    raw.on('drain', done);
    socket.on('close', done);
  });
}

/**
 * The text frames a socket is sent in one tick, written together when the tick ends: the frames'
 * headers and small payload parts are copied into one buffer, so a socket costs one allocation and
 * one write per tick however many events it gets (ws would allocate a header and queue two writes
 * per frame); a large part (a shared result of many events) is not copied but handed to the same
 * write beside it (one writev). Frames go to the TCP socket under ws, which is safe because the
 * server negotiates no compression: ws's sender then writes synchronously and holds nothing back,
 * so its own frames (pings, close) never sit between ours. Everything sent on the connection goes
 * through here, and what is pending is flushed before a close, so frames keep their order.
 */
class FrameWriter {
  private frames: Buffer[][] = [];
  private bytes = 0;
  /** Of `bytes`, those copied into the tick's buffer (headers and small parts). */
  private copiedBytes = 0;
  private scheduled = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly raw: Socket,
  ) {}

  /** Bytes added and not yet handed to the TCP socket. */
  get pendingBytes(): number {
    return this.bytes;
  }

  /** Adds one text frame whose payload is `parts` joined. */
  add(parts: Buffer[]): void {
    let length = 0;
    let copied = 0;
    for (const part of parts) {
      length += part.length;
      if (part.length < UNCOPIED_PART_BYTES) copied += part.length;
    }
    this.frames.push(parts);
    this.bytes += headerSize(length) + length;
    this.copiedBytes += headerSize(length) + copied;
    if (!this.scheduled) {
      this.scheduled = true;
      process.nextTick(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    const frames = this.frames;
    const copiedBytes = this.copiedBytes;
    this.frames = [];
    this.bytes = 0;
    this.copiedBytes = 0;
    if (frames.length === 0 || this.socket.readyState !== this.socket.OPEN) return;
    if (this.socket.extensions) {
      // Compression negotiated (this server offers none): ws must frame and compress.
      for (const parts of frames) this.socket.send(Buffer.concat(parts), { binary: false });
      return;
    }
    const out = Buffer.allocUnsafe(copiedBytes);
    const chunks: Buffer[] = [];
    let offset = 0;
    let chunkStart = 0;
    for (const parts of frames) {
      let length = 0;
      for (const part of parts) length += part.length;
      offset = writeTextFrameHeader(out, offset, length);
      for (const part of parts) {
        if (part.length < UNCOPIED_PART_BYTES) {
          offset += part.copy(out, offset);
          continue;
        }
        if (offset > chunkStart) chunks.push(out.subarray(chunkStart, offset));
        chunks.push(part);
        chunkStart = offset;
      }
    }
    if (offset > chunkStart) chunks.push(out.subarray(chunkStart, offset));
    if (chunks.length === 1) {
      this.raw.write(chunks[0]!);
      return;
    }
    this.raw.cork();
    for (const chunk of chunks) this.raw.write(chunk);
    this.raw.uncork();
  }
}

/** A payload part at least this large is written as it is rather than copied (a copy costs more than a chunk of a writev from here on). */
const UNCOPIED_PART_BYTES = 16 * 1024;

const headerSize = (length: number) => (length < 126 ? 2 : length < 65_536 ? 4 : 10);

/** A final, unmasked text frame's header (RFC 6455 §5.2), as a server sends it. */
function writeTextFrameHeader(out: Buffer, offset: number, length: number): number {
  out[offset++] = 0x81;
  if (length < 126) {
    out[offset++] = length;
    return offset;
  }
  if (length < 65_536) {
    out[offset++] = 126;
    out.writeUInt16BE(length, offset);
    return offset + 2;
  }
  out[offset++] = 127;
  out.writeUInt32BE(Math.floor(length / 2 ** 32), offset);
  out.writeUInt32BE(length >>> 0, offset + 4);
  return offset + 8;
}

/** A connection's frame writer; `full` when the socket is closed or over its high water. */
interface Connection {
  frames: FrameWriter;
  full(): boolean;
}
const connections = new WeakMap<object, Connection>();

/** Where a subscription's results may be written directly: its connection and the start of its `next` frames. */
interface DirectTarget extends Connection {
  frameHead: Buffer;
  /** The subscription is still open (the client has not completed it). */
  live(): boolean;
}
const directTargets = new WeakMap<object, DirectTarget>();
const FRAME_TAIL = Buffer.from('}');

/** Per event, its result per selection key: ready, or still being computed. */
const results = new WeakMap<object, Map<string, SharedResult | Promise<SharedResult>>>();

/**
 * Subscription documents compiled (graphql-jit) for executing events: a document is parsed once and
 * cached by the server, and its events are executed many times, where compiling pays for itself
 * (about a third of graphql-js's time per event, bench P3). A document graphql-jit cannot compile
 * runs on graphql-js.
 */
const compiled = new WeakMap<DocumentNode, Map<string | undefined, CompiledQuery | null>>();

function compiledFor(args: ExecutionArgs): CompiledQuery | null {
  let byOperation = compiled.get(args.document);
  if (!byOperation) {
    byOperation = new Map();
    compiled.set(args.document, byOperation);
  }
  const name = args.operationName ?? undefined;
  let query = byOperation.get(name);
  if (query === undefined) {
    const result = compileQuery(args.schema, args.document, name);
    query = isCompiledQuery(result) ? result : null;
    byOperation.set(name, query);
  }
  return query;
}

/** Errors pass masked as the server masks them (typed errors as they are). */
function masked(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  return { ...result, errors: result.errors.map((error) => maskError(error, 'Unexpected error.') as GraphQLError) };
}

/** Execution arguments with the server's own (enveloped: error masking and the like) execute and subscribe. */
export type EnvelopedArgs = ExecutionArgs & {
  execute: (args: ExecutionArgs) => ExecutionResult | Promise<ExecutionResult>;
  subscribe: (args: ExecutionArgs) => unknown;
};

/**
 * Subscribes like graphql-js, but executes each source event once per selection key (with the
 * server's own execute, so its plugins apply to the shared result as to any other).
 */
async function sharedSubscribe(args: EnvelopedArgs, sharingScope: (contextValue: unknown) => string | null): Promise<AsyncIterable<unknown> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  // Refused before any event (bad arguments, not allowed): answer through the server's own subscribe.
  if (!(Symbol.asyncIterator in (source as object))) return args.subscribe(args) as Promise<ExecutionResult>;
  const scope = sharingScope(args.contextValue);
  const key = scope === null ? null : `${scope}\n${selectionKey(args)}`;
  const iterator = (source as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  // graphql-js's own execute: the server's (enveloped) one runs a subscription document as a subscription.
  const jit = compiledFor(args);
  const executeNow = (event: unknown) => (jit ? jit.query(event, args.contextValue, args.variableValues ?? {}) : executeDocument({ ...args, rootValue: event }));
  const execute = async (event: unknown) => masked(await executeNow(event));
  /** The event's shared result, computed on first use (synchronously when its resolvers are). */
  const shared = (event: object, key: string): SharedResult | Promise<SharedResult> => {
    let byKey = results.get(event);
    if (!byKey) {
      byKey = new Map();
      results.set(event, byKey);
    }
    let result = byKey.get(key);
    if (!result) {
      const value = executeNow(event);
      if (value instanceof Promise) {
        const pending = value.then((done) => {
          const ready = new SharedResult(JSON.stringify(masked(done)));
          byKey.set(key, ready);
          return ready;
        });
        result = pending;
      } else result = new SharedResult(JSON.stringify(masked(value)));
      byKey.set(key, result);
    }
    return result;
  };
  const run = async (event: unknown): Promise<SharedResult | ExecutionResult> =>
    key === null || event === null || typeof event !== 'object' ? execute(event) : shared(event, key);
  const target = directTargets.get(args);
  const pushable = (source as Pushable)[PUSH];
  if (key !== null && target && pushable) {
    // Events that cannot be written at once (a full socket, a result still computing, a failure)
    // take graphql-ws's own path, which waits for them.
    pushable.call(source, (event) => {
      if (target.full() || !target.live()) return false;
      try {
        const result = shared(event, key);
        if (!(result instanceof SharedResult)) return false;
        target.frames.add([target.frameHead, result.bytes, FRAME_TAIL]);
        return true;
      } catch {
        return false;
      }
    });
  }
  // Its own iterator, with `return` on the object graphql-ws holds: a client's `complete` ends the
  // stream (graphql-ws calls `return` only on what looks like an async generator).
  const events: AsyncIterableIterator<unknown> = {
    [Symbol.asyncIterator]() {
      return events;
    },
    next: async () => {
      const item = await iterator.next();
      return item.done ? item : { value: await run(item.value), done: false };
    },
    return: async () => (iterator.return ? iterator.return() : { value: undefined, done: true }),
    throw: async (error: unknown) => (iterator.throw ? iterator.throw(error) : Promise.reject(error)),
  };
  return events;
}

/**
 * What a subscription's result for an event depends on: the root field's selection (with the
 * fragments it uses) and the variables used inside it — not the root field's arguments, which only
 * choose the stream (so subscribers resuming from different cursors share results).
 */
function selectionKey(args: ExecutionArgs): string {
  const operation = getOperationAST(args.document, args.operationName) as OperationDefinitionNode;
  const root = operation.selectionSet.selections[0];
  const selection = root && root.kind === Kind.FIELD ? { ...root, arguments: [] } : operation.selectionSet;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of (args.document as DocumentNode).definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const usedFragments = new Set<string>();
  const usedVariables = new Set<string>();
  const collect = (node: unknown) =>
    visit(node as DocumentNode, {
      FragmentSpread(spread) {
        if (usedFragments.has(spread.name.value)) return;
        usedFragments.add(spread.name.value);
        const fragment = fragments.get(spread.name.value);
        if (fragment) collect(fragment);
      },
      Variable(variable) {
        usedVariables.add(variable.name.value);
      },
    });
  collect(selection);
  const variables = args.variableValues ?? {};
  return [
    print(selection),
    ...[...usedFragments].sort().map((name) => (fragments.get(name) ? print(fragments.get(name)!) : name)),
    JSON.stringify([...usedVariables].sort().map((name) => [name, variables[name] ?? null])),
  ].join('\n');
}
