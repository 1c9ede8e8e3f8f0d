// Respondent activity exclusions of a target group: read, and replace the whole list.
import { z } from 'zod';
import { profileOfConfig, withActivityItems } from '../http/dialect';
import { ActivityExclusionsAnswer } from '../wire/activity-exclusions';
import { readAnswer } from '../wire/read-answer';
import { requestBody } from '../wire/request-body';
import { activityExclusionRequestItem } from '../wire/target-groups';
import { withActivityItemTypes } from '../wire/version-adapter';
import { targetGroupPath, type ApiCaller } from './caller';
import type { TargetGroupRef } from './fielding';

/** One exclusion item: whose participation history is checked, which statuses, how far back. */
export interface ActivityExclusionItem {
  type: 'project' | 'target_group';
  id: string;
  /** Default ["Complete"]; other statuses need the account feature. */
  respondent_statuses?: string[];
  /** ISO-8601 date period, 1..396 days; default P90D. */
  duration?: string;
  [field: string]: unknown;
}

export interface ActivityExclusions {
  /** Request-level duration, when the API reports one. */
  duration?: string;
  items: ActivityExclusionItem[];
}

const path = (caller: ApiCaller, tg: TargetGroupRef) => `${targetGroupPath(caller, tg.projectId, tg.targetGroupId)}/respondent-activity-exclusions`;

/** An answer `{respondent_activity_exclusions: [...]}`, item types in studyflow's names and the caller's dialect read in. */
function parse(caller: ApiCaller, operation: string, req: { method: string; path: string }, res: { status: number; body: unknown }): ActivityExclusions {
  const record = withActivityItems(profileOfConfig(caller), withActivityItemTypes(readAnswer({ operation, ...req }, ActivityExclusionsAnswer, res), 'fromWire'), 'in');
  const out: ActivityExclusions = { items: record.respondent_activity_exclusions as ActivityExclusionItem[] };
  if (typeof record.duration === 'string') out.duration = record.duration;
  return out;
}

/** get_target_group_respondent_activity_exclusions `GET TG/respondent-activity-exclusions`. */
export async function getActivityExclusions(caller: ApiCaller, tg: TargetGroupRef): Promise<ActivityExclusions> {
  const req = { method: 'GET', path: path(caller, tg) } as const;
  return parse(caller, 'get_target_group_respondent_activity_exclusions', req, await caller.send(req));
}

/**
 * set_target_group_respondent_activity_exclusions `PUT TG/respondent-activity-exclusions`: replaces the whole list
 * (idempotent by nature), the body RespondentActivityExclusionsIDsListRequest in the caller's dialect (items with
 * `respondent_statuses` under `sandbox` only).
 */
export async function putActivityExclusions(caller: ApiCaller, input: TargetGroupRef & ActivityExclusions): Promise<ActivityExclusions> {
  const profile = profileOfConfig(caller);
  const putBody = z.strictObject({ duration: z.string().optional(), respondent_activity_exclusions: z.array(activityExclusionRequestItem(profile)) });
  const wire: Record<string, unknown> = withActivityItems(profile, withActivityItemTypes({ respondent_activity_exclusions: input.items }, 'toWire'), 'out');
  if (input.duration !== undefined) wire.duration = input.duration;
  const json = requestBody('putActivityExclusions', 'set_target_group_respondent_activity_exclusions', putBody, wire);
  const req = { method: 'PUT', path: path(caller, input), json } as const;
  const res = await caller.send(req);
  if (res.status === 204 || res.body === undefined) {
    const out: ActivityExclusions = { items: input.items };
    if (input.duration !== undefined) out.duration = input.duration;
    return out;
  }
  return parse(caller, 'set_target_group_respondent_activity_exclusions', req, res);
}
