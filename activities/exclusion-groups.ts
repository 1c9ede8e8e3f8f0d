// Exclusion groups: reusable groups of target groups whose completes exclude each other (api/operations/exclusion-groups.ts).
import {
  changeExclusionGroupMembers,
  deleteExclusionGroup,
  ensureExclusionGroup,
  getTargetGroupExclusionGroups,
  listExclusionGroups,
  listExclusionGroupTargetGroups,
  updateExclusionGroup,
  type ExclusionGroupDesired,
} from '../api/operations/exclusion-groups';
import { activityCaller } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireArray, requireObject, requireText } from './activity-input';
import type { ActivityCtx, ApiObject } from './types';

export type { ExclusionGroupDesired } from '../api/operations/exclusion-groups';

export interface ListExclusionGroupsInput {
  ctx: ActivityCtx;
}
export interface ListExclusionGroupsOutput {
  exclusionGroups: ApiObject[];
}
export interface EnsureExclusionGroupInput {
  ctx: ActivityCtx;
  /** Sent as Idempotency-Key on the create. */
  idempotencyKey: string;
  knownId?: string;
  desired: ExclusionGroupDesired;
}
export interface EnsureExclusionGroupOutput {
  exclusionGroup: ApiObject;
  created: boolean;
}
export interface UpdateExclusionGroupInput {
  ctx: ActivityCtx;
  exclusionGroupId: string;
  desired: ExclusionGroupDesired;
}
export interface ExclusionGroupOutput {
  exclusionGroup: ApiObject;
}
export interface ExclusionGroupInput {
  ctx: ActivityCtx;
  exclusionGroupId: string;
}
export interface DeleteExclusionGroupOutput {
  /** False when it did not exist (already deleted). */
  deleted: boolean;
}
export interface ExclusionGroupTargetGroupsOutput {
  targetGroupIds: string[];
}
export interface ExclusionGroupMembershipInput {
  ctx: ActivityCtx;
  exclusionGroupId: string;
  targetGroupIds: string[];
}
export interface TargetGroupExclusionGroupsInput {
  ctx: ActivityCtx;
  targetGroupId: string;
}

export function exclusionGroupActivities(deps: ActivityDeps) {
  const pageSize = deps.listPageSize;

  async function membership(activity: string, input: ExclusionGroupMembershipInput, action: 'add' | 'remove') {
    const ctx = checkCtx(activity, input.ctx);
    const exclusionGroupId = requireText(activity, 'exclusionGroupId', input.exclusionGroupId);
    const targetGroupIds = requireArray(activity, 'targetGroupIds', input.targetGroupIds).map((v, i) => requireText(activity, `targetGroupIds[${i}]`, v));
    await changeExclusionGroupMembers(activityCaller(deps, ctx), { exclusionGroupId, targetGroupIds, action });
  }

  return {
    async listExclusionGroups(input: ListExclusionGroupsInput): Promise<ListExclusionGroupsOutput> {
      const ctx = checkCtx('listExclusionGroups', input.ctx);
      return { exclusionGroups: await listExclusionGroups(activityCaller(deps, ctx), pageSize) };
    },

    /** Finds the group by knownId, then by exact `name`; else creates it. */
    async ensureExclusionGroup(input: EnsureExclusionGroupInput): Promise<EnsureExclusionGroupOutput> {
      const ctx = checkCtx('ensureExclusionGroup', input.ctx);
      const idempotencyKey = requireText('ensureExclusionGroup', 'idempotencyKey', input.idempotencyKey);
      const desired = requireObject('ensureExclusionGroup', 'desired', input.desired) as ExclusionGroupDesired;
      requireText('ensureExclusionGroup', 'desired.name', desired.name);
      return await ensureExclusionGroup(activityCaller(deps, ctx), { idempotencyKey, knownId: input.knownId, desired, pageSize });
    },

    async updateExclusionGroup(input: UpdateExclusionGroupInput): Promise<ExclusionGroupOutput> {
      const ctx = checkCtx('updateExclusionGroup', input.ctx);
      const exclusionGroupId = requireText('updateExclusionGroup', 'exclusionGroupId', input.exclusionGroupId);
      const desired = requireObject('updateExclusionGroup', 'desired', input.desired) as ExclusionGroupDesired;
      requireText('updateExclusionGroup', 'desired.name', desired.name);
      return { exclusionGroup: await updateExclusionGroup(activityCaller(deps, ctx), { exclusionGroupId, desired }) };
    },

    /** DELETE; a group that is already gone counts as deleted by an earlier attempt. */
    async deleteExclusionGroup(input: ExclusionGroupInput): Promise<DeleteExclusionGroupOutput> {
      const ctx = checkCtx('deleteExclusionGroup', input.ctx);
      const id = requireText('deleteExclusionGroup', 'exclusionGroupId', input.exclusionGroupId);
      return { deleted: await deleteExclusionGroup(activityCaller(deps, ctx), id) };
    },

    async listExclusionGroupTargetGroups(input: ExclusionGroupInput): Promise<ExclusionGroupTargetGroupsOutput> {
      const ctx = checkCtx('listExclusionGroupTargetGroups', input.ctx);
      const id = requireText('listExclusionGroupTargetGroups', 'exclusionGroupId', input.exclusionGroupId);
      return { targetGroupIds: await listExclusionGroupTargetGroups(activityCaller(deps, ctx), id, pageSize) };
    },

    /** POST …/target-groups/add {data: [ids]}; adding a member twice is harmless. */
    async addTargetGroupsToExclusionGroup(input: ExclusionGroupMembershipInput): Promise<void> {
      await membership('addTargetGroupsToExclusionGroup', input, 'add');
    },

    /** POST …/target-groups/remove {data: [ids]} */
    async removeTargetGroupsFromExclusionGroup(input: ExclusionGroupMembershipInput): Promise<void> {
      await membership('removeTargetGroupsFromExclusionGroup', input, 'remove');
    },

    /** GET P/target-groups/{id}/exclusion-groups */
    async getTargetGroupExclusionGroups(input: TargetGroupExclusionGroupsInput): Promise<ListExclusionGroupsOutput> {
      const ctx = checkCtx('getTargetGroupExclusionGroups', input.ctx);
      const id = requireText('getTargetGroupExclusionGroups', 'targetGroupId', input.targetGroupId);
      return { exclusionGroups: await getTargetGroupExclusionGroups(activityCaller(deps, ctx), id, pageSize) };
    },
  };
}
