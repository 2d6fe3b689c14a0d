// When a worker may take other workers' old heartbeats for their death: only while its own land steadily.
import { describe, expect, it } from 'vitest';
import { OwnHeartbeat } from '../../src/jobs/own-heartbeat.js';

const INTERVAL = 500;
const DEAD_AFTER = 5000;

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** Heartbeats landing every interval for `ms`. */
function beatFor(heart: OwnHeartbeat, time: ReturnType<typeof clock>, ms: number): void {
  for (let elapsed = 0; elapsed < ms; elapsed += INTERVAL) {
    time.advance(INTERVAL);
    heart.landed();
  }
}

describe('OwnHeartbeat', () => {
  it('judges nothing until its own heartbeats have landed for a whole window after it registered', () => {
    const time = clock();
    const heart = new OwnHeartbeat(INTERVAL, DEAD_AFTER, time.now);
    beatFor(heart, time, DEAD_AFTER - INTERVAL);
    expect(heart.mayJudge(DEAD_AFTER)).toBe(false);
    beatFor(heart, time, INTERVAL);
    expect(heart.mayJudge(DEAD_AFTER)).toBe(true);
  });

  it('stops judging after an outage its own heartbeats shared, for a whole window after they land again', () => {
    const time = clock();
    const heart = new OwnHeartbeat(INTERVAL, DEAD_AFTER, time.now);
    beatFor(heart, time, 2 * DEAD_AFTER);
    expect(heart.mayJudge(DEAD_AFTER)).toBe(true);
    // The database is away for 6 s: no heartbeat lands; once none has for the window less an interval, none is judged.
    time.advance(3000);
    expect(heart.mayJudge(DEAD_AFTER)).toBe(true);
    time.advance(3000);
    expect(heart.mayJudge(DEAD_AFTER)).toBe(false);
    heart.landed();
    expect(heart.mayJudge(DEAD_AFTER)).toBe(false);
    beatFor(heart, time, DEAD_AFTER - INTERVAL);
    expect(heart.mayJudge(DEAD_AFTER)).toBe(false);
    beatFor(heart, time, INTERVAL);
    expect(heart.mayJudge(DEAD_AFTER)).toBe(true);
  });

  it('keeps judging through gaps too short to leave a live worker’s heartbeat as old as the window', () => {
    const time = clock();
    const heart = new OwnHeartbeat(INTERVAL, DEAD_AFTER, time.now);
    beatFor(heart, time, DEAD_AFTER);
    time.advance(DEAD_AFTER - INTERVAL);
    heart.landed();
    expect(heart.mayJudge(DEAD_AFTER)).toBe(true);
  });

  it('starts over when the worker registers again (it was declared dead)', () => {
    const time = clock();
    const heart = new OwnHeartbeat(INTERVAL, DEAD_AFTER, time.now);
    beatFor(heart, time, 2 * DEAD_AFTER);
    heart.registered();
    expect(heart.mayJudge(DEAD_AFTER)).toBe(false);
    beatFor(heart, time, DEAD_AFTER);
    expect(heart.mayJudge(DEAD_AFTER)).toBe(true);
  });
});
