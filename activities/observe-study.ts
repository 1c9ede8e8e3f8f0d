// The observeStudy activity: what the API holds for a study, for the planner. The reads and their mapping into the
// planner's terms are the plain operation api/operations/observe-study.ts (which `studyflow plan` runs too); this
// checks the input and runs it with the activity's caller (its cancellation, heartbeats as progress).
import type { DesiredStudy, ObservedList, ObservedStudy } from '../plan/types';
import { observeStudy } from '../api/operations/observe-study';
import { listDigest } from '../blobs/id-list-digest';
import { activityCaller } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx } from './activity-input';
import type { ActivityCtx } from './types';

export interface ObserveStudyInput {
  ctx: ActivityCtx;
  desired: DesiredStudy;
  /** IDs the study workflow remembers; natural keys (customer reference numbers, names) are the fallback. */
  known: {
    projectId?: string;
    targetGroupIds: Record<string, string>;
    exclusionGroupIds: Record<string, string>;
    /** Recontact lists uploaded earlier, by target-group key (the API cannot list them back). */
    recontactLists?: Record<string, ObservedList>;
  };
}

export function observeStudyActivities(deps: ActivityDeps) {
  return {
    /** What the API holds for the study's project, target groups (with lists and groups) and exclusion groups. */
    async observeStudy(input: ObserveStudyInput): Promise<ObservedStudy> {
      const ctx = checkCtx('observeStudy', input.ctx);
      return await observeStudy(activityCaller(deps, ctx), { desired: input.desired, known: input.known }, { digest: listDigest, pageSize: deps.listPageSize, idListPageSize: deps.idListPageSize });
    },
  };
}
