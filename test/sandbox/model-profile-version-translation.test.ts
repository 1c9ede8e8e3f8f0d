import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApiVersion } from '../../sandbox/model/api-version';
import { generateBlendedProfileInput } from '../../sandbox/model/blended-profiles';
import type { Profile } from '../../sandbox/model/profile-types';
import { validateProfiles } from '../../sandbox/model/profile-validation';
import { readProfilesRequest, readQuotaInput, renderProfiles } from '../../sandbox/model/profile-version-translation';
import { RuleViolation } from '../../sandbox/model/rule-violation';

const ids = () => {
  let next = 0;
  return (kind: string) => `${kind}-${++next}`;
};
const validate = (raw: unknown, fillingGoal = 100) => validateProfiles(raw, { locale: 'en_US', fillingGoal, newId: ids() });

function rejection(run: () => unknown): RuleViolation {
  try {
    run();
  } catch (error) {
    if (error instanceof RuleViolation) return error;
    throw error;
  }
  throw new Error('expected a RuleViolation');
}

const legacyBody = {
  profiles: [
    {
      id: 'gender', name: 'Gender', quotas_enabled: true,
      ungrouped: [{ id: 'm', index: { object: 'selection', question_id: 43, option: '1' }, quota: { quota_percentage: 50, filling_goal: 50, quota_nominal: 50 } }],
      grouped: [{ id: 'fo', indexes: [{ object: 'selection', question_id: 43, option: '2' }, { object: 'selection', question_id: 43, option: '3' }], quota: { quota_nominal: 50 } }],
    },
    { id: 'kids', name: 'Kids', quotas_enabled: false, ungrouped: [{ id: 'yes', index: { object: 'selection', question_id: 7064, option: '1' } }] },
  ],
  interlocked_profiles: [{ id: 'blend', name: 'Gender × Kids', quotas_enabled: false, profile_ids: ['gender', 'kids'], grouped: [{ id: 'm-yes', source_target_ids: ['m', 'yes'] }] }],
};

describe('reading profile requests per version', () => {
  it('reads the old names (ungrouped/grouped, index/indexes, quota_percentage/filling_goal/quota_nominal, interlocked_profiles)', () => {
    const profiles = validate(readProfilesRequest(legacyBody, '2025-05-27'));
    expect(profiles.map((profile) => [profile.object, profile.id])).toEqual([['regular', 'gender'], ['regular', 'kids'], ['blended', 'blend']]);
    expect(profiles[0].targets.map((target) => [target.id, target.conditions.length, target.quota.completes_goal])).toEqual([['m', 1, 50], ['fo', 2, 50]]);
    expect(profiles[2].targets[0].conditions).toHaveLength(2);
  });

  it('answers each renamed-away field in a 2025-12-18 request with 400 naming the new field', () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ interlocked_profiles: [] , profiles: [] }, 'interlocked_profiles', 'profiles entries with object = blended'],
      [{ profiles: [{ object: 'regular', ungrouped: [] }] }, 'ungrouped', 'target'],
      [{ profiles: [{ object: 'regular', grouped: [] }] }, 'grouped', 'target'],
      [{ profiles: [{ object: 'regular', targets: [{ index: {} }] }] }, 'index', 'condition'],
      [{ profiles: [{ object: 'regular', targets: [{ indexes: [] }] }] }, 'indexes', 'conditions'],
      [{ profiles: [{ object: 'regular', targets: [{ quota: { filling_goal: 5 } }] }] }, 'filling_goal', 'completes_goal'],
      [{ profiles: [{ object: 'regular', targets: [{ quota: { quota_percentage: 5 } }] }] }, 'quota_percentage', 'completes_goal_percentage'],
      [{ profiles: [{ object: 'regular', targets: [{ quota: { quota_nominal: 5 } }] }] }, 'quota_nominal', 'completes_goal'],
    ];
    for (const [body, old, current] of cases) {
      const error = rejection(() => readProfilesRequest(body, '2025-12-18'));
      expect(error.status).toBe(400);
      expect(error.object).toBe('bad_request');
      expect(error.invalidParams![0].name).toBe(old);
      expect(error.invalidParams![0].reason).toContain(`renamed to ${current} in 2025-12-18`);
    }
  });

  it('tolerates quota_nominal in 2025-12-18 only as an echo of completes_goal', () => {
    const body = { profiles: [{ object: 'regular', targets: [{ quota: { completes_goal: 5, quota_nominal: 5 } }] }] };
    expect(readProfilesRequest(body, '2025-12-18')).toEqual([{ object: 'regular', targets: [{ quota: { completes_goal: 5 } }] }]);
    expect(rejection(() => readQuotaInput({ completes_goal: 5, quota_nominal: 6 }, '2025-12-18', 'quota')).status).toBe(400);
  });

  it('refuses 2025-12-18-only fields in older versions', () => {
    for (const body of [
      { profiles: [{ targets: [] }] },
      { profiles: [{ open_ended_group: { name: 'x', question_ids: [9001, 9002] }, ungrouped: [] }] },
      { profiles: [{ object: 'blended', ungrouped: [] }] },
      { profiles: [{ ungrouped: [{ conditions: [], index: {} }] }] },
      { profiles: [{ ungrouped: [{ index: {}, quota: { completes_goal: 3 } }] }] },
      { profiles: [{ grouped: [{ indexes: [{}] }] }] },
      { profiles: [{ ungrouped: [{ index: {}, quota: { filling_goal: 3, quota_nominal: 4 } }] }] },
    ]) {
      expect(rejection(() => readProfilesRequest(body, '2025-02-17')).status).toBe(400);
    }
  });
});

describe('rendering profiles per version', () => {
  it('renders the old shape before 2025-12-18 and the stored shape (with quota_nominal) from 2025-12-18', () => {
    const profiles = validate(readProfilesRequest(legacyBody, '2025-02-17'));
    const legacy = renderProfiles(profiles, '2025-05-27') as { profiles: Record<string, any>[]; interlocked_profiles: Record<string, any>[] };
    expect(Object.keys(legacy)).toEqual(['profiles', 'interlocked_profiles']);
    expect(legacy.profiles[0]).not.toHaveProperty('targets');
    expect(legacy.profiles[0].ungrouped[0].quota).toEqual({ name: 'Male', quota_percentage: 50, filling_goal: 50, quota_nominal: 50, completes: 0, prescreens: 0 });
    expect(legacy.profiles[0].grouped[0].indexes).toHaveLength(2);
    expect(legacy.interlocked_profiles[0].grouped[0].source_target_ids).toEqual(['m', 'yes']);
    const current = renderProfiles(profiles, '2025-12-18') as { profiles: Record<string, any>[] };
    expect(Object.keys(current)).toEqual(['profiles']);
    expect(current.profiles[2].object).toBe('blended');
    expect(current.profiles[0].targets[0].quota).toEqual({ name: 'Male', completes_goal_percentage: 50, completes_goal: 50, quota_nominal: 50, completes: 0, prescreens: 0 });
  });
});

// Random valid profile sets over the closed questions, with an optional blend of the first two.
const closedQuestions: Record<number, string[]> = { 43: ['1', '2', '3'], 633: ['1', '2', '3', '4'], 2189: ['1', '2', '3', '4', '5'], 7064: ['1', '2'], 61076: ['1', '2', '3', '4', '5'] };
const profileSetArbitrary = fc
  .tuple(
    fc.shuffledSubarray(Object.keys(closedQuestions).map(Number), { minLength: 1, maxLength: 4 }),
    fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 4, maxLength: 4 }),
    fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    fc.boolean(),
    fc.integer({ min: 1, max: 5000 }),
  )
  .map(([questionIds, targetCounts, quotaFlags, blend, fillingGoal]) => {
    const profiles: Record<string, unknown>[] = questionIds.map((questionId, profileIndex) => {
      const options = closedQuestions[questionId];
      const count = Math.min(targetCounts[profileIndex], options.length);
      const groups = Array.from({ length: count }, (_, index) => options.filter((_, optionIndex) => optionIndex % count === index));
      const goals = groups.map((_, index) => Math.floor(fillingGoal / count) + (index < fillingGoal % count ? 1 : 0));
      return {
        object: 'regular', id: `p${questionId}`, name: `Q${questionId}`, quotas_enabled: quotaFlags[profileIndex],
        targets: groups.map((group, index) => ({
          id: `t${questionId}-${index}`,
          conditions: group.map((option) => ({ object: 'selection', question_id: questionId, option })),
          ...(quotaFlags[profileIndex] ? { quota: { completes_goal: goals[index] } } : {}),
        })),
      };
    });
    return { profiles, blend: blend && profiles.length >= 2, fillingGoal };
  });

function storedSet(generated: { profiles: Record<string, unknown>[]; blend: boolean; fillingGoal: number }): Profile[] {
  const regulars = validate(generated.profiles, generated.fillingGoal);
  if (!generated.blend) return regulars;
  let next = 0;
  const blend = generateBlendedProfileInput(regulars, { profileIds: [regulars[0].id, regulars[1].id], id: 'blend', quotasEnabled: true, fillingGoal: generated.fillingGoal, newTargetId: () => `b${++next}` });
  return validate([...generated.profiles, blend], generated.fillingGoal);
}

const byTargetId = (profiles: Profile[]) => profiles.map((profile) => ({ ...profile, targets: [...profile.targets].sort((a, b) => a.id.localeCompare(b.id)) }));

describe('translation round trips (property)', () => {
  it.each<ApiVersion>(['2025-02-17', '2025-05-27', '2025-12-18'])('render in %s, read back in %s: the same stored profiles', (version) => {
    fc.assert(
      fc.property(profileSetArbitrary, (generated) => {
        const stored = storedSet(generated);
        const rendered = renderProfiles(stored, version);
        const readBack = validate(readProfilesRequest(JSON.parse(JSON.stringify(rendered)), version), generated.fillingGoal);
        expect(byTargetId(readBack)).toEqual(byTargetId(stored));
      }),
      { numRuns: 150 },
    );
  });
});
