// The per-target-group ID exclusion lists (RSID, access respondent GUID, legacy cid).
import type { IdExclusionListRecord, SandboxStateData } from '../core/state-records';
import type { EntityType } from './id-list-file';

export const listKey = (entityType: EntityType): 'rsid' | 'access_respondent_guid' => (entityType === 'RSID' ? 'rsid' : 'access_respondent_guid');

/** The lists of a target group (an empty record, not stored, when nothing was added yet). */
export const exclusionLists = (data: SandboxStateData, targetGroupId: string): IdExclusionListRecord =>
  data.id_exclusion_lists[targetGroupId] ?? { rsid: [], access_respondent_guid: [], cid: [] };

/** The stored lists, created on first write. */
export function writableExclusionLists(data: SandboxStateData, targetGroupId: string): IdExclusionListRecord {
  return (data.id_exclusion_lists[targetGroupId] ??= { rsid: [], access_respondent_guid: [], cid: [] });
}

export const totalExcludedIds = (lists: IdExclusionListRecord) => lists.rsid.length + lists.access_respondent_guid.length + lists.cid.length;

/** IDs of `ids` not yet in `existing` (order kept). */
export function newIds(existing: readonly string[], ids: readonly string[]): string[] {
  const present = new Set(existing);
  return ids.filter((id) => !present.has(id));
}
