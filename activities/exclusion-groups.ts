// Exclusion groups: reusable groups of target groups whose completes exclude each other.
import { accountPath, callApi, expectResource, seg } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx, requireArray, requireObject, requireText } from './activity-input';
import { ensureResource } from './ensure-resource';
import { listAllPages } from './pagination';
import type { ActivityCtx, ApiObject, JsonObject } from './types';

/** Exclusion group fields (not shown in the spec); `name` is used as the natural key. */
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

export function exclusionGroupActivities(deps: ActivityDeps) {
  const pageSize = deps.listPageSize ?? 100;
  const groups = (ctx: ActivityCtx) => `${accountPath(ctx)}/exclusion-groups`;
  const group = (ctx: ActivityCtx, id: string) => `${groups(ctx)}/${seg(id)}`;

  async function list(ctx: ActivityCtx): Promise<ApiObject[]> {
    const items = await listAllPages(deps.api, ctx, { method: 'GET', path: groups(ctx) }, pageSize);
    return items
      .filter((i): i is Record<string, unknown> => typeof i === 'object' && i !== null && 'id' in i)
      .map((i) => ({ ...i, id: String(i.id) }));
  }
  async function read(ctx: ActivityCtx, id: string): Promise<ApiObject | undefined> {
    const req = { method: 'GET', path: group(ctx, id), acceptStatuses: [404] } as const;
    const res = await callApi(deps.api, ctx, req);
    return res.status === 404 ? undefined : expectResource(req, res);
  }
  async function membership(activity: string, input: ExclusionGroupMembershipInput, action: 'add' | 'remove') {
    const ctx = checkCtx(activity, input.ctx);
    const id = requireText(activity, 'exclusionGroupId', input.exclusionGroupId);
    const ids = requireArray(activity, 'targetGroupIds', input.targetGroupIds).map((v, i) => requireText(activity, `targetGroupIds[${i}]`, v));
    const req = { method: 'POST', path: `${group(ctx, id)}/target-groups/${action}`, json: { data: ids } } as const;
    await callApi(deps.api, ctx, req);
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
          const req = { method: 'POST', path: groups(ctx), json: desired, idempotencyKey: key } as const;
          return expectResource(req, await callApi(deps.api, ctx, req));
        },
      });
      return { exclusionGroup: resource, created };
    },

    async updateExclusionGroup(input: UpdateExclusionGroupInput): Promise<ExclusionGroupOutput> {
      const ctx = checkCtx('updateExclusionGroup', input.ctx);
      const id = requireText('updateExclusionGroup', 'exclusionGroupId', input.exclusionGroupId);
      const desired = requireObject('updateExclusionGroup', 'desired', input.desired);
      const req = { method: 'PUT', path: group(ctx, id), json: desired } as const;
      return { exclusionGroup: expectResource(req, await callApi(deps.api, ctx, req)) };
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
      const items = await listAllPages(deps.api, ctx, { method: 'GET', path: `${group(ctx, id)}/target-groups` }, pageSize);
      return { targetGroupIds: items.map(memberId).filter((v): v is string => v !== undefined) };
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
      const items = await listAllPages(deps.api, ctx, { method: 'GET', path: `${accountPath(ctx)}/target-groups/${seg(id)}/exclusion-groups` }, pageSize);
      return {
        exclusionGroups: items
          .filter((i): i is Record<string, unknown> => typeof i === 'object' && i !== null && 'id' in i)
          .map((i) => ({ ...i, id: String(i.id) })),
      };
    },
  };
}

function memberId(item: unknown): string | undefined {
  if (typeof item === 'string' || typeof item === 'number') return String(item);
  if (typeof item === 'object' && item !== null) {
    const record = item as Record<string, unknown>;
    const id = record.target_group_id ?? record.id;
    if (typeof id === 'string' || typeof id === 'number') return String(id);
  }
  return undefined;
}
