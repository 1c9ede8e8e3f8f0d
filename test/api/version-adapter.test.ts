// The rename table in one place: requests to older versions use the old names, answers come back in 2025-12-18 names.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromWireBody, toWireBody } from '../../api/wire/version-adapter';

const LEGACY = ['2025-02-17', '2025-05-27'] as const;

describe('version adapter', () => {
  it('leaves 2025-12-18 bodies untouched', () => {
    const body = { client_cost_per_interview_note: 'x', pricing_model: 'rate_card', profiles: [{ object: 'blended', targets: [] }] };
    expect(toWireBody(body, '2025-12-18')).toBe(body);
    expect(fromWireBody(body, '2025-12-18')).toBe(body);
  });

  it.each(LEGACY)('translates a target group request to the %s names', (version) => {
    const wire = toWireBody({
      name: 'US',
      filling_goal: 400,
      pricing_model: 'rate_card',
      type: 'rate_card',
      client_cost_per_interview_note: 'note',
      respondent_activity_exclusions: [{ type: 'project', id: '9' }],
    }, version);
    expect(wire).toEqual({
      name: 'US',
      filling_goal: 400, // the target group's own filling_goal is not renamed; only the quota one is
      pricing_model: 'ratecard',
      type: 'ratecard',
      client_cpi: 'note',
      respondent_activity_exclusions: [{ type: 'project', id: '9' }],
    });
  });

  it('translates a project answer from an older version and drops purchase_order_number', () => {
    expect(fromWireBody({ id: 'p1', 'human-readable-id': 'acme_q4', purchase_order_number: 'PO', name: 'n' }, '2025-05-27')).toEqual({
      id: 'p1', human_readable_id: 'acme_q4', name: 'n',
    });
  });

  it('splits profiles into the legacy layout: ungrouped/index, grouped/indexes, interlocked_profiles, quota names', () => {
    const current = {
      profiles: [
        {
          object: 'regular', id: 'age', name: 'Age', quotas_enabled: true,
          targets: [
            { id: 't1', text: '18-34', conditions: [{ object: 'selection', question_id: 42, option: '1' }], quota: { name: 'young', completes_goal: 100, completes_goal_percentage: 25, quota_nominal: 100, completes: 0, prescreens: 0 } },
            { id: 't2', text: 'mix', conditions: [{ object: 'selection', question_id: 42, option: '2' }, { object: 'selection', question_id: 43, option: '1' }], quota: { name: 'mix', completes_goal: 300 } },
          ],
        },
        { object: 'blended', id: 'b1', name: 'Age x Gender', quotas_enabled: false, profile_ids: ['age', 'gender'], targets: [] },
      ],
    };
    expect(toWireBody(current, '2025-02-17')).toEqual({
      profiles: [
        {
          id: 'age', name: 'Age', quotas_enabled: true,
          ungrouped: [{ id: 't1', text: '18-34', index: { object: 'selection', question_id: 42, option: '1' }, quota: { name: 'young', filling_goal: 100, quota_percentage: 25, quota_nominal: 100, completes: 0, prescreens: 0 } }],
          grouped: [{ id: 't2', text: 'mix', indexes: [{ object: 'selection', question_id: 42, option: '2' }, { object: 'selection', question_id: 43, option: '1' }], quota: { name: 'mix', filling_goal: 300, quota_nominal: 300 } }],
        },
      ],
      interlocked_profiles: [{ id: 'b1', name: 'Age x Gender', quotas_enabled: false, profile_ids: ['age', 'gender'], ungrouped: [], grouped: [] }],
    });
  });

  it('merges a legacy answer into 2025-12-18 profiles with object set', () => {
    const legacy = {
      id: 'tg1',
      client_cpi: '1.00',
      pricing_model: 'ratecard',
      profiles: [{ id: 'p', name: 'P', ungrouped: [{ id: 't', index: { object: 'selection', question_id: 1, option: 'a' }, quota: { name: 'q', filling_goal: 5, quota_nominal: 5, quota_percentage: 50 } }], grouped: [] }],
      interlocked_profiles: [{ id: 'b', name: 'B', profile_ids: ['p', 'r'], ungrouped: [], grouped: [{ id: 'bt', indexes: [{ object: 'selection', question_id: 1, option: 'a' }, { object: 'selection', question_id: 2, option: 'b' }] }] }],
    };
    expect(fromWireBody(legacy, '2025-05-27')).toEqual({
      id: 'tg1',
      client_cost_per_interview_note: '1.00',
      pricing_model: 'rate_card',
      profiles: [
        { object: 'regular', id: 'p', name: 'P', targets: [{ id: 't', conditions: [{ object: 'selection', question_id: 1, option: 'a' }], quota: { name: 'q', completes_goal: 5, quota_nominal: 5, completes_goal_percentage: 50 } }] },
        { object: 'blended', id: 'b', name: 'B', profile_ids: ['p', 'r'], targets: [{ id: 'bt', conditions: [{ object: 'selection', question_id: 1, option: 'a' }, { object: 'selection', question_id: 2, option: 'b' }] }] },
      ],
    });
  });

  it('translates an update-quotas body (targets without conditions) and a legacy quota carrying only quota_nominal', () => {
    expect(toWireBody({ profiles: [{ id: 'age', targets: [{ id: 't1', quota: { completes_goal: 10, completes_goal_percentage: 5 } }] }] }, '2025-02-17')).toEqual({
      profiles: [{ id: 'age', ungrouped: [], grouped: [{ id: 't1', indexes: [], quota: { filling_goal: 10, quota_percentage: 5, quota_nominal: 10 } }] }],
    });
    expect(fromWireBody({ profiles: [{ id: 'p', ungrouped: [{ id: 't', index: 1, quota: { name: 'q', quota_nominal: 10 } }] }] }, '2025-02-17')).toEqual({
      profiles: [{ object: 'regular', id: 'p', targets: [{ id: 't', conditions: [1], quota: { name: 'q', quota_nominal: 10, completes_goal: 10 } }] }],
    });
  });

  it('reads legacy performance: quotas filling_goal and completes_cost in minor units', () => {
    expect(fromWireBody({
      completes: 3,
      completes_cost: { value: 1234, currency_code: 'USD', currency_scale: 2 },
      quotas: [{ target_id: 't', completes: 1, filling_goal: 120 }],
    }, '2025-05-27')).toEqual({
      completes: 3,
      completes_cost: { value: '12.34', currency_code: 'USD', currency_scale: 2 },
      quotas: [{ target_id: 't', completes: 1, completes_goal: 120 }],
    });
    expect(fromWireBody({ completes_cost: { value: 5, currency_code: 'USD', currency_scale: 2 } }, '2025-02-17')).toEqual({ completes_cost: { value: '0.05', currency_code: 'USD', currency_scale: 2 } });
    expect(fromWireBody({ completes_cost: { value: '0.05', currency_code: 'USD', currency_scale: 2 } }, '2025-02-17')).toEqual({ completes_cost: { value: '0.05', currency_code: 'USD', currency_scale: 2 } });
  });

  it('does not modify its input', () => {
    const input = { profiles: [{ object: 'blended', targets: [{ conditions: [], quota: { completes_goal: 1 } }] }], pricing_model: 'rate_card' };
    const copy = structuredClone(input);
    toWireBody(input, '2025-02-17');
    fromWireBody(input, '2025-02-17');
    expect(input).toEqual(copy);
  });
});

// Property: for any 2025-12-18 target group body, old-version request then old-version answer gives the same body,
// up to the two orderings the legacy layout cannot keep (regular before blended; one-condition targets first).
const condition = fc.record({ object: fc.constant('selection'), question_id: fc.integer({ min: 1, max: 999 }), option: fc.string({ minLength: 1, maxLength: 4 }) });
const quota = fc.record({
  name: fc.string({ minLength: 1, maxLength: 8 }),
  completes_goal: fc.integer({ min: 0, max: 1000 }),
  completes_goal_percentage: fc.integer({ min: 0, max: 100 }),
  completes: fc.integer({ min: 0, max: 1000 }),
  prescreens: fc.integer({ min: 0, max: 1000 }),
});
const target = fc.record({ id: fc.uuid(), text: fc.string({ maxLength: 10 }), conditions: fc.array(condition, { minLength: 1, maxLength: 3 }), quota });
const profile = fc.record({
  object: fc.constantFrom('regular', 'blended'),
  id: fc.uuid(),
  name: fc.string({ maxLength: 10 }),
  description: fc.string({ maxLength: 10 }),
  quotas_enabled: fc.boolean(),
  targets: fc.array(target, { maxLength: 4 }),
});
const targetGroup = fc.record({
  id: fc.uuid(),
  filling_goal: fc.integer({ min: 1, max: 100_000 }),
  pricing_model: fc.constantFrom('rate_card', 'dynamic'),
  type: fc.constantFrom('rate_card', 'custom'),
  client_cost_per_interview_note: fc.option(fc.string({ maxLength: 10 }), { nil: null }),
  profiles: fc.array(profile, { maxLength: 4 }),
});

type Tg = { profiles: { object: string; targets: { conditions: unknown[]; quota: Record<string, unknown> }[] }[] };
function canonical(tg: Tg): Tg {
  const profiles = [...tg.profiles.filter((p) => p.object === 'regular'), ...tg.profiles.filter((p) => p.object === 'blended')].map((p) => ({
    ...p,
    targets: [...p.targets.filter((t) => t.conditions.length === 1), ...p.targets.filter((t) => t.conditions.length !== 1)].map((t) => ({
      ...t,
      quota: { ...t.quota, quota_nominal: t.quota.completes_goal },
    })),
  }));
  return { ...tg, profiles };
}

const NEW_ONLY_KEYS = ['completes_goal', 'completes_goal_percentage', 'conditions', 'targets', 'client_cost_per_interview_note', 'human_readable_id'];
function keysDeep(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => keysDeep(v, out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) { out.add(k); keysDeep(v, out); }
  return out;
}

describe('version adapter properties', () => {
  it.each(LEGACY)('round-trips any target group through %s', (version) => {
    fc.assert(
      fc.property(targetGroup, (tg) => {
        expect(fromWireBody(toWireBody(tg, version), version)).toEqual(canonical(tg as Tg));
      }),
      { numRuns: 200 },
    );
  });

  it.each(LEGACY)('never sends a 2025-12-18-only name or value to %s', (version) => {
    fc.assert(
      fc.property(targetGroup, (tg) => {
        const wire = toWireBody(tg, version);
        const keys = keysDeep(wire);
        for (const name of NEW_ONLY_KEYS) expect(keys.has(name)).toBe(false);
        expect(JSON.stringify(wire)).not.toContain('"rate_card"');
        expect(JSON.stringify(wire)).not.toContain('"blended"');
      }),
      { numRuns: 200 },
    );
  });
});
