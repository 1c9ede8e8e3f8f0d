// A respondent session in a target group, as the sessions data webhook (com.svc.session.updated)
// reports it. Sandbox shape: {session_id, account_id, project_id, target_group_id, supplier_id,
// respondent_id, status, entry_date, respondent_update_date, respondent_last_date_change,
// quota_target_ids, cost_per_interview}. status is "Started" until the first terminal status.
// respondent_update_date changes on every status change, reconciliations included (strictly later
// each time); respondent_last_date_change is set once, at the first terminal status, never after.

import type { Money } from './money';

export const TERMINAL_STATUSES = ['Complete', 'Terminate', 'SecurityFailure', 'OverQuota', 'FinancialTerm', 'PreClientSurveyProcess'] as const;
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];
export type SessionStatus = 'Started' | TerminalStatus;

export interface SessionRecord {
  session_id: string;
  account_id: number;
  project_id: string;
  target_group_id: string;
  supplier_id: number;
  respondent_id: string;
  status: SessionStatus;
  entry_date: string;
  respondent_update_date: string;
  respondent_last_date_change: string | null;
  /** Targets (profile_id/target_id) of quota-enabled profiles the respondent counts towards. */
  quota_target_ids: string[];
  /** Price of the complete; null unless status is Complete. */
  cost_per_interview: Money | null;
  /**
   * Seconds the respondent spent in the survey (before the simulation's speed), set when the session finished in the
   * survey; absent while Started, for pre-survey refusals and for drop-outs. Admin reads only: webhooks leave it out.
   */
  length_of_interview_seconds?: number;
}

export type SessionStart = Omit<SessionRecord, 'status' | 'entry_date' | 'respondent_update_date' | 'respondent_last_date_change' | 'cost_per_interview'>;

export function startSession(start: SessionStart, atMs: number): SessionRecord {
  const at = new Date(atMs).toISOString();
  return { ...start, status: 'Started', entry_date: at, respondent_update_date: at, respondent_last_date_change: null, cost_per_interview: null };
}

export const isTerminal = (status: SessionStatus): status is TerminalStatus => status !== 'Started';

/**
 * The session after a status change at `atMs` (a first terminal status, or a reconciliation from one
 * terminal status to another). The update date always moves forward; the last-date-change is kept once set.
 */
export function changeSessionStatus(session: SessionRecord, status: TerminalStatus, atMs: number, costPerInterview: Money | null = null): SessionRecord {
  if (status === session.status) throw new Error(`session ${session.session_id} already has status ${status}`);
  const previousUpdate = Date.parse(session.respondent_update_date);
  const at = new Date(Math.max(atMs, previousUpdate + 1)).toISOString();
  return {
    ...session,
    status,
    respondent_update_date: at,
    respondent_last_date_change: session.respondent_last_date_change ?? at,
    cost_per_interview: status === 'Complete' ? costPerInterview : null,
  };
}

/** The record as a webhook of an older version sees it: the two timestamps arrived in 2025-05-27. */
export function sessionForVersion(session: SessionRecord, version: string): Record<string, unknown> {
  const { length_of_interview_seconds: _loi, ...delivered } = session;
  if (version >= '2025-05-27') return delivered;
  const { respondent_update_date: _update, respondent_last_date_change: _last, ...rest } = delivered;
  return rest;
}
