// Profile rules: duplicate conditions (rejected by the API), duplicate open-ended values such as zip
// codes (removed by the API), open-ended conditions that agree with allow_all_values, ranges, one
// question per regular profile (several open-ended ones may be grouped), and quotas that are
// consistent with each other, with the filling goal, and of one adjustment type per target group.
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
  if (profile.object === 'regular' && profile.blended_type !== undefined) {
    r.report('SF4119', [...at, 'blended_type'], `\`blended_type\` belongs to a blended profile only; profile "${profile.name}" is regular`, {
      target: 'key',
      hint: 'remove blended_type, or write `object: blended` if its targets combine conditions on several questions',
    });
  }
  const seenInProfile = new Map<string, DocPath>();
  const seenTargets = new Map<string, number>();
  const seenValues = new Map<number, Set<string>>();
  const questions = new Set<number>();
  let onlyOpenEnded = true;
  profile.targets.forEach((target, t) => {
    const targetPath = [...at, 'targets', t];
    const seenInTarget = new Set<string>();
    target.conditions.forEach((condition, c) => {
      const conditionPath = [...targetPath, 'conditions', c];
      if (condition.object === 'range' && condition.min > condition.max) {
        r.report('SF4104', [...conditionPath, 'min'], `range min ${condition.min} is greater than max ${condition.max}`, { hint: 'swap min and max' });
      }
      questions.add(condition.question_id);
      if (condition.object !== 'open_ended') onlyOpenEnded = false;
      if (condition.object === 'open_ended') {
        checkOpenEnded(condition, profile, conditionPath, seenValues, r);
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
  if (profile.object === 'regular' && questions.size > 1 && !onlyOpenEnded) {
    r.report('SF4117', [...at, 'targets'], `regular profile "${profile.name}" uses ${questions.size} questions (${[...questions].sort((a, b) => a - b).join(', ')})`, {
      hint: 'a regular profile asks one question (only open-ended questions may be grouped in one profile); combine questions in a profile with `object: blended`',
    });
  }
  checkQuotaShapes(profile, at, r);
}

type OpenEnded = Extract<Condition, { object: 'open_ended' }>;

/** allow_all_values against open_ended_values, and values repeated in the profile (the API removes them). */
function checkOpenEnded(condition: OpenEnded, profile: Profile, conditionPath: DocPath, seenValues: Map<number, Set<string>>, r: FileReporter): void {
  const values = condition.open_ended_values ?? [];
  if (condition.allow_all_values && values.length > 0) {
    r.report('SF4118', [...conditionPath, 'open_ended_values'], `allow_all_values is true, so open_ended_values must be empty or null (it lists ${values.length})`, {
      hint: 'set `allow_all_values: false` to qualify only the listed answers, or remove the list',
    });
    return;
  }
  if (!condition.allow_all_values && values.length === 0) {
    r.report('SF4118', [...conditionPath, 'open_ended_values'], 'allow_all_values is false, so open_ended_values must list at least one answer', {
      hint: 'list the answers that qualify, or set `allow_all_values: true` to accept every answer',
    });
    return;
  }
  const seen = seenValues.get(condition.question_id) ?? new Set<string>();
  seenValues.set(condition.question_id, seen);
  const repeated = values.filter((value) => {
    const again = seen.has(value);
    seen.add(value);
    return again;
  });
  if (repeated.length) {
    r.report('SF4103', [...conditionPath, 'open_ended_values'], `open-ended values repeated in profile "${profile.name}": ${[...new Set(repeated)].slice(0, 5).join(', ')}${repeated.length > 5 ? ', …' : ''}`, {
      hint: 'the API removes duplicate open-ended values (zip codes among them) before saving; remove them to keep the file equal to what is stored',
    });
  }
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
    if (goal !== undefined && percent !== undefined) {
      percentagesOnly = false;
      r.report('SF4111', [...targetPath, 'quota'], `quota "${target.quota.name}" gives both completes_goal and completes_goal_percentage`, {
        hint: 'a quota is nominal (completes_goal) or a percentage (completes_goal_percentage), not both',
      });
    } else if (goal === undefined && percent === undefined) {
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
export function checkProfilesOfTargetGroup(profiles: ProfileInUse[], fillingGoal: number | undefined, apiVersion: string, r: FileReporter, remoteTemplates = 0): void {
  const profileNames = new Map<string, string | undefined>();
  const quotaNames = new Map<string, string | undefined>();
  const via = (template: string | undefined) => (template ? ` (from profile template ${template})` : '');
  if (profiles.length && apiVersion !== CURRENT_API_VERSION) {
    const first = profiles[0];
    r.report('SF4013', first.at, `profiles need api_version ${CURRENT_API_VERSION}; the study uses ${apiVersion}`, {
      hint: `set \`api_version: "${CURRENT_API_VERSION}"\`: a draft carries its profiles in \`profiling\`, and once profiling uses ${CURRENT_API_VERSION}, later writes to it must too`,
    });
  }
  for (const { profile, at, template } of profiles) {
    const own = (...rest: (string | number)[]) => (template === undefined ? [...at, ...rest] : at);
    if (profileNames.has(profile.name)) {
      r.report('SF4113', own('name'), `profile name "${profile.name}" is used twice in this target group${via(profileNames.get(profile.name) ?? template)}`, {
        hint: "give each profile its own name; a template's profiles join the target group's own",
      });
    } else {
      profileNames.set(profile.name, template);
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
  checkAdjustmentType(profiles, remoteTemplates, r);
}

/**
 * One profile_adjustment_type per target group (the API refuses nominal quotas beside percentage ones,
 * and a profile template in the API takes percentages only): the first quota of the other kind is shown.
 */
function checkAdjustmentType(profiles: ProfileInUse[], remoteTemplates: number, r: FileReporter): void {
  let first: { kind: 'nominal' | 'percentage'; name: string } | undefined = remoteTemplates > 0 ? { kind: 'percentage', name: 'the profile template in the API' } : undefined;
  for (const { profile, at, template } of profiles) {
    if (!profile.quotas_enabled) continue;
    for (const [t, target] of profile.targets.entries()) {
      const quota = target.quota;
      if (!quota || (quota.completes_goal === undefined) === (quota.completes_goal_percentage === undefined)) continue;
      const kind = quota.completes_goal !== undefined ? 'nominal' : 'percentage';
      if (!first) {
        first = { kind, name: `quota "${quota.name}"` };
      } else if (first.kind !== kind) {
        const field = kind === 'nominal' ? 'completes_goal' : 'completes_goal_percentage';
        r.report('SF4115', template === undefined ? [...at, 'targets', t, 'quota', field] : at, `quota "${quota.name}" is ${kind} but ${first.name} is ${first.kind}; a target group's quotas are all nominal or all percentages`, {
          hint: first.kind === 'percentage' ? 'give this quota completes_goal_percentage instead' : 'give this quota completes_goal instead',
        });
        return;
      }
    }
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
