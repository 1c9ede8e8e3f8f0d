import { describe, expect, it } from 'vitest';
import { MAX_SEEN_EVENT_IDS, SeenEvents } from '../../workflows/seen-events';

describe('seen webhook events (workflow state)', () => {
  it('takes an id once and carries what it saw into the next run', () => {
    const seen = new SeenEvents();
    expect(seen.remember('e1')).toBe(true);
    expect(seen.remember('e2')).toBe(true);
    expect(seen.remember('e1')).toBe(false);
    const next = new SeenEvents(seen.toArray());
    expect(next.remember('e2')).toBe(false);
    expect(next.remember('e3')).toBe(true);
  });

  it('is bounded: the oldest ids are forgotten first, in the run and across continue-as-new', () => {
    const seen = new SeenEvents([], 3);
    for (const id of ['a', 'b', 'c', 'd']) seen.remember(id);
    expect(seen.toArray()).toEqual(['b', 'c', 'd']);
    expect(seen.remember('a')).toBe(true);
    const carried = new SeenEvents(Array.from({ length: MAX_SEEN_EVENT_IDS + 10 }, (_, i) => `e${i}`));
    expect(carried.size).toBe(MAX_SEEN_EVENT_IDS);
    expect(carried.remember('e9')).toBe(true);
    expect(carried.remember(`e${MAX_SEEN_EVENT_IDS + 9}`)).toBe(false);
  });
});
