// Whether a respondent may enter a target group, checked when they try to enter:
// - ID exclusions: their rsid or access respondent GUID is on the target group's lists;
// - activity exclusions: a session in the referenced project or target group ended with one of the
//   item's statuses within the item's rolling window (duration in days, looking back from now);
//   each item (and so each status set) is evaluated independently;
// - exclusion groups: they completed a survey in another target group of a group this one belongs to.

import type { RespondentIdentity } from './synthetic-respondents';
import type { TerminalStatus } from './session-record';

const DAY_MS = 86_400_000;

export interface ParticipationRecord {
  project_id: string;
  target_group_id: string;
  status: TerminalStatus;
  /** When the session reached that status (ms). */
  at_ms: number;
}

export interface ActivityExclusionRule {
  type: 'project' | 'target_group';
  id: string;
  statuses: readonly string[];
  durationDays: number;
}

export interface EligibilityRules {
  excludedIds: ReadonlySet<string>;
  activityExclusions: readonly ActivityExclusionRule[];
  /** Other target groups sharing an exclusion group with this one. */
  exclusionGroupPeers: ReadonlySet<string>;
}

export type ExclusionReason = 'id_exclusion' | 'activity_exclusion' | 'exclusion_group';

export function exclusionReason(identity: RespondentIdentity, history: readonly ParticipationRecord[], rules: EligibilityRules, nowMs: number): ExclusionReason | null {
  if (rules.excludedIds.has(identity.rsid) || rules.excludedIds.has(identity.access_respondent_guid.toLowerCase())) return 'id_exclusion';
  for (const rule of rules.activityExclusions) {
    const since = nowMs - rule.durationDays * DAY_MS;
    const hit = history.some((entry) =>
      (rule.type === 'project' ? entry.project_id === rule.id : entry.target_group_id === rule.id)
      && rule.statuses.includes(entry.status)
      && entry.at_ms >= since
      && entry.at_ms <= nowMs);
    if (hit) return 'activity_exclusion';
  }
  if (history.some((entry) => entry.status === 'Complete' && rules.exclusionGroupPeers.has(entry.target_group_id))) return 'exclusion_group';
  return null;
}
