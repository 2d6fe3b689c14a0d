// Errors that say a dependency (PostgreSQL, Redis, the network) is away, as opposed to a fault
// of toolrun: while an outage lasts they repeat on every retry, so they are logged without their
// stacks and rate-limited (see repeat-limiter.ts).

const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND',
  'EAI_AGAIN', 'EPIPE', 'ENOTCONN', 'ERR_SOCKET_CLOSED',
]);
/** PostgreSQL SQLSTATEs of lost or refused connections: class 08, shutdowns, too many clients. */
const POSTGRES_CODES = /^(08...|57P0[123]|53300)$/;
/** Prisma's codes for an unreachable server, a timeout, a closed connection, an exhausted pool. */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1017', 'P2024']);
/** The driver adapter's kinds for the same (meta.driverAdapterError.cause.kind). */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections', 'TransactionAlreadyClosed']);
const NAMES = new Set(['MaxRetriesPerRequestError', 'ConnectionTimeoutError']);
const MESSAGES =
  /Connection is closed|Connection terminated|terminating connection|Stream isn't writeable|Can't reach database server|timeout exceeded when trying to connect|Client has encountered a connection error|Socket closed unexpectedly|ECONNREFUSED|ECONNRESET/i;

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  /** A GraphQLError's: what a resolver threw. */
  originalError?: unknown;
  errors?: unknown;
  meta?: { driverAdapterError?: { cause?: { kind?: unknown; code?: unknown; message?: unknown; originalMessage?: unknown; host?: unknown; port?: unknown } } };
}

/** The error and what it wraps (cause chains, a GraphQLError's original, AggregateError members), at most a few levels deep. */
function* chain(error: unknown, depth = 0): Generator<ErrorLike> {
  if (!error || typeof error !== 'object' || depth > 4) return;
  const e = error as ErrorLike;
  yield e;
  yield* chain(e.cause, depth + 1);
  yield* chain(e.originalError, depth + 1);
  if (Array.isArray(e.errors)) for (const member of e.errors.slice(0, 4)) yield* chain(member, depth + 1);
}

export function isInfrastructureError(error: unknown): boolean {
  for (const e of chain(error)) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (NETWORK_CODES.has(code) || POSTGRES_CODES.test(code) || PRISMA_CODES.has(code)) return true;
    if (typeof e.name === 'string' && NAMES.has(e.name)) return true;
    const adapter = e.meta?.driverAdapterError?.cause;
    if (adapter && (ADAPTER_KINDS.has(String(adapter.kind)) || POSTGRES_CODES.test(String(adapter.code ?? '')))) return true;
    if (typeof e.message === 'string' && MESSAGES.test(e.message)) return true;
  }
  return false;
}

/** What an infrastructure error says, on one line, without its stack. */
export function summarizeError(error: unknown): { type: string; code?: string; message: string } {
  const e = (error ?? {}) as ErrorLike;
  const adapter = e.meta?.driverAdapterError?.cause;
  let message = '';
  if (adapter) {
    message = String(adapter.message ?? adapter.originalMessage ?? (adapter.host ? `${String(adapter.kind)} at ${String(adapter.host)}:${String(adapter.port)}` : adapter.kind));
  } else if (typeof e.message === 'string' && e.message.trim()) {
    message = e.message.trim().split('\n').map((line) => line.trim()).filter(Boolean).at(-1) ?? '';
  } else if (Array.isArray(e.errors)) {
    message = (e.errors as ErrorLike[]).map((member) => String(member?.message ?? member)).join('; ');
  }
  const code = typeof e.code === 'string' ? e.code : typeof adapter?.code === 'string' ? adapter.code : undefined;
  return { type: typeof e.name === 'string' ? e.name : 'Error', ...(code ? { code } : {}), message: message || String(error) };
}
