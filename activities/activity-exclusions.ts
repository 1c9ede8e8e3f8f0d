// Respondent activity exclusions of a target group: read, and replace the whole list (api/operations/activity-exclusions.ts).
import { getActivityExclusions, putActivityExclusions, type ActivityExclusionItem, type ActivityExclusions } from '../api/operations/activity-exclusions';
import { activityCaller } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireArray, requireText } from './activity-input';
import type { ActivityCtx } from './types';

export type { ActivityExclusionItem } from '../api/operations/activity-exclusions';

export interface ActivityExclusionsInput {
  ctx: ActivityCtx;
  projectId: string;
  targetGroupId: string;
}
export type ActivityExclusionsOutput = ActivityExclusions;
export interface PutActivityExclusionsInput extends ActivityExclusionsInput {
  /** Request-level duration. */
  duration?: string;
  /** The complete new list (the PUT replaces the existing one). */
  items: ActivityExclusionItem[];
}

export function activityExclusionActivities(deps: ActivityDeps) {
  return {
    /** GET TG/respondent-activity-exclusions */
    async getActivityExclusions(input: ActivityExclusionsInput): Promise<ActivityExclusionsOutput> {
      const ctx = checkCtx('getActivityExclusions', input.ctx);
      const projectId = requireText('getActivityExclusions', 'projectId', input.projectId);
      const targetGroupId = requireText('getActivityExclusions', 'targetGroupId', input.targetGroupId);
      return await getActivityExclusions(activityCaller(deps, ctx), { projectId, targetGroupId });
    },

    /** PUT TG/respondent-activity-exclusions: replaces the whole list (idempotent by nature). */
    async putActivityExclusions(input: PutActivityExclusionsInput): Promise<ActivityExclusionsOutput> {
      const ctx = checkCtx('putActivityExclusions', input.ctx);
      const projectId = requireText('putActivityExclusions', 'projectId', input.projectId);
      const targetGroupId = requireText('putActivityExclusions', 'targetGroupId', input.targetGroupId);
      const items = requireArray('putActivityExclusions', 'items', input.items) as ActivityExclusionItem[];
      return await putActivityExclusions(activityCaller(deps, ctx), { projectId, targetGroupId, items, duration: input.duration });
    },
  };
}
