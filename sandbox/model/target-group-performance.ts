// Target group performance from its sessions: completes, sessions by terminal status, sessions still
// in the survey, completes_cost (sum of the CPI of current completes) and per-quota-target counts.

import type { ApiVersion } from './api-version';
import { completesCostForVersion, toMinorUnits, type LegacyMinorUnitsMoney, type Money } from './money';
import type { Profile } from './profile-types';
import { TERMINAL_STATUSES, type SessionRecord, type TerminalStatus } from './session-record';

export interface QuotaPerformance {
  profile_id: string;
  target_id: string;
  name: string;
  completes_goal: number | null;
  completes: number;
  prescreens: number;
}

export interface TargetGroupPerformance {
  completes: number;
  completes_by_status: Record<TerminalStatus, number>;
  in_progress: number;
  prescreens: number;
  completes_cost: Money | LegacyMinorUnitsMoney;
  quotas: QuotaPerformance[];
}

/** Completes and prescreens per `profile_id/target_id` (prescreens: sessions that got past the pre-survey checks). */
export function quotaCounters(sessions: readonly SessionRecord[]): Map<string, { completes: number; prescreens: number }> {
  const counters = new Map<string, { completes: number; prescreens: number }>();
  for (const session of sessions) {
    if (session.status === 'PreClientSurveyProcess') continue;
    for (const key of session.quota_target_ids) {
      const counter = counters.get(key) ?? { completes: 0, prescreens: 0 };
      counter.prescreens += 1;
      if (session.status === 'Complete') counter.completes += 1;
      counters.set(key, counter);
    }
  }
  return counters;
}

export function summarizePerformance(sessions: readonly SessionRecord[], profiles: readonly Profile[], version: ApiVersion): TargetGroupPerformance {
  const byStatus = Object.fromEntries(TERMINAL_STATUSES.map((status) => [status, 0])) as Record<TerminalStatus, number>;
  let inProgress = 0;
  let costMinorUnits = 0;
  for (const session of sessions) {
    if (session.status === 'Started') {
      inProgress += 1;
      continue;
    }
    byStatus[session.status] += 1;
    if (session.status === 'Complete' && session.cost_per_interview) costMinorUnits += toMinorUnits(Number(session.cost_per_interview.value));
  }
  const counters = quotaCounters(sessions);
  return {
    completes: byStatus.Complete,
    completes_by_status: byStatus,
    in_progress: inProgress,
    prescreens: sessions.filter((session) => session.status !== 'PreClientSurveyProcess').length,
    completes_cost: completesCostForVersion(costMinorUnits, version),
    quotas: profiles.filter((profile) => profile.quotas_enabled).flatMap((profile) => profile.targets.map((target) => ({
      profile_id: profile.id,
      target_id: target.id,
      name: target.quota.name,
      completes_goal: target.quota.completes_goal,
      ...(counters.get(`${profile.id}/${target.id}`) ?? { completes: 0, prescreens: 0 }),
    }))),
  };
}
