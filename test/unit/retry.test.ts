import { describe, expect, it } from 'vitest';
import { failure, outputs } from '../../src/model/outcome.js';
import { backoffDelay, decideRetry, type RetryPolicy } from '../../src/model/retry.js';

const exponential: RetryPolicy = { maxAttempts: 5, backoff: { type: 'EXPONENTIAL', delayMs: 100, maxDelayMs: 1000 } };
const fixed: RetryPolicy = { maxAttempts: 5, backoff: { type: 'FIXED', delayMs: 250, maxDelayMs: 1000 } };
const safe = (afterMs?: number) => outputs.failure(failure('EXTERNAL', 'http_503', 'down', { retry: afterMs === undefined ? { kind: 'SAFE' } : { kind: 'SAFE', afterMs } }));

const highest = () => 0.999_999;
const lowest = () => 0;
const middle = () => 0.5;

describe('backoffDelay', () => {
  it('doubles from delayMs up to maxDelayMs, or stays fixed (the top of the jitter range)', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => backoffDelay(exponential, attempt, highest))).toEqual([100, 200, 400, 800, 1000]);
    expect([1, 2, 3].map((attempt) => backoffDelay(fixed, attempt, highest))).toEqual([250, 250, 250]);
  });

  it('jitters each wait between half the nominal delay and all of it (equal jitter)', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => backoffDelay(exponential, attempt, lowest))).toEqual([50, 100, 200, 400, 500]);
    expect([1, 2, 3, 4, 5].map((attempt) => backoffDelay(exponential, attempt, middle))).toEqual([75, 150, 300, 600, 750]);
    expect(backoffDelay(fixed, 1, lowest)).toBe(125);
  });

  it('spreads waits drawn from Math.random over the range', () => {
    const waits = Array.from({ length: 200 }, () => backoffDelay(fixed, 1));
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(125);
    expect(Math.max(...waits)).toBeLessThanOrEqual(250);
    expect(new Set(waits).size).toBeGreaterThan(10);
  });
});

describe('decideRetry', () => {
  it('ends a success, a NEVER failure and a cancellation as they are', () => {
    for (const output of [outputs.success(1), outputs.failure(failure('EXECUTION', 'boom', 'no')), outputs.cancelled()]) {
      expect(decideRetry(output, 1, 5, exponential)).toEqual({ kind: 'final', output });
    }
  });

  it('retries a SAFE failure while attempts remain, after afterMs or else the backoff', () => {
    expect(decideRetry(safe(), 2, 5, exponential, lowest)).toMatchObject({ kind: 'retry', delayMs: 100, failure: { code: 'http_503' } });
    expect(decideRetry(safe(), 2, 5, exponential, highest)).toMatchObject({ kind: 'retry', delayMs: 200 });
  });

  it('keeps a failure’s own afterMs exact (no jitter on Retry-After)', () => {
    for (const random of [lowest, middle, highest]) {
      expect(decideRetry(safe(1500), 2, 5, exponential, random)).toMatchObject({ kind: 'retry', delayMs: 1500 });
    }
    expect(decideRetry(safe(), 1, 5, null)).toMatchObject({ kind: 'retry', delayMs: 0 });
  });

  it('marks the last attempt’s SAFE failure EXHAUSTED', () => {
    const decision = decideRetry(safe(), 5, 5, exponential);
    expect(decision).toEqual({ kind: 'final', output: outputs.failure({ ...failure('EXTERNAL', 'http_503', 'down'), retry: { kind: 'EXHAUSTED', attempts: 5 } }) });
  });
});
