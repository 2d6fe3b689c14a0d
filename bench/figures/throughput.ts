// P1 throughput, CPU per call and RSS. toolrun: N `add` calls over GraphQL `executeToolBatch`
// from 4 sessions (each session's batches of 100 submitted concurrently), every ToolCallCompleted
// received by a graphql-ws subscriber of its session (`toolCallEventBatches`); calls/s from the first submit to the last
// completion received, then PostgreSQL is checked to hold every call and event. Baseline: the
// same number of no-op BullMQ jobs, completions seen through QueueEvents.
import { type Bench, type FigureResult, interleave, medianOf, row } from '../support/bench.js';
import type { CpuUsage } from '../support/cpu.js';
import { anyFailure, type CallInput, type Subscriber } from '../support/graphql.js';
import { MB, rssBytes } from '../support/proc.js';
import { verifyDurable } from '../support/verify.js';
import { BenchError, deferred, failureOf, within } from '../support/wait.js';

interface Run {
  calls: number;
  ms: number;
  callsPerSec: number;
  cpuMsPerCall: number;
  cpu: CpuUsage;
  /** RSS at the end of the run: toolrun's API and worker, or the baseline's producer and worker. */
  rssMB: { api: number; worker: number };
  submitMs?: number;
}

export async function throughput(bench: Bench): Promise<FigureResult> {
  const { sizes, toolrun, baseline } = bench;

  const runBaseline = async ({ warmup }: { warmup: boolean }): Promise<Run> => {
    const jobs = warmup ? sizes.p1WarmupCalls : sizes.p1Calls;
    const pids = { producer: baseline.producer.pid, worker: baseline.worker.pid };
    const start = await bench.cpu.snapshot(pids);
    const result = await baseline.producer.call<{ jobs: number; ms: number }>('throughput', { jobs, streams: sizes.p1Sessions, chunk: sizes.batch }, sizes.runTimeoutMs);
    const rssMB = { api: (rssBytes(pids.producer) ?? 0) / MB, worker: (rssBytes(pids.worker) ?? 0) / MB };
    const cpu = await bench.cpu.usageSince(start, pids, { postgres: false });
    const run = { calls: result.jobs, ms: result.ms, callsPerSec: result.jobs / (result.ms / 1000), cpuMsPerCall: cpu.totalMs / result.jobs, cpu, rssMB };
    bench.log(`  ${run.callsPerSec.toFixed(0)} jobs/s, ${run.cpuMsPerCall.toFixed(3)} ms CPU per job`);
    return run;
  };

  const runToolrun = async ({ warmup, tag }: { warmup: boolean; tag: string }): Promise<Run> => {
    const total = warmup ? sizes.p1WarmupCalls : sizes.p1Calls;
    const perSession = Math.ceil(total / sizes.p1Sessions);
    const sessions = await Promise.all(Array.from({ length: sizes.p1Sessions }, (_, s) => bench.client.primedSession(`${tag}-s${s}`)));
    // Every call's expected result, by call id; a completion removes it, so a second one is a duplicate.
    const expected = new Map<string, number>();
    const batches: CallInput[][][] = sessions.map((_, s) => {
      const count = Math.min(perSession, total - s * perSession);
      const calls = Array.from({ length: count }, (_, i): CallInput => ({ id: `${tag}-s${s}-c${i}`, tool: 'add', args: { a: i, b: s } }));
      for (const call of calls) expected.set(call.id, (call.args.a as number) + (call.args.b as number));
      return Array.from({ length: Math.ceil(count / sizes.batch) }, (_, b) => calls.slice(b * sizes.batch, (b + 1) * sizes.batch));
    });
    let remaining = total;
    const lastCompletion = deferred<number>();
    const problems: string[] = [];
    const subscribers: Subscriber[] = sessions.map(({ session, cursor }) =>
      bench.client.subscribe(session.id, cursor, (event, receivedAt) => {
        if (event.__typename !== 'ToolCallCompleted' || !event.callId?.startsWith(`${tag}-`)) return;
        const want = expected.get(event.callId);
        if (want === undefined) problems.push(`unexpected or repeated completion of ${event.callId}`);
        else if (event.status !== 'SUCCEEDED' || (event.output?.value as { result?: number } | undefined)?.result !== want) {
          problems.push(`${event.callId} completed ${event.status} with ${JSON.stringify(event.output)}, expected {result: ${want}}`);
        }
        expected.delete(event.callId);
        if (problems.length > 0) lastCompletion.reject(new BenchError(problems.slice(0, 5).join('; ')));
        else if (--remaining === 0) lastCompletion.resolve(receivedAt);
      }, 'batch'),
    );
    try {
      await within('P1 subscribers connecting', 30_000, Promise.all(subscribers.map((subscriber) => subscriber.connected.promise)));
      const pids = { api: toolrun.api.pid, worker: toolrun.worker.pid };
      const start = await bench.cpu.snapshot(pids);
      const started = performance.now();
      const submitted = Promise.all(sessions.map(({ session }, s) => Promise.all(batches[s]!.map((calls) => bench.client.submit(session.id, calls))))).then(() => performance.now());
      const finished = await within(() => `P1: ${total} completions received (${total - remaining} so far)`, sizes.runTimeoutMs, Promise.race([lastCompletion.promise, anyFailure(subscribers), failureOf(submitted)]));
      const rssMB = { api: (rssBytes(pids.api) ?? 0) / MB, worker: (rssBytes(pids.worker) ?? 0) / MB };
      const submitMs = (await submitted) - started;
      const ms = finished - started;
      const durable = await verifyDurable(bench.db, sessions.map(({ session }) => session.sessionId), `${tag}-`, total);
      // After the check, so writes that trail the completions (if toolrun defers any) are counted too.
      const cpu = await bench.cpu.usageSince(start, pids, { postgres: true });
      const run = { calls: total, ms, callsPerSec: total / (ms / 1000), cpuMsPerCall: cpu.totalMs / total, cpu, rssMB, submitMs, durable };
      bench.log(`  ${run.callsPerSec.toFixed(0)} calls/s (submitted in ${submitMs.toFixed(0)} ms), ${run.cpuMsPerCall.toFixed(3)} ms CPU per call; PostgreSQL holds all ${total} calls and their events`);
      return run;
    } finally {
      await Promise.all(subscribers.map((subscriber) => subscriber.close()));
    }
  };

  const runs = await interleave(bench, 'P1', { baseline: runBaseline, toolrun: runToolrun });
  const b = runs.baseline;
  const t = runs.toolrun;
  return {
    rows: [
      row('P1 throughput', '/s', medianOf(b, (r) => r.callsPerSec), medianOf(t, (r) => r.callsPerSec), '≥ 1.0× baseline', (_, ratio) => ratio !== null && ratio >= 1),
      row('CPU per call (node + PostgreSQL + Redis)', 'ms', medianOf(b, (r) => r.cpuMsPerCall), medianOf(t, (r) => r.cpuMsPerCall), '≤ 0.5 ms', (value) => value <= 0.5),
      row('RSS at end of P1: API (baseline: producer)', 'MB', medianOf(b, (r) => r.rssMB.api), medianOf(t, (r) => r.rssMB.api), '—', () => null),
      row('RSS at end of P1: worker', 'MB', medianOf(b, (r) => r.rssMB.worker), medianOf(t, (r) => r.rssMB.worker), '—', () => null),
    ],
    raw: runs,
  };
}
