// What a client of toolrun does: GraphQL over HTTP for mutations and queries, graphql-ws (one
// socket per subscriber) for the session event stream. Only the public API, so the bench keeps
// measuring whatever toolrun's internals become.
import { createClient, type Client } from 'graphql-ws';
import { WebSocket } from 'ws';
import { BenchError, deferred, within } from './wait.js';

const SUBMIT = /* GraphQL */ `
  mutation Submit($sessionId: ID!, $calls: [ToolCallInput!]!, $waitMs: Int) {
    executeToolBatch(sessionId: $sessionId, calls: $calls, waitMs: $waitMs) {
      __typename
      ... on ToolBatch { batchId status callCount }
      ... on Error { code message }
    }
  }`;

const SUBMIT_AND_WAIT = /* GraphQL */ `
  mutation SubmitAndWait($sessionId: ID!, $calls: [ToolCallInput!]!, $waitMs: Int) {
    executeToolBatch(sessionId: $sessionId, calls: $calls, waitMs: $waitMs) {
      __typename
      ... on ToolBatch { batchId status callCount calls(first: 1000) { nodes { callId status output { __typename ... on ToolSuccess { value } ... on ToolFailure { code message } } } } }
      ... on Error { code message }
    }
  }`;

const CANCEL = /* GraphQL */ `
  mutation Cancel($sessionId: ID, $callId: String!) {
    cancelToolCall(sessionId: $sessionId, callId: $callId) {
      __typename
      ... on ToolCall { callId status }
      ... on Error { code message }
    }
  }`;

const CREATE_SESSION = /* GraphQL */ `
  mutation CreateSession($title: String) {
    createSession(title: $title) {
      __typename
      ... on Session { id sessionId }
      ... on Error { code message }
    }
  }`;

const LAST_EVENT_CURSOR = /* GraphQL */ `
  query LastEventCursor($id: ID!) { session(id: $id) { lastEventCursor } }`;

/** The selection a dashboard or an agent runtime makes: position, timing, identity and the outcome. */
const EVENT_FIELDS = /* GraphQL */ `
      __typename
      seq
      at
      cursor
      ... on ToolCallEvent { callId batchId tool }
      ... on ToolCallCompleted { status durationMs output { __typename ... on ToolSuccess { value } ... on ToolFailure { code message } ... on ToolCancellation { message } } }
      ... on ToolBatchCompleted { batchId succeeded failed cancelled }`;

const EVENTS = /* GraphQL */ `
  subscription Events($sessionId: ID!, $after: String) {
    toolCallEvents(sessionId: $sessionId, after: $after) {${EVENT_FIELDS}
    }
  }`;

/** The same events, several per message (those ready when the message is sent). */
const EVENT_BATCHES = /* GraphQL */ `
  subscription EventBatches($sessionId: ID!, $after: String) {
    toolCallEventBatches(sessionId: $sessionId, after: $after, maxEvents: 1000) {
      cursor
      events {${EVENT_FIELDS}
      }
    }
  }`;

/** How a subscriber receives its events: `toolCallEvents` (one per message) or `toolCallEventBatches`. */
export type Delivery = 'event' | 'batch';

export interface CallInput {
  id: string;
  tool: string;
  args: Record<string, unknown>;
}

export interface Batch {
  batchId: string;
  status: string;
  callCount: number;
  calls?: { nodes: Array<{ callId: string; status: string; output: { __typename: string; value?: unknown } | null }> };
}

export interface Session {
  /** Relay id, for the API. */
  id: string;
  /** Raw id, for SQL. */
  sessionId: string;
}

export interface SessionEvent {
  __typename: string;
  seq: number;
  at: string;
  cursor: string;
  callId?: string;
  batchId?: string;
  status?: string;
  output?: { __typename: string; value?: unknown };
}

/** Gets each event, when its message arrived (performance.now()), the message's payload and the event's index in it. */
export type EventHandler = (event: SessionEvent, receivedAt: number, payload: unknown, indexInMessage: number) => void;

type Result<T> = T & { __typename: string; code?: string; message?: string };

export class ToolrunClient {
  constructor(
    readonly url: string,
    readonly wsUrl: string,
    readonly apiKey: string,
  ) {}

  async request<T>(query: string, variables: Record<string, unknown>): Promise<T> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.apiKey}` },
      body: JSON.stringify({ query, variables }),
    });
    const text = await response.text();
    let body: { data?: T; errors?: unknown[] };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new BenchError(`HTTP ${response.status} from ${this.url}: ${text.slice(0, 500)}`);
    }
    if (!response.ok || body.errors?.length || !body.data) {
      throw new BenchError(`GraphQL request failed (HTTP ${response.status}): ${JSON.stringify(body.errors ?? body).slice(0, 500)}`);
    }
    return body.data;
  }

  private static unwrap<T>(field: string, result: Result<T>, expected: string): T {
    if (result.__typename !== expected) throw new BenchError(`${field} answered ${result.__typename} ${result.code ?? ''}: ${result.message ?? ''}`);
    return result;
  }

  async createSession(title: string): Promise<Session> {
    const data = await this.request<{ createSession: Result<Session> }>(CREATE_SESSION, { title });
    return ToolrunClient.unwrap('createSession', data.createSession, 'Session');
  }

  async submit(sessionId: string, calls: CallInput[], waitMs?: number): Promise<Batch> {
    const data = await this.request<{ executeToolBatch: Result<Batch> }>(waitMs ? SUBMIT_AND_WAIT : SUBMIT, { sessionId, calls, waitMs });
    return ToolrunClient.unwrap('executeToolBatch', data.executeToolBatch, 'ToolBatch');
  }

  async cancel(sessionId: string, callId: string): Promise<void> {
    const data = await this.request<{ cancelToolCall: Result<{ callId: string }> }>(CANCEL, { sessionId, callId });
    ToolrunClient.unwrap('cancelToolCall', data.cancelToolCall, 'ToolCall');
  }

  async lastEventCursor(sessionId: string): Promise<string | null> {
    const data = await this.request<{ session: { lastEventCursor: string | null } | null }>(LAST_EVENT_CURSOR, { id: sessionId });
    if (!data.session) throw new BenchError(`session ${sessionId} not found`);
    return data.session.lastEventCursor;
  }

  /**
   * A session with one finished `add` call (which also proves a worker runs), and the cursor after
   * it: subscribing from that cursor cannot miss an event of work submitted afterwards.
   */
  async primedSession(title: string): Promise<{ session: Session; cursor: string }> {
    const session = await this.createSession(title);
    const batch = await this.submit(session.id, [{ id: 'primer', tool: 'add', args: { a: 1, b: 1 } }], 30_000);
    if (batch.status !== 'COMPLETED') throw new BenchError(`the primer call of session ${title} did not complete within 30 s (status ${batch.status})`);
    const cursor = await this.lastEventCursor(session.id);
    if (!cursor) throw new BenchError(`session ${title} has no lastEventCursor after its primer call`);
    return { session, cursor };
  }

  /** One graphql-ws socket with one toolCallEvents (or toolCallEventBatches) subscription. */
  subscribe(sessionId: string, after: string | null, onEvent: EventHandler, delivery: Delivery = 'event'): Subscriber {
    return new Subscriber(this, sessionId, after, onEvent, delivery);
  }
}

export class Subscriber {
  private readonly client: Client;
  /** Resolves once the socket is open and acknowledged by the server. */
  readonly connected = deferred<void>();
  /** Rejects at the first problem: an out-of-order or repeated event, a stream error, a closed socket. */
  readonly failure = deferred<never>();
  received = 0;
  private lastSeq = -1;
  private socketError: string | null = null;
  private readonly openedAt = performance.now();
  private closed = false;

  constructor(api: ToolrunClient, private readonly sessionId: string, after: string | null, onEvent: EventHandler, delivery: Delivery) {
    this.client = createClient({
      url: api.wsUrl,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${api.apiKey}` },
      lazy: true,
      retryAttempts: 0,
      on: {
        connected: () => this.connected.resolve(),
        error: (error) => {
          this.socketError = error instanceof Error ? error.message : String((error as { message?: unknown })?.message ?? error);
        },
        closed: (event) => {
          if (this.closed) return;
          const { code, reason } = (event ?? {}) as { code?: number; reason?: string };
          this.problem(`socket closed (code ${code}${reason ? `, reason ${reason}` : ''}${this.socketError ? `, error ${this.socketError}` : ''}) after ${((performance.now() - this.openedAt) / 1000).toFixed(0)} s and ${this.received} events`);
        },
      },
    });
    this.client.subscribe<{ toolCallEvents?: SessionEvent; toolCallEventBatches?: { events: SessionEvent[] } }>(
      { query: delivery === 'batch' ? EVENT_BATCHES : EVENTS, variables: { sessionId, after } },
      {
        next: (message) => {
          const receivedAt = performance.now();
          const events = delivery === 'batch' ? message.data?.toolCallEventBatches?.events : message.data?.toolCallEvents && [message.data.toolCallEvents];
          if (!events?.length) return this.problem(`payload without an event: ${JSON.stringify(message).slice(0, 300)}`);
          events.forEach((event, index) => {
            if (event.seq <= this.lastSeq) this.problem(`event seq ${event.seq} after ${this.lastSeq}`);
            this.lastSeq = event.seq;
            this.received++;
            onEvent(event, receivedAt, message, index);
          });
        },
        error: (error) => this.problem(`subscription error: ${error instanceof Error ? error.message : JSON.stringify(error)}`),
        complete: () => {
          if (!this.closed) this.problem('subscription completed by the server');
        },
      },
    );
  }

  private problem(text: string): void {
    const error = new BenchError(`subscriber of session ${this.sessionId}: ${text}`);
    this.connected.reject(error);
    this.failure.reject(error);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client.dispose();
  }
}

/** Opens `count` subscribers, `parallel` connections at a time, and waits until every socket is acknowledged (or closes them all). */
export async function openSubscribers(count: number, open: (index: number) => Subscriber, parallel = 50, timeoutMs = 120_000): Promise<Subscriber[]> {
  const subscribers: Subscriber[] = [];
  try {
    await within(() => `opening ${count} graphql-ws subscribers (${subscribers.length} so far)`, timeoutMs, (async () => {
      for (let start = 0; start < count; start += parallel) {
        const group = Array.from({ length: Math.min(parallel, count - start) }, (_, i) => open(start + i));
        subscribers.push(...group);
        await Promise.all(group.map((subscriber) => subscriber.connected.promise));
      }
    })());
    return subscribers;
  } catch (error) {
    await Promise.all(subscribers.map((subscriber) => subscriber.close()));
    throw error;
  }
}

/** Rejects when any of the subscribers has a problem; race it against a wait. */
export function anyFailure(subscribers: Subscriber[]): Promise<never> {
  return Promise.race(subscribers.map((subscriber) => subscriber.failure.promise));
}

export interface Completion {
  receivedAt: number;
  event: SessionEvent;
}

/** Waits for the events of particular calls on a subscription: feed it every event with `handle`. */
export class CallWatch {
  private readonly calls = new Map<string, { started: ReturnType<typeof deferred<number>>; completed: ReturnType<typeof deferred<Completion>> }>();

  readonly handle: EventHandler = (event, receivedAt) => {
    const call = event.callId ? this.calls.get(event.callId) : undefined;
    if (!call) return;
    if (event.__typename === 'ToolCallStarted') call.started.resolve(receivedAt);
    if (event.__typename === 'ToolCallCompleted') {
      call.completed.resolve({ receivedAt, event });
      this.calls.delete(event.callId!);
    }
  };

  /** Call before submitting the call; the promises resolve with the receive time of its ToolCallStarted and ToolCallCompleted. */
  expect(callId: string): { started: Promise<number>; completed: Promise<Completion> } {
    const call = { started: deferred<number>(), completed: deferred<Completion>() };
    this.calls.set(callId, call);
    return { started: call.started.promise, completed: call.completed.promise };
  }
}
