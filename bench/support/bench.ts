// What every figure gets: the running toolrun, the baseline processes, clients, sizes, and the
// interleaving of repetitions.
import type { Redis } from 'ioredis';
import type pg from 'pg';
import type { Child } from './children.js';
import type { CpuMeter } from './cpu.js';
import type { Toolrun } from './deployment.js';
import type { ToolrunClient } from './graphql.js';
import { median } from './wait.js';

export interface Sizes {
  /** Measured repetitions of each side (after one warm-up of each side). */
  reps: number;
  /** Calls per toolrun batch, and per `addBulk` chunk of the baseline. */
  batch: number;
  p1Calls: number;
  p1Sessions: number;
  p1WarmupCalls: number;
  p2Samples: number;
  p2WarmupSamples: number;
  p3Subscribers: number;
  p3Calls: number;
  p3WarmupSubscribers: number;
  p3WarmupCalls: number;
  idleWindowMs: number;
  /** Wait before each idle window, so that statements of what came before (the probe batch's) are not counted in it. */
  idleSettleMs: number;
  p4Samples: number;
  p4WarmupSamples: number;
  fairnessCalls: number;
  fairnessBatch: number;
  fairnessUnloadedSamples: number;
  /** Longest wait for one measured run to finish (toolrun may be very slow; it is reported, not hidden). */
  runTimeoutMs: number;
}

export const FULL: Sizes = {
  reps: 3,
  batch: 100,
  p1Calls: 10_000,
  p1Sessions: 4,
  p1WarmupCalls: 1_000,
  p2Samples: 200,
  p2WarmupSamples: 20,
  p3Subscribers: 1_000,
  p3Calls: 1_000,
  p3WarmupSubscribers: 50,
  p3WarmupCalls: 100,
  idleWindowMs: 10_000,
  idleSettleMs: 3_000,
  p4Samples: 30,
  p4WarmupSamples: 3,
  fairnessCalls: 10_000,
  fairnessBatch: 1_000,
  fairnessUnloadedSamples: 30,
  runTimeoutMs: 900_000,
};

export const QUICK: Sizes = {
  reps: 1,
  batch: 100,
  p1Calls: 2_000,
  p1Sessions: 4,
  p1WarmupCalls: 200,
  p2Samples: 50,
  p2WarmupSamples: 5,
  p3Subscribers: 200,
  p3Calls: 100,
  p3WarmupSubscribers: 20,
  p3WarmupCalls: 20,
  idleWindowMs: 3_000,
  idleSettleMs: 2_000,
  p4Samples: 10,
  p4WarmupSamples: 2,
  fairnessCalls: 2_000,
  fairnessBatch: 1_000,
  fairnessUnloadedSamples: 10,
  runTimeoutMs: 120_000,
};

export interface Bench {
  sizes: Sizes;
  toolrun: Toolrun;
  /** Tenant A's client (every figure but fairness uses only it). */
  client: ToolrunClient;
  /** Tenant B's client, for the fairness figure. */
  clientB: ToolrunClient;
  baseline: { producer: Child; worker: Child; broadcaster: Child; broadcasterUrl: string };
  /** The bench's own connection to the bench database (verification, VACUUM, statistics). */
  db: pg.Client;
  databaseName: string;
  redis: Redis;
  cpu: CpuMeter;
  log(text: string): void;
}

/** One line of the final table. Values are in `unit`; null when a side has no such figure. */
export interface Row {
  figure: string;
  unit: string;
  baseline: number | null;
  toolrun: number | null;
  /** toolrun ÷ baseline, from the medians of this run. */
  ratio: number | null;
  target: string;
  pass: boolean | null;
  /** Why the figure has no value: the run broke. */
  broken?: string;
}

export interface FigureResult {
  rows: Row[];
  /** Every repetition's raw numbers and the medians, for results.json. */
  raw: unknown;
}

export function row(figure: string, unit: string, baseline: number | null, toolrun: number | null, target: string, pass: (toolrun: number, ratio: number | null) => boolean | null): Row {
  const ratio = baseline !== null && toolrun !== null && baseline !== 0 ? toolrun / baseline : null;
  return { figure, unit, baseline, toolrun, ratio, target, pass: toolrun === null || Number.isNaN(toolrun) ? null : pass(toolrun, ratio) };
}

export async function vacuum(bench: Bench): Promise<void> {
  await bench.db.query('VACUUM ANALYZE');
}

/** One run of one side; `tag` is unique per run (call ids and session titles start with it). */
export type Side<R> = (run: { rep: number; warmup: boolean; tag: string }) => Promise<R>;

/**
 * A warm-up of each side, then `reps` repetitions alternating the sides (baseline first unless
 * `toolrunFirst`), with `VACUUM ANALYZE` of the bench database before each. Warm-up results are
 * dropped.
 */
export async function interleave<B, T>(bench: Bench, figure: string, sides: { baseline: Side<B>; toolrun: Side<T>; toolrunFirst?: boolean }): Promise<{ baseline: B[]; toolrun: T[] }> {
  const results = { baseline: [] as B[], toolrun: [] as T[] };
  const order: Array<'baseline' | 'toolrun'> = sides.toolrunFirst ? ['toolrun', 'baseline'] : ['baseline', 'toolrun'];
  for (let rep = 0; rep <= bench.sizes.reps; rep++) {
    for (const side of order) {
      await vacuum(bench);
      const warmup = rep === 0;
      const label = warmup ? 'warm-up' : `rep ${rep}/${bench.sizes.reps}`;
      bench.log(`${figure} ${side} ${label}`);
      const result = await (sides[side] as Side<B | T>)({ rep, warmup, tag: `${figure.toLowerCase()}-${warmup ? 'w' : `r${rep}`}` });
      if (!warmup) (results[side] as Array<B | T>).push(result);
    }
  }
  return results;
}

/** The median over repetitions of one number of each. */
export const medianOf = <R>(results: R[], pick: (result: R) => number) => median(results.map(pick));
