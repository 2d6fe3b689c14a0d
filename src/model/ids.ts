import { createHash, randomFillSync } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import { v7 } from 'uuid';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Key-sorted JSON, the input of every content hash. */
export function stableJson(value: unknown): string {
  return stringify(value) ?? 'null';
}

// The uuid package's v7 draws the random bytes of every id with crypto.getRandomValues: about 15 µs
// of CPU each on a 2-core VM, 2 % of the API's CPU under load (an id per call). Here they come from a
// pool filled 256 ids at a time. Given its bytes, v7 no longer keeps the (millisecond, counter) state
// that makes one process's ids increase within a millisecond, so it is kept here the way v7 keeps it.
const randomPool = new Uint8Array(16 * 256);
let poolTaken = randomPool.length;
const v7Clock = { msecs: -Infinity, seq: 0 };

/** A UUIDv7 (time-ordered), increasing within a millisecond in this process. */
export function uuidv7(): string {
  if (poolTaken === randomPool.length) {
    randomFillSync(randomPool);
    poolTaken = 0;
  }
  const random = randomPool.subarray(poolTaken, (poolTaken += 16));
  const now = Date.now();
  if (now > v7Clock.msecs) {
    v7Clock.msecs = now;
    v7Clock.seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    v7Clock.seq = (v7Clock.seq + 1) | 0;
    if (v7Clock.seq === 0) v7Clock.msecs++;
  }
  return v7({ random, msecs: v7Clock.msecs, seq: v7Clock.seq });
}

export function newCallId(): string {
  return `call_${uuidv7().replaceAll('-', '')}`;
}

export function newRunId(): string {
  return `bg_${uuidv7().replaceAll('-', '')}`;
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
