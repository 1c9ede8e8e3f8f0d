import { describe, expect, it } from 'vitest';
import { validateProfiles, type ProfileValidationContext } from '../../sandbox/model/profile-validation';
import type { Profile, RegularProfile } from '../../sandbox/model/profile-types';
import { RuleViolation } from '../../sandbox/model/rule-violation';
import { expandProfileTemplates, listProfileTemplates } from '../../sandbox/model/profile-templates';
import { rescaleQuotasToFillingGoal, apportion } from '../../sandbox/model/profile-quotas';

function context(overrides: Partial<ProfileValidationContext> = {}): ProfileValidationContext {
  let next = 0;
  return { locale: 'en_US', fillingGoal: 100, newId: (kind) => `${kind}-${++next}`, ...overrides };
}

const gender = (quota = true) => ({
  object: 'regular',
  id: 'gender',
  name: 'Gender',
  quotas_enabled: quota,
  targets: [
    { id: 'm', conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { completes_goal_percentage: 50 } },
    { id: 'f', conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { completes_goal: 50 } },
  ],
});

const age = () => ({
  object: 'regular',
  id: 'age',
  name: 'Age',
  quotas_enabled: true,
  targets: [
    { id: 'young', conditions: [{ object: 'range', question_id: 42, min: 18, max: 34 }], quota: { completes_goal: 40 } },
    { id: 'old', conditions: [{ object: 'range', question_id: 42, min: 35, max: 99 }], quota: { completes_goal: 60, completes_goal_percentage: 60 } },
  ],
});

function rejection(run: () => unknown): RuleViolation {
  try {
    run();
  } catch (error) {
    if (error instanceof RuleViolation) return error;
    throw error;
  }
  throw new Error('expected a RuleViolation');
}

describe('validateProfiles: the 2025-12-18 shape', () => {
  it('normalizes a valid set: defaults texts from the catalogue, derives the missing quota half, mirrors quota_nominal', () => {
    const [profile] = validateProfiles([gender()], context({ locale: 'de_DE' })) as RegularProfile[];
    expect(profile).toMatchObject({ object: 'regular', id: 'gender', description: 'Welches Geschlecht haben Sie?', description_translated: 'What is your gender?', open_ended_group: null, template_id: null });
    expect(profile.targets[0]).toMatchObject({ id: 'm', text: 'Männlich', text_translated: 'Male' });
    expect(profile.targets[0].quota).toEqual({ name: 'Männlich', completes_goal_percentage: 50, completes_goal: 50, quota_nominal: 50, completes: 0, prescreens: 0 });
    expect(profile.targets[1].quota.completes_goal_percentage).toBe(50);
  });

  it('accepts the lower-case and three-letter locale spellings (en_us, eng_us)', () => {
    expect(validateProfiles([gender()], context({ locale: 'eng_us' }))).toHaveLength(1);
    expect(validateProfiles([gender()], context({ locale: 'en_us' }))).toHaveLength(1);
  });

  it('assigns ids to profiles and targets that come without one', () => {
    const input = gender();
    delete (input as Record<string, unknown>).id;
    delete (input.targets[0] as Record<string, unknown>).id;
    const [profile] = validateProfiles([input], context());
    expect(profile.id).toBe('profile-1');
    expect(profile.targets[0].id).toBe('target-2');
  });

  it('keeps completes and prescreens of targets that existed before, ignoring request values', () => {
    const previous = validateProfiles([gender()], context()) as Profile[];
    previous[0].targets[0].quota.completes = 7;
    previous[0].targets[0].quota.prescreens = 9;
    const input = gender();
    (input.targets[0].quota as Record<string, unknown>).completes = 999;
    const [profile] = validateProfiles([input], context({ previous }));
    expect(profile.targets[0].quota).toMatchObject({ completes: 7, prescreens: 9 });
    expect(profile.targets[1].quota).toMatchObject({ completes: 0, prescreens: 0 });
  });

  it('rejects malformed bodies with 400 bad_request listing each problem', () => {
    const error = rejection(() => validateProfiles([{ object: 'regular', name: '', quotas_enabled: 'yes', targets: [] }], context()));
    expect(error.status).toBe(400);
    expect(error.object).toBe('bad_request');
    expect(error.invalidParams!.map((param) => param.name).sort()).toEqual(['profiles[0].name', 'profiles[0].quotas_enabled', 'profiles[0].targets']);
    expect(rejection(() => validateProfiles({}, context())).status).toBe(400);
    expect(rejection(() => validateProfiles([{ object: 'weird' }], context())).invalidParams![0].name).toBe('profiles[0].object');
  });

  it('rejects an option as a number (the spec types option as a string)', () => {
    const input = gender();
    (input.targets[0].conditions[0] as Record<string, unknown>).option = 1;
    expect(rejection(() => validateProfiles([input], context())).status).toBe(400);
  });

  it('rejects unknown questions, unknown options and condition kinds that do not fit the question (422)', () => {
    const unknownQuestion = gender();
    unknownQuestion.targets[0].conditions[0].question_id = 999_999;
    expect(rejection(() => validateProfiles([unknownQuestion], context())).object).toBe('unknown_question');
    const unknownOption = gender();
    unknownOption.targets[0].conditions[0].option = '9';
    expect(rejection(() => validateProfiles([unknownOption], context())).object).toBe('unknown_option');
    const wrongKind = { ...age(), targets: [{ id: 'x', conditions: [{ object: 'selection', question_id: 42, option: '1' }], quota: { completes_goal: 100 } }] };
    const error = rejection(() => validateProfiles([wrongKind], context()));
    expect(error.status).toBe(422);
    expect(error.object).toBe('invalid_condition');
  });

  it('rejects ranges outside the question bounds or upside down', () => {
    for (const [min, max] of [[10, 30], [40, 30], [18, 120]]) {
      const input = age();
      Object.assign(input.targets[0].conditions[0], { min, max });
      expect(rejection(() => validateProfiles([input], context())).object).toBe('invalid_condition');
    }
  });

  it('rejects duplicate selection conditions (same question and option) within a profile with 422 duplicate_condition', () => {
    const sameTarget = gender(false);
    sameTarget.targets[0].conditions.push({ object: 'selection', question_id: 43, option: '1' });
    const error = rejection(() => validateProfiles([sameTarget], context()));
    expect(error.status).toBe(422);
    expect(error.object).toBe('duplicate_condition');
    expect(error.invalidParams![0].name).toBe('profiles[0].targets[0].conditions[1]');
    const acrossTargets = gender(false);
    acrossTargets.targets[1].conditions = [{ object: 'selection', question_id: 43, option: '1' }];
    expect(rejection(() => validateProfiles([acrossTargets], context())).object).toBe('duplicate_condition');
  });

  it('rejects duplicate range conditions with 422 duplicate_condition, but accepts distinct overlapping ranges', () => {
    const duplicate = age();
    duplicate.targets[1].conditions = [{ object: 'range', question_id: 42, min: 18, max: 34 }];
    expect(rejection(() => validateProfiles([duplicate], context())).object).toBe('duplicate_condition');
    const overlapping = age();
    overlapping.targets[1].conditions = [{ object: 'range', question_id: 42, min: 30, max: 99 }];
    expect(validateProfiles([overlapping], context())).toHaveLength(1);
  });

  it('removes repeated zip codes silently (exact repeats, within a condition and across conditions of a target) before validating them', () => {
    const zip = {
      object: 'regular', name: 'Zip', quotas_enabled: false,
      targets: [{ conditions: [
        { object: 'zip_code', question_id: 45, zip_codes: ['10001', ' 10001 ', '10002', '10001'] },
        { object: 'zip_code', question_id: 45, zip_codes: ['10002'] },
        { object: 'zip_code', question_id: 45, zip_codes: ['10003', '10001'] },
      ] }],
    };
    const [profile] = validateProfiles([zip], context());
    expect(profile.targets[0].conditions).toEqual([
      // ' 10001 ' is another value (stored as sent), valid once trimmed.
      { object: 'zip_code', question_id: 45, allow_all_values: false, zip_codes: ['10001', ' 10001 ', '10002'] },
      { object: 'zip_code', question_id: 45, allow_all_values: false, zip_codes: ['10003'] },
    ]);
  });

  it('checks zip codes against the locale (5 digits in en_US, outward codes in en_GB)', () => {
    const zip = (codes: string[]) => ({ object: 'regular', name: 'Zip', quotas_enabled: false, targets: [{ conditions: [{ object: 'zip_code', question_id: 45, zip_codes: codes }] }] });
    expect(rejection(() => validateProfiles([zip(['1234'])], context())).object).toBe('invalid_zip_code');
    expect(validateProfiles([zip(['sw1a 1aa', 'M1'])], context({ locale: 'en_GB' }))[0].targets[0].conditions[0]).toMatchObject({ zip_codes: ['sw1a 1aa', 'M1'] });
    expect(rejection(() => validateProfiles([zip(['sw1a 1a'])], context({ locale: 'en_GB' }))).object).toBe('invalid_zip_code');
  });

  it('holds at most 350 quotas in all the profiles of a target group (the reference)', () => {
    // Blended profiles of age x gender cells, one quota each: 200 + 150 quotas pass, one more is refused.
    const cells = (count: number, offset: number) => Array.from({ length: count }, (_, i) => {
      const cell = i + offset;
      return { conditions: [{ object: 'selection', question_id: 43, option: String((cell % 3) + 1) }, { object: 'range', question_id: 42, min: 18 + Math.floor(cell / 3), max: 18 + Math.floor(cell / 3) }], quota: { completes_goal: 1 } };
    });
    const blended = (name: string, count: number, offset: number) => ({ object: 'blended', name, quotas_enabled: true, targets: cells(count, offset) });
    expect(validateProfiles([blended('a', 200, 0), blended('b', 150, 0)], context({ fillingGoal: 150 }))).toHaveLength(2);
    const refused = rejection(() => validateProfiles([blended('a', 200, 0), blended('b', 151, 0)], context({ fillingGoal: 150 })));
    expect(refused.object).toBe('too_many_quotas');
    expect(refused.invalidParams).toEqual([{ name: 'profiles', reason: 'the profiles hold 351 quotas; a target group holds at most 350' }]);
    // Targets without a quota do not count.
    expect(validateProfiles([blended('a', 200, 0), { ...blended('b', 151, 0), quotas_enabled: false }], context({ fillingGoal: 150 }))).toHaveLength(2);
  });

  it('keeps one question per regular profile and one profile per question', () => {
    const mixed = gender(false);
    mixed.targets[1].conditions = [{ object: 'selection', question_id: 633, option: '1' }];
    expect(rejection(() => validateProfiles([mixed], context())).object).toBe('invalid_condition');
    const twice = { ...gender(false), id: 'gender-2' };
    expect(rejection(() => validateProfiles([gender(false), twice], context())).object).toBe('duplicate_question');
    expect(rejection(() => validateProfiles([gender(false), gender(false)], context())).object).toBe('duplicate_profile_id');
  });

  it('groups several open-ended questions under one open_ended_group profile', () => {
    const group = {
      object: 'regular', name: 'Brand and place', quotas_enabled: false,
      open_ended_group: { name: 'Brand and place', question_ids: [9001, 45] },
      targets: [
        { conditions: [{ object: 'open_ended', question_id: 9001, values: ['Acme', 'acme', 'Globex'] }, { object: 'zip_code', question_id: 45, zip_codes: ['10001'] }] },
        { conditions: [{ object: 'open_ended', question_id: 9001, values: ['Initech'] }] },
      ],
    };
    const [profile] = validateProfiles([group], context()) as RegularProfile[];
    expect(profile.open_ended_group).toEqual({ name: 'Brand and place', question_ids: [9001, 45] });
    expect(profile.description).toBe('Brand and place');
    expect(profile.targets[0].conditions[0]).toEqual({ object: 'open_ended', question_id: 9001, allow_all_values: false, values: ['Acme', 'acme', 'Globex'] });
  });

  it('refuses open-ended groups of closed questions, of one question, and conditions outside the group', () => {
    const base = { object: 'regular', name: 'G', quotas_enabled: false, targets: [{ conditions: [{ object: 'open_ended', question_id: 9001, values: ['x'] }] }] };
    expect(rejection(() => validateProfiles([{ ...base, open_ended_group: { name: 'G', question_ids: [9001, 43] } }], context())).object).toBe('invalid_open_ended_group');
    expect(rejection(() => validateProfiles([{ ...base, open_ended_group: { name: 'G', question_ids: [9001] } }], context())).object).toBe('invalid_open_ended_group');
    expect(rejection(() => validateProfiles([{ ...base, open_ended_group: { name: 'G', question_ids: [9002, 45] } }], context())).object).toBe('invalid_condition');
  });
});

describe('validateProfiles: quota rules', () => {
  it('requires a goal or a percentage on every target while quotas are enabled', () => {
    const input = gender();
    input.targets[0].quota = {} as never;
    expect(rejection(() => validateProfiles([input], context())).object).toBe('quota_inconsistent');
    const missing = gender();
    delete (missing.targets[0] as Record<string, unknown>).quota;
    expect(rejection(() => validateProfiles([missing], context())).object).toBe('quota_inconsistent');
  });

  it('rejects a goal and percentage that disagree by a complete or more, accepts rounding within one', () => {
    const disagree = gender();
    disagree.targets[0].quota = { completes_goal_percentage: 50, completes_goal: 52 } as never;
    expect(rejection(() => validateProfiles([disagree], context())).object).toBe('quota_inconsistent');
    const rounding = gender();
    rounding.targets[0].quota = { completes_goal_percentage: 33.33, completes_goal: 34 } as never;
    rounding.targets[1].quota = { completes_goal: 67 } as never;
    expect(validateProfiles([rounding], context({ fillingGoal: 101 }))).toHaveLength(1);
  });

  it('rejects goals above the filling goal and percentages outside 0-100', () => {
    const tooHigh = gender();
    tooHigh.targets[1].quota = { completes_goal: 101 } as never;
    expect(rejection(() => validateProfiles([tooHigh], context())).object).toBe('quota_inconsistent');
    const negative = gender();
    negative.targets[0].quota = { completes_goal_percentage: -1 } as never;
    expect(rejection(() => validateProfiles([negative], context())).object).toBe('quota_inconsistent');
  });

  it('rejects quota-enabled profiles whose goals add up to less than the filling goal', () => {
    const short = gender();
    short.targets[1].quota = { completes_goal: 40 } as never;
    const error = rejection(() => validateProfiles([short], context()));
    expect(error.object).toBe('quota_sum_below_filling_goal');
    expect(validateProfiles([gender(false)].map((profile) => ({ ...profile, targets: profile.targets.map((target) => ({ ...target, quota: { completes_goal: 10 } })) })), context())).toHaveLength(1);
  });

  it('rescales goals from percentages when the filling goal changes', () => {
    const profiles = validateProfiles([gender(), age()], context());
    const rescaled = rescaleQuotasToFillingGoal(profiles, 250);
    expect(rescaled[0].targets.map((target) => target.quota.completes_goal)).toEqual([125, 125]);
    expect(rescaled[1].targets.map((target) => target.quota.quota_nominal)).toEqual([100, 150]);
  });

  it('apportions totals exactly by weight', () => {
    expect(apportion(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(apportion(7, [0, 0])).toEqual([4, 3]);
    expect(apportion(100, [0.2, 0.8]).reduce((a, b) => a + b)).toBe(100);
  });
});

describe('blended profiles in validateProfiles', () => {
  const blended = (targets: unknown[]) => ({ object: 'blended', id: 'blend', name: 'Gender × Age', quotas_enabled: false, profile_ids: ['gender', 'age'], targets });

  it('derives the conditions of each blended target from its source targets', () => {
    const profiles = validateProfiles([gender(), age(), blended([{ source_target_ids: ['m', 'young'] }])], context());
    const blend = profiles[2];
    expect(blend.object).toBe('blended');
    expect(blend.targets[0].conditions).toEqual([{ object: 'selection', question_id: 43, option: '1' }, { object: 'range', question_id: 42, min: 18, max: 34 }]);
    expect(blend.targets[0].text_translated).toBe('Male + 18-34');
  });

  it('rejects unknown sources, wrong arity, repeated combinations and conditions that differ from the sources', () => {
    expect(rejection(() => validateProfiles([gender(), age(), { ...blended([{ source_target_ids: ['m', 'young'] }]), profile_ids: ['gender', 'nope'] }], context())).object).toBe('invalid_blended_profile');
    expect(rejection(() => validateProfiles([gender(), age(), blended([{ source_target_ids: ['m'] }])], context())).status).toBe(400);
    expect(rejection(() => validateProfiles([gender(), age(), blended([{ source_target_ids: ['m', 'nope'] }])], context())).object).toBe('invalid_blended_profile');
    expect(rejection(() => validateProfiles([gender(), age(), blended([{ source_target_ids: ['m', 'young'] }, { source_target_ids: ['m', 'young'] }])], context())).object).toBe('invalid_blended_profile');
    expect(rejection(() => validateProfiles([gender(), age(), blended([{ source_target_ids: ['m', 'young'], conditions: [{ object: 'selection', question_id: 43, option: '2' }] }])], context())).object).toBe('invalid_blended_profile');
  });

  it('lets a regular profile take part in one blended profile only', () => {
    const second = { ...blended([{ source_target_ids: ['f', 'old'] }]), id: 'blend-2' };
    expect(rejection(() => validateProfiles([gender(), age(), blended([{ source_target_ids: ['m', 'young'] }]), second], context())).object).toBe('invalid_blended_profile');
  });
});

describe('profile templates', () => {
  it('expands templates into tagged profiles that validate alone and next to own profiling', () => {
    expect(listProfileTemplates().length).toBeGreaterThanOrEqual(3);
    const expanded = expandProfileTemplates(['0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b01']);
    expect(expanded.map((profile) => profile.id)).toEqual(['0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b01-1', '0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b01-2']);
    const profiles = validateProfiles([...expanded, { ...gender(false), id: 'edu', targets: [{ conditions: [{ object: 'selection', question_id: 633, option: '3' }] }] }], context({ fillingGoal: 1000 }));
    expect(profiles.map((profile) => profile.object === 'regular' && profile.template_id)).toEqual(['0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b01', '0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b01', null]);
    expect(profiles[0].targets.map((target) => target.quota.completes_goal)).toEqual([300, 350, 350]);
  });

  it('conflicts with own profiling on the same question, and refuses unknown template ids', () => {
    expect(rejection(() => validateProfiles([...expandProfileTemplates(['0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b01']), gender()], context())).object).toBe('duplicate_question');
    expect(rejection(() => expandProfileTemplates(['tpl_nope'])).object).toBe('unknown_profile_template');
  });

  it('every seeded template validates in every market', () => {
    for (const template of listProfileTemplates()) {
      for (const locale of ['en_US', 'de_DE', 'ja_JP']) {
        expect(validateProfiles(expandProfileTemplates([template.id]), context({ locale, fillingGoal: 500 })).length).toBe(template.profiles.length);
      }
    }
  });
});
