// P3 fan-out: S graphql-ws subscribers (one socket each) on one session, then one batch of C `add`
// calls. Every subscriber must receive every event of the batch, in order (seq); delivery latency
// of an event = receive time − its `at`; the API's RSS is sampled every 100 ms. P3 subscribes with
// `toolCallEventBatches` (the events ready when a message is sent, in one message), P3e with
// `toolCallEvents` (one event per message). Idle subscribers (P3 only): statements per second the
// API sends with S idle subscribers, less the same without them. Baseline: a plain `ws`
// server sending the messages the toolrun run delivered (the same payloads, each when the last
// event it carries happened, with when each of its events happened beside it) to as many sockets; each
// baseline repetition replays the toolrun repetition just before it, which is why this figure runs
// toolrun first in each pair.
import { WebSocket } from 'ws';
import { type Bench, type FigureResult, interleave, medianOf, row } from '../support/bench.js';
import { type Delivery as Stream, openSubscribers, type SessionEvent, type Subscriber } from '../support/graphql.js';
import { MB, rssPeakSampler } from '../support/proc.js';
import { apiStatementCounter } from '../support/verify.js';
import { BenchError, deferred, failureOf, percentile, sleep, within } from '../support/wait.js';

/** The messages subscriber 0 received: each one's payload (JSON), and when each of its events happened (ms after the first). */
interface Timeline {
  messages: Array<{ payload: string; offsetsMs: number[] }>;
}

interface Delivery {
  subscribers: number;
  /** Subscribers whose socket or stream broke before the end (their missing events count as not delivered). */
  brokenSubscribers: number;
  firstBreak: string | null;
  eventsPerSubscriber: number;
  /** Share of the expected (subscriber, event) deliveries that arrived, each once, in order. */
  deliveredInOrderPct: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  rssPeakMB: number;
}

interface Idle {
  source: string;
  windowMs: number;
  withoutSubscribers: number;
  withSubscribers: number;
  /** Per second, with the subscribers less without them. */
  perSecond: number;
}

/** Statements per second the API sends over one window, after letting what came before settle. */
async function statementRate(bench: Bench): Promise<{ source: string; perSecond: number }> {
  const counter = apiStatementCounter(bench.client.url);
  const windowMs = bench.sizes.idleWindowMs;
  await sleep(bench.sizes.idleSettleMs);
  const before = await counter.read();
  await sleep(windowMs);
  return { source: counter.source, perSecond: ((await counter.read()) - before) / (windowMs / 1000) };
}

export const fanout = (bench: Bench) => fanoutOf(bench, 'batch');
export const fanoutOfEvents = (bench: Bench) => fanoutOf(bench, 'event');

async function fanoutOf(bench: Bench, stream: Stream): Promise<FigureResult> {
  const name = stream === 'batch' ? 'P3' : 'P3e';
  const { sizes } = bench;
  let timeline: Timeline | null = null;
  let idle: Idle | null = null;

  const runToolrun = async ({ rep, warmup, tag }: { rep: number; warmup: boolean; tag: string }): Promise<Delivery> => {
    const count = warmup ? sizes.p3WarmupSubscribers : sizes.p3Subscribers;
    const calls = warmup ? sizes.p3WarmupCalls : sizes.p3Calls;
    const { session, cursor } = await bench.client.primedSession(tag);
    const measureIdle = rep === 1 && stream === 'batch';
    const control = measureIdle ? await statementRate(bench) : null;

    // Before `measuring`, subscribers only wait for the probe batch; afterwards every event is the measured batch's.
    let measuring = false;
    const latencies: number[] = [];
    const probeId = `${tag}-probe`;
    const state = Array.from({ length: count }, () => ({ lastSeq: -1, sawProbe: false, probeDone: false, inOrder: 0, done: false, lost: null as string | null }));
    // A subscriber that breaks (socket closed, stream error, an event out of order) is counted as
    // not delivered from then on; the others are still waited for.
    const phase = (flag: 'probeDone' | 'done') => {
      const all = deferred<void>();
      return {
        promise: all.promise,
        check() {
          const lost = state.filter((s) => s.lost !== null).length;
          if (lost === count) all.reject(new BenchError(`${name}: every subscriber broke; the first: ${state[0]!.lost}`));
          else if (state.every((s) => s[flag] || s.lost !== null)) all.resolve();
        },
        count: () => state.filter((s) => s[flag]).length,
      };
    };
    const probePhase = phase('probeDone');
    const batchPhase = phase('done');
    const recorded: Array<{ payload: string; at: number[] }> = [];
    const onEvent = (index: number) => (event: SessionEvent, _receivedAt: number, payload: unknown, indexInMessage: number) => {
      const now = Date.now();
      const mine = state[index]!;
      if (!measuring) {
        // The primer's ToolBatchCompleted may still arrive; the probe's is the one after the probe call's completion.
        if (event.__typename === 'ToolCallCompleted' && event.callId === probeId) mine.sawProbe = true;
        else if (event.__typename === 'ToolBatchCompleted' && mine.sawProbe) {
          mine.probeDone = true;
          probePhase.check();
        }
        mine.lastSeq = event.seq;
        return;
      }
      latencies.push(now - Date.parse(event.at));
      if (event.seq === mine.lastSeq + 1 && mine.lost === null) mine.inOrder++;
      mine.lastSeq = event.seq;
      if (index === 0) {
        if (indexInMessage === 0) recorded.push({ payload: JSON.stringify(payload), at: [] });
        recorded.at(-1)!.at.push(Date.parse(event.at));
      }
      if (event.__typename === 'ToolBatchCompleted' && !mine.done) {
        mine.done = true;
        batchPhase.check();
      }
    };

    const subscribers: Subscriber[] = [];
    try {
      bench.log(`  opening ${count} subscribers`);
      subscribers.push(...(await openSubscribers(count, (index) => bench.client.subscribe(session.id, cursor, onEvent(index), stream))));
      subscribers.forEach((subscriber, index) =>
        subscriber.failure.promise.catch((error: Error) => {
          state[index]!.lost = error.message;
          probePhase.check();
          batchPhase.check();
        }),
      );
      // A one-call batch that every subscriber must see: afterwards each subscription is live on the server.
      const probe = bench.client.submit(session.id, [{ id: probeId, tool: 'add', args: { a: 1, b: 2 } }]);
      await within(() => `${name}: the probe batch seen by all ${count} subscribers (${probePhase.count()} so far)`, sizes.runTimeoutMs, Promise.race([probePhase.promise, failureOf(probe)]));
      if (measureIdle) {
        bench.log(`  idle: ${count} subscribers for ${sizes.idleWindowMs / 1000} s`);
        const loaded = await statementRate(bench);
        idle = { source: loaded.source, windowMs: sizes.idleWindowMs, withoutSubscribers: control!.perSecond, withSubscribers: loaded.perSecond, perSecond: loaded.perSecond - control!.perSecond };
        bench.log(`  idle subscribers: ${idle.perSecond.toFixed(1)} statements/s (${loaded.perSecond.toFixed(1)} with them, ${control!.perSecond.toFixed(1)} without; ${idle.source})`);
      }

      const probeSeq = state[0]!.lastSeq;
      measuring = true;
      const rss = rssPeakSampler(bench.toolrun.api.pid);
      const batch = bench.client.submit(session.id, Array.from({ length: calls }, (_, i) => ({ id: `${tag}-c${i}`, tool: 'add', args: { a: i, b: 1 } })));
      const sumDelivered = () => state.reduce((sum, s) => sum + s.inOrder, 0);
      await within(() => `${name}: every subscriber receiving the batch's ToolBatchCompleted (${batchPhase.count()} of ${count}; ${sumDelivered()} events delivered)`, sizes.runTimeoutMs, Promise.race([batchPhase.promise, failureOf(batch)]));
      const rssPeakMB = rss.stop() / MB;
      await batch;

      // Every event after the probe batch is the measured batch's: the session has nothing else.
      const expected = (await bench.db.query<{ n: number }>('SELECT count(*)::int AS n FROM event WHERE session_id = $1::uuid AND seq > $2', [session.sessionId, probeSeq])).rows[0]!.n;
      const delivered = state.reduce((sum, s) => sum + Math.min(s.inOrder, expected), 0);
      const broken = state.filter((s) => s.lost !== null).map((s) => s.lost!);
      if (broken.length > 0) bench.log(`  ${broken.length} subscribers broke, e.g. ${broken[0]}`);
      const result: Delivery = {
        subscribers: count,
        brokenSubscribers: broken.length,
        firstBreak: broken[0] ?? null,
        eventsPerSubscriber: expected,
        deliveredInOrderPct: (100 * delivered) / (count * expected),
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        maxMs: percentile(latencies, 100),
        rssPeakMB,
      };
      const start = recorded[0]?.at[0] ?? 0;
      timeline = { messages: recorded.map((message) => ({ payload: message.payload, offsetsMs: message.at.map((at) => at - start) })) };
      bench.log(`  ${result.deliveredInOrderPct.toFixed(2)} % of ${count} × ${expected} events delivered in order; delivery p50 ${result.p50Ms.toFixed(0)} ms, p99 ${result.p99Ms.toFixed(0)} ms; API RSS peak ${rssPeakMB.toFixed(0)} MB`);
      return result;
    } finally {
      await Promise.all(subscribers.map((subscriber) => subscriber.close()));
    }
  };

  const runBaseline = async ({ warmup }: { warmup: boolean }): Promise<Delivery> => {
    if (!timeline) throw new BenchError(`${name} baseline: no toolrun timeline to replay`);
    const count = warmup ? sizes.p3WarmupSubscribers : sizes.p3Subscribers;
    const frames = timeline.messages.length;
    const latencies: number[] = [];
    const state = Array.from({ length: count }, () => ({ lastSeq: -1, inOrder: 0, done: false, lost: null as string | null }));
    const allDelivered = deferred<void>();
    const settle = () => state.every((s) => s.done || s.lost !== null) && allDelivered.resolve();
    const sockets: WebSocket[] = [];
    let ending = false;
    try {
      await within(`${name} baseline: sockets opening`, 60_000, Promise.all(Array.from({ length: count }, (_, index) => new Promise<void>((resolve, reject) => {
        const socket = new WebSocket(bench.baseline.broadcasterUrl);
        sockets.push(socket);
        socket.once('open', () => resolve());
        socket.once('error', reject);
        socket.once('close', (code) => {
          if (ending || state[index]!.done) return;
          state[index]!.lost = `socket closed (code ${code})`;
          settle();
        });
        socket.on('message', (data) => {
          const now = Date.now();
          const frame = JSON.parse(data.toString()) as { seq: number; ts: number[] };
          const mine = state[index]!;
          for (const happenedAt of frame.ts) latencies.push(now - happenedAt);
          if (frame.seq === mine.lastSeq + 1) mine.inOrder++;
          mine.lastSeq = frame.seq;
          if (frame.seq === frames - 1) {
            mine.done = true;
            settle();
          }
        });
      }))));
      const rss = rssPeakSampler(bench.baseline.broadcaster.pid);
      const sent = bench.baseline.broadcaster.call('broadcast', { sockets: count, ...timeline }, sizes.runTimeoutMs);
      await within(() => `${name} baseline: every socket receiving the last frame (${state.filter((s) => s.done).length} of ${count})`, sizes.runTimeoutMs, Promise.race([allDelivered.promise, failureOf(sent)]));
      await sent;
      const rssPeakMB = rss.stop() / MB;
      const delivered = state.reduce((sum, s) => sum + s.inOrder, 0);
      const broken = state.filter((s) => s.lost !== null).map((s) => s.lost!);
      const result: Delivery = {
        subscribers: count,
        brokenSubscribers: broken.length,
        firstBreak: broken[0] ?? null,
        eventsPerSubscriber: frames,
        deliveredInOrderPct: (100 * delivered) / (count * frames),
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        maxMs: percentile(latencies, 100),
        rssPeakMB,
      };
      bench.log(`  ${result.deliveredInOrderPct.toFixed(2)} % of ${count} × ${frames} frames delivered in order; p50 ${result.p50Ms.toFixed(0)} ms, p99 ${result.p99Ms.toFixed(0)} ms; server RSS peak ${rssPeakMB.toFixed(0)} MB`);
      return result;
    } finally {
      ending = true;
      for (const socket of sockets) socket.terminate();
    }
  };

  const runs = await interleave(bench, name, { baseline: runBaseline, toolrun: runToolrun, toolrunFirst: true });
  const b = runs.baseline;
  const t = runs.toolrun;
  const idleResult = idle as Idle | null;
  const how = stream === 'batch' ? 'toolCallEventBatches' : 'toolCallEvents';
  return {
    rows: [
      row(`${name} delivered in order (${sizes.p3Subscribers} subscribers of ${how}, ${sizes.p3Calls}-call batch)`, '%', medianOf(b, (r) => r.deliveredInOrderPct), medianOf(t, (r) => r.deliveredInOrderPct), '100 %', (value) => value === 100),
      row(`${name} delivery latency p99 (receive − event \`at\`)`, 'ms', medianOf(b, (r) => r.p99Ms), medianOf(t, (r) => r.p99Ms), '< 250 ms', (value) => value < 250),
      row(`${name} API RSS peak (baseline: ws server)`, 'MB', medianOf(b, (r) => r.rssPeakMB), medianOf(t, (r) => r.rssPeakMB), '< 400 MB', (value) => value < 400),
      ...(stream === 'batch' ? [row(`Idle subscribers (${sizes.p3Subscribers}): statements/s`, '/s', null, idleResult?.perSecond ?? null, '0', (value) => value < 1)] : []),
    ],
    raw: { ...runs, idle: idleResult },
  };
}
