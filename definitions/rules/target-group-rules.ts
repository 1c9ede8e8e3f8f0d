// Rules on one target group after `defaults` are merged in: the draft fields the API requires,
// launch needs, recontact constraints, timing, calendar and version requirements.
import { didYouMeanHint } from '../did-you-mean';
import type { DocPath } from '../doc-path';
import { timingDurationMs } from '../periods';
import type { FileReporter } from '../reporter';
import { KNOWN_STUDY_TYPES, type MergedTargetGroup } from '../study-schema';

/** The draft fields the API requires (not nullable) on create and update, plus locale, which studyflow requires. */
export const REQUIRED_DRAFT_FIELDS = [
  'expected_incidence_rate',
  'expected_length_of_interview_minutes',
  'filling_goal',
  'project_manager_id',
  'collects_pii',
  'locale',
] as const;

export const RECONTACT_PLACEHOLDER = '[%RECONTACT_RSID%]';
/** The earlier filling_goal cap, which still applies where the spec says the 100,000 cap does not yet. */
export const TARGET_GROUP_FILLING_GOAL_CAP = 10_000;

export interface TargetGroupContext {
  key: string;
  tg: MergedTargetGroup;
  /** Where a (possibly nested) field was written: in the target group, else in defaults. */
  origin: (...fieldPath: string[]) => DocPath;
  r: FileReporter;
}

export function checkTargetGroup({ key, tg, origin, r }: TargetGroupContext): void {
  const self: DocPath = ['target_groups', key];
  for (const field of REQUIRED_DRAFT_FIELDS) {
    if (tg[field] === undefined) {
      const why = field === 'locale' ? 'which studyflow needs for feasibility and calendar requests' : 'which the API requires on draft create and update';
      r.report('SF4001', [...self, field], `target group \`${key}\` has no \`${field}\`, ${why}`, {
        at: self,
        target: 'key',
        hint: 'set it on the target group, or once for all of them under `defaults`',
      });
    }
  }

  if (tg.start_fielding_at && tg.end_fielding_at && Date.parse(tg.start_fielding_at) >= Date.parse(tg.end_fielding_at)) {
    r.report('SF4016', origin('start_fielding_at'), `the fielding window of \`${key}\` starts at ${tg.start_fielding_at}, not before it ends (${tg.end_fielding_at})`, {
      hint: 'start_fielding_at must be earlier than end_fielding_at',
    });
  }

  if (tg.launch.at && tg.end_fielding_at && Date.parse(tg.launch.at) >= Date.parse(tg.end_fielding_at)) {
    r.report('SF4016', origin('launch', 'at'), `\`${key}\` launches at ${tg.launch.at}, not before its fielding ends (${tg.end_fielding_at})`, {
      hint: 'launch.at starts the fielding run; it must be earlier than end_fielding_at',
    });
  }

  if (tg.filling_goal !== undefined && tg.filling_goal > TARGET_GROUP_FILLING_GOAL_CAP) {
    r.report('SF4014', origin('filling_goal'), `filling_goal ${tg.filling_goal} is above ${TARGET_GROUP_FILLING_GOAL_CAP.toLocaleString('en-US')}`, {
      hint: 'the 100,000 cap applies to feasibility; for creating and managing target groups it does not apply yet, so the API may refuse this',
    });
  }

  const recontact = tg.study_type === 'recontact';
  if (!tg.live_url) {
    if (tg.launch.mode === 'auto') {
      r.report('SF4002', [...self, 'live_url'], `target group \`${key}\` launches automatically but has no live_url`, {
        at: self,
        target: 'key',
        hint: `a target group cannot be put into fielding until live_url is set; add it or use \`launch: {mode: manual}\``,
      });
    } else {
      r.report('SF4003', [...self, 'live_url'], `target group \`${key}\` has no live_url; approval will not launch it until one is set`, { at: self, target: 'key' });
    }
  } else if (recontact && !tg.live_url.includes(RECONTACT_PLACEHOLDER)) {
    r.report('SF4004', [...self, 'live_url'], `the live_url of recontact target group \`${key}\` lacks ${RECONTACT_PLACEHOLDER}`, {
      hint: `add ${RECONTACT_PLACEHOLDER} where the survey expects the respondent id, e.g. ?rsid=${RECONTACT_PLACEHOLDER}`,
    });
  }

  if (recontact) {
    if (!tg.recontact) {
      r.report('SF4005', [...self, 'recontact'], `recontact target group \`${key}\` has no recontact list`, {
        at: self,
        target: 'key',
        hint: 'add `recontact: {file: ids/….txt}` with the RSIDs to invite',
      });
    }
    const profiling: [string, number][] = [
      ['profiles', tg.profiles?.length ?? 0],
      ['profile_templates', tg.profile_templates?.length ?? 0],
    ];
    for (const [field, count] of profiling) {
      if (count > 0) {
        r.report('SF4006', [...self, field], `recontact target group \`${key}\` has ${field}; further profiling on recontact surveys is not supported`, {
          target: 'key',
          hint: 'recontact studies reach the listed respondents through the recontact allocations template; remove the profiling',
        });
      }
    }
  } else if (tg.recontact) {
    r.report('SF4007', [...self, 'recontact'], `target group \`${key}\` has a recontact list but study_type is ${tg.study_type ?? 'not set'}`, {
      target: 'key',
      hint: 'set `study_type: recontact`, or use exclusions.respondent_ids to exclude these respondents instead',
    });
  }

  if (tg.study_type && !(KNOWN_STUDY_TYPES as readonly string[]).includes(tg.study_type)) {
    r.report('SF4008', origin('study_type'), `study_type \`${tg.study_type}\` is not one studyflow knows (${KNOWN_STUDY_TYPES.join(', ')}); it is sent as written`, {
      hint: didYouMeanHint(tg.study_type, KNOWN_STUDY_TYPES) ?? 'check the spelling; recontact rules only apply to `recontact`',
    });
  }

  const initial = timingDurationMs(tg.timing.job_poll_initial)!;
  const max = timingDurationMs(tg.timing.job_poll_max)!;
  const timeout = timingDurationMs(tg.timing.job_timeout)!;
  if (initial > max) {
    r.report('SF4011', origin('timing', 'job_poll_initial'), `job_poll_initial (${tg.timing.job_poll_initial}) is longer than job_poll_max (${tg.timing.job_poll_max})`, {
      hint: 'polling starts at job_poll_initial and backs off up to job_poll_max',
    });
  }
  if (max > timeout) {
    r.report('SF4011', origin('timing', 'job_poll_max'), `job_poll_max (${tg.timing.job_poll_max}) is longer than job_timeout (${tg.timing.job_timeout})`, {
      hint: 'a job would time out before it is polled a second time',
    });
  }

  if (tg.launch.calendar === 'suggest') {
    if (tg.launch.max_cpi && tg.launch.max_cpi.currency_code !== 'USD') {
      r.report('SF4012', origin('launch', 'max_cpi'), `calendar suggestions take the price in USD only; max_cpi is in ${tg.launch.max_cpi.currency_code}`, {
        hint: 'give max_cpi in USD, or use `calendar: none`',
      });
    }
    if (tg.expected_incidence_rate === 1) {
      r.report('SF4012', origin('expected_incidence_rate'), 'calendar suggestions need an incidence rate strictly between 0 and 1; it is 1', {
        hint: 'use a rate below 1, or `calendar: none`',
      });
    }
  }


}
