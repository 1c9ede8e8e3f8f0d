import { describe, expect, it } from 'vitest';
import { InMemoryDeliveryDedupe } from '../../webhooks/delivery-dedupe';

describe('InMemoryDeliveryDedupe', () => {
  it('claims an id once; a second claim is a duplicate', () => {
    const dedupe = new InMemoryDeliveryDedupe();
    expect(dedupe.claim('e-1')).toBe(true);
    expect(dedupe.claim('e-1')).toBe(false);
    expect(dedupe.claim('e-2')).toBe(true);
  });

  it('forgets an id after its TTL, and prunes expired ids', () => {
    let now = 1_000;
    const dedupe = new InMemoryDeliveryDedupe({ ttlMs: 100, clock: () => now });
    dedupe.claim('e-1');
    now = 1_099;
    expect(dedupe.claim('e-1')).toBe(false);
    dedupe.claim('e-2');
    now = 1_100;
    expect(dedupe.claim('e-1')).toBe(true);
    now = 1_198;
    expect(dedupe.size).toBe(2);
    now = 1_250;
    dedupe.claim('e-3');
    expect(dedupe.size).toBe(1);
  });

  it('holds at most maxEntries ids, dropping the oldest', () => {
    const dedupe = new InMemoryDeliveryDedupe({ maxEntries: 3 });
    for (const id of ['a', 'b', 'c', 'd']) dedupe.claim(id);
    expect(dedupe.size).toBe(3);
    expect(dedupe.evicted).toBe(1);
    expect(dedupe.claim('b')).toBe(false);
    expect(dedupe.claim('a')).toBe(true);
  });

  it('release forgets an id so it can be claimed again', () => {
    const dedupe = new InMemoryDeliveryDedupe();
    dedupe.claim('e-1');
    dedupe.release('e-1');
    expect(dedupe.claim('e-1')).toBe(true);
  });

  it('refuses nonsensical bounds', () => {
    expect(() => new InMemoryDeliveryDedupe({ ttlMs: 0 })).toThrow(/ttlMs/);
    expect(() => new InMemoryDeliveryDedupe({ maxEntries: 0 })).toThrow(/maxEntries/);
  });
});
