// Respondent activity exclusions of a target group: read, and replace the whole list.
import { callApi, targetGroupPath } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireArray, requireText } from './activity-input';
import { readAnswer } from '../api/wire/read-answer';
import { ActivityExclusionsAnswer } from '../api/wire/activity-exclusions';
import { activityExclusionRequestItem } from '../api/wire/target-groups';
import { requestBody } from '../api/wire/request-body';
import { profileOfConfig, withActivityItems } from '../api/http/dialect';
import { z } from 'zod';
import { withActivityItemTypes } from '../api/wire/version-adapter';
import type { ActivityCtx } from './types';

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

export interface ActivityExclusionsInput {
  ctx: ActivityCtx;
  projectId: string;
  targetGroupId: string;
}
export interface ActivityExclusionsOutput {
  /** Request-level duration, when the API reports one. */
  duration?: string;
  items: ActivityExclusionItem[];
}
export interface PutActivityExclusionsInput extends ActivityExclusionsInput {
  /** Request-level duration. */
  duration?: string;
  /** The complete new list (the PUT replaces the existing one). */
  items: ActivityExclusionItem[];
}

export function activityExclusionActivities(deps: ActivityDeps) {
  const path = (ctx: ActivityCtx, p: string, t: string) => `${targetGroupPath(ctx, p, t)}/respondent-activity-exclusions`;
  const profile = profileOfConfig(deps.api.config);
  /** RespondentActivityExclusionsIDsListRequest in the profile's dialect (items with `respondent_statuses` under `sandbox` only). */
  const putBody = z.strictObject({ duration: z.string().optional(), respondent_activity_exclusions: z.array(activityExclusionRequestItem(profile)) });

  /** get_target_group_respondent_activity_exclusions: `{respondent_activity_exclusions: [...]}`, item types in studyflow's names. */
  function parse(operation: string, req: { method: string; path: string }, res: { status: number; body: unknown }): ActivityExclusionsOutput {
    const record = withActivityItems(profile, withActivityItemTypes(readAnswer({ operation, ...req }, ActivityExclusionsAnswer, res), 'fromWire'), 'in');
    const out: ActivityExclusionsOutput = { items: record.respondent_activity_exclusions as ActivityExclusionItem[] };
    if (typeof record.duration === 'string') out.duration = record.duration;
    return out;
  }

  return {
    /** GET TG/respondent-activity-exclusions */
    async getActivityExclusions(input: ActivityExclusionsInput): Promise<ActivityExclusionsOutput> {
      const ctx = checkCtx('getActivityExclusions', input.ctx);
      const p = requireText('getActivityExclusions', 'projectId', input.projectId);
      const t = requireText('getActivityExclusions', 'targetGroupId', input.targetGroupId);
      const req = { method: 'GET', path: path(ctx, p, t) } as const;
      return parse('get_target_group_respondent_activity_exclusions', req, await callApi(deps.api, ctx, req));
    },

    /** PUT TG/respondent-activity-exclusions: replaces the whole list (idempotent by nature). */
    async putActivityExclusions(input: PutActivityExclusionsInput): Promise<ActivityExclusionsOutput> {
      const ctx = checkCtx('putActivityExclusions', input.ctx);
      const p = requireText('putActivityExclusions', 'projectId', input.projectId);
      const t = requireText('putActivityExclusions', 'targetGroupId', input.targetGroupId);
      const items = requireArray('putActivityExclusions', 'items', input.items) as ActivityExclusionItem[];
      const wire: Record<string, unknown> = withActivityItems(profile, withActivityItemTypes({ respondent_activity_exclusions: items }, 'toWire'), 'out');
      if (input.duration !== undefined) wire.duration = input.duration;
      const json = requestBody('putActivityExclusions', 'set_target_group_respondent_activity_exclusions', putBody, wire);
      const req = { method: 'PUT', path: path(ctx, p, t), json } as const;
      const res = await callApi(deps.api, ctx, req);
      if (res.status === 204 || res.body === undefined) {
        const out: ActivityExclusionsOutput = { items };
        if (input.duration !== undefined) out.duration = input.duration;
        return out;
      }
      return parse('set_target_group_respondent_activity_exclusions', req, res);
    },
  };
}
