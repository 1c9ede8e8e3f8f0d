// The figures of `studyflow report`, derived once from the study workflow's `report` query, so the
// human table, the JSON and the HTML page show the same numbers.
import type { CompletesPoint, ReportChange, StudyReport, TargetGroupPhase, TargetGroupStatus } from '../workflows/messages';

export interface Money {
  value: string;
  currency_code: string;
}

export interface QuotaFillView {
  profileId: string;
  targetId: string;
  name: string;
  completes: number;
  completesGoal: number | null;
  /** completes / completesGoal in percent, one decimal; null without a goal. */
  fillPercent: number | null;
}

/** One figure the study file expects against what fielding shows. */
export interface ObservedAgainstExpected {
  expected: number | null;
  observed: number | null;
  /** How `observed` is computed, or why there is none. */
  basis: string;
}

export interface TargetGroupReportView {
  key: string;
  state: TargetGroupPhase;
  targetGroupId: string | null;
  launchedAt: string | null;
  /** When the figures were read from the API (the workflow's last performance read). */
  readAt: string | null;
  completes: number | null;
  fillingGoal: number | null;
  /** completes / filling goal in percent, one decimal. */
  fillPercent: number | null;
  completesByStatus: Record<string, number>;
  inProgress: number | null;
  prescreens: number | null;
  completesCost: Money | null;
  /** completes_cost / completes. */
  costPerComplete: Money | null;
  /** The CPI the launch gate judged. */
  predictedCpi: Money | null;
  quotas: QuotaFillView[];
  incidence: ObservedAgainstExpected;
  lengthOfInterview: ObservedAgainstExpected;
  /** Completes over time (at most 500 readings). */
  series: CompletesPoint[];
  /** What changed since launch: phases, drift, webhook change events (most recent 50). */
  changes: ReportChange[];
  drift: { field: string; expected: unknown; actual: unknown }[];
  events: { received: number; lastType: string | null; sessionsByStatus: Record<string, number>; reconciled: Record<string, number> };
  /** Why the figures are missing or stale, if they are. */
  note: string | null;
}

export interface ReportView {
  workflowId: string;
  studyId: string;
  accountId: string;
  phase: string;
  revision: string | null;
  appliedRevision: string | null;
  projectId: string | null;
  updatedAt: string;
  generatedAt: string;
  targetGroups: TargetGroupReportView[];
}

/** The order the statuses are shown in (the spec's enumeration); others follow alphabetically. */
export const STATUS_ORDER = ['Complete', 'Terminate', 'OverQuota', 'SecurityFailure', 'FinancialTerm', 'PreClientSurveyProcess'];

export function percent(part: number, whole: number | null | undefined): number | null {
  if (whole === null || whole === undefined || whole <= 0) return null;
  return Math.round((part / whole) * 1000) / 10;
}

function ratio(part: number, whole: number): number | null {
  return whole > 0 ? Math.round((part / whole) * 1000) / 1000 : null;
}

/** Money divided by a count, to the currency's cents. */
function perUnit(money: Money | undefined, units: number): Money | null {
  if (!money || units <= 0 || !Number.isFinite(Number(money.value))) return null;
  return { value: (Number(money.value) / units).toFixed(2), currency_code: money.currency_code };
}

export function orderedStatuses(byStatus: Record<string, number>): [string, number][] {
  const known = STATUS_ORDER.filter((s) => s in byStatus).map((s): [string, number] => [s, byStatus[s]]);
  const others = Object.keys(byStatus).filter((s) => !STATUS_ORDER.includes(s)).sort().map((s): [string, number] => [s, byStatus[s]]);
  return [...known, ...others];
}

function targetGroupView(key: string, status: TargetGroupStatus, data: StudyReport['targetGroups'][string]['report']): TargetGroupReportView {
  const performance = data?.performance;
  const completes = performance?.completes ?? null;
  const fillingGoal = performance?.fillingGoal ?? data?.expected.fillingGoal ?? status.feasibility?.fillingGoal ?? null;
  const byStatus = performance?.completesByStatus ?? {};
  const qualified = (byStatus.Complete ?? 0) + (byStatus.Terminate ?? 0);
  const launched = Boolean(data?.launchedAt) || ['live', 'paused', 'completed'].includes(status.phase);
  let note: string | null = null;
  if (data?.performanceError) note = `the last performance read failed: ${data.performanceError}`;
  else if (!performance) note = launched ? 'no performance read yet (the workflow reads it every watch interval)' : 'not launched: no fielding figures';
  return {
    key,
    state: status.phase,
    targetGroupId: status.targetGroupId ?? null,
    launchedAt: data?.launchedAt ?? null,
    readAt: performance?.readAt ?? null,
    completes,
    fillingGoal,
    fillPercent: completes === null ? null : percent(completes, fillingGoal),
    completesByStatus: Object.fromEntries(orderedStatuses(byStatus)),
    inProgress: performance?.inProgress ?? null,
    prescreens: performance?.prescreens ?? null,
    completesCost: performance?.completesCost ?? null,
    costPerComplete: perUnit(performance?.completesCost, completes ?? 0),
    predictedCpi: status.price ?? null,
    quotas: (performance?.quotas ?? []).map((q) => ({
      profileId: q.profileId,
      targetId: q.targetId,
      name: q.name ?? `${q.profileId}/${q.targetId}`,
      completes: q.completes,
      completesGoal: q.completesGoal ?? null,
      fillPercent: percent(q.completes, q.completesGoal),
    })),
    incidence: {
      expected: data?.expected.incidenceRate ?? null,
      observed: performance ? ratio(byStatus.Complete ?? 0, qualified) : null,
      basis: performance ? (qualified > 0 ? 'Complete / (Complete + Terminate) sessions' : 'no completed or terminated sessions yet') : 'no performance read yet',
    },
    lengthOfInterview: {
      expected: data?.expected.lengthOfInterviewMinutes ?? null,
      observed: null,
      basis: 'the API reports no interview lengths (performance and session events carry none)',
    },
    series: data?.series ?? [],
    changes: data?.changes ?? [],
    drift: status.drift ?? [],
    events: {
      received: status.events?.received ?? 0,
      lastType: status.events?.lastType ?? null,
      sessionsByStatus: status.events?.sessionsByStatus ?? {},
      reconciled: status.events?.reconciled ?? {},
    },
    note,
  };
}

/** The report's figures from the study workflow's `report` answer. */
export function buildReportView(report: StudyReport, workflowId: string, generatedAt: string): ReportView {
  const keys = Object.keys(report.targetGroups).sort();
  return {
    workflowId,
    studyId: report.studyId,
    accountId: report.accountId,
    phase: report.phase,
    revision: report.revision ?? null,
    appliedRevision: report.appliedRevision ?? null,
    projectId: report.projectId ?? null,
    updatedAt: report.updatedAt,
    generatedAt,
    targetGroups: keys.map((key) => targetGroupView(key, report.targetGroups[key].status, report.targetGroups[key].report)),
  };
}

export function moneyText(money: Money | null): string {
  return money ? `${money.value} ${money.currency_code}` : '-';
}

export function percentText(value: number | null): string {
  return value === null ? '-' : `${value.toFixed(1)}%`;
}
