// Target groups: ensure a draft (read before create), update a draft, read the state, list, overview, performance.
import { callApi, expectObject, projectPath, targetGroupPath } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireObject, requireText } from './activity-input';
import { eachItem, itemOutcome, type BatchItemResult } from './batch';
import { ensureResource } from './ensure-resource';
import { fieldingActivities, type LaunchFromDraftOutput } from './fielding';
import { listAllPages } from './pagination';
import { LIST_TARGET_GROUPS } from '../api/wire/lists';
import { describeShape, readAnswer, wireMismatchFailure } from '../api/wire/read-answer';
import { requestBody } from '../api/wire/request-body';
import { TargetGroupPerformanceAnswer } from '../api/wire/performance';
import { targetGroupStateReader, type TargetGroupState, type TargetGroupStateRead } from './target-group-state';
import { CreatedDraftTargetGroupResponse, draftTargetGroupRequest } from '../api/wire/target-groups';
import { goalFieldInVersion, profileOfConfig, withActivityItems, withGoalFieldOut } from '../api/http/dialect';
import type { ActivityCtx, ApiObject, JsonObject } from './types';
import { fromWireBody, toWireBody, withActivityItemTypes } from '../api/wire/version-adapter';

/** Draft target group fields (2025-12-18 names); the five required ones are typed, others pass through. */
export interface TargetGroupDesired extends JsonObject {
  name?: string;
  locale?: string;
  live_url?: string | null;
  test_url?: string | null;
  expected_incidence_rate: number;
  expected_length_of_interview_minutes: number;
  filling_goal: number;
  /** A UUID (the reference's UserID). */
  project_manager_id: string;
  collects_pii: boolean;
  business_unit_id?: string;
  fielding_specification?: { start_at: string; end_at: string };
  study_type_code?: string;
  /** The natural key; when present, ensure finds an existing draft by it. */
  target_group_customer_reference_number?: string;
}

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
  const pageSize = deps.listPageSize ?? 100;
  const profile = profileOfConfig(deps.api.config);

  /**
   * The draft body of create and update in the profile's dialect (api/http/dialect.ts): studyflow's
   * `filling_goal` under the profile's name, activity-exclusion items in the wire's types, checked with the
   * profile's request schema (a body the API would refuse is not sent), then in the call's version's names.
   */
  function draftBody(activity: string, operation: string, ctx: ActivityCtx, desired: Record<string, unknown>): Record<string, unknown> {
    const wire = withActivityItems(profile, withGoalFieldOut(profile, withActivityItemTypes(desired, 'toWire')), 'out');
    return goalFieldInVersion(toWireBody(requestBody(activity, operation, draftTargetGroupRequest(profile), wire) as Record<string, unknown>, ctx.apiVersion), ctx.apiVersion);
  }

  const { readTargetGroupState } = targetGroupStateReader(deps);
  /** The target group by id (its draft fields when a draft), or undefined on 404: one call. */
  const readTargetGroup = async (ctx: ActivityCtx, projectId: string, targetGroupId: string): Promise<ApiObject | undefined> => {
    const state = await readTargetGroupState(ctx, projectId, targetGroupId, [], { missingOk: true });
    return state && { ...state.fields, id: state.id, status: state.status };
  };

  async function listTargetGroups(ctx: ActivityCtx, projectId: string, reference?: string): Promise<ApiObject[]> {
    // get_list_target_groups filters by the plural target_group_customer_reference_numbers (an array).
    const items = await listAllPages(deps.api, ctx, {
      method: 'GET',
      path: `${projectPath(ctx, projectId)}/target-groups`,
      query: { target_group_customer_reference_numbers: reference },
    }, LIST_TARGET_GROUPS, pageSize);
    return items.map((item) => fromWireBody(item, ctx.apiVersion) as ApiObject);
  }

  /**
   * Finds the draft by knownId, then by target_group_customer_reference_number; else creates it.
   * `project` lists the project's target groups once for a whole batch (instead of one filtered list
   * read per draft); without it, the draft's own reference is listed.
   */
  async function ensureDraft(input: EnsureDraftTargetGroupInput, project?: () => Promise<ApiObject[]>): Promise<EnsureDraftTargetGroupOutput> {
    const ctx = checkCtx('ensureDraftTargetGroup', input.ctx);
    const projectId = requireText('ensureDraftTargetGroup', 'projectId', input.projectId);
    const key = requireText('ensureDraftTargetGroup', 'idempotencyKey', input.idempotencyKey);
    const desired = requireObject('ensureDraftTargetGroup', 'desired', input.desired) as TargetGroupDesired;
    const reference = desired.target_group_customer_reference_number;
    const { resource, created } = await ensureResource({
      describe: `target group with target_group_customer_reference_number ${reference ?? ''} in project ${projectId}`,
      observedAbsent: input.observedAbsent === true,
      getById: input.knownId ? () => readTargetGroup(ctx, projectId, input.knownId as string) : undefined,
      findByNaturalKey: reference
        ? async () => (project ? await project() : await listTargetGroups(ctx, projectId, reference)).filter(
            (tg) => String(tg.target_group_customer_reference_number) === reference,
          )
        : undefined,
      // The list item (id, status) is all the caller uses: no second read.
      create: async () => {
        const req = {
          method: 'POST',
          path: `${projectPath(ctx, projectId)}/target-groups`,
          json: draftBody('ensureDraftTargetGroup', 'create_target_group', ctx, desired),
          idempotencyKey: key,
        } as const;
        // 201 {id}: the id is used as is; the draft is not read back.
        const answer = readAnswer({ operation: 'create_target_group', ...req }, CreatedDraftTargetGroupResponse, await callApi(deps.api, ctx, req));
        return { ...desired, id: answer.id, status: 'draft' };
      },
    });
    return { targetGroup: resource, created };
  }

  const fielding = fieldingActivities(deps);

  const activities = {
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
          listing = listTargetGroups(ctx, projectId);
          listings.set(key, listing);
        }
        return listing;
      };
      const results = await eachItem('ensureDraftTargetGroups', input?.items, async (item: DraftBatchItem) => {
        const { targetGroup, created } = await ensureDraft(item, projectListing(item));
        const asked = item.launch;
        if (!asked) return { targetGroupId: targetGroup.id, created };
        const launch = await itemOutcome(() =>
          fielding.launchFromDraft({
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

    /**
     * PUT the draft (update_target_group: replaces its fields; the API refuses when it is no longer a draft).
     * The reference answers 204 without a body: the result is the desired fields with the id.
     */
    async updateDraftTargetGroup(input: UpdateDraftTargetGroupInput): Promise<TargetGroupOutput> {
      const ctx = checkCtx('updateDraftTargetGroup', input.ctx);
      const projectId = requireText('updateDraftTargetGroup', 'projectId', input.projectId);
      const targetGroupId = requireText('updateDraftTargetGroup', 'targetGroupId', input.targetGroupId);
      const desired = requireObject('updateDraftTargetGroup', 'desired', input.desired);
      const req = { method: 'PUT', path: targetGroupPath(ctx, projectId, targetGroupId), json: draftBody('updateDraftTargetGroup', 'update_target_group', ctx, desired) } as const;
      const res = await callApi(deps.api, ctx, req);
      if (res.status !== 204) throw wireMismatchFailure({ operation: 'update_target_group', ...req }, res.status, describeShape(res.body), ['the reference answers 204 without a body']);
      return { targetGroup: { ...desired, id: targetGroupId, status: 'draft' } };
    },

    /**
     * The target group's state (activities/target-group-state.ts): GET TG answers a draft (one call); a group
     * that left draft answers 301, and then only the `reads` asked for are made. A 404 is the API's failure.
     */
    async readTargetGroupState(input: ReadTargetGroupStateInput): Promise<ReadTargetGroupStateOutput> {
      const ctx = checkCtx('readTargetGroupState', input.ctx);
      const projectId = requireText('readTargetGroupState', 'projectId', input.projectId);
      const targetGroupId = requireText('readTargetGroupState', 'targetGroupId', input.targetGroupId);
      const reads = (Array.isArray(input.reads) ? input.reads : []).filter((r): r is TargetGroupStateRead => r === 'status' || r === 'fieldingRun' || r === 'fields');
      return { state: (await readTargetGroupState(ctx, projectId, targetGroupId, reads)) as TargetGroupState };
    },

    /** Every target group of the project (all pages). */
    async listTargetGroups(input: ListTargetGroupsInput): Promise<ListTargetGroupsOutput> {
      const ctx = checkCtx('listTargetGroups', input.ctx);
      const projectId = requireText('listTargetGroups', 'projectId', input.projectId);
      return { targetGroups: await listTargetGroups(ctx, projectId, input.targetGroupCustomerReferenceNumber) };
    },

    async getTargetGroupOverview(input: TargetGroupInput): Promise<TargetGroupOverviewOutput> {
      const ctx = checkCtx('getTargetGroupOverview', input.ctx);
      const projectId = requireText('getTargetGroupOverview', 'projectId', input.projectId);
      const targetGroupId = requireText('getTargetGroupOverview', 'targetGroupId', input.targetGroupId);
      const req = { method: 'GET', path: `${targetGroupPath(ctx, projectId, targetGroupId)}/overview` } as const;
      return { overview: fromWireBody(expectObject(req, await callApi(deps.api, ctx, req)), ctx.apiVersion) };
    },

    /**
     * get_target_group_performance `GET TG/performance`: a launched group's TargetGroupPerformance, checked
     * with the wire schema (another shape is `wire_mismatch`). A 404 (unknown, or still a draft) is the API's
     * final not_found_error; the watch reads it best effort and reports the failure.
     */
    async getTargetGroupPerformance(input: TargetGroupInput): Promise<TargetGroupPerformanceOutput> {
      const ctx = checkCtx('getTargetGroupPerformance', input.ctx);
      const projectId = requireText('getTargetGroupPerformance', 'projectId', input.projectId);
      const targetGroupId = requireText('getTargetGroupPerformance', 'targetGroupId', input.targetGroupId);
      const req = { method: 'GET', path: `${targetGroupPath(ctx, projectId, targetGroupId)}/performance` } as const;
      const res = await callApi(deps.api, ctx, req);
      // An older version's completes_cost (integer minor units) is made the 2025-12-18 money first.
      return { performance: readAnswer({ operation: 'get_target_group_performance', ...req }, TargetGroupPerformanceAnswer, { status: res.status, body: fromWireBody(res.body, ctx.apiVersion) }) };
    },
  };
  return activities;
}
