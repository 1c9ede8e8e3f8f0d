// Exclusion groups: reusable groups of target groups whose completes exclude each other.
import { accountPath, callApi, seg } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireArray, requireObject, requireText } from './activity-input';
import { ensureResource } from './ensure-resource';
import {
  CreateExclusionGroupRequest,
  CreateExclusionGroupResponse,
  ExclusionGroupMembershipRequest,
  MAX_TARGET_GROUPS_PER_MEMBERSHIP_CALL,
  UpdateExclusionGroupRequest,
} from '../api/wire/exclusion-groups';
import { ExclusionGroupInfo, LIST_EXCLUSION_GROUP_TARGET_GROUPS, LIST_EXCLUSION_GROUPS, LIST_TARGET_GROUP_EXCLUSION_GROUPS } from '../api/wire/lists';
import { readAnswer } from '../api/wire/read-answer';
import { listAllPages } from './pagination';
import type { ActivityCtx, ApiObject, JsonObject } from './types';

/**
 * An exclusion group as studyflow sets it; `name` is the natural key and goes on the wire as the
 * reference's `tag` (create_exclusion_group: `{tag, description}`).
 */
export interface ExclusionGroupDesired extends JsonObject {
  name: string;
  description?: string;
}

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

/** The group as studyflow sees it, `{id, name, description}`: the reference's ExclusionGroupInfo with `exclusion_group_id` as `id` and `tag` as `name`. */
function fromInfo(info: ExclusionGroupInfo): ApiObject {
  return { id: info.exclusion_group_id, name: info.tag, description: info.description ?? '' };
}

/** The create/update body: `{tag, description}` (the activity's `name` is the reference's `tag`). */
function toWire(desired: ExclusionGroupDesired) {
  return { tag: desired.name, description: typeof desired.description === 'string' ? desired.description : '' };
}

export function exclusionGroupActivities(deps: ActivityDeps) {
  const pageSize = deps.listPageSize ?? 100;
  const groups = (ctx: ActivityCtx) => `${accountPath(ctx)}/exclusion-groups`;
  const group = (ctx: ActivityCtx, id: string) => `${groups(ctx)}/${seg(id)}`;

  async function list(ctx: ActivityCtx): Promise<ApiObject[]> {
    return (await listAllPages(deps.api, ctx, { method: 'GET', path: groups(ctx) }, LIST_EXCLUSION_GROUPS, pageSize)).map(fromInfo);
  }
  async function read(ctx: ActivityCtx, id: string): Promise<ApiObject | undefined> {
    const req = { method: 'GET', path: group(ctx, id), acceptStatuses: [404] } as const;
    const res = await callApi(deps.api, ctx, req);
    if (res.status === 404) return undefined;
    return fromInfo(readAnswer({ operation: 'get_exclusion_group_by_id', ...req }, ExclusionGroupInfo, res));
  }
  async function membership(activity: string, input: ExclusionGroupMembershipInput, action: 'add' | 'remove') {
    const ctx = checkCtx(activity, input.ctx);
    const id = requireText(activity, 'exclusionGroupId', input.exclusionGroupId);
    const ids = requireArray(activity, 'targetGroupIds', input.targetGroupIds).map((v, i) => requireText(activity, `targetGroupIds[${i}]`, v));
    // The reference takes at most 100 target group ids a call; adding or removing twice is harmless.
    for (let start = 0; start < ids.length; start += MAX_TARGET_GROUPS_PER_MEMBERSHIP_CALL) {
      const json = ExclusionGroupMembershipRequest.parse({ data: ids.slice(start, start + MAX_TARGET_GROUPS_PER_MEMBERSHIP_CALL) });
      await callApi(deps.api, ctx, { method: 'POST', path: `${group(ctx, id)}/target-groups/${action}`, json });
    }
  }

  return {
    async listExclusionGroups(input: ListExclusionGroupsInput): Promise<ListExclusionGroupsOutput> {
      const ctx = checkCtx('listExclusionGroups', input.ctx);
      return { exclusionGroups: await list(ctx) };
    },

    /** Finds the group by knownId, then by exact `name`; else creates it. */
    async ensureExclusionGroup(input: EnsureExclusionGroupInput): Promise<EnsureExclusionGroupOutput> {
      const ctx = checkCtx('ensureExclusionGroup', input.ctx);
      const key = requireText('ensureExclusionGroup', 'idempotencyKey', input.idempotencyKey);
      const desired = requireObject('ensureExclusionGroup', 'desired', input.desired) as ExclusionGroupDesired;
      const name = requireText('ensureExclusionGroup', 'desired.name', desired.name);
      const { resource, created } = await ensureResource({
        describe: `exclusion group named ${name}`,
        getById: input.knownId ? () => read(ctx, input.knownId as string) : undefined,
        findByNaturalKey: async () => (await list(ctx)).filter((g) => g.name === name),
        getFull: (id) => read(ctx, id),
        create: async () => {
          const json = CreateExclusionGroupRequest.parse(toWire(desired));
          const req = { method: 'POST', path: groups(ctx), json, idempotencyKey: key } as const;
          const answer = readAnswer({ operation: 'create_exclusion_group', ...req }, CreateExclusionGroupResponse, await callApi(deps.api, ctx, req));
          return { id: answer.exclusion_group_id, name: json.tag, description: json.description };
        },
      });
      return { exclusionGroup: resource, created };
    },

    async updateExclusionGroup(input: UpdateExclusionGroupInput): Promise<ExclusionGroupOutput> {
      const ctx = checkCtx('updateExclusionGroup', input.ctx);
      const id = requireText('updateExclusionGroup', 'exclusionGroupId', input.exclusionGroupId);
      const desired = requireObject('updateExclusionGroup', 'desired', input.desired) as ExclusionGroupDesired;
      requireText('updateExclusionGroup', 'desired.name', desired.name);
      const json = UpdateExclusionGroupRequest.parse(toWire(desired));
      // update_exclusion_group_by_id answers 204 without a body.
      await callApi(deps.api, ctx, { method: 'PUT', path: group(ctx, id), json });
      return { exclusionGroup: { id, name: desired.name, description: json.description ?? '' } };
    },

    /** DELETE; a group that is already gone counts as deleted by an earlier attempt. */
    async deleteExclusionGroup(input: ExclusionGroupInput): Promise<DeleteExclusionGroupOutput> {
      const ctx = checkCtx('deleteExclusionGroup', input.ctx);
      const id = requireText('deleteExclusionGroup', 'exclusionGroupId', input.exclusionGroupId);
      const res = await callApi(deps.api, ctx, { method: 'DELETE', path: group(ctx, id), acceptStatuses: [404] });
      return { deleted: res.status !== 404 };
    },

    async listExclusionGroupTargetGroups(input: ExclusionGroupInput): Promise<ExclusionGroupTargetGroupsOutput> {
      const ctx = checkCtx('listExclusionGroupTargetGroups', input.ctx);
      const id = requireText('listExclusionGroupTargetGroups', 'exclusionGroupId', input.exclusionGroupId);
      const items = await listAllPages(deps.api, ctx, { method: 'GET', path: `${group(ctx, id)}/target-groups` }, LIST_EXCLUSION_GROUP_TARGET_GROUPS, pageSize);
      return { targetGroupIds: items };
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
      const path = `${accountPath(ctx)}/target-groups/${seg(id)}/exclusion-groups`;
      return { exclusionGroups: (await listAllPages(deps.api, ctx, { method: 'GET', path }, LIST_TARGET_GROUP_EXCLUSION_GROUPS, pageSize)).map(fromInfo) };
    },
  };
}
