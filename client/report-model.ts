// The figures of `studyflow report`, derived once from the study workflow's `report` query, so the
// human table, the JSON and the HTML page show the same numbers.
import type { StudyForecast, TargetGroupForecast } from '../plan/forecast';
import type { GuardEvidence } from '../plan/guards';
import type { SoftLaunchStatus } from '../plan/soft-launch';
import { LAUNCHED_PHASES } from '../plan/phase-groups';
import type { Money } from '../plan/types';
import { moneyOf, scaleMicros, toMicros } from '../shared/money';
import type { CloseoutStatus, CompletesPoint, ReportChange, StudyReport, TargetGroupPhase, TargetGroupQuotas, TargetGroupStatus } from '../workflows/messages';

export type { Money } from '../plan/types';

/** Live respondents of one status. */
export interface RespondentsView {
  status: string;
  /** The API's label, else the status. */
  label: string;
  count: number;
  /** count / entrants in percent, one decimal; null without entrants. */
  percentOfEntrants: number | null;
}

/** A figure studyflow computes rather than reads, and how. */
export interface DerivedFigure {
  value: number | null;
  basis: string;
}

/** One figure the study file expects against what fielding shows. */
export interface ObservedAgainstExpected {
  expected: number | null;
  observed: number | null;
  /** How `observed` is computed, or why there is none. */
  basis: string;
}

/** One guard's trip that holds a target group paused, with its evidence (plan/guards.ts GuardEvidence). */
export interface GuardTripView {
  guard: string;
  kind: string;
  /** When the reading that tripped it was made. */
  at: string;
  /** What was measured, in `unit` (null when the trip's evidence is no longer in the status: its hold's line says it). */
  value: number | null;
  threshold: number | null;
  unit: GuardEvidence['unit'] | null;
  /** The currency of a money guard. */
  currency: string | null;
  /** One line a person reads, e.g. `incidence 0.05 is below 0.3 (0.5 of the expected 0.6) after 412 entrants`. */
  text: string;
}

/** A target group a pausing guard holds paused: the trips, and the command that resumes it. */
export interface GuardHoldView {
  trips: GuardTripView[];
  /** `studyflow approve --resume <study> --account <account> --target-group <key>` (add `--by <who>`). */
  resume: string;
}

export interface TargetGroupReportView {
  key: string;
  state: TargetGroupPhase;
  targetGroupId: string | null;
  launchedAt: string | null;
  /** When the figures were read from the API (the workflow's last performance read). */
  readAt: string | null;
  /** Respondents who entered the survey. */
  entrants: number | null;
  /** Respondents past the pre-survey checks. */
  prescreens: number | null;
  completes: number | null;
  /** The goal the study file declares (`filling_goal`); performance carries none. */
  fillingGoal: number | null;
  /** completes / filling goal in percent, one decimal. */
  fillPercent: number | null;
  /** Derived: the study's goal less the completes, never below 0 (performance carries no remaining count). */
  remaining: DerivedFigure;
  firstComplete: string | null;
  lastComplete: string | null;
  /** Live respondents by status (`respondent_analysis.live`), completes first, then the spec's order. */
  respondents: RespondentsView[];
  completesCost: Money | null;
  /** completes_cost / completes. */
  costPerComplete: Money | null;
  /** The CPI the launch gate judged. */
  predictedCpi: Money | null;
  /** Observed: the API's `incidence_rate`; expected: the study's `expected_incidence_rate`. */
  incidence: ObservedAgainstExpected;
  /** The API's `conversion_rate` (0–1). */
  conversionRate: number | null;
  /** The API's `drop_off_rate` (0–1). */
  dropOffRate: number | null;
  lengthOfInterview: ObservedAgainstExpected;
  /** Completes over time (at most 500 readings): the readings the target group's watch made. */
  series: CompletesPoint[];
  /** When fielding ends (end_fielding_at, else the launch's default window). */
  endFieldingAt: string | null;
  /**
   * When it will finish and what it will cost, with ranges (plan/forecast.ts): the one the study's workflow computes
   * from these readings (during fielding), else its launch gate's (before launch); null before either.
   */
  forecast: TargetGroupForecast | null;
  /** What changed since launch: phases, drift, webhook change events (most recent 50). */
  changes: ReportChange[];
  drift: { field: string; expected: unknown; actual: unknown }[];
  /** Set while a guard holds it paused: each trip with its evidence, and how to resume it. */
  guardHold: GuardHoldView | null;
  /** Its quotas as the watch last read them: each quota's completes against its goal and its forecast (null: none read). */
  quotas: TargetGroupQuotas | null;
  /** Its soft launch: where it stands, the decision with its evidence per metric, who decided it (null: none). */
  softLaunch: SoftLaunchStatus | null;
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
  /** The study's forecast: its last target group's finish, their costs summed (null while none has a forecast). */
  forecast: StudyForecast | null;
  targetGroups: TargetGroupReportView[];
  /** The study's close-out (workflows/study/closeout.ts), or null without one. */
  closeout: CloseoutStatus | null;
}

/** The order the statuses are shown in (completes first, the spec's enumeration, then in survey); others follow alphabetically. */
export const STATUS_ORDER = ['Complete', 'Terminate', 'OverQuota', 'SecurityFailure', 'FinancialTerm', 'PreClientSurveyProcess', 'In Survey'];

export function percent(part: number, whole: number | null | undefined): number | null {
  if (whole === null || whole === undefined || whole <= 0) return null;
  return Math.round((part / whole) * 1000) / 10;
}

/** Money divided by a count, to the currency's cents, exactly (shared/money.ts: millionths, rounded half up once). */
function perUnit(money: Money | undefined, units: number): Money | null {
  const micros = money ? toMicros(money.value) : undefined;
  if (!money || micros === undefined || !Number.isInteger(units) || units <= 0) return null;
  const cents = scaleMicros(micros, 1n, BigInt(units) * 10_000n);
  return moneyOf(cents * 10_000n, money.currency_code);
}

export function orderedStatuses(byStatus: Record<string, number>): [string, number][] {
  const known = STATUS_ORDER.filter((s) => s in byStatus).map((s): [string, number] => [s, byStatus[s]]);
  const others = Object.keys(byStatus).filter((s) => !STATUS_ORDER.includes(s)).sort().map((s): [string, number] => [s, byStatus[s]]);
  return [...known, ...others];
}

function rank(status: string): number {
  const i = STATUS_ORDER.indexOf(status);
  return i < 0 ? STATUS_ORDER.length : i;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The figures of a snapshot as the report reads them; every one may be missing. */
interface SnapshotFigures {
  readAt?: string;
  entrants?: number;
  prescreens?: number;
  completes?: number;
  completesCost?: Money;
  firstComplete?: string;
  lastComplete?: string;
  incidenceRate?: number;
  conversionRate?: number;
  dropOffRate?: number;
  respondents: { status: string; label?: string; count: number }[];
}

/**
 * Reads a performance snapshot tolerantly: a workflow that started before the report followed the
 * reference holds a snapshot of the earlier shape (`completesByStatus`, `quotas`, `status`, …, no
 * `entrants`). Its counts are still shown (statuses as respondents); what it lacks is left empty, and
 * its quota, status and goal fields, which the API's performance does not give, are not shown.
 */
export function readSnapshot(raw: unknown): SnapshotFigures | undefined {
  if (!isRecord(raw)) return undefined;
  const cost = isRecord(raw.completesCost) && str(raw.completesCost.currency_code) && (typeof raw.completesCost.value === 'string' || typeof raw.completesCost.value === 'number')
    ? { value: String(raw.completesCost.value), currency_code: String(raw.completesCost.currency_code) }
    : undefined;
  let respondents = (Array.isArray(raw.respondents) ? raw.respondents : [])
    .filter(isRecord)
    .flatMap((r) => (str(r.status) !== undefined && num(r.count) !== undefined ? [{ status: r.status as string, label: str(r.label), count: r.count as number }] : []));
  if (!Array.isArray(raw.respondents) && isRecord(raw.completesByStatus)) {
    respondents = Object.entries(raw.completesByStatus).flatMap(([status, n]) => (num(n) !== undefined ? [{ status, label: undefined, count: n as number }] : []));
  }
  return {
    readAt: str(raw.readAt),
    entrants: num(raw.entrants),
    prescreens: num(raw.prescreens),
    completes: num(raw.completes),
    completesCost: cost,
    firstComplete: str(raw.firstComplete),
    lastComplete: str(raw.lastComplete),
    incidenceRate: num(raw.incidenceRate),
    conversionRate: num(raw.conversionRate),
    dropOffRate: num(raw.dropOffRate),
    respondents,
  };
}

/** The hold of a guard on a target group, with each trip's evidence (the status's active trips), or null. */
export function guardHoldView(status: TargetGroupStatus, study: { studyId: string; accountId: string }): GuardHoldView | null {
  const hold = status.guards?.hold;
  if (!hold?.guards.length) return null;
  const trips = hold.guards.map((held): GuardTripView => {
    const evidence = status.guards?.active.find((trip) => trip.guard === held.guard);
    return {
      guard: held.guard,
      kind: held.kind,
      at: evidence?.at ?? held.at,
      value: evidence?.value ?? null,
      threshold: evidence?.threshold ?? null,
      unit: evidence?.unit ?? null,
      currency: evidence?.currency ?? null,
      text: evidence?.text ?? held.text,
    };
  });
  return { trips, resume: `studyflow approve --resume ${study.studyId} --account ${study.accountId} --target-group ${status.key}` };
}

function targetGroupView(key: string, status: TargetGroupStatus, data: StudyReport['targetGroups'][string]['report'], study: { studyId: string; accountId: string }): TargetGroupReportView {
  const performance = readSnapshot(data?.performance);
  const completes = performance ? performance.completes ?? null : null;
  const fillingGoal = data?.expected.fillingGoal ?? status.feasibility?.fillingGoal ?? null;
  const entrants = performance?.entrants ?? null;
  const launched = Boolean(data?.launchedAt) || LAUNCHED_PHASES.has(status.phase);
  let note: string | null = null;
  if (data?.performanceError) note = `the last performance read failed: ${data.performanceError}`;
  else if (!performance) note = launched ? 'no performance read yet (the workflow reads it every watch interval)' : 'not launched: no fielding figures';
  // Known statuses in STATUS_ORDER, others alphabetically after them (the sort is stable).
  const respondents = [...(performance?.respondents ?? [])]
    .sort((a, b) => rank(a.status) - rank(b.status) || (rank(a.status) === STATUS_ORDER.length && a.status !== b.status ? (a.status < b.status ? -1 : 1) : 0))
    .map((r) => ({ status: r.status, label: r.label ?? r.status, count: r.count, percentOfEntrants: percent(r.count, entrants) }));
  let remaining: DerivedFigure = { value: null, basis: 'derived once a performance reading gives the completes' };
  if (fillingGoal === null) remaining = { value: null, basis: 'the study file declares no filling_goal' };
  else if (completes !== null) remaining = { value: Math.max(0, fillingGoal - completes), basis: `derived: the study's filling_goal ${fillingGoal} less ${completes} completes` };
  return {
    key,
    state: status.phase,
    targetGroupId: status.targetGroupId ?? null,
    launchedAt: data?.launchedAt ?? null,
    readAt: performance?.readAt ?? null,
    entrants,
    prescreens: performance?.prescreens ?? null,
    completes,
    fillingGoal,
    fillPercent: completes === null ? null : percent(completes, fillingGoal),
    remaining,
    firstComplete: performance?.firstComplete ?? null,
    lastComplete: performance?.lastComplete ?? null,
    respondents,
    completesCost: performance?.completesCost ?? null,
    costPerComplete: perUnit(performance?.completesCost, completes ?? 0),
    predictedCpi: status.price ?? null,
    incidence: {
      expected: data?.expected.incidenceRate ?? null,
      observed: performance?.incidenceRate ?? null,
      basis: !performance ? 'no performance read yet' : performance.incidenceRate !== undefined ? 'incidence_rate of the performance reading' : 'the performance reading gives no incidence_rate yet',
    },
    conversionRate: performance?.conversionRate ?? null,
    dropOffRate: performance?.dropOffRate ?? null,
    lengthOfInterview: {
      expected: data?.expected.lengthOfInterviewMinutes ?? null,
      observed: null,
      basis: 'the API reports no interview lengths (performance and session events carry none)',
    },
    series: data?.series ?? [],
    endFieldingAt: data?.expected.endFieldingAt ?? status.forecast?.endFieldingAt ?? null,
    forecast: status.forecast ?? null,
    changes: data?.changes ?? [],
    drift: status.drift ?? [],
    guardHold: guardHoldView({ ...status, key }, study),
    quotas: status.quotas ?? null,
    softLaunch: status.softLaunch ?? null,
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
    forecast: report.forecast ?? null,
    closeout: report.closeout ?? null,
    targetGroups: keys.map((key) => targetGroupView(key, report.targetGroups[key].status, report.targetGroups[key].report, report)),
  };
}

export function moneyText(money: Money | null): string {
  return money ? `${money.value} ${money.currency_code}` : '-';
}

export function percentText(value: number | null): string {
  return value === null ? '-' : `${value.toFixed(1)}%`;
}

/** A 0–1 rate as a percent with one decimal, or '-'. */
export function rateText(rate: number | null): string {
  return rate === null ? '-' : `${(Math.round(rate * 1000) / 10).toFixed(1)}%`;
}
