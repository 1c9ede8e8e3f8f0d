// Exclusion groups: reusable groups of target groups whose completes exclude each other. Studyflow sees a group
// as `{id, name, description}`: the reference's ExclusionGroupInfo with `exclusion_group_id` as `id` and `tag` as `name`.
import {
  CreateExclusionGroupRequest,
  CreateExclusionGroupResponse,
  ExclusionGroupMembershipRequest,
  MAX_TARGET_GROUPS_PER_MEMBERSHIP_CALL,
  UpdateExclusionGroupRequest,
} from '../wire/exclusion-groups';
import { ExclusionGroupInfo, LIST_EXCLUSION_GROUP_TARGET_GROUPS, LIST_EXCLUSION_GROUPS, LIST_TARGET_GROUP_EXCLUSION_GROUPS } from '../wire/lists';
import { readAnswer } from '../wire/read-answer';
import { accountPath, seg, type ApiCaller } from './caller';
import { ensureResource } from './ensure-resource';
import { DEFAULT_LIST_PAGE_SIZE, listAllPages } from './pagination';
import type { ApiObject, JsonObject } from './types';

/**
 * An exclusion group as studyflow sets it; `name` is the natural key and goes on the wire as the
 * reference's `tag` (create_exclusion_group: `{tag, description}`).
 */
export interface ExclusionGroupDesired extends JsonObject {
  name: string;
  description?: string;
}

function fromInfo(info: ExclusionGroupInfo): ApiObject {
  return { id: info.exclusion_group_id, name: info.tag, description: info.description ?? '' };
}

/** The create/update body: `{tag, description}` (studyflow's `name` is the reference's `tag`). */
function toWire(desired: ExclusionGroupDesired) {
  return { tag: desired.name, description: typeof desired.description === 'string' ? desired.description : '' };
}

const groups = (caller: ApiCaller) => `${accountPath(caller)}/exclusion-groups`;
const group = (caller: ApiCaller, id: string) => `${groups(caller)}/${seg(id)}`;

/** list_exclusion_groups (every page). */
export async function listExclusionGroups(caller: ApiCaller, pageSize = DEFAULT_LIST_PAGE_SIZE): Promise<ApiObject[]> {
  return (await listAllPages(caller, { method: 'GET', path: groups(caller) }, LIST_EXCLUSION_GROUPS, pageSize)).map(fromInfo);
}

/** get_exclusion_group_by_id, or undefined on 404. */
export async function readExclusionGroup(caller: ApiCaller, id: string): Promise<ApiObject | undefined> {
  const req = { method: 'GET', path: group(caller, id), acceptStatuses: [404] } as const;
  const res = await caller.send(req);
  if (res.status === 404) return undefined;
  return fromInfo(readAnswer({ operation: 'get_exclusion_group_by_id', ...req }, ExclusionGroupInfo, res));
}

/** Finds the group by knownId, then by exact `name`; else creates it (create_exclusion_group with the Idempotency-Key). */
export async function ensureExclusionGroup(
  caller: ApiCaller,
  input: { idempotencyKey: string; knownId?: string; desired: ExclusionGroupDesired; pageSize?: number },
): Promise<{ exclusionGroup: ApiObject; created: boolean }> {
  const { desired, knownId } = input;
  const { resource, created } = await ensureResource({
    describe: `exclusion group named ${desired.name}`,
    getById: knownId ? () => readExclusionGroup(caller, knownId) : undefined,
    findByNaturalKey: async () => (await listExclusionGroups(caller, input.pageSize)).filter((g) => g.name === desired.name),
    getFull: (id) => readExclusionGroup(caller, id),
    create: async () => {
      const json = CreateExclusionGroupRequest.parse(toWire(desired));
      const req = { method: 'POST', path: groups(caller), json, idempotencyKey: input.idempotencyKey } as const;
      const answer = readAnswer({ operation: 'create_exclusion_group', ...req }, CreateExclusionGroupResponse, await caller.send(req));
      return { id: answer.exclusion_group_id, name: json.tag, description: json.description };
    },
  });
  return { exclusionGroup: resource, created };
}

/** update_exclusion_group_by_id `PUT` (answers 204 without a body): the group as sent. */
export async function updateExclusionGroup(caller: ApiCaller, input: { exclusionGroupId: string; desired: ExclusionGroupDesired }): Promise<ApiObject> {
  const json = UpdateExclusionGroupRequest.parse(toWire(input.desired));
  await caller.send({ method: 'PUT', path: group(caller, input.exclusionGroupId), json });
  return { id: input.exclusionGroupId, name: input.desired.name, description: json.description ?? '' };
}

/** DELETE; false when the group was already gone (deleted by an earlier attempt). */
export async function deleteExclusionGroup(caller: ApiCaller, exclusionGroupId: string): Promise<boolean> {
  const res = await caller.send({ method: 'DELETE', path: group(caller, exclusionGroupId), acceptStatuses: [404] });
  return res.status !== 404;
}

/** The ids of the group's target groups (every page). */
export async function listExclusionGroupTargetGroups(caller: ApiCaller, exclusionGroupId: string, pageSize = DEFAULT_LIST_PAGE_SIZE): Promise<string[]> {
  return await listAllPages(caller, { method: 'GET', path: `${group(caller, exclusionGroupId)}/target-groups` }, LIST_EXCLUSION_GROUP_TARGET_GROUPS, pageSize);
}

/**
 * POST …/target-groups/{add|remove} `{data: [ids]}`, at most 100 ids a call (the reference's limit); adding or
 * removing twice is harmless.
 */
export async function changeExclusionGroupMembers(caller: ApiCaller, input: { exclusionGroupId: string; targetGroupIds: string[]; action: 'add' | 'remove' }): Promise<void> {
  const ids = input.targetGroupIds;
  for (let start = 0; start < ids.length; start += MAX_TARGET_GROUPS_PER_MEMBERSHIP_CALL) {
    const json = ExclusionGroupMembershipRequest.parse({ data: ids.slice(start, start + MAX_TARGET_GROUPS_PER_MEMBERSHIP_CALL) });
    await caller.send({ method: 'POST', path: `${group(caller, input.exclusionGroupId)}/target-groups/${input.action}`, json });
  }
}

/** `GET P/target-groups/{id}/exclusion-groups` (every page). */
export async function getTargetGroupExclusionGroups(caller: ApiCaller, targetGroupId: string, pageSize = DEFAULT_LIST_PAGE_SIZE): Promise<ApiObject[]> {
  const path = `${accountPath(caller)}/target-groups/${seg(targetGroupId)}/exclusion-groups`;
  return (await listAllPages(caller, { method: 'GET', path }, LIST_TARGET_GROUP_EXCLUSION_GROUPS, pageSize)).map(fromInfo);
}
