// The simulation's session ids are RIDs as the reference gives them (UUIDs), stable for a seed, distinct per arrival.
import { describe, expect, it } from 'vitest';
import { sessionRid } from '../../sandbox/model/fielding-simulation';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('sessionRid', () => {
  it('is a UUID, the same for the same seed, group and arrival, and distinct across 10,000 arrivals and two groups', () => {
    const seen = new Set<string>();
    for (const tg of ['tg_a', 'tg_b']) {
      for (let i = 0; i < 5000; i += 1) {
        const rid = sessionRid('seed-1', tg, i);
        expect(rid).toMatch(UUID);
        seen.add(rid);
      }
    }
    expect(seen.size).toBe(10_000);
    expect(sessionRid('seed-1', 'tg_a', 7)).toBe(sessionRid('seed-1', 'tg_a', 7));
    expect(sessionRid('seed-2', 'tg_a', 7)).not.toBe(sessionRid('seed-1', 'tg_a', 7));
  });
});
