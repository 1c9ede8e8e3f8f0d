// Study fields only the spec's dialect takes (shared/api-dialect.ts): asked for under a profile whose API has no
// such field, they are refused here rather than dropped on the way out.
import { speaksSpec } from '../../shared/api-dialect';
import type { ApiProfileName } from '../../shared/api-profile';
import type { DocPath } from '../doc-path';
import type { FileReporter } from '../reporter';
import type { ActivityExclusions } from '../study-schema';

/**
 * `respondent_statuses` other than `[Complete]` (the format's default, and what the reference's items exclude)
 * under a profile without the field: SF4305 at the item's statuses.
 */
export function checkActivityStatusesForProfile(activity: ActivityExclusions, at: DocPath, profile: ApiProfileName, r: FileReporter): void {
  if (speaksSpec(profile, 'respondent_statuses')) return;
  activity.items.forEach((item, i) => {
    const statuses = item.respondent_statuses ?? ['Complete'];
    if (statuses.length === 1 && statuses[0] === 'Complete') return;
    r.report('SF4305', [...at, 'items', i, 'respondent_statuses'], `respondent_statuses ${statuses.join(', ')}: the ${profile} profile's API has no statuses on activity items and excludes completes only`, {
      hint: 'leave respondent_statuses out (or [Complete]), or use the sandbox profile',
    });
  });
}
