// Soft launches and the quota_behind guard in the study file: defaults merged (a target group's soft_launch
// replaces the one of defaults, `false` switches it off), defaults applied, the desired target group's soft launch
// resolved (completes as a number of the goal, durations in ms), and every threshold that cannot be judged
// reported with its code at the line and column where it is written.
import { describe, expect, it } from 'vitest';
import { loadStudyText, type Diagnostic } from '../../definitions';
import { desiredStudyOf } from '../../plan/desired';
import { MINIMAL_TARGET_GROUP_FIELDS as GROUP } from '../helpers/study-yaml';

const HEAD = `format: studyflow/v1
study: soft-launch-study
account: "1001"
business_unit: "2001"
project:
  name: soft launch study
`;

const load = (text: string) => loadStudyText(text, '/virtual/soft-launch-study.yaml', { env: {} });
const located = (diagnostics: Diagnostic[]) => diagnostics.map((d) => `${d.code} ${d.line}:${d.column}`);

/** 1-based line and column of the first occurrence of `needle` in LF text, at the start of its value when `value`. */
function positionOf(text: string, needle: string): string {
  const at = text.indexOf(needle);
  expect(at).toBeGreaterThanOrEqual(0);
  const before = text.slice(0, at).split('\n');
  return `${before.length}:${before[before.length - 1].length + 1}`;
}

const GOOD = `${HEAD}defaults:
  soft_launch:
    completes: 5%
    max_duration: PT48H
    analysis:
      min_completes: 3
      incidence: { fail_below: 0.6, pass_above: 0.8 }
      length_of_interview: { fail_above: 1.5, fail_below: 0.4 }
      drop_off: { fail_above: 0.35 }
    on: { pass: promote, fail: pause, inconclusive: pause }
target_groups:
  us:
${GROUP}    guards:
      quotas: { quota_behind: { shortfall_above: 12.5% } }
    profiles:
      - object: regular
        name: gender
        quotas_enabled: true
        targets:
          - conditions: [{ object: selection, question_id: 43, option: "1" }]
            quota: { name: men, completes_goal_percentage: 50 }
          - conditions: [{ object: selection, question_id: 43, option: "2" }]
            quota: { name: women, completes_goal_percentage: 50 }
  uk:
${GROUP}    soft_launch:
      completes: 10
      max_duration: P1D
      analysis_only: true
  ca:
${GROUP}    soft_launch: false
`;

describe('soft_launch in the study file', () => {
  it('merges defaults (a target group replaces it whole, false switches it off) and applies the defaults of its fields', async () => {
    const { study, diagnostics } = await load(GOOD);
    expect(diagnostics).toEqual([]);
    const groups = study!.study.target_groups;
    expect(groups.us.soft_launch).toEqual({
      completes: '5%',
      max_duration: 'PT48H',
      demographics_strictness_percentage: 100,
      analysis: { min_completes: 3, incidence: { fail_below: 0.6, pass_above: 0.8 }, length_of_interview: { fail_above: 1.5, fail_below: 0.4 }, drop_off: { fail_above: 0.35 } },
      on: { pass: 'promote', fail: 'pause', inconclusive: 'pause' },
      analysis_only: false,
    });
    expect(groups.uk.soft_launch).toEqual({
      completes: 10,
      max_duration: 'P1D',
      demographics_strictness_percentage: 100,
      analysis: {},
      on: { pass: 'promote', fail: 'pause', inconclusive: 'pause' },
      analysis_only: true,
    });
    expect(groups.ca.soft_launch).toBeUndefined();
    expect(groups.us.guards.quotas).toEqual({ quota_behind: { shortfall_above: '12.5%' }, action: 'pause' });
  });

  it('resolves into the desired target group: completes from the goal, durations in ms, multiples with what they are of', async () => {
    const { study } = await load(GOOD);
    const desired = desiredStudyOf(study!.study, {});
    const byKey = Object.fromEntries(desired.targetGroups.map((tg) => [tg.key, tg]));
    expect(byKey.us.softLaunch).toEqual({
      completes: 5,
      completesWritten: '5%',
      fillingGoal: 100,
      maxDuration: 'PT48H',
      maxDurationMs: 48 * 3_600_000,
      demographicsStrictnessPercentage: 100,
      analysis: {
        minCompletes: 3,
        incidence: { expected: 0.5, failBelow: 0.6, passAbove: 0.8 },
        lengthOfInterview: { expectedMinutes: 10, failAbove: 1.5, failBelow: 0.4 },
        dropOff: { failAbove: 0.35 },
      },
      on: { pass: 'promote', fail: 'pause', inconclusive: 'pause' },
      analysisOnly: false,
    });
    // Without min_completes: 30, capped at the soft launch's completes.
    expect(byKey.uk.softLaunch).toMatchObject({ completes: 10, maxDurationMs: 86_400_000, analysis: { minCompletes: 10 }, analysisOnly: true });
    expect(byKey.ca.softLaunch).toBeUndefined();
    expect(byKey.us.guards).toEqual([{ name: 'quotas', action: 'pause', kind: 'quota_behind', shortfallAbove: 0.125, minCompletes: 30 }]);
  });

  it('rounds a percentage of the goal up to whole completes', async () => {
    const text = `${HEAD}target_groups:\n  us:\n${GROUP.replace('filling_goal: 100', 'filling_goal: 333')}    soft_launch: { completes: 2.5%, max_duration: P1D, analysis: { min_completes: 5 } }\n`;
    const { study, diagnostics } = await load(text);
    expect(diagnostics).toEqual([]);
    expect(desiredStudyOf(study!.study, {}).targetGroups[0].softLaunch?.completes).toBe(9); // 8.325 -> 9
  });
});

describe('soft_launch and quota_behind thresholds that cannot be judged', () => {
  it('reports each at the value that is wrong, all in one run', async () => {
    const text = `${HEAD}target_groups:
  us:
${GROUP}    start_fielding_at: 2027-04-05T00:00:00Z
    end_fielding_at: 2027-04-07T00:00:00Z
    soft_launch:
      completes: 10%
      max_duration: P3D
      analysis:
        min_completes: 40
        incidence: { fail_below: 0.8, pass_above: 0.6 }
        length_of_interview: { fail_above: 0.5, fail_below: 1.2 }
        drop_off: { fail_above: 0.2, pass_below: 0.3 }
    guards:
      quotas: { quota_behind: { shortfall_above: 120% } }
`;
    const { study, diagnostics } = await load(text);
    expect(study).toBeUndefined();
    expect(located(diagnostics).sort()).toEqual(
      [
        `SF4510 ${positionOf(text, '40\n')}`,
        `SF4511 ${positionOf(text, '120%')}`,
        `SF4512 ${positionOf(text, '0.6 }')}`,
        `SF4512 ${positionOf(text, '1.2 }')}`,
        `SF4512 ${positionOf(text, '0.3 }')}`,
        `SF4514 ${positionOf(text, 'P3D')}`,
        // It has no quota either (a warning).
        `SF4508 ${positionOf(text, 'quota_behind')}`,
      ].sort(),
    );
    const byCode = (code: string) => diagnostics.filter((d) => d.code === code).map((d) => d.message);
    expect(byCode('SF4510')).toEqual(['min_completes 40 is above the 10 completes of the soft launch of `us` (10% of 100)']);
    expect(byCode('SF4511')).toEqual(['shortfall_above of guard `quotas` is 120%, more than 100%']);
    expect(byCode('SF4514')[0]).toContain('max_duration P3D of the soft launch of `us` is longer than its fielding window');
    expect(diagnostics.filter((d) => d.severity === 'warning').map((d) => d.code)).toEqual(['SF4508']);
  });

  it('a percentage of completes over 100, and completes that take the whole goal', async () => {
    const over = `${HEAD}target_groups:\n  us:\n${GROUP}    soft_launch: { completes: 150%, max_duration: P1D }\n`;
    const whole = `${HEAD}target_groups:\n  us:\n${GROUP}    soft_launch: { completes: 100, max_duration: P1D }\n`;
    expect(located((await load(over)).diagnostics)).toEqual([`SF4511 ${positionOf(over, '150%')}`]);
    expect(located((await load(whole)).diagnostics)).toEqual([`SF4515 ${positionOf(whole, '100, max')}`]);
  });

  it('an interview-length multiple with no expected length of interview on the target group', async () => {
    const group = GROUP.replace('    expected_length_of_interview_minutes: 10\n', '');
    const text = `${HEAD}target_groups:\n  us:\n${group}    soft_launch:\n      completes: 10\n      max_duration: P1D\n      analysis:\n        length_of_interview: { fail_above: 1.5 }\n`;
    const { diagnostics } = await load(text);
    expect(diagnostics.map((d) => d.code).sort()).toEqual(['SF4001', 'SF4513']);
    const d = diagnostics.find((x) => x.code === 'SF4513')!;
    expect(`${d.line}:${d.column}`).toBe(positionOf(text, 'length_of_interview:'));
    expect(d.message).toContain('expected_length_of_interview_minutes');
  });

  it('a soft launch of defaults is reported once, where defaults writes it', async () => {
    const text = `${HEAD}defaults:\n  soft_launch: { completes: 5, max_duration: P1D, analysis: { min_completes: 6 } }\ntarget_groups:\n  us:\n${GROUP}  uk:\n${GROUP}`;
    expect(located((await load(text)).diagnostics)).toEqual([`SF4510 ${positionOf(text, '6 }')}`]);
  });

  it('both soft_launch and the fielding assistant\'s soft_launch module', async () => {
    const text = `${HEAD}target_groups:\n  us:\n${GROUP}    soft_launch: { completes: 5, max_duration: P1D, analysis: { min_completes: 5 } }\n    fielding_assistant_assignment:\n      soft_launch: { end_at: 2027-04-06T00:00:00Z, filling_goal_percentage: 5, demographics_strictness_percentage: 100 }\n`;
    expect(located((await load(text)).diagnostics)).toEqual([`SF4516 ${positionOf(text, 'soft_launch: { end_at')}`]);
  });

  it('warns about quota_behind on a target group with no quota to judge, once where defaults writes it', async () => {
    const text = `${HEAD}defaults:\n  guards:\n    quotas: { quota_behind: { shortfall_above: 10% } }\ntarget_groups:\n  us:\n${GROUP}  uk:\n${GROUP}    profiles:\n      - object: regular\n        name: gender\n        targets:\n          - conditions: [{ object: selection, question_id: 43, option: "1" }]\n`;
    const { study, diagnostics } = await load(text);
    expect(located(diagnostics)).toEqual([`SF4508 ${positionOf(text, 'quota_behind')}`]);
    expect(diagnostics[0]).toMatchObject({ severity: 'warning', message: 'guard `quotas` judges quotas, and `us` has none' });
    expect(study).toBeDefined();
  });

  it('structure: an unknown field, a percentage without %, and an outcome action that does not exist', async () => {
    const text = `${HEAD}target_groups:\n  us:\n${GROUP}    soft_launch:\n      completes: five\n      max_duration: 2 days\n      on: { fail: promote }\n      analysis: { incidence: { fail_under: 0.5 } }\n`;
    const codes = (await load(text)).diagnostics.map((d) => d.code).sort();
    expect(codes).toEqual(['SF2002', 'SF2004', 'SF2005', 'SF2005'].sort());
  });
});
