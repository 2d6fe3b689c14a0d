import { describe, expect, it } from 'vitest';
import { decodeEventCursor, encodeEventCursor } from '../../src/realtime/cursors.js';
import { ValidationError } from '../../src/model/errors.js';

const session = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const other = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c';

describe('event cursors', () => {
  it('round-trip a session and a seq, opaquely', () => {
    const cursor = encodeEventCursor(session, 42);
    expect(cursor).not.toContain(session);
    expect(decodeEventCursor(cursor, session)).toBe(42);
    expect(decodeEventCursor(encodeEventCursor(session, 0), session)).toBe(0);
  });

  it('fit only their own session, and refuse anything else with a ValidationError on `after`', () => {
    for (const cursor of [encodeEventCursor(other, 1), 'garbage', Buffer.from(`evt:${session}:-1`).toString('base64url'), '']) {
      let refused: unknown = null;
      try {
        decodeEventCursor(cursor, session);
      } catch (error) {
        refused = error;
      }
      expect(refused, cursor).toBeInstanceOf(ValidationError);
      expect(refused).toMatchObject({ field: 'after' });
    }
  });
});
