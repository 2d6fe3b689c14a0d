// P2 latency at low load: one `add` call at a time. Subscription mode: mutation sent → its
// ToolCallCompleted received on an already open graphql-ws subscription. `waitMs` mode: mutation
// sent → response with the finished batch. Baseline: `queue.add` → QueueEvents `completed`.
// Beside the baseline, in the same repetitions, the bench's own connection times PostgreSQL's floor:
// a one-row INSERT committed durably (the WAL flushed) against a SELECT 1 round trip. A call's path
// holds two such commits (its insert, its finish), which raw BullMQ on a Redis without persistence
// does not pay.
import { type Bench, type FigureResult, interleave, medianOf, row } from '../support/bench.js';
import { CallWatch, type ToolrunClient, type Subscriber } from '../support/graphql.js';
import { BenchError, failureOf, percentile, within } from '../support/wait.js';

interface Latencies {
  p50: number;
  p99: number;
  samples: number[];
}

const summary = (samples: number[]): Latencies => ({ p50: percentile(samples, 50), p99: percentile(samples, 99), samples });

/** Round trips of the bench's own connection, one at a time: SELECT 1, and a one-row INSERT committed durably. */
async function commitFloor(bench: Bench, samples: number): Promise<{ select: Latencies; commit: Latencies }> {
  await bench.db.query('CREATE TABLE IF NOT EXISTS bench_commit_floor (n int)');
  const timed = async (text: string, values: unknown[] = []) => {
    const latencies: number[] = [];
    for (let i = 0; i < samples; i++) {
      const started = performance.now();
      await bench.db.query(text, values);
      latencies.push(performance.now() - started);
    }
    return summary(latencies);
  };
  const select = await timed('SELECT 1');
  const commit = await timed('INSERT INTO bench_commit_floor (n) VALUES (1)');
  await bench.db.query('TRUNCATE bench_commit_floor');
  return { select, commit };
}

/** A session with an open subscription, and single `add` calls measured through it. */
export async function watchedSession(client: ToolrunClient, title: string) {
  const { session, cursor } = await client.primedSession(title);
  const watch = new CallWatch();
  const subscriber: Subscriber = client.subscribe(session.id, cursor, watch.handle);
  await within(`${title}: subscriber connecting`, 30_000, subscriber.connected.promise).catch(async (error: unknown) => {
    await subscriber.close();
    throw error;
  });
  let next = 0;
  return {
    session,
    subscriber,
    /** Submits one `add` call and resolves with ms from sending the mutation to receiving its ToolCallCompleted. */
    async addOnce(timeoutMs: number): Promise<number> {
      const id = `${title}-${next++}`;
      const expected = watch.expect(id);
      const started = performance.now();
      const submitted = client.submit(session.id, [{ id, tool: 'add', args: { a: next, b: 1 } }]);
      const completion = await within(`${id}: ToolCallCompleted received`, timeoutMs, Promise.race([expected.completed, subscriber.failure.promise, failureOf(submitted)]));
      await submitted;
      if (completion.event.status !== 'SUCCEEDED') throw new BenchError(`${id} completed ${completion.event.status}`);
      return completion.receivedAt - started;
    },
    close: () => subscriber.close(),
  };
}

export async function latency(bench: Bench): Promise<FigureResult> {
  const { sizes } = bench;

  const runBaseline = async ({ warmup }: { warmup: boolean }) => {
    const samples = warmup ? sizes.p2WarmupSamples : sizes.p2Samples;
    const { latencies } = await bench.baseline.producer.call<{ latencies: number[] }>('latency', { samples }, sizes.runTimeoutMs);
    const result = summary(latencies);
    const floor = await commitFloor(bench, samples);
    bench.log(`  add → completed p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms; PostgreSQL SELECT 1 p50 ${floor.select.p50.toFixed(2)} ms, durable one-row INSERT p50 ${floor.commit.p50.toFixed(2)} ms`);
    return { ...result, floor };
  };

  const runToolrun = async ({ warmup, tag }: { warmup: boolean; tag: string }) => {
    const samples = warmup ? sizes.p2WarmupSamples : sizes.p2Samples;
    const watched = await watchedSession(bench.client, tag);
    try {
      await watched.addOnce(30_000); // the first call through a new subscription is not measured
      const subscription: number[] = [];
      for (let i = 0; i < samples; i++) subscription.push(await watched.addOnce(30_000));
      const waited: number[] = [];
      for (let i = 0; i < samples; i++) {
        const id = `${tag}-wait-${i}`;
        const started = performance.now();
        const batch = await within(`${id}: executeToolBatch with waitMs`, 30_000, bench.client.submit(watched.session.id, [{ id, tool: 'add', args: { a: i, b: 1 } }], 10_000));
        const elapsed = performance.now() - started;
        const call = batch.calls?.nodes[0];
        if (batch.status !== 'COMPLETED' || call?.status !== 'SUCCEEDED') throw new BenchError(`${id}: waitMs answered batch ${batch.status}, call ${call?.status}`);
        waited.push(elapsed);
      }
      const result = { subscription: summary(subscription), waitMs: summary(waited) };
      bench.log(`  subscription p50 ${result.subscription.p50.toFixed(2)} ms, p99 ${result.subscription.p99.toFixed(2)} ms; waitMs p50 ${result.waitMs.p50.toFixed(2)} ms, p99 ${result.waitMs.p99.toFixed(2)} ms`);
      return result;
    } finally {
      await watched.close();
    }
  };

  const runs = await interleave(bench, 'P2', { baseline: runBaseline, toolrun: runToolrun });
  const b = runs.baseline;
  const t = runs.toolrun;
  const p50Target = (value: number, ratio: number | null) => value <= 5 && ratio !== null && ratio <= 3;
  return {
    rows: [
      row('P2 latency p50 (→ ToolCallCompleted on subscription)', 'ms', medianOf(b, (r) => r.p50), medianOf(t, (r) => r.subscription.p50), '≤ 5 ms and ≤ 3× baseline', p50Target),
      row('P2 latency p99 (→ ToolCallCompleted on subscription)', 'ms', medianOf(b, (r) => r.p99), medianOf(t, (r) => r.subscription.p99), '≤ 20 ms', (value) => value <= 20),
      row('P2 latency p50 (waitMs response)', 'ms', medianOf(b, (r) => r.p50), medianOf(t, (r) => r.waitMs.p50), '≤ 5 ms and ≤ 3× baseline', p50Target),
      row('P2 latency p99 (waitMs response)', 'ms', medianOf(b, (r) => r.p99), medianOf(t, (r) => r.waitMs.p99), '≤ 20 ms', (value) => value <= 20),
      row('P2 floor: PostgreSQL durable one-row INSERT p50 (baseline: SELECT 1); a call pays two', 'ms', medianOf(b, (r) => r.floor.select.p50), medianOf(b, (r) => r.floor.commit.p50), '—', () => null),
    ],
    raw: runs,
  };
}
