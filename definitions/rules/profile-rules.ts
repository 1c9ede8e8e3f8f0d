// Profile rules: duplicate conditions (rejected by the API), duplicate zip codes (removed by the
// API), ranges, and quotas that are consistent with each other and with the filling goal.
import type { DocPath } from '../doc-path';
import type { FileReporter } from '../reporter';
import { CURRENT_API_VERSION, type Condition, type Profile } from '../study-schema';

const conditionKey = (c: Condition): string | undefined =>
  c.object === 'selection' ? `selection ${c.question_id}=${c.option}` : c.object === 'range' ? `range ${c.question_id}:${c.min}..${c.max}` : undefined;


const describeCondition = (c: Condition): string =>
  c.object === 'selection'
    ? `selection of option "${c.option}" of question ${c.question_id}`
    : c.object === 'range'
      ? `range ${c.min}..${c.max} of question ${c.question_id}`
      : `${c.object} answers of question ${c.question_id}`;

const PERCENT_TOLERANCE = 1e-6;

/** Rules that hold for a profile wherever it is declared (a target group or a template). */
export function checkProfileDefinition(profile: Profile, at: DocPath, r: FileReporter): void {
  const seenInProfile = new Map<string, DocPath>();
  const seenTargets = new Map<string, number>();
  const seenZips = new Set<string>();
  profile.targets.forEach((target, t) => {
    const targetPath = [...at, 'targets', t];
    const seenInTarget = new Set<string>();
    target.conditions.forEach((condition, c) => {
      const conditionPath = [...targetPath, 'conditions', c];
      if (condition.object === 'range' && condition.min > condition.max) {
        r.report('SF4104', [...conditionPath, 'min'], `range min ${condition.min} is greater than max ${condition.max}`, { hint: 'swap min and max' });
      }
      if (condition.object === 'zip_code') {
        const repeated = condition.zip_codes.filter((zip) => {
          const again = seenZips.has(zip);
          seenZips.add(zip);
          return again;
        });
        if (repeated.length) {
          r.report('SF4103', [...conditionPath, 'zip_codes'], `zip codes repeated in profile "${profile.name}": ${[...new Set(repeated)].slice(0, 5).join(', ')}${repeated.length > 5 ? ', …' : ''}`, {
            hint: 'the API removes duplicate zip codes before saving; remove them to keep the file equal to what is stored',
          });
        }
        return;
      }
      const key = conditionKey(condition);
      if (key === undefined) return;
      const code = condition.object === 'selection' ? 'SF4101' : 'SF4102';
      if (seenInTarget.has(key)) {
        r.report(code, conditionPath, `duplicate ${describeCondition(condition)} in one target`, { hint: 'the API rejects duplicate selection and range conditions' });
      } else if (profile.object === 'regular' && seenInProfile.has(key)) {
        r.report(code, conditionPath, `duplicate ${describeCondition(condition)} in profile "${profile.name}"`, {
          hint: 'the API rejects duplicate selection and range conditions; each option belongs to one target',
        });
      }
      seenInTarget.add(key);
      if (!seenInProfile.has(key)) seenInProfile.set(key, conditionPath);
    });
    if (profile.object === 'blended') {
      const setKey = [...seenInTarget].sort().join('&');
      const earlier = seenTargets.get(setKey);
      if (setKey && earlier !== undefined) {
        const code = target.conditions.some((c) => c.object === 'selection') ? 'SF4101' : 'SF4102';
        r.report(code, targetPath, `target ${t} repeats the conditions of target ${earlier} in blended profile "${profile.name}"`, {
          hint: 'the API rejects duplicate selection and range conditions',
        });
      } else if (setKey) {
        seenTargets.set(setKey, t);
      }
    }
  });
  checkQuotaShapes(profile, at, r);
}

function checkQuotaShapes(profile: Profile, at: DocPath, r: FileReporter): void {
  if (!profile.quotas_enabled) {
    const t = profile.targets.findIndex((target) => target.quota);
    if (t !== -1) {
      r.report('SF4110', [...at, 'targets', t, 'quota'], `quotas of profile "${profile.name}" are ignored because quotas_enabled is false`, {
        hint: 'set `quotas_enabled: true` on the profile, or remove the quotas',
      });
    }
    return;
  }
  let percentagesOnly = true;
  let percentSum = 0;
  profile.targets.forEach((target, t) => {
    const targetPath = [...at, 'targets', t];
    if (!target.quota) {
      percentagesOnly = false;
      r.report('SF4105', targetPath, `target ${t} of profile "${profile.name}" has no quota while quotas_enabled is true`, {
        hint: 'give every target a quota with completes_goal or completes_goal_percentage',
      });
      return;
    }
    const { completes_goal: goal, completes_goal_percentage: percent } = target.quota;
    if (goal === undefined && percent === undefined) {
      percentagesOnly = false;
      r.report('SF4112', [...targetPath, 'quota'], `quota "${target.quota.name}" has no goal`, { hint: 'set completes_goal or completes_goal_percentage' });
    } else if (goal !== undefined) {
      percentagesOnly = false;
    } else {
      percentSum += percent!;
    }
  });
  if (percentagesOnly && percentSum < 100 - PERCENT_TOLERANCE) {
    r.report('SF4107', [...at, 'targets'], `quota percentages of profile "${profile.name}" add up to ${+percentSum.toFixed(4)}, less than 100`, {
      hint: 'the quotas would stop fielding before the filling goal is reached',
    });
  }
}

/** A profile as a target group uses it, with where its target-group-level problems are shown. */
export interface ProfileInUse {
  profile: Profile;
  /** Path of the profile itself (own profiles) or of the template reference (template profiles). */
  at: DocPath;
  /** The local template that brings it, if any. */
  template?: string;
}

/** The goal a percentage stands for: round(filling_goal x percentage / 100). */
export const goalOfPercentage = (percentage: number, fillingGoal: number): number => Math.round((fillingGoal * percentage) / 100);

/** Rules across a target group's profiles: names, API version, and quota goals against its filling goal. */
export function checkProfilesOfTargetGroup(profiles: ProfileInUse[], fillingGoal: number | undefined, apiVersion: string, r: FileReporter): void {
  const profileNames = new Map<string, string | undefined>();
  const quotaNames = new Map<string, string | undefined>();
  const via = (template: string | undefined) => (template ? ` (from profile template ${template})` : '');
  for (const { profile, at, template } of profiles) {
    const own = (...rest: (string | number)[]) => (template === undefined ? [...at, ...rest] : at);
    if (profileNames.has(profile.name)) {
      r.report('SF4113', own('name'), `profile name "${profile.name}" is used twice in this target group${via(profileNames.get(profile.name) ?? template)}`, {
        hint: "give each profile its own name; a template's profiles join the target group's own",
      });
    } else {
      profileNames.set(profile.name, template);
    }
    if (profile.open_ended_group && apiVersion !== CURRENT_API_VERSION) {
      r.report('SF4013', own('open_ended_group'), `open-ended question groups need api_version ${CURRENT_API_VERSION}; the study uses ${apiVersion}`, {
        hint: `set \`api_version: "${CURRENT_API_VERSION}"\`; once profiling uses it, later writes to it must too`,
      });
    }
    profile.targets.forEach((target, t) => {
      if (!target.quota) return;
      if (quotaNames.has(target.quota.name)) {
        r.report('SF4114', own('targets', t, 'quota', 'name'), `quota name "${target.quota.name}" is used twice in this target group${via(quotaNames.get(target.quota.name) ?? template)}`, {
          hint: 'quota names track quotas, so each must be unique',
        });
      } else {
        quotaNames.set(target.quota.name, template);
      }
    });
    if (profile.quotas_enabled && fillingGoal !== undefined) checkGoals(profile, fillingGoal, own, r);
  }
}

function checkGoals(profile: Profile, fillingGoal: number, own: (...rest: (string | number)[]) => DocPath, r: FileReporter): void {
  const effective: (number | undefined)[] = [];
  profile.targets.forEach((target, t) => {
    const goal = target.quota?.completes_goal;
    const percent = target.quota?.completes_goal_percentage;
    if (goal !== undefined && goal > fillingGoal) {
      r.report('SF4109', own('targets', t, 'quota', 'completes_goal'), `quota goal ${goal} of profile "${profile.name}" is above the filling_goal ${fillingGoal}`, {
        hint: 'a quota cannot need more completes than the target group collects',
      });
    }
    if (goal !== undefined && percent !== undefined && Math.abs(goalOfPercentage(percent, fillingGoal) - goal) > 1) {
      r.report('SF4111', own('targets', t, 'quota'), `quota "${target.quota!.name}": completes_goal ${goal} disagrees with completes_goal_percentage ${percent} (${goalOfPercentage(percent, fillingGoal)} of filling_goal ${fillingGoal})`, {
        hint: 'give one of the two, or make them agree within one complete',
      });
    }
    effective.push(goal ?? (percent !== undefined ? goalOfPercentage(percent, fillingGoal) : undefined));
  });
  const usesGoals = profile.targets.some((target) => target.quota?.completes_goal !== undefined);
  if (usesGoals && effective.every((g) => g !== undefined)) {
    const sum = effective.reduce((a, b) => a! + b!, 0)!;
    if (sum < fillingGoal) {
      r.report('SF4108', own('targets'), `quota goals of profile "${profile.name}" add up to ${sum}, less than the filling_goal ${fillingGoal}`, {
        hint: 'the quotas would stop fielding before the filling goal is reached',
      });
    }
  }
}
