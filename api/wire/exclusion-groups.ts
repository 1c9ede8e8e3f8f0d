// Exclusion-group operations on the wire (reference: create_exclusion_group, get_exclusion_group_by_id,
// update_exclusion_group_by_id, add/remove_target_groups_…_exclusion_group).
import { z } from 'zod';
import { ResourceId } from './common';

/** CreateExclusionGroupRequest: both fields required; `tag` is the group's name (at most 128 characters). */
export const CreateExclusionGroupRequest = z.strictObject({ tag: z.string().min(1).max(128), description: z.string() });
/** UpdateExclusionGroupRequest: answered 204. */
export const UpdateExclusionGroupRequest = z.strictObject({ tag: z.string().min(1).max(128).optional(), description: z.string().optional() });
/** 201 of create_exclusion_group. */
export const CreateExclusionGroupResponse = z.looseObject({ exclusion_group_id: ResourceId });
/** AddTargetGroupExclusionGroupRequest / Remove…: at most 100 target group ids a call. */
export const MAX_TARGET_GROUPS_PER_MEMBERSHIP_CALL = 100;
export const ExclusionGroupMembershipRequest = z.strictObject({ data: z.array(ResourceId).max(MAX_TARGET_GROUPS_PER_MEMBERSHIP_CALL) });
