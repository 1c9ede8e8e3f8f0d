// Activities over the operations on a launched target group (api/operations/live-target-groups.ts): input checks,
// and a caller with the activity's version, traceparent and cancellation signal. The logic is in api/operations.
import type { ActivityDeps } from './activity-deps';
import { invalidInputFailure } from '../api/http/errors';
import { activityCancellationSignal } from './activity-context';
import { checkCtx, requireObject, requireText } from './activity-input';
import type { ActivityCtx } from './types';
import { apiCaller, type ApiCaller } from '../api/operations/caller';
import * as live from '../api/operations/live-target-groups';
import type { AllocationSpecificationRequest, FeasibilityByIdRequest, FieldingAssistantRequest } from '../api/wire/live-target-groups';
import type { LiveFieldingAssistantModules } from '../plan/live-requests';
import type { QuotaFigures } from '../plan/quotas';

export interface LiveTargetGroupInput {
  ctx: ActivityCtx;
  projectId: string;
  targetGroupId: string;
}
export interface LiveRunInput extends LiveTargetGroupInput {
  fieldingRunId: string;
  /** The ETag the decision was based on (If-Match); default: the one read now. */
  etag?: string;
}

export function liveTargetGroupActivities(deps: ActivityDeps) {
  /** The checked ref and a caller cancelled with the activity. */
  const open = (activity: string, input: LiveTargetGroupInput): [ApiCaller, live.LiveTargetGroupRef] => {
    const ctx = checkCtx(activity, input.ctx);
    const ref = { projectId: requireText(activity, 'projectId', input.projectId), targetGroupId: requireText(activity, 'targetGroupId', input.targetGroupId) };
    return [apiCaller(deps.api, { accountId: ctx.accountId, apiVersion: ctx.apiVersion, traceparent: ctx.traceparent, signal: activityCancellationSignal() }), ref];
  };
  const openRun = (activity: string, input: LiveRunInput): [ApiCaller, live.LiveTargetGroupRef & { fieldingRunId: string; etag?: string }] => {
    const [caller, ref] = open(activity, input);
    const run = { ...ref, fieldingRunId: requireText(activity, 'fieldingRunId', input.fieldingRunId) };
    return [caller, input.etag === undefined ? run : { ...run, etag: requireText(activity, 'etag', input.etag) }];
  };

  return {
    /** Every changeable field of a launched group (null for a draft). */
    readLiveTargetGroup: async (input: LiveTargetGroupInput) => live.readLiveTargetGroup(...open('readLiveTargetGroup', input)),
    /** Each quota's goal, completes and prescreens (list_profiles once), as plan/quotas.ts reads them: names and counts only. */
    readQuotaFigures: async (input: LiveTargetGroupInput): Promise<{ quotas: QuotaFigures[]; notReported: number }> => live.readQuotaCompletes(...open('readQuotaFigures', input)),
    updateLiveFillingGoal: async (input: LiveTargetGroupInput & { completesGoal?: number; quotaGoals?: live.QuotaGoal[] }) => {
      const [caller, ref] = open('updateLiveFillingGoal', input);
      if (input.completesGoal !== undefined && (!Number.isInteger(input.completesGoal) || input.completesGoal < 1)) throw invalidInputFailure('updateLiveFillingGoal', 'completesGoal must be a positive integer');
      return live.updateFillingGoal(caller, ref, { completesGoal: input.completesGoal, quotaGoals: input.quotaGoals });
    },
    /** update_fielding_run: a date left out stays the run's (at least one is given). */
    updateLiveFieldingWindow: async (input: LiveRunInput & { startFieldingAt?: string; endFieldingAt?: string }) => {
      const [caller, ref] = openRun('updateLiveFieldingWindow', input);
      if (input.startFieldingAt === undefined && input.endFieldingAt === undefined) throw invalidInputFailure('updateLiveFieldingWindow', 'startFieldingAt or endFieldingAt is required');
      return live.updateFieldingWindow(caller, ref, {
        ...(input.startFieldingAt === undefined ? {} : { startFieldingAt: requireText('updateLiveFieldingWindow', 'startFieldingAt', input.startFieldingAt) }),
        ...(input.endFieldingAt === undefined ? {} : { endFieldingAt: requireText('updateLiveFieldingWindow', 'endFieldingAt', input.endFieldingAt) }),
      });
    },
    relaunchFieldingRun: async (input: LiveRunInput) => live.controlLiveRun(...openRun('relaunchFieldingRun', input), 'relaunch'),
    launchScheduledRunNow: async (input: LiveRunInput) => live.controlLiveRun(...openRun('launchScheduledRunNow', input), 'launch-now'),
    scheduleLaunchFromDraft: async (input: LiveTargetGroupInput & { startFieldingAt: string; endFieldingAt: string; idempotencyKey: string }) => {
      const [caller, ref] = open('scheduleLaunchFromDraft', input);
      return live.scheduleLaunch(caller, ref, {
        startFieldingAt: requireText('scheduleLaunchFromDraft', 'startFieldingAt', input.startFieldingAt),
        endFieldingAt: requireText('scheduleLaunchFromDraft', 'endFieldingAt', input.endFieldingAt),
        idempotencyKey: requireText('scheduleLaunchFromDraft', 'idempotencyKey', input.idempotencyKey),
      });
    },
    getScheduleLaunchJob: async (input: LiveTargetGroupInput & { jobId: string }) => {
      const [caller, ref] = open('getScheduleLaunchJob', input);
      return live.readScheduleJob(caller, { ...ref, jobId: requireText('getScheduleLaunchJob', 'jobId', input.jobId) });
    },
    updateLiveDetails: async (input: LiveTargetGroupInput & { desired: Partial<live.LiveDetails> }) => {
      const [caller, ref] = open('updateLiveDetails', input);
      return live.updateDetails(caller, ref, requireObject('updateLiveDetails', 'desired', input.desired) as Partial<live.LiveDetails>);
    },
    updateLiveCostPerInterview: async (input: LiveTargetGroupInput & { costPerInterview: live.Money }) => {
      const [caller, ref] = open('updateLiveCostPerInterview', input);
      const money = requireObject('updateLiveCostPerInterview', 'costPerInterview', input.costPerInterview);
      return live.updateCostPerInterview(caller, ref, { value: requireText('updateLiveCostPerInterview', 'costPerInterview.value', money.value), currency_code: requireText('updateLiveCostPerInterview', 'costPerInterview.currency_code', money.currency_code) });
    },
    updateLiveAllocations: async (input: LiveTargetGroupInput & { allocations: AllocationSpecificationRequest }) => {
      const [caller, ref] = open('updateLiveAllocations', input);
      return live.updateAllocations(caller, ref, requireObject('updateLiveAllocations', 'allocations', input.allocations) as AllocationSpecificationRequest);
    },
    /** The modules as the plan gives them (plan/live-requests.ts), sent as the reference's request. */
    updateLiveFieldingAssistant: async (input: LiveTargetGroupInput & { modules: LiveFieldingAssistantModules; etag?: string }) => {
      const [caller, ref] = open('updateLiveFieldingAssistant', input);
      const modules = requireObject('updateLiveFieldingAssistant', 'modules', input.modules) as FieldingAssistantRequest;
      return live.updateFieldingAssistant(caller, input.etag === undefined ? ref : { ...ref, etag: requireText('updateLiveFieldingAssistant', 'etag', input.etag) }, modules);
    },
    /** The soft_launch module set (or removed: `module` null), the other modules kept (If-Match, re-read on 412). */
    setSoftLaunchModule: async (input: LiveTargetGroupInput & { module: FieldingAssistantRequest['soft_launch'] | null }) => {
      const [caller, ref] = open('setSoftLaunchModule', input);
      if (input.module !== null) requireObject('setSoftLaunchModule', 'module', input.module);
      const outcome = await live.setSoftLaunchModule(caller, ref, input.module ?? null);
      return { outcome: outcome.outcome };
    },
    /** get_target_group_overview's figures: completes, incidence, drop-off and the median length of interview. */
    readOverviewFigures: async (input: LiveTargetGroupInput) => live.readOverviewFigures(...open('readOverviewFigures', input)),
    liveFeasibility: async (input: LiveTargetGroupInput & { whatIf: FeasibilityByIdRequest }) => {
      const [caller, ref] = open('liveFeasibility', input);
      return live.liveFeasibility(caller, ref, requireObject('liveFeasibility', 'whatIf', input.whatIf) as FeasibilityByIdRequest);
    },
  };
}
