// Fairness (issue 10): tenant B's single `add` calls, one at a time, first alone (the baseline
// column), then while tenant A has a backlog of `sleep {ms: 50}` calls submitted in batches (the
// toolrun column). B's loaded calls are sent while at least 10 % of A's calls are unfinished.
import { type Bench, type FigureResult, medianOf, row, vacuum } from '../support/bench.js';
import { anyFailure, type CallInput, type Subscriber } from '../support/graphql.js';
import { verifyDurable } from '../support/verify.js';
import { BenchError, deferred, percentile, within } from '../support/wait.js';
import { watchedSession } from './latency.js';

const A_SESSIONS = 2;
const SLEEP_MS = 50;

export async function fairness(bench: Bench): Promise<FigureResult> {
  const { sizes } = bench;
  const runs: Array<{ unloadedP50: number; loadedP50: number; unloaded: number[]; loaded: number[]; backlogDrainMs: number }> = [];
  for (let rep = 1; rep <= sizes.reps; rep++) {
    await vacuum(bench);
    const tag = `fair-r${rep}`;
    bench.log(`Fairness rep ${rep}/${sizes.reps}: tenant B alone`);
    const b = await watchedSession(bench.clientB, `${tag}-b`);
    const subscribers: Subscriber[] = [];
    try {
      for (let i = 0; i < 3; i++) await b.addOnce(30_000); // warm-up
      const unloaded: number[] = [];
      for (let i = 0; i < sizes.fairnessUnloadedSamples; i++) unloaded.push(await b.addOnce(30_000));

      const total = sizes.fairnessCalls;
      bench.log(`  B alone p50 ${percentile(unloaded, 50).toFixed(1)} ms; tenant A submits ${total} sleep ${SLEEP_MS} ms calls`);
      const sessions = await Promise.all(Array.from({ length: A_SESSIONS }, (_, s) => bench.client.primedSession(`${tag}-a${s}`)));
      let finished = 0;
      const allFinished = deferred<number>();
      for (const { session, cursor } of sessions) {
        subscribers.push(bench.client.subscribe(session.id, cursor, (event, receivedAt) => {
          if (event.__typename === 'ToolCallCompleted' && event.callId?.startsWith(`${tag}-a`) && ++finished === total) allFinished.resolve(receivedAt);
        }));
      }
      await within('fairness: tenant A subscribers connecting', 30_000, Promise.all(subscribers.map((subscriber) => subscriber.connected.promise)));
      const batches: Array<{ sessionId: string; calls: CallInput[] }> = [];
      for (let offset = 0, n = 0; offset < total; offset += sizes.fairnessBatch, n++) {
        const calls = Array.from({ length: Math.min(sizes.fairnessBatch, total - offset) }, (_, i): CallInput => ({ id: `${tag}-a-${offset + i}`, tool: 'sleep', args: { ms: SLEEP_MS } }));
        batches.push({ sessionId: sessions[n % A_SESSIONS]!.session.id, calls });
      }
      const floodStarted = performance.now();
      await within('fairness: tenant A submitting its batches', sizes.runTimeoutMs, Promise.all(batches.map(({ sessionId, calls }) => bench.client.submit(sessionId, calls))));

      const loaded: number[] = [];
      while (finished < total * 0.9) {
        loaded.push(await within('fairness: a call of tenant B', sizes.runTimeoutMs, Promise.race([b.addOnce(sizes.runTimeoutMs), anyFailure(subscribers)])));
      }
      if (loaded.length === 0) throw new BenchError(`fairness: tenant A's ${total} calls finished before tenant B could send one`);
      const drained = await within(() => `fairness: tenant A's ${total} calls completing (${finished} so far)`, sizes.runTimeoutMs, Promise.race([allFinished.promise, anyFailure(subscribers)]));
      await verifyDurable(bench.db, sessions.map(({ session }) => session.sessionId), `${tag}-a-`, total);
      const result = { unloadedP50: percentile(unloaded, 50), loadedP50: percentile(loaded, 50), unloaded, loaded, backlogDrainMs: drained - floodStarted };
      bench.log(`  B under A's backlog: p50 ${result.loadedP50.toFixed(1)} ms over ${loaded.length} calls (${(result.loadedP50 / result.unloadedP50).toFixed(1)}× alone); A's backlog took ${(result.backlogDrainMs / 1000).toFixed(1)} s`);
      runs.push(result);
    } finally {
      await Promise.all([b.close(), ...subscribers.map((subscriber) => subscriber.close())]);
    }
  }
  return {
    rows: [
      row(`Fairness: tenant B add p50 while A has ${sizes.fairnessCalls} queued (baseline: B alone)`, 'ms', medianOf(runs, (r) => r.unloadedP50), medianOf(runs, (r) => r.loadedP50), '≤ 2× baseline', (_, ratio) => ratio !== null && ratio <= 2),
    ],
    raw: { runs },
  };
}
