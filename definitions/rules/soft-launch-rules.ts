// Rules on a target group's soft launch (after `defaults` are merged in) and on the percentages of soft launches
// and quota_behind guards: thresholds a soft launch can be judged by. Its min_completes within its completes, a
// pass threshold on the passing side of its fail threshold, interview-length multiples of an expected length the
// target group has, a max_duration within the fielding window, percentages of at most 100.
import type { DocPath } from '../doc-path';
import { guardDurationMs } from '../periods';
import { DEFAULT_SOFT_LAUNCH_MIN_COMPLETES, type MergedTargetGroup, type SoftLaunch } from '../study-schema';
import { checkPercent, percentValue, type GuardReporter } from './guard-rules';

export { percentValue } from './guard-rules';

/**
 * A soft launch's completes as a number: as written, or its percentage of the filling goal rounded up (at least 1).
 * Undefined when a percentage has no filling goal to be taken of.
 */
export function softLaunchCompletes(completes: SoftLaunch['completes'], fillingGoal: number | undefined): number | undefined {
  if (typeof completes === 'number') return completes;
  const percent = percentValue(completes);
  if (percent === undefined || fillingGoal === undefined) return undefined;
  // At 10 decimals, so 5% of 1000 is 50, not 50.000000000000001 rounded up to 51.
  return Math.max(1, Math.ceil(Math.round(((fillingGoal * percent) / 100) * 1e10) / 1e10));
}

/** The completes below which a soft launch that ran out of time is inconclusive: as written, else 30 capped at its completes. */
export function softLaunchMinCompletes(softLaunch: SoftLaunch, completes: number): number {
  return softLaunch.analysis.min_completes ?? Math.min(DEFAULT_SOFT_LAUNCH_MIN_COMPLETES, completes);
}

export type SoftLaunchRuleFields = Pick<
  MergedTargetGroup,
  'soft_launch' | 'filling_goal' | 'expected_length_of_interview_minutes' | 'launch' | 'start_fielding_at' | 'end_fielding_at' | 'fielding_assistant_assignment'
>;

export interface SoftLaunchContext {
  key: string;
  tg: SoftLaunchRuleFields;
  origin: (...fieldPath: string[]) => DocPath;
  r: GuardReporter;
}

/** Checks the soft launch in force of one target group (none, or `false`: nothing to check). */
export function checkSoftLaunch({ key, tg, origin, r }: SoftLaunchContext): void {
  const soft = tg.soft_launch;
  if (!soft) return;
  const at = (...fieldPath: string[]) => origin('soft_launch', ...fieldPath);
  const of = `the soft launch of \`${key}\``;

  if (tg.fielding_assistant_assignment?.soft_launch) {
    r.report('SF4516', origin('fielding_assistant_assignment', 'soft_launch'), `\`${key}\` has both soft_launch and fielding_assistant_assignment.soft_launch`, {
      target: 'key',
      hint: 'keep soft_launch: studyflow assigns the fielding assistant\'s soft launch module from it where the API profile has one',
    });
  }

  const percentOk = typeof soft.completes === 'number' || checkPercent(soft.completes, at('completes'), `the completes of ${of}`, r);
  const completes = percentOk ? softLaunchCompletes(soft.completes, tg.filling_goal) : undefined;
  if (completes !== undefined && tg.filling_goal !== undefined && completes >= tg.filling_goal) {
    r.report('SF4515', at('completes'), `${of} takes ${completes} completes, its whole filling_goal of ${tg.filling_goal}`, {
      hint: 'a soft launch collects a small share of the goal first, such as 5% or 50 completes: lower it, or remove soft_launch',
    });
  }
  const min = soft.analysis.min_completes;
  if (min !== undefined && completes !== undefined && min > completes) {
    r.report('SF4510', at('analysis', 'min_completes'), `min_completes ${min} is above the ${completes} completes of ${of}${typeof soft.completes === 'string' ? ` (${soft.completes} of ${tg.filling_goal})` : ''}`, {
      hint: 'the soft launch ends at its completes, so it could never judge: lower min_completes or raise completes',
    });
  }

  const { incidence, length_of_interview: loi, drop_off: dropOff } = soft.analysis;
  if (incidence?.fail_below !== undefined && incidence.pass_above !== undefined && incidence.pass_above < incidence.fail_below) {
    r.report('SF4512', at('analysis', 'incidence', 'pass_above'), `incidence pass_above ${incidence.pass_above} is below its fail_below ${incidence.fail_below}`, {
      hint: 'a soft launch passes at or above pass_above and fails below fail_below: give pass_above at least fail_below',
    });
  }
  if (dropOff?.fail_above !== undefined && dropOff.pass_below !== undefined && dropOff.pass_below > dropOff.fail_above) {
    r.report('SF4512', at('analysis', 'drop_off', 'pass_below'), `drop_off pass_below ${dropOff.pass_below} is above its fail_above ${dropOff.fail_above}`, {
      hint: 'a soft launch passes at or below pass_below and fails above fail_above: give pass_below at most fail_above',
    });
  }
  if (loi?.fail_above !== undefined && loi.fail_below !== undefined && loi.fail_below >= loi.fail_above) {
    r.report('SF4512', at('analysis', 'length_of_interview', 'fail_below'), `length_of_interview fail_below ${loi.fail_below} is not below its fail_above ${loi.fail_above}, so every interview length fails`, {
      hint: 'fail_below is the short end (speeders), fail_above the long end: give fail_below less than fail_above',
    });
  }
  if (loi && (loi.fail_above !== undefined || loi.fail_below !== undefined) && tg.expected_length_of_interview_minutes === undefined) {
    r.report('SF4513', at('analysis', 'length_of_interview'), `${of} judges the interview length as multiples of expected_length_of_interview_minutes, which \`${key}\` does not give`, {
      target: 'key',
      hint: 'set expected_length_of_interview_minutes on the target group or in defaults',
    });
  }

  const ms = guardDurationMs(soft.max_duration);
  const start = Date.parse(tg.launch?.at ?? tg.start_fielding_at ?? '');
  const end = Date.parse(tg.end_fielding_at ?? '');
  if (ms !== undefined && Number.isFinite(start) && Number.isFinite(end) && end > start && ms > end - start) {
    r.report('SF4514', at('max_duration'), `max_duration ${soft.max_duration} of ${of} is longer than its fielding window (${tg.launch?.at ? 'launch.at' : 'start_fielding_at'} ${new Date(start).toISOString()} to end_fielding_at ${tg.end_fielding_at})`, {
      hint: 'the soft launch must end, and be judged, before fielding does: shorten max_duration or move end_fielding_at',
    });
  }
}
