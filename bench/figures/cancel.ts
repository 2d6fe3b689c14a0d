// P4 cross-process cancel: a `sleep` call runs on the worker; once its ToolCallStarted arrives on
// the subscription, `cancelToolCall` goes to the API; latency = cancel mutation sent →
// ToolCallCompleted (CANCELLED) received. No baseline: raw BullMQ has no cancel of a running job.
import { type Bench, type FigureResult, medianOf, row, vacuum } from '../support/bench.js';
import { CallWatch } from '../support/graphql.js';
import { BenchError, failureOf, percentile, within } from '../support/wait.js';

export async function cancel(bench: Bench): Promise<FigureResult> {
  const { sizes } = bench;
  const runs: Array<{ p50: number; p99: number; samples: number[] }> = [];
  for (let rep = 0; rep <= sizes.reps; rep++) {
    await vacuum(bench);
    const warmup = rep === 0;
    const tag = `p4-${warmup ? 'w' : `r${rep}`}`;
    bench.log(`P4 toolrun ${warmup ? 'warm-up' : `rep ${rep}/${sizes.reps}`}`);
    const { session, cursor } = await bench.client.primedSession(tag);
    const watch = new CallWatch();
    const subscriber = bench.client.subscribe(session.id, cursor, watch.handle);
    try {
      await within(`${tag}: subscriber connecting`, 30_000, subscriber.connected.promise);
      const samples: number[] = [];
      for (let i = 0; i < (warmup ? sizes.p4WarmupSamples : sizes.p4Samples); i++) {
        const id = `${tag}-${i}`;
        const expected = watch.expect(id);
        const submitted = bench.client.submit(session.id, [{ id, tool: 'sleep', args: { ms: 10_000 } }]);
        await within(`${id}: ToolCallStarted received`, 30_000, Promise.race([expected.started, subscriber.failure.promise, failureOf(submitted)]));
        await submitted;
        const started = performance.now();
        const cancelled = bench.client.cancel(session.id, id);
        const completion = await within(`${id}: ToolCallCompleted after cancel`, 30_000, Promise.race([expected.completed, subscriber.failure.promise, failureOf(cancelled)]));
        await cancelled;
        if (completion.event.status !== 'CANCELLED') throw new BenchError(`${id} completed ${completion.event.status} instead of CANCELLED`);
        samples.push(completion.receivedAt - started);
      }
      const result = { p50: percentile(samples, 50), p99: percentile(samples, 99), samples };
      bench.log(`  cancel → CANCELLED p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms`);
      if (!warmup) runs.push(result);
    } finally {
      await subscriber.close();
    }
  }
  return {
    rows: [row('P4 cross-process cancel p50', 'ms', null, medianOf(runs, (r) => r.p50), '< 20 ms', (value) => value < 20)],
    raw: { toolrun: runs },
  };
}
