// Respondent activity exclusion rules: one reference per item, durations of 1..396 days, and a
// reference repeated only with distinct status sets.
import { didYouMeanHint } from '../did-you-mean';
import type { DocPath } from '../doc-path';
import { MAX_ACTIVITY_DAYS, MIN_ACTIVITY_DAYS, periodToDays } from '../periods';
import type { FileReporter } from '../reporter';
import type { ActivityExclusions } from '../study-schema';

const REFERENCE_FIELDS = ['target_group', 'target_group_id', 'project'] as const;

function checkDuration(duration: string | undefined, at: DocPath, r: FileReporter): void {
  if (duration === undefined) return;
  const days = periodToDays(duration);
  if (days !== undefined && (days < MIN_ACTIVITY_DAYS || days > MAX_ACTIVITY_DAYS)) {
    r.report('SF4201', at, `duration ${duration} is ${days} days; it must be between ${MIN_ACTIVITY_DAYS} and ${MAX_ACTIVITY_DAYS} days`, {
      hint: 'periods are normalized to days with W=7, M=30, Y=365',
    });
  }
}

/** Checks the activity exclusions at `at`; `targetGroupKeys` are the keys of the study's target groups. */
export function checkActivityExclusions(activity: ActivityExclusions, at: DocPath, targetGroupKeys: readonly string[], r: FileReporter): void {
  checkDuration(activity.duration, [...at, 'duration'], r);
  const byReference = new Map<string, { statuses: Set<string>; index: number }[]>();
  activity.items.forEach((item, i) => {
    const itemPath = [...at, 'items', i];
    checkDuration(item.duration, [...itemPath, 'duration'], r);
    const given = REFERENCE_FIELDS.filter((f) => item[f] !== undefined);
    if (given.length !== 1) {
      r.report('SF4202', itemPath, given.length === 0 ? 'activity item names no target group or project' : `activity item names ${given.join(' and ')}; give exactly one`, {
        hint: 'use target_group (a key of this study), target_group_id (a remote id) or project (a remote id, or self)',
      });
      return;
    }
    const field = given[0];
    const value = item[field]!;
    if (field === 'target_group' && !targetGroupKeys.includes(value)) {
      r.report('SF5001', [...itemPath, 'target_group'], `unknown target group \`${value}\``, {
        hint: didYouMeanHint(value, targetGroupKeys, 'target groups of this study'),
      });
    }
    const refKey = `${field}=${value}`;
    const statuses = new Set(item.respondent_statuses);
    const earlier = byReference.get(refKey) ?? [];
    for (const other of earlier) {
      const same = other.statuses.size === statuses.size && [...statuses].every((s) => other.statuses.has(s));
      if (same) {
        r.report('SF4203', [...itemPath, 'respondent_statuses'], `items ${other.index} and ${i} exclude ${field} ${value} for the same statuses (${[...statuses].join(', ')})`, {
          hint: 'merge them, or give each item a distinct set of statuses',
        });
      } else {
        const shared = [...statuses].filter((s) => other.statuses.has(s));
        if (shared.length) {
          r.report('SF4204', [...itemPath, 'respondent_statuses'], `items ${other.index} and ${i} both exclude ${field} ${value} for ${shared.join(', ')}`, {
            hint: 'each status of a reference is best covered by one item, so its window is clear',
          });
        }
      }
    }
    earlier.push({ statuses, index: i });
    byReference.set(refKey, earlier);
  });
}
