// Target group performance from its sessions, in the reference's TargetGroupPerformance: entrants,
// prescreens, completes, completes_cost (sum of the CPI of current completes, money in the version's
// format), first and last complete, the three rates, and the respondents by status (respondent_analysis).
// Also the per-quota-target counters the fielding simulation writes onto the profiles.

import type { ApiVersion } from './api-version';
import { completesCostForVersion, toMinorUnits, type LegacyMinorUnitsMoney, type Money } from './money';
import { TERMINAL_STATUSES, type SessionRecord, type SessionStatus } from './session-record';

/** RespondentAnalysisStatusCodes. */
export interface RespondentAnalysisStatus {
  status: string;
  label: string;
  description: string;
  count: number;
}

export interface TargetGroupPerformance {
  entrants: number;
  prescreens: number;
  completes: number;
  completes_cost: Money | LegacyMinorUnitsMoney;
  first_complete?: string;
  last_complete?: string;
  incidence_rate?: number;
  drop_off_rate?: number;
  conversion_rate?: number;
  respondent_analysis: { live: RespondentAnalysisStatus[]; test: RespondentAnalysisStatus[] };
}

/** Session rates (0–1, four decimals); a rate is absent while its denominator is zero. */
export interface SessionRates {
  /** Completes per entrant. */
  conversion_rate?: number;
  /** Entrants still unfinished per entrant. */
  drop_off_rate?: number;
  /** Completes among completes and screen-outs (Terminate). */
  incidence_rate?: number;
}

/**
 * The status codes of respondent_analysis, in this order: the spec's respondent statuses for finished
 * sessions, and `In Survey` (the reference's example name) for sessions not finished yet.
 */
const ANALYSIS_CODES: ReadonlyArray<{ session: SessionStatus; status: string; label: string; description: string }> = [
  { session: 'Started', status: 'In Survey', label: 'In survey', description: 'Entered the survey and has not finished it yet' },
  { session: 'Complete', status: 'Complete', label: 'Completed', description: 'Finished the survey; counts toward the goal' },
  { session: 'Terminate', status: 'Terminate', label: 'Screened out', description: 'Ended by the survey as not qualifying' },
  { session: 'OverQuota', status: 'OverQuota', label: 'Over quota', description: 'Qualified for a quota that was already full' },
  { session: 'SecurityFailure', status: 'SecurityFailure', label: 'Security failure', description: 'Refused by a security or quality check' },
  { session: 'FinancialTerm', status: 'FinancialTerm', label: 'Financial terminate', description: 'Ended without a charge after the survey began' },
  { session: 'PreClientSurveyProcess', status: 'PreClientSurveyProcess', label: 'Refused pre-survey', description: 'Refused before reaching the survey (targeting or exclusions)' },
];
// Every session status has its code (a new status must be given one).
if (ANALYSIS_CODES.length !== TERMINAL_STATUSES.length + 1) throw new Error('respondent_analysis codes do not cover the session statuses');

const rate = (part: number, whole: number): number | undefined => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : undefined);

/** The rates of a target group's sessions (performance and overview give the same figures). */
export function sessionRates(sessions: readonly SessionRecord[]): SessionRates {
  const completes = sessions.filter((s) => s.status === 'Complete').length;
  const screenedOut = sessions.filter((s) => s.status === 'Terminate').length;
  const out: SessionRates = {};
  const conversion = rate(completes, sessions.length);
  if (conversion !== undefined) out.conversion_rate = conversion;
  const dropOff = rate(sessions.filter((s) => s.status === 'Started').length, sessions.length);
  if (dropOff !== undefined) out.drop_off_rate = dropOff;
  const incidence = rate(completes, completes + screenedOut);
  if (incidence !== undefined) out.incidence_rate = incidence;
  return out;
}

/**
 * The median length of interview of the group's completes in seconds (the reference's median_length_of_interview_seconds):
 * the middle one, or the mean of the two middle ones rounded to the second; null before the first complete. A complete
 * reversed later is no longer a complete and leaves the median.
 */
export function medianLengthOfInterviewSeconds(sessions: readonly SessionRecord[]): number | null {
  const lengths = sessions
    .filter((s) => s.status === 'Complete' && typeof s.length_of_interview_seconds === 'number')
    .map((s) => s.length_of_interview_seconds!)
    .sort((a, b) => a - b);
  if (lengths.length === 0) return null;
  const middle = lengths.length >> 1;
  return lengths.length % 2 === 1 ? lengths[middle] : Math.round((lengths[middle - 1] + lengths[middle]) / 2);
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

/**
 * TargetGroupPerformance of a launched target group from its sessions. Entrants: every session;
 * prescreens: sessions past the pre-survey checks; the dates of the first and last complete: when the
 * sessions that are complete now became so (a reconciled complete counts from its reconciliation).
 * The sandbox simulates no test respondents: `respondent_analysis.test` is empty.
 */
export function summarizePerformance(sessions: readonly SessionRecord[], version: ApiVersion): TargetGroupPerformance {
  const byStatus = new Map<SessionStatus, number>();
  let costMinorUnits = 0;
  let first: string | undefined;
  let last: string | undefined;
  for (const session of sessions) {
    byStatus.set(session.status, (byStatus.get(session.status) ?? 0) + 1);
    if (session.status !== 'Complete') continue;
    if (session.cost_per_interview) costMinorUnits += toMinorUnits(Number(session.cost_per_interview.value));
    const at = session.respondent_update_date;
    if (first === undefined || Date.parse(at) < Date.parse(first)) first = at;
    if (last === undefined || Date.parse(at) > Date.parse(last)) last = at;
  }
  return {
    entrants: sessions.length,
    prescreens: sessions.length - (byStatus.get('PreClientSurveyProcess') ?? 0),
    completes: byStatus.get('Complete') ?? 0,
    completes_cost: completesCostForVersion(costMinorUnits, version),
    ...(first !== undefined && last !== undefined ? { first_complete: first, last_complete: last } : {}),
    ...sessionRates(sessions),
    respondent_analysis: {
      live: ANALYSIS_CODES.map(({ session, status, label, description }) => ({ status, label, description, count: byStatus.get(session) ?? 0 })),
      test: [],
    },
  };
}
