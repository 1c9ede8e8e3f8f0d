// The soft launch judged (plan/soft-launch.ts): running until its completes are in or its time is up; then a
// metric with no value is inconclusive, never a failure; too few completes at the end is inconclusive; any fail
// threshold crossed fails it; all passing passes it; anything between is inconclusive. The outcome's action, the
// analysis-only soft launch, and the launch form (fielding assistant module or reduced goal) as data.
import { describe, expect, it } from 'vitest';
import { judgeSoftLaunch, softLaunchLaunch, softLaunchText, type DesiredSoftLaunch, type SoftLaunchReading } from '../../plan/soft-launch';
import { planStudy } from '../../plan/plan-study';
import type { DesiredStudy, DesiredTargetGroup } from '../../plan/types';

const SPEC: DesiredSoftLaunch = {
  completes: 50,
  completesWritten: '5%',
  fillingGoal: 1000,
  maxDuration: 'PT48H',
  maxDurationMs: 48 * 3_600_000,
  demographicsStrictnessPercentage: 80,
  analysis: {
    minCompletes: 30,
    incidence: { expected: 0.4, failBelow: 0.6, passAbove: 0.8 },
    lengthOfInterview: { expectedMinutes: 15, failAbove: 1.5, failBelow: 0.4 },
    dropOff: { failAbove: 0.35 },
  },
  on: { pass: 'promote', fail: 'pause', inconclusive: 'pause' },
  analysisOnly: false,
};

const START = '2027-04-05T08:00:00.000Z';
const EARLY = '2027-04-05T20:00:00.000Z';
const LATE = '2027-04-07T08:00:00.000Z'; // exactly max_duration after START
/** A healthy reading: incidence 0.35 (passes at 0.32), LOI 900 s (fails below 360 or above 1350), drop-off 0.2. */
const HEALTHY: SoftLaunchReading = { startedAt: START, completes: 50, incidenceRate: 0.35, medianLengthOfInterviewSeconds: 900, dropOffRate: 0.2 };

describe('judgeSoftLaunch', () => {
  it('runs (waits) until its completes are in or its time is up, with the evidence as it stands', () => {
    const j = judgeSoftLaunch(SPEC, { ...HEALTHY, completes: 20 }, EARLY);
    expect(j.outcome).toBe('running');
    expect(j.action).toBe('wait');
    expect(j.endedBy).toBeUndefined();
    expect(j.endsAt).toBe(LATE);
    expect(j.evidence.map((e) => [e.metric, e.verdict])).toEqual([
      ['incidence', 'inconclusive'],
      ['length_of_interview', 'inconclusive'],
      ['drop_off', 'inconclusive'],
    ]);
    expect(j.text).toBe(`soft launch running: 20 of 50 completes, until ${LATE} at the latest`);
  });

  it('passes when its completes are in and every metric passes; promotes', () => {
    const j = judgeSoftLaunch(SPEC, HEALTHY, EARLY);
    expect(j).toMatchObject({ outcome: 'pass', action: 'promote', endedBy: 'completes' });
    expect(j.evidence).toEqual([
      { metric: 'incidence', value: 0.35, unit: 'rate', threshold: { failBelow: 0.24, passAbove: 0.32 }, sampleSize: 50, verdict: 'pass', text: 'incidence 0.35 after 50 completes is at or above 0.32 (of the expected 0.4): pass' },
      {
        metric: 'length_of_interview',
        value: 900,
        unit: 'seconds',
        threshold: { failBelow: 360, failAbove: 1350 },
        sampleSize: 50,
        verdict: 'pass',
        text: 'length of interview 900 s after 50 completes crosses no fail threshold (of the expected 900 s): pass',
      },
      { metric: 'drop_off', value: 0.2, unit: 'rate', threshold: { failAbove: 0.35 }, sampleSize: 50, verdict: 'pass', text: 'drop off 0.2 after 50 completes crosses no fail threshold: pass' },
    ]);
  });

  it('fails when any fail threshold is crossed with enough sample, whatever the others say; pauses', () => {
    const speeders = judgeSoftLaunch(SPEC, { ...HEALTHY, medianLengthOfInterviewSeconds: 300 }, EARLY);
    expect(speeders).toMatchObject({ outcome: 'fail', action: 'pause' });
    expect(speeders.evidence.find((e) => e.metric === 'length_of_interview')).toMatchObject({ verdict: 'fail', value: 300 });
    expect(speeders.text).toContain('length of interview 300 s after 50 completes is below 360 s');
    // Fail beats a missing metric: the missing one is inconclusive, the crossed one fails the soft launch.
    const j = judgeSoftLaunch(SPEC, { startedAt: START, completes: 50, incidenceRate: 0.2 }, EARLY);
    expect(j.outcome).toBe('fail');
    expect(j.evidence.map((e) => e.verdict)).toEqual(['fail', 'inconclusive', 'inconclusive']);
  });

  it('a threshold exactly met does not fail (strict), and the incidence multiple is exact at 10 decimals', () => {
    // 0.6 x 0.4 = 0.24 exactly; 1.5 x 900 = 1350.
    const j = judgeSoftLaunch(SPEC, { ...HEALTHY, incidenceRate: 0.24, medianLengthOfInterviewSeconds: 1350 }, EARLY);
    expect(j.evidence.map((e) => e.verdict)).toEqual(['inconclusive', 'pass', 'pass']);
    expect(j.outcome).toBe('inconclusive');
  });

  it('a metric the reading lacks is inconclusive, never a failure', () => {
    const j = judgeSoftLaunch(SPEC, { startedAt: START, completes: 50, incidenceRate: 0.35, dropOffRate: 0.1 }, EARLY);
    expect(j.outcome).toBe('inconclusive');
    expect(j.action).toBe('pause');
    expect(j.evidence[1]).toMatchObject({ metric: 'length_of_interview', verdict: 'inconclusive', sampleSize: 50 });
    expect(j.evidence[1].value).toBeUndefined();
    expect(j.evidence[1].text).toBe('length of interview: not given by the exchange yet: inconclusive');
  });

  it('between the fail and pass thresholds is inconclusive; its on: action decides', () => {
    const between = { ...HEALTHY, incidenceRate: 0.28 };
    expect(judgeSoftLaunch(SPEC, between, EARLY)).toMatchObject({ outcome: 'inconclusive', action: 'pause' });
    expect(judgeSoftLaunch({ ...SPEC, on: { ...SPEC.on, inconclusive: 'promote' } }, between, EARLY)).toMatchObject({ outcome: 'inconclusive', action: 'promote' });
  });

  it('out of time below min_completes is inconclusive, even with a failing figure; at min_completes it is judged', () => {
    const few = judgeSoftLaunch(SPEC, { ...HEALTHY, completes: 29, incidenceRate: 0.1 }, LATE);
    expect(few).toMatchObject({ outcome: 'inconclusive', action: 'pause', endedBy: 'max_duration' });
    expect(few.evidence.every((e) => e.verdict === 'inconclusive')).toBe(true);
    expect(few.text).toContain('fewer than the 30 completes it judges on');
    const enough = judgeSoftLaunch(SPEC, { ...HEALTHY, completes: 30, incidenceRate: 0.1 }, LATE);
    expect(enough).toMatchObject({ outcome: 'fail', endedBy: 'max_duration' });
    // One millisecond before its time: still running.
    expect(judgeSoftLaunch(SPEC, { ...HEALTHY, completes: 30 }, '2027-04-07T07:59:59.999Z').outcome).toBe('running');
  });

  it('analysis only: judged the same, never acts', () => {
    const only = { ...SPEC, analysisOnly: true };
    expect(judgeSoftLaunch(only, HEALTHY, EARLY)).toMatchObject({ outcome: 'pass', action: 'none' });
    const failed = judgeSoftLaunch(only, { ...HEALTHY, dropOffRate: 0.5 }, EARLY);
    expect(failed).toMatchObject({ outcome: 'fail', action: 'none' });
    expect(failed.text).toContain('analysis only: nothing done');
    expect(judgeSoftLaunch(only, { ...HEALTHY, completes: 1 }, EARLY).action).toBe('wait');
  });

  it('with no thresholds it passes once judged on enough completes', () => {
    const bare = { ...SPEC, analysis: { minCompletes: 30 } };
    expect(judgeSoftLaunch(bare, { startedAt: START, completes: 50 }, EARLY)).toMatchObject({ outcome: 'pass', evidence: [], action: 'promote' });
  });
});

describe('softLaunchLaunch', () => {
  it('through the fielding assistant: the module ends max_duration after the launch, its percentage rounded up', () => {
    expect(softLaunchLaunch({ softLaunch: SPEC }, START, true)).toEqual({
      via: 'fielding_assistant',
      module: { end_at: LATE, filling_goal_percentage: 5, demographics_strictness_percentage: 80 },
    });
    // 37 of 1000 is 3.7%: the module takes whole percents, so 4 (the exchange collects at least 37).
    expect(softLaunchLaunch({ softLaunch: { ...SPEC, completes: 37 } }, START, true)).toMatchObject({ module: { filling_goal_percentage: 4 } });
  });

  it('without one: a reduced goal, with the full goal a promote restores', () => {
    expect(softLaunchLaunch({ softLaunch: SPEC }, START, false)).toEqual({ via: 'reduced_goal', goal: 50, fullGoal: 1000 });
  });

  it('no soft launch: nothing', () => {
    expect(softLaunchLaunch({}, START, true)).toBeUndefined();
  });
});

describe('the plan shows the soft launch on the launch action', () => {
  const tg: DesiredTargetGroup = {
    key: 'us',
    draft: { name: 'US', filling_goal: 1000 },
    idLists: {},
    exclusionGroups: [],
    launch: { mode: 'auto', requireFeasible: false },
    timing: { jobPollInitialMs: 1000, jobPollMaxMs: 30_000, jobTimeoutMs: 1_800_000, launchRetries: 5, watchIntervalMs: 300_000 },
    softLaunch: SPEC,
  };
  const desired: DesiredStudy = {
    studyId: 'soft-study',
    accountId: '1001',
    businessUnitId: '2001',
    apiVersion: '2025-12-18',
    revision: 'r1',
    project: { name: 'soft study', project_manager_id: 'pm', project_customer_reference_number: 'soft-study' },
    targetGroups: [tg],
    exclusionGroups: [],
    webhooks: [],
  };

  it('carries the soft launch and its thresholds as data, and says it in the reason', () => {
    const plan = planStudy(desired, { targetGroups: {}, exclusionGroups: {} });
    const launch = plan.actions.find((a) => a.kind === 'launch');
    expect(launch?.softLaunch).toEqual(SPEC);
    expect(launch?.reason).toContain(softLaunchText(SPEC));
    expect(softLaunchText(SPEC)).toBe(
      'soft launch: 50 completes (5% of 1000) within PT48H, judged on 30 completes or more (incidence fails below 0.24, passes at 0.32; interview length fails below 360 s, fails above 1350 s; drop-off fails above 0.35); pass promotes, fail pauses, inconclusive pauses',
    );
    const without = planStudy({ ...desired, targetGroups: [{ ...tg, softLaunch: undefined }] }, { targetGroups: {}, exclusionGroups: {} });
    const plain = without.actions.find((a) => a.kind === 'launch');
    expect(plain && 'softLaunch' in plain).toBe(false);
  });
});
