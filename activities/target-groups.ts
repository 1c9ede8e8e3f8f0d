// Target groups: ensure a draft (read before create), a batch of drafts (each launched when asked), update a
// draft, read the state, list, overview, performance; the operations are api/operations/target-groups.ts.
import {
  ensureDraftTargetGroup,
  getTargetGroupOverview,
  getTargetGroupPerformance,
  listTargetGroupFigures,
  listTargetGroups,
  updateDraftTargetGroup,
  type TargetGroupFigures,
  type TargetGroupDesired,
} from '../api/operations/target-groups';
import { readTargetGroupState, type TargetGroupState, type TargetGroupStateRead } from '../api/operations/target-group-state';
import type { TargetGroupPerformanceAnswer } from '../api/wire/performance';
import { activityCaller } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireObject, requireText } from './activity-input';
import { eachItem, itemOutcome, type BatchItemResult } from './batch';
import { launchFromDraftChecked, type LaunchFromDraftOutput } from './fielding';
import type { ActivityCtx, ApiObject } from './types';

export type { TargetGroupDesired, TargetGroupFigures } from '../api/operations/target-groups';
export type { TargetGroupState, TargetGroupStateRead } from '../api/operations/target-group-state';

export interface EnsureDraftTargetGroupInput {
  ctx: ActivityCtx;
  projectId: string;
  /** Sent as Idempotency-Key on the create. */
  idempotencyKey: string;
  knownId?: string;
  desired: TargetGroupDesired;
  /** The plan observed no such target group: create it without looking again (see ensureResource). */
  observedAbsent?: boolean;
}
export interface EnsureDraftTargetGroupOutput {
  targetGroup: ApiObject;
  created: boolean;
}
/** Launch a draft of a batch as soon as it exists (its gate was read and passed before the batch). */
export interface DraftLaunchRequest {
  /** ISO-8601 UTC end of the fielding run. */
  endFieldingAt: string;
  /** The launch's Idempotency-Key is this, `/`, and the target group's id. */
  idempotencyKeyPrefix: string;
}
export interface DraftBatchItem extends EnsureDraftTargetGroupInput {
  launch?: DraftLaunchRequest;
}
export interface EnsureDraftTargetGroupsInput {
  /** Each as for `ensureDraftTargetGroup`, with its own Idempotency-Key; at most BATCH_MAX (activities/batch.ts). */
  items: DraftBatchItem[];
}
/** What became of the launch an item asked for: the launch (its job not awaited), or why it failed. */
export type DraftLaunchResult = ({ ok: true } & LaunchFromDraftOutput) | { ok: false; retryable: boolean; failure: { type: string; message: string } };
/** One draft of a batch: its id (and its launch, when asked), or why it failed and whether trying it again alone may succeed. */
export type DraftBatchResult = BatchItemResult<{ targetGroupId: string; created: boolean; launch?: DraftLaunchResult }>;
export interface EnsureDraftTargetGroupsOutput {
  /** In the order of the items. */
  results: DraftBatchResult[];
}

export interface UpdateDraftTargetGroupInput {
  ctx: ActivityCtx;
  projectId: string;
  targetGroupId: string;
  desired: TargetGroupDesired;
}
export interface TargetGroupInput {
  ctx: ActivityCtx;
  projectId: string;
  targetGroupId: string;
}
export interface TargetGroupOutput {
  targetGroup: ApiObject;
}
export interface ReadTargetGroupStateInput extends TargetGroupInput {
  /**
   * What to read of a launched target group: `status` (TG/overview), `fieldingRun` (TG/fielding-runs),
   * `fields` (TG/details). A draft answers all three with its one GET.
   */
  reads: TargetGroupStateRead[];
}
export interface ReadTargetGroupStateOutput {
  state: TargetGroupState;
}
export interface ListTargetGroupsInput {
  ctx: ActivityCtx;
  projectId: string;
  /** Only target groups with this customer reference number. */
  targetGroupCustomerReferenceNumber?: string;
}
export interface ListTargetGroupsOutput {
  /** List items as the API returns them (2025-12-18 lists omit `name`). */
  targetGroups: ApiObject[];
}
export interface TargetGroupOverviewOutput {
  overview: Record<string, unknown>;
}
export interface TargetGroupPerformanceOutput {
  /** TargetGroupPerformance as the reference gives it (2025-12-18 names and money). */
  performance: TargetGroupPerformanceAnswer;
}

export function targetGroupActivities(deps: ActivityDeps) {
  const pageSize = deps.listPageSize;

  /** `ensureDraftTargetGroup` with its input checked; `projectListing` lists the project once for a batch. */
  async function ensureDraft(input: EnsureDraftTargetGroupInput, projectListing?: () => Promise<ApiObject[]>): Promise<EnsureDraftTargetGroupOutput> {
    const ctx = checkCtx('ensureDraftTargetGroup', input.ctx);
    const projectId = requireText('ensureDraftTargetGroup', 'projectId', input.projectId);
    const idempotencyKey = requireText('ensureDraftTargetGroup', 'idempotencyKey', input.idempotencyKey);
    const desired = requireObject('ensureDraftTargetGroup', 'desired', input.desired) as TargetGroupDesired;
    return await ensureDraftTargetGroup(activityCaller(deps, ctx), {
      projectId,
      idempotencyKey,
      knownId: input.knownId,
      desired,
      observedAbsent: input.observedAbsent,
      pageSize,
      projectListing,
    });
  }

  return {
    /** Finds the draft by knownId, then by target_group_customer_reference_number; else creates it. */
    async ensureDraftTargetGroup(input: EnsureDraftTargetGroupInput): Promise<EnsureDraftTargetGroupOutput> {
      return await ensureDraft(input);
    },

    /**
     * Several drafts in one activity, sent together: each is ensured as by `ensureDraftTargetGroup`
     * (read before create, its own Idempotency-Key; the project's target groups are listed once for the
     * batch, not once per draft), and a failure of one does not stop the others. A failure the API
     * gave as final (400/404/422, ambiguous natural key) comes back as `retryable: false`; anything
     * else as `retryable: true`, for the workflow to try that draft again on its own. Running
     * the batch again is safe: drafts it made are found again by their key.
     *
     * An item with `launch` is launched from draft once it exists (its job is not awaited here). A draft
     * this attempt created is known to be a draft, so its launch skips the read that finds one launched
     * already; one found existing is read first. A launch that fails leaves the draft's result intact
     * and comes back in `launch`, for the workflow to leave that target group to its own workflow.
     */
    async ensureDraftTargetGroups(input: EnsureDraftTargetGroupsInput): Promise<EnsureDraftTargetGroupsOutput> {
      // One list of each project's target groups for the whole batch, read when a draft first needs it.
      const listings = new Map<string, Promise<ApiObject[]>>();
      const projectListing = (item: DraftBatchItem) => () => {
        const ctx = checkCtx('ensureDraftTargetGroups', item.ctx);
        const projectId = requireText('ensureDraftTargetGroups', 'projectId', item.projectId);
        const key = `${ctx.accountId}/${ctx.apiVersion}/${projectId}`;
        let listing = listings.get(key);
        if (!listing) {
          listing = listTargetGroups(activityCaller(deps, ctx), projectId, { pageSize });
          listings.set(key, listing);
        }
        return listing;
      };
      const results = await eachItem('ensureDraftTargetGroups', input?.items, async (item: DraftBatchItem) => {
        const { targetGroup, created } = await ensureDraft(item, projectListing(item));
        const asked = item.launch;
        if (!asked) return { targetGroupId: targetGroup.id, created };
        const launch = await itemOutcome(() =>
          launchFromDraftChecked(deps, {
            ctx: item.ctx,
            projectId: item.projectId,
            targetGroupId: targetGroup.id,
            idempotencyKey: `${requireText('ensureDraftTargetGroups', 'launch.idempotencyKeyPrefix', asked.idempotencyKeyPrefix)}/${targetGroup.id}`,
            endFieldingAt: asked.endFieldingAt,
            knownDraft: created,
          }),
        );
        return { targetGroupId: targetGroup.id, created, launch };
      });
      return { results };
    },

    /** update_target_group: replaces the draft's fields (api/operations/target-groups.ts). */
    async updateDraftTargetGroup(input: UpdateDraftTargetGroupInput): Promise<TargetGroupOutput> {
      const ctx = checkCtx('updateDraftTargetGroup', input.ctx);
      const projectId = requireText('updateDraftTargetGroup', 'projectId', input.projectId);
      const targetGroupId = requireText('updateDraftTargetGroup', 'targetGroupId', input.targetGroupId);
      const desired = requireObject('updateDraftTargetGroup', 'desired', input.desired);
      return { targetGroup: await updateDraftTargetGroup(activityCaller(deps, ctx), { projectId, targetGroupId, desired }) };
    },

    /**
     * The target group's state (api/operations/target-group-state.ts): GET TG answers a draft (one call); a group
     * that left draft answers 301, and then only the `reads` asked for are made. A 404 is the API's failure.
     */
    async readTargetGroupState(input: ReadTargetGroupStateInput): Promise<ReadTargetGroupStateOutput> {
      const ctx = checkCtx('readTargetGroupState', input.ctx);
      const projectId = requireText('readTargetGroupState', 'projectId', input.projectId);
      const targetGroupId = requireText('readTargetGroupState', 'targetGroupId', input.targetGroupId);
      const reads = (Array.isArray(input.reads) ? input.reads : []).filter((r): r is TargetGroupStateRead => r === 'status' || r === 'fieldingRun' || r === 'fields');
      return { state: (await readTargetGroupState(activityCaller(deps, ctx), projectId, targetGroupId, reads)) as TargetGroupState };
    },

    /** Every target group of the project (all pages). */
    async listTargetGroups(input: ListTargetGroupsInput): Promise<ListTargetGroupsOutput> {
      const ctx = checkCtx('listTargetGroups', input.ctx);
      const projectId = requireText('listTargetGroups', 'projectId', input.projectId);
      return { targetGroups: await listTargetGroups(activityCaller(deps, ctx), projectId, { reference: input.targetGroupCustomerReferenceNumber, pageSize }) };
    },

    /** The figures of every target group of the project (get_list_target_groups, pages of 100): the study's watch reads them once per tick. */
    async listTargetGroupFigures(input: { ctx: ActivityCtx; projectId: string }): Promise<{ figures: TargetGroupFigures[] }> {
      const ctx = checkCtx('listTargetGroupFigures', input.ctx);
      const projectId = requireText('listTargetGroupFigures', 'projectId', input.projectId);
      return { figures: await listTargetGroupFigures(activityCaller(deps, ctx), projectId, Math.min(pageSize ?? 100, 100)) };
    },

    async getTargetGroupOverview(input: TargetGroupInput): Promise<TargetGroupOverviewOutput> {
      const ctx = checkCtx('getTargetGroupOverview', input.ctx);
      const projectId = requireText('getTargetGroupOverview', 'projectId', input.projectId);
      const targetGroupId = requireText('getTargetGroupOverview', 'targetGroupId', input.targetGroupId);
      return { overview: await getTargetGroupOverview(activityCaller(deps, ctx), { projectId, targetGroupId }) };
    },

    /** get_target_group_performance; the watch reads it best effort and reports the failure. */
    async getTargetGroupPerformance(input: TargetGroupInput): Promise<TargetGroupPerformanceOutput> {
      const ctx = checkCtx('getTargetGroupPerformance', input.ctx);
      const projectId = requireText('getTargetGroupPerformance', 'projectId', input.projectId);
      const targetGroupId = requireText('getTargetGroupPerformance', 'targetGroupId', input.targetGroupId);
      return { performance: await getTargetGroupPerformance(activityCaller(deps, ctx), { projectId, targetGroupId }) };
    },
  };
}
