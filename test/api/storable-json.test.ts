// The storable codec against PostgreSQL itself: what jsonb and text refuse is stored and restored exactly.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromStorableText, parseStoredJson, STORABLE_MARK, toStorableJson, toStorableText } from '../../src/model/storable-json.js';
import { TEST_DATABASE_URL } from '../support/database.js';

describe('storable JSON', () => {
  describe('in PostgreSQL', () => {
    let client: pg.Client;
    beforeAll(async () => {
      client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
    });
    afterAll(() => client.end());

    it('stores what jsonb and text would refuse, and restores it exactly', async () => {
      const refused = ['a\u0000b', 'x\ud800y', { 'k\u0000': ['\udfff', STORABLE_MARK, 'plain'] }];
      for (const sample of refused) await expect(client.query('SELECT $1::jsonb', [JSON.stringify(sample)])).rejects.toThrow();
      for (const sample of [...refused, `${STORABLE_MARK}0`]) {
        const { rows } = await client.query<{ j: string; t: string }>('SELECT $1::jsonb::text AS j, $2::text AS t', [toStorableJson(sample), toStorableText(JSON.stringify(sample))]);
        expect(parseStoredJson(rows[0]!.j)).toEqual(sample);
        expect(fromStorableText(rows[0]!.t)).toBe(JSON.stringify(sample));
      }
    });
  });
});
