// Soft launches, judged: a target group's soft launch (DesiredSoftLaunch, from the study file) over one reading of
// what the watch reads (the overview's incidence, median length of interview and drop-off; the performance
// reading's completes), and the soft launch's launch as data. Pure and deterministic, so the target-group workflow
// can call it on every reading; the evidence is counts, rates and seconds only. docs/study-format.md, "Soft
// launch", says what each threshold means.
import type { DesiredSoftLaunch, SoftLaunchState } from './soft-launch-types';

export type { DesiredSoftLaunch, SoftLaunchOutcomeAction, SoftLaunchState } from './soft-launch-types';

/**
 * One reading of a soft launch: the reference's get_target_group_overview (incidence_rate,
 * median_length_of_interview_seconds, drop_off_rate) and get_target_group_performance (completes), with when the
 * soft launch started. A figure the exchange does not give yet (null in the overview) is absent.
 */
export interface SoftLaunchReading {
  /** When the soft launch went live (the launch): its max_duration counts from here. */
  startedAt: string;
  /** Completes so far (performance). */
  completes: number;
  /** Incidence rate, 0–1 (overview). */
  incidenceRate?: number;
  /** Median length of interview of the completes, in seconds (overview). */
  medianLengthOfInterviewSeconds?: number;
  /** Drop-off rate, 0–1 (overview). */
  dropOffRate?: number;
}

export type SoftLaunchMetric = 'incidence' | 'length_of_interview' | 'drop_off';
export type SoftLaunchVerdict = 'pass' | 'fail' | 'inconclusive';

/** One metric of a soft launch, judged: what was measured against which thresholds (absolute), and on how many completes. */
export interface SoftLaunchEvidence {
  metric: SoftLaunchMetric;
  /** The measured figure: a rate (0–1) or seconds; absent when the reading has none. */
  value?: number;
  unit: 'rate' | 'seconds';
  /** The thresholds in the value's unit (a multiple already taken of what the target group expects). */
  threshold: { failBelow?: number; failAbove?: number; passAbove?: number; passBelow?: number };
  /** Completes the figure comes from. */
  sampleSize: number;
  verdict: SoftLaunchVerdict;
  /** One line a person reads, e.g. `incidence 0.21 is below 0.24 (0.6 of the expected 0.4): fail`. */
  text: string;
}

/**
 * - `running`: neither its completes nor its time are reached: wait;
 * - `pass`, `fail`, `inconclusive`: judged (its completes are in, or its time ran out).
 */
export type SoftLaunchOutcome = SoftLaunchVerdict | 'running';

export interface SoftLaunchJudgement {
  outcome: SoftLaunchOutcome;
  evidence: SoftLaunchEvidence[];
  /** What to do now: the outcome's `on:` action, `wait` while running, `none` when the soft launch only analyses. */
  action: 'promote' | 'pause' | 'wait' | 'none';
  /** Why it ended: its completes reached, or its time up (absent while running). */
  endedBy?: 'completes' | 'max_duration';
  /** When its time runs out (startedAt + max_duration). */
  endsAt: string;
  /** One line: the outcome and why. */
  text: string;
}

/** Rates and thresholds are compared at 10 decimals, so `0.6 × 0.4` is exactly the 0.24 an API reports. */
const round10 = (x: number) => Math.round(x * 1e10) / 1e10;
const num = (x: number) => String(Math.round(x * 10_000) / 10_000);

function judgeMetric(
  metric: SoftLaunchMetric,
  unit: SoftLaunchEvidence['unit'],
  value: number | undefined,
  threshold: SoftLaunchEvidence['threshold'],
  sampleSize: number,
  enough: boolean,
  basis: string,
): SoftLaunchEvidence {
  const name = metric.replaceAll('_', ' ');
  const shown = (x: number) => (unit === 'seconds' ? `${num(x)} s` : num(x));
  const base = { metric, unit, threshold, sampleSize };
  if (value === undefined) return { ...base, verdict: 'inconclusive', text: `${name}: not given by the exchange yet: inconclusive` };
  const v = round10(value);
  const head = `${name} ${shown(v)} after ${sampleSize} completes`;
  if (!enough) return { ...base, value: v, verdict: 'inconclusive', text: `${head}: too few completes to judge: inconclusive` };
  const fails: string[] = [];
  if (threshold.failBelow !== undefined && v < threshold.failBelow) fails.push(`below ${shown(threshold.failBelow)}`);
  if (threshold.failAbove !== undefined && v > threshold.failAbove) fails.push(`above ${shown(threshold.failAbove)}`);
  if (fails.length) return { ...base, value: v, verdict: 'fail', text: `${head} is ${fails.join(' and ')}${basis}: fail` };
  const passes: string[] = [];
  const misses: string[] = [];
  if (threshold.passAbove !== undefined) (v >= threshold.passAbove ? passes : misses).push(`${v >= threshold.passAbove ? 'at or above' : 'below'} ${shown(threshold.passAbove)}`);
  if (threshold.passBelow !== undefined) (v <= threshold.passBelow ? passes : misses).push(`${v <= threshold.passBelow ? 'at or below' : 'above'} ${shown(threshold.passBelow)}`);
  if (misses.length) return { ...base, value: v, verdict: 'inconclusive', text: `${head} is ${misses.join(' and ')}${basis}, not failing: inconclusive` };
  return { ...base, value: v, verdict: 'pass', text: `${head} ${passes.length ? `is ${passes.join(' and ')}` : 'crosses no fail threshold'}${basis}: pass` };
}

/** Each metric the soft launch names, judged on the reading (`enough`: the sample is large enough to judge). */
function evidenceOf(spec: DesiredSoftLaunch, reading: SoftLaunchReading, enough: boolean): SoftLaunchEvidence[] {
  const evidence: SoftLaunchEvidence[] = [];
  const n = reading.completes;
  const { incidence, lengthOfInterview: loi, dropOff } = spec.analysis;
  if (incidence) {
    const t: SoftLaunchEvidence['threshold'] = {};
    if (incidence.failBelow !== undefined) t.failBelow = round10(incidence.failBelow * incidence.expected);
    if (incidence.passAbove !== undefined) t.passAbove = round10(incidence.passAbove * incidence.expected);
    evidence.push(judgeMetric('incidence', 'rate', reading.incidenceRate, t, n, enough, ` (of the expected ${incidence.expected})`));
  }
  if (loi) {
    const expectedSeconds = loi.expectedMinutes * 60;
    const t: SoftLaunchEvidence['threshold'] = {};
    if (loi.failBelow !== undefined) t.failBelow = round10(loi.failBelow * expectedSeconds);
    if (loi.failAbove !== undefined) t.failAbove = round10(loi.failAbove * expectedSeconds);
    evidence.push(judgeMetric('length_of_interview', 'seconds', reading.medianLengthOfInterviewSeconds, t, n, enough, ` (of the expected ${expectedSeconds} s)`));
  }
  if (dropOff) {
    const t: SoftLaunchEvidence['threshold'] = {};
    if (dropOff.failAbove !== undefined) t.failAbove = round10(dropOff.failAbove);
    if (dropOff.passBelow !== undefined) t.passBelow = round10(dropOff.passBelow);
    evidence.push(judgeMetric('drop_off', 'rate', reading.dropOffRate, t, n, enough, ''));
  }
  return evidence;
}

/**
 * Judges a soft launch on a reading at `now` (workflow time, ISO-8601). It is judged once its completes are in or
 * its max_duration has passed since `reading.startedAt`; until then it is `running` (the evidence says how it
 * stands). Judged: with fewer than min_completes, inconclusive; a metric the reading lacks is inconclusive, never a
 * failure; any metric past a fail threshold fails it; every metric passing (a metric without a pass threshold
 * passes when it crosses no fail threshold) passes it; anything between is inconclusive.
 */
export function judgeSoftLaunch(spec: DesiredSoftLaunch, reading: SoftLaunchReading, now: string): SoftLaunchJudgement {
  const startedMs = Date.parse(reading.startedAt);
  const endsAt = new Date(startedMs + spec.maxDurationMs).toISOString();
  const byCompletes = reading.completes >= spec.completes;
  const byTime = Date.parse(now) >= startedMs + spec.maxDurationMs;
  const endedBy = byCompletes ? 'completes' : byTime ? 'max_duration' : undefined;
  const enough = reading.completes >= spec.analysis.minCompletes;
  const evidence = evidenceOf(spec, reading, enough);
  const progress = `${reading.completes} of ${spec.completes} completes`;
  if (!endedBy) {
    return { outcome: 'running', evidence, action: 'wait', endsAt, text: `soft launch running: ${progress}, until ${endsAt} at the latest` };
  }
  const ended = endedBy === 'completes' ? `soft launch reached its ${spec.completes} completes` : `soft launch ran out of time at ${endsAt} with ${progress}`;
  let outcome: SoftLaunchVerdict;
  let why: string;
  if (!enough) {
    outcome = 'inconclusive';
    why = `fewer than the ${spec.analysis.minCompletes} completes it judges on`;
  } else if (evidence.some((e) => e.verdict === 'fail')) {
    outcome = 'fail';
    why = evidence.filter((e) => e.verdict === 'fail').map((e) => e.text).join('; ');
  } else if (evidence.every((e) => e.verdict === 'pass')) {
    outcome = 'pass';
    why = evidence.length ? evidence.map((e) => e.text).join('; ') : 'no threshold to judge';
  } else {
    outcome = 'inconclusive';
    why = evidence.filter((e) => e.verdict === 'inconclusive').map((e) => e.text).join('; ');
  }
  const action = spec.analysisOnly ? 'none' : spec.on[outcome];
  const does = spec.analysisOnly ? 'analysis only: nothing done' : action === 'promote' ? 'promotes to the full goal' : 'pauses';
  return { outcome, evidence, action, endedBy, endsAt, text: `${ended}: ${outcome} (${why}); ${does}` };
}

/** The fielding assistant's soft_launch module (reference: ModuleSoftLaunchRequestModel). */
export interface SoftLaunchModule {
  end_at: string;
  filling_goal_percentage: number;
  demographics_strictness_percentage: number;
}

/**
 * How a soft launch is launched: through the fielding assistant's soft_launch module (create_or_update_fielding_
 * assistant_assignment), or, where the profile's API has no fielding assistant, by launching with a reduced filling
 * goal that a promote raises to the full one.
 */
export type SoftLaunchLaunch = { via: 'fielding_assistant'; module: SoftLaunchModule } | { via: 'reduced_goal'; goal: number; fullGoal: number };

/**
 * The launch form of a target group's soft launch at the launch moment `launchAt` (ISO-8601), or undefined when it
 * has none. `fieldingAssistant`: whether the profile's API takes the fielding assistant's soft launch module (the
 * workflow decides by the profile's capability). The module's percentage is whole, rounded up, so the exchange
 * collects at least the soft launch's completes; it ends at launchAt + max_duration.
 */
export function softLaunchLaunch(tg: { softLaunch?: DesiredSoftLaunch }, launchAt: string, fieldingAssistant: boolean): SoftLaunchLaunch | undefined {
  const spec = tg.softLaunch;
  if (!spec) return undefined;
  if (!fieldingAssistant) return { via: 'reduced_goal', goal: spec.completes, fullGoal: spec.fillingGoal };
  const percentage = Math.min(100, Math.max(1, Math.ceil(round10((spec.completes / spec.fillingGoal) * 100))));
  return {
    via: 'fielding_assistant',
    module: {
      end_at: new Date(Date.parse(launchAt) + spec.maxDurationMs).toISOString(),
      filling_goal_percentage: percentage,
      demographics_strictness_percentage: spec.demographicsStrictnessPercentage,
    },
  };
}

/** One line for `studyflow plan`, e.g. `soft launch: 50 completes (5% of 1000) within PT48H; ...`. */
export function softLaunchText(spec: DesiredSoftLaunch): string {
  const of = typeof spec.completesWritten === 'string' ? ` (${spec.completesWritten} of ${spec.fillingGoal})` : '';
  const { incidence, lengthOfInterview: loi, dropOff, minCompletes } = spec.analysis;
  const rules: string[] = [];
  if (incidence) {
    const parts = [incidence.failBelow !== undefined ? `fails below ${num(incidence.failBelow * incidence.expected)}` : '', incidence.passAbove !== undefined ? `passes at ${num(incidence.passAbove * incidence.expected)}` : ''];
    rules.push(`incidence ${parts.filter(Boolean).join(', ')}`);
  }
  if (loi) {
    const s = loi.expectedMinutes * 60;
    const parts = [loi.failBelow !== undefined ? `fails below ${num(loi.failBelow * s)} s` : '', loi.failAbove !== undefined ? `fails above ${num(loi.failAbove * s)} s` : ''];
    rules.push(`interview length ${parts.filter(Boolean).join(', ')}`);
  }
  if (dropOff) {
    const parts = [dropOff.failAbove !== undefined ? `fails above ${num(dropOff.failAbove)}` : '', dropOff.passBelow !== undefined ? `passes at ${num(dropOff.passBelow)}` : ''];
    rules.push(`drop-off ${parts.filter(Boolean).join(', ')}`);
  }
  const on = spec.analysisOnly ? 'analysis only' : `pass ${spec.on.pass}s, fail ${spec.on.fail}s, inconclusive ${spec.on.inconclusive}s`;
  return `soft launch: ${spec.completes} completes${of} within ${spec.maxDuration}, judged on ${minCompletes} completes or more${rules.length ? ` (${rules.join('; ')})` : ''}; ${on}`;
}


/** The states in which the soft launch holds a paused target group: the file's `fielding: live` does not resume it. */
export const SOFT_LAUNCH_HOLDS: ReadonlySet<SoftLaunchState> = new Set(['starting', 'running', 'awaiting_decision', 'paused', 'aborted']);

/** The states `studyflow approve --promote` or `--abort` decide (an aborted one can still be promoted). */
export const SOFT_LAUNCH_DECIDABLE: ReadonlySet<SoftLaunchState> = new Set(['awaiting_decision', 'paused', 'aborted']);

/** Whether `decision` changes a soft launch in `state`: a waiting one either way, an aborted one only by a promote. */
export function softLaunchDecides(state: SoftLaunchState, decision: 'promote' | 'abort'): boolean {
  return SOFT_LAUNCH_DECIDABLE.has(state) && !(state === 'aborted' && decision === 'abort');
}

/** A target group's soft launch in status, the report and the plan's view of a running workflow. */
export interface SoftLaunchStatus {
  via: SoftLaunchLaunch['via'];
  state: SoftLaunchState;
  /** When it went live (the soft launch counts from here) and when its time runs out. */
  startedAt: string;
  endsAt: string;
  /** The completes it collects before it is judged. */
  completes: number;
  analysisOnly?: boolean;
  /** The last reading it was judged on (overview figures, workflow time). */
  reading?: { at: string; completes: number; incidenceRate?: number; dropOffRate?: number; medianLengthOfInterviewSeconds?: number };
  /** The analysis's outcome once judged, with its evidence and what it did. */
  decision?: { outcome: SoftLaunchVerdict; action: 'promote' | 'pause' | 'none'; endedBy?: 'completes' | 'max_duration'; at: string; text: string; evidence: SoftLaunchEvidence[] };
  /** An operator's decision of an inconclusive or failed soft launch (`studyflow approve --promote | --abort`). */
  decidedBy?: { by: string; at: string; decision: 'promote' | 'abort'; /** Why the decision was not taken (its write did not go through); absent: taken. */ refused?: string };
  /** Why a write it needed did not go through (a refused resume, the module refused); cleared once it does. */
  message?: string;
}

/** One line for status and the plan, e.g. `soft launch running: 12 of 50 completes, until 2027-04-07T08:00:00.000Z`. */
export function softLaunchStatusText(sl: SoftLaunchStatus): string {
  const got = sl.reading ? `${sl.reading.completes} of ${sl.completes} completes` : `${sl.completes} completes`;
  const by = sl.decidedBy ? `; ${sl.decidedBy.decision === 'promote' ? 'promoted' : 'aborted'} by ${sl.decidedBy.by} at ${sl.decidedBy.at}` : '';
  const judged = sl.decision ? `: ${sl.decision.outcome}` : '';
  switch (sl.state) {
    case 'starting':
      return `soft launch starting: ${sl.completes} completes until ${sl.endsAt} at the latest`;
    case 'running':
      return `soft launch running: ${got}, until ${sl.endsAt} at the latest${sl.analysisOnly ? ' (analysis only: the exchange fields as without one)' : ''}`;
    case 'awaiting_decision':
      return `soft launch${judged}, paused: waits for \`studyflow approve --promote\` or \`--abort\``;
    case 'paused':
      return `soft launch${judged}, paused with its evidence (\`studyflow approve --promote\` or \`--abort\` decide it)`;
    case 'promoted':
      return `soft launch${judged}, promoted to the full goal${by}`;
    case 'aborted':
      return `soft launch${judged}, aborted: paused${by} (\`studyflow approve --promote\` still promotes it)`;
    case 'analysed':
      return `soft launch${judged} (analysis only: nothing done)`;
  }
}
