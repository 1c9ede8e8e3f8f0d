// The list operations studyflow walks, each with its envelope and cursor fields as the reference gives them.
import { z } from 'zod';
import { NextCursor, ResourceId } from './common';
import { QuestionProfile } from './profile-helpers';

/** How a list says where its next page starts. */
export type CursorStyle =
  /** `has_more` and `next_cursor` (projects, target groups). */
  | 'has_more+next_cursor'
  /** `next_cursor` only, absent or null on the last page (exclusion groups, ID lists). */
  | 'next_cursor'
  /** `has_more` only; the next page starts after the last item's `id` (webhooks). */
  | 'has_more+last_id';

export interface ListWire<T> {
  /** The reference's operation id. */
  operation: string;
  /** The key holding the page's items. */
  items: string;
  item: z.ZodType<T>;
  cursor: CursorStyle;
  /** Largest `page_size` the operation takes. */
  maxPageSize: number;
  /** The items key may be null (a page without items), read as an empty page. */
  nullableItems?: boolean;
}

/** The page schema of a list: its items array plus the cursor fields. */
export function pageSchema<T>(list: ListWire<T>) {
  return z.object({
    [list.items]: list.nullableItems ? z.array(list.item).nullable() : z.array(list.item),
    has_more: list.cursor === 'next_cursor' ? z.boolean().optional() : z.boolean(),
    next_cursor: NextCursor,
  });
}

/** ProjectListItem (fields studyflow reads; others kept). */
export const ProjectListItem = z.looseObject({
  id: ResourceId,
  name: z.string(),
  project_customer_reference_number: z.string().nullable().optional(),
});
export type ProjectListItem = z.infer<typeof ProjectListItem>;

/** TargetGroupsListItem (fields studyflow reads; others kept). */
export const TargetGroupListItem = z.looseObject({
  id: ResourceId,
  status: z.enum(['draft', 'scheduled', 'live', 'paused', 'completed', 'archived']),
  target_group_customer_reference_number: z.string().nullable().optional(),
});
export type TargetGroupListItem = z.infer<typeof TargetGroupListItem>;

/** ExclusionGroupInfo. */
export const ExclusionGroupInfo = z.looseObject({
  exclusion_group_id: ResourceId,
  tag: z.string(),
  description: z.string().optional(),
  create_date: z.string(),
  update_date: z.string().optional(),
});
export type ExclusionGroupInfo = z.infer<typeof ExclusionGroupInfo>;

/** Webhook (list item and update answer). */
export const WebhookItem = z.looseObject({
  id: z.string().min(1),
  url: z.string(),
  events: z.array(z.string()),
});
export type WebhookItem = z.infer<typeof WebhookItem>;

export const LIST_PROJECTS: ListWire<ProjectListItem> = {
  operation: 'list_account_projects', items: 'projects', item: ProjectListItem, cursor: 'has_more+next_cursor', maxPageSize: 100,
};
export const LIST_TARGET_GROUPS: ListWire<TargetGroupListItem> = {
  operation: 'get_list_target_groups', items: 'target_groups', item: TargetGroupListItem, cursor: 'has_more+next_cursor', maxPageSize: 100,
};
export const LIST_EXCLUSION_GROUPS: ListWire<ExclusionGroupInfo> = {
  operation: 'get_exclusion_groups_by_account_id', items: 'data', item: ExclusionGroupInfo, cursor: 'next_cursor', maxPageSize: 1000,
};
export const LIST_EXCLUSION_GROUP_TARGET_GROUPS: ListWire<string> = {
  operation: 'get_exclusion_group_target_group_exclusions', items: 'data', item: ResourceId, cursor: 'next_cursor', maxPageSize: 1000,
};
export const LIST_TARGET_GROUP_EXCLUSION_GROUPS: ListWire<ExclusionGroupInfo> = {
  operation: 'get_exclusion_groups_for_target_group', items: 'data', item: ExclusionGroupInfo, cursor: 'next_cursor', maxPageSize: 1000,
};
export const LIST_WEBHOOKS: ListWire<WebhookItem> = {
  operation: 'get_webhooks', items: 'webhooks', item: WebhookItem, cursor: 'has_more+last_id', maxPageSize: 100,
};
/** account_questions_translation: `{total, profiles (nullable), has_more, next_cursor}`, items QuestionResponseProfileFormat. */
export const LIST_QUESTIONS_TRANSLATION: ListWire<QuestionProfile> = {
  operation: 'account_questions_translation', items: 'profiles', item: QuestionProfile, cursor: 'has_more+next_cursor', maxPageSize: 100, nullableItems: true,
};

/** The RSID and access-respondent-GUID pages (get_target_group_…_exclusion_list_api_paginated). */
export const listExcludedIdsWire = (entity: 'rsid' | 'access_respondent_guid'): ListWire<string> => ({
  operation: entity === 'rsid' ? 'get_target_group_rsid_exclusion_list_api_paginated' : 'get_target_group_access_respondent_guid_exclusion_list_api_paginated',
  items: 'data',
  item: z.string(),
  cursor: 'next_cursor',
  maxPageSize: 1000,
});
