import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateBlendedProfileInput } from '../../sandbox/model/blended-profiles';
import type { BlendedProfile } from '../../sandbox/model/profile-types';
import { validateProfiles } from '../../sandbox/model/profile-validation';
import { distributeSupplierQuotas, supplierCapacityWeight } from '../../sandbox/model/supplier-quota-distribution';
import { RuleViolation } from '../../sandbox/model/rule-violation';

const newId = () => {
  let next = 0;
  return (kind: string) => `${kind}-${++next}`;
};

function regulars(fillingGoal: number, genderPercentages = [40, 60]) {
  return validateProfiles([
    {
      object: 'regular', id: 'gender', name: 'Gender', quotas_enabled: true,
      targets: genderPercentages.map((percentage, index) => ({ id: `g${index + 1}`, conditions: [{ object: 'selection', question_id: 43, option: String(index + 1) }], quota: { completes_goal_percentage: percentage } })),
    },
    {
      object: 'regular', id: 'kids', name: 'Kids', quotas_enabled: false,
      targets: [{ id: 'yes', conditions: [{ object: 'selection', question_id: 7064, option: '1' }] }, { id: 'no', conditions: [{ object: 'selection', question_id: 7064, option: '2' }] }],
    },
    { object: 'regular', id: 'edu', name: 'Education', quotas_enabled: false, targets: [{ id: 'e', conditions: [{ object: 'selection', question_id: 633, option: '4' }] }] },
  ], { locale: 'en_US', fillingGoal, newId: newId() });
}

describe('generateBlendedProfileInput', () => {
  it('builds the cartesian product of the source targets with goals split by the product of their shares', () => {
    const profiles = regulars(1000);
    let next = 0;
    const input = generateBlendedProfileInput(profiles, { profileIds: ['gender', 'kids'], id: 'blend', quotasEnabled: true, fillingGoal: 1000, newTargetId: () => `bt${++next}` });
    const [blend] = validateProfiles([...profiles, input], { locale: 'en_US', fillingGoal: 1000, newId: newId() }).filter((profile) => profile.object === 'blended') as BlendedProfile[];
    expect(blend.name).toBe('Gender × Kids');
    expect(blend.targets.map((target) => target.source_target_ids)).toEqual([['g1', 'yes'], ['g1', 'no'], ['g2', 'yes'], ['g2', 'no']]);
    // gender 40/60 with quotas, kids without quotas (equal halves): 20/20/30/30 %.
    expect(blend.targets.map((target) => target.quota.completes_goal)).toEqual([200, 200, 300, 300]);
    expect(blend.targets.map((target) => target.quota.completes_goal_percentage)).toEqual([20, 20, 30, 30]);
  });

  it('refuses fewer than two, repeated, unknown or blended sources', () => {
    const profiles = regulars(100);
    const request = { id: 'b', quotasEnabled: false, fillingGoal: 100, newTargetId: () => 'x' };
    for (const profileIds of [['gender'], ['gender', 'gender'], ['gender', 'nope']]) {
      expect(() => generateBlendedProfileInput(profiles, { ...request, profileIds })).toThrow(RuleViolation);
    }
  });

  it('goals always add up to the filling goal (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 0, max: 100 }), (fillingGoal, malePercentage) => {
        const profiles = regulars(fillingGoal, [malePercentage, 100 - malePercentage]);
        let next = 0;
        const input = generateBlendedProfileInput(profiles, { profileIds: ['kids', 'gender', 'edu'], id: 'b', quotasEnabled: true, fillingGoal, newTargetId: () => `t${++next}` });
        const goals = (input.targets as { quota: { completes_goal: number } }[]).map((target) => target.quota.completes_goal);
        expect(goals.reduce((a, b) => a + b, 0)).toBe(fillingGoal);
        expect(validateProfiles([...profiles, input], { locale: 'en_US', fillingGoal, newId: newId() })).toHaveLength(4);
      }),
      { numRuns: 150 },
    );
  });
});

describe('distributeSupplierQuotas', () => {
  it('splits the filling goal and each quota goal over the suppliers by their capacity weight', () => {
    const profiles = regulars(1000);
    const distribution = distributeSupplierQuotas({ locale: 'en_US', fillingGoal: 1000, supplierIds: [11, 22, 33], profiles });
    expect(distribution.suppliers.map((supplier) => supplier.supplier_id)).toEqual([11, 22, 33]);
    expect(distribution.suppliers.reduce((sum, supplier) => sum + supplier.completes_goal, 0)).toBe(1000);
    for (const targetId of ['g1', 'g2']) {
      const goal = profiles[0].targets.find((target) => target.id === targetId)!.quota.completes_goal!;
      expect(distribution.suppliers.reduce((sum, supplier) => sum + supplier.targets.find((target) => target.target_id === targetId)!.completes_goal, 0)).toBe(goal);
    }
    // The supplier with the larger weight gets at least as much.
    const [a, b] = [...distribution.suppliers].sort((x, y) => supplierCapacityWeight(x.supplier_id, 'en_US') - supplierCapacityWeight(y.supplier_id, 'en_US'));
    expect(a.completes_goal).toBeLessThanOrEqual(b.completes_goal);
    // Quota-less profiles do not appear.
    expect(distribution.suppliers[0].targets.map((target) => target.profile_id)).toEqual(['gender', 'gender']);
  });

  it('is deterministic', () => {
    const request = { locale: 'de_DE', fillingGoal: 777, supplierIds: [5, 9], profiles: [] };
    expect(distributeSupplierQuotas(request)).toEqual(distributeSupplierQuotas(request));
  });
});
