// Respondent activity exclusion items (spec: Resources › Respondent activity exclusion item).
// Item wire shape (docs/api-conventions.md): {type: project|target-group, id, duration?} and, in the spec's
// dialect only, respondent_statuses? (spec line 62; the reference's item has none: the cint dialect refuses it
// and never answers it). Answers carry exactly these fields (no computed duration_days). Duration precedence:
// item > request-level > P90D; an answer's item carries the duration in effect.
import { ApiError, badRequest, type InvalidParam } from '../core/api-error';
import { ObjectReader } from '../core/input-validation';
import { FEATURE_RESPONDENT_STATUS_EXCLUSIONS, accountHasFeature, type SeededAccount } from '../core/seed-data';
import type { ActivityExclusionRecord, RespondentStatus, SandboxStateData } from '../core/state-records';
import { dateOnlyPeriodDays } from './iso-duration';
import type { SandboxDialect } from '../core/dialect';

export const RESPONDENT_STATUSES: readonly RespondentStatus[] = [
  'Complete',
  'Terminate',
  'SecurityFailure',
  'OverQuota',
  'FinancialTerm',
  'PreClientSurveyProcess',
];
export const DEFAULT_EXCLUSION_DURATION = 'P90D';
export const MIN_EXCLUSION_DAYS = 1;
export const MAX_EXCLUSION_DAYS = 396;
export const MAX_ACTIVITY_EXCLUSION_ITEMS = 100;

export interface ResolvedDuration {
  duration: string;
  days: number;
}

/** Validates a duration value; records a problem under `name` and returns null when invalid. */
export function readDuration(value: unknown, name: string, problems: InvalidParam[]): ResolvedDuration | null {
  if (typeof value !== 'string') {
    problems.push({ name, reason: 'must be an ISO-8601 date-only period such as P30D, P2W, P3M, P1Y' });
    return null;
  }
  const days = dateOnlyPeriodDays(value);
  if (days === null) {
    problems.push({ name, reason: 'must be an ISO-8601 date-only period (PnYnMnWnD, no time part) such as P30D, P2W, P3M, P1Y' });
    return null;
  }
  if (days < MIN_EXCLUSION_DAYS || days > MAX_EXCLUSION_DAYS) {
    problems.push({ name, reason: `must be between ${MIN_EXCLUSION_DAYS} and ${MAX_EXCLUSION_DAYS} days (is ${days} days; Y=365, M=30, W=7)` });
    return null;
  }
  return { duration: value, days };
}

/**
 * Reads an array of items (shape only). Problems go to `problems` under `path[i].field`;
 * call `checkActivityExclusionRules` afterwards for the feature and reference checks.
 */
export function readActivityExclusionItems(
  raw: unknown[],
  path: string,
  problems: InvalidParam[],
  requestDuration: ResolvedDuration | null,
  dialect: SandboxDialect,
): ActivityExclusionRecord[] {
  if (raw.length > MAX_ACTIVITY_EXCLUSION_ITEMS) {
    problems.push({ name: path, reason: `must have at most ${MAX_ACTIVITY_EXCLUSION_ITEMS} items` });
    return [];
  }
  const items: ActivityExclusionRecord[] = [];
  const seen = new Map<string, number>();
  raw.forEach((value, index) => {
    const itemPath = `${path}[${index}]`;
    const item = ObjectReader.nested(value, itemPath, problems);
    if (!item) return;
    item.rejectUnknown(dialect.respondentStatuses ? ['type', 'id', 'respondent_statuses', 'duration'] : ['type', 'id', 'duration'], {
      respondent_statuses: 'is not a field of an exclusion item (reference: RespondentActivityExclusionsIDsListRequest has type, id and duration)',
    });
    // Reference (RespondentActivityExclusionsIDsListRequest): type is `target-group` or `project`.
    const wireType = item.oneOf('type', ['project', 'target-group'] as const, { required: true });
    const type = wireType === 'target-group' ? 'target_group' : wireType;
    const id = item.string('id', { required: true, maxLength: 64 });
    let statuses: RespondentStatus[] | null = ['Complete'];
    // null or absent means the default ["Complete"]; undefined after a present value means a recorded problem.
    const rawStatuses = item.array('respondent_statuses', { nullable: true, minItems: 1, maxItems: RESPONDENT_STATUSES.length });
    if (rawStatuses === undefined && item.has('respondent_statuses')) statuses = null;
    if (rawStatuses) {
      const picked: RespondentStatus[] = [];
      rawStatuses.forEach((s, i) => {
        const name = `${itemPath}.respondent_statuses[${i}]`;
        if (typeof s !== 'string' || !(RESPONDENT_STATUSES as readonly string[]).includes(s)) {
          problems.push({ name, reason: `must be one of ${RESPONDENT_STATUSES.join(', ')}` });
        } else if (picked.includes(s as RespondentStatus)) {
          problems.push({ name, reason: `repeats ${s}` });
        } else picked.push(s as RespondentStatus);
      });
      statuses = picked.length === rawStatuses.length ? picked : null;
    }
    let duration: ResolvedDuration | null = requestDuration ?? { duration: DEFAULT_EXCLUSION_DURATION, days: 90 };
    if (item.has('duration') && item.value.duration !== null) {
      duration = readDuration(item.value.duration, `${itemPath}.duration`, problems);
    }
    if (!type || !id || !statuses || !duration) return;
    const key = `${type}\u0000${id}\u0000${[...statuses].sort().join(',')}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      problems.push({
        name: `${itemPath}.respondent_statuses`,
        reason: `repeats item ${earlier}: the same ${type} may appear again only with a distinct set of statuses`,
      });
      return;
    }
    seen.set(key, index);
    items.push({ type, id, respondent_statuses: statuses, duration: duration.duration, duration_days: duration.days });
  });
  return items;
}

/**
 * 403 feature_not_enabled for non-Complete statuses without the feature; 400 bad_request_error for a project or
 * target group outside the account (the reference's draft create/update and set_target_group_respondent_activity_
 * exclusions document 400, no 422).
 */
export function checkActivityExclusionRules(
  items: ActivityExclusionRecord[],
  path: string,
  account: SeededAccount,
  data: SandboxStateData,
): void {
  if (!accountHasFeature(account, FEATURE_RESPONDENT_STATUS_EXCLUSIONS)) {
    const index = items.findIndex((i) => i.respondent_statuses.some((s) => s !== 'Complete'));
    if (index >= 0) {
      throw new ApiError(
        403,
        'feature_not_enabled',
        `Account ${account.account_id} may only exclude by the Complete status; other statuses need the ${FEATURE_RESPONDENT_STATUS_EXCLUSIONS} feature.`,
        { invalidParams: [{ name: `${path}[${index}].respondent_statuses`, reason: 'statuses other than Complete are not enabled for this account' }] },
      );
    }
  }
  const missing: InvalidParam[] = [];
  items.forEach((item, index) => {
    const record = item.type === 'project' ? data.projects[item.id] : data.target_groups[item.id];
    if (!record || record.account_id !== account.account_id) {
      missing.push({ name: `${path}[${index}].id`, reason: `no ${item.type.replace('_', ' ')} ${item.id} in account ${account.account_id}` });
    }
  });
  if (missing.length > 0) throw badRequest('An exclusion item references a project or target group that does not exist.', missing);
}

/**
 * Wire form of an item (same in every version; reference: the items of get_target_group_respondent_activity_exclusions
 * and FetchTargetGroupResponse): type, id, the duration in effect, and the spec dialect's respondent_statuses.
 */
export function renderActivityExclusion(item: ActivityExclusionRecord, dialect: SandboxDialect): Record<string, unknown> {
  return {
    type: item.type === 'target_group' ? 'target-group' : item.type,
    id: item.id,
    ...(dialect.respondentStatuses ? { respondent_statuses: [...item.respondent_statuses] } : {}),
    duration: item.duration,
  };
}
