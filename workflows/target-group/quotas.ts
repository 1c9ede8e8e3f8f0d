// Quotas in the watch (issue 38): after a performance reading, a target group whose profiles have quotas and that is
// live or paused reads its quotas (list_profiles once: each quota's goal, completes and prescreens), at most once per
// watch interval (the rate budget; the time of the last read or failed try is on status, so a continue-as-new keeps
// it). The read is best effort, like the performance read: a failure is recorded on status, never fails the workflow.
// What it read is forecast with the target group's pace (plan/quotas.ts over the fielding forecast of ../forecast.ts)
// and stored on status (`TargetGroupStatus.quotas`): `studyflow status`, the report and the current details show it,
// and the guards judge `quota_behind` from it (./guards.ts guardReading). The pure parts are exported for tests.
import { isCancellation } from '@temporalio/workflow';
import { forecastQuotas, quotaPaceOf, worstQuota, type QuotaFigures, type QuotaForecast, type QuotaPace } from '../../plan/quotas';
import type { DesiredTargetGroup } from '../../plan/types';
import { CURRENT_API_VERSION, type ApiVersion } from '../../shared/api-version';
import type { Api } from '../activity-proxies';
import { failureOf } from '../failures';
import { targetGroupForecast, type ForecastSource } from '../forecast';
import type { TargetGroupQuotas, TargetGroupStatus } from '../messages';
import type { TargetGroupState } from './state';

/** The most quota cells status holds (the reference allows 350 per target group); the rest are counted in `omitted`. */
export const MAX_QUOTA_CELLS = 50;

const record = (value: unknown): Record<string, unknown> | undefined => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined);

/**
 * The target group's desired profiles have quotas: a profile with quotas_enabled and a target with a quota, or a profile
 * template in the API (whose quotas the file does not show). The rule SF4508 (definitions/analyze-study.ts) asks the same.
 */
export function desiredHasQuotas(desired: Pick<DesiredTargetGroup, 'profiles' | 'profileTemplateIds'>): boolean {
  if ((desired.profileTemplateIds ?? []).length > 0) return true;
  return (desired.profiles ?? []).some((profile) => {
    const p = record(profile);
    return p?.quotas_enabled === true && Array.isArray(p.targets) && p.targets.some((t) => record(t)?.quota !== undefined);
  });
}

/**
 * Whether the quotas are read now: the target group has quotas, is live or paused, speaks the version whose
 * list_profiles carries them, and its last read (or failed try) is at least a watch interval ago.
 */
export function quotaReadDue(
  input: { desired: Pick<DesiredTargetGroup, 'profiles' | 'profileTemplateIds'>; phase: TargetGroupStatus['phase']; apiVersion: ApiVersion; last?: TargetGroupQuotas; intervalMs: number },
  nowMs: number,
): boolean {
  if (input.phase !== 'live' && input.phase !== 'paused') return false;
  if (input.apiVersion !== CURRENT_API_VERSION) return false;
  if (!desiredHasQuotas(input.desired)) return false;
  const last = Math.max(...[input.last?.readAt, input.last?.failedAt].map((t) => (t === undefined ? Number.NEGATIVE_INFINITY : Date.parse(t))));
  return !(nowMs - last < input.intervalMs);
}

/** The order in which cells are kept under the cap: the most behind first, then those not forecast yet, then the rest. */
function keepRank(cell: QuotaForecast): number {
  if (cell.shortfallFraction !== undefined && cell.shortfallFraction > 0) return 2 + cell.shortfallFraction;
  if (cell.basis === 'no_share' || cell.basis === 'no_pace') return 1 + (1 - (cell.fill ?? 0)) / 2;
  return 1 - (cell.fill ?? 1);
}

/** Each quota without a pace: its fill only (basis `no_pace`, or `full` / `no_goal`). */
function withoutPace(figures: readonly QuotaFigures[]): QuotaForecast[] {
  return figures.map((q): QuotaForecast => {
    if (q.goal <= 0) return { ...q, basis: 'no_goal' };
    const fill = Math.min(1, q.completes / q.goal);
    return q.completes >= q.goal ? { ...q, basis: 'full', fill, shortfall: 0, shortfallFraction: 0 } : { ...q, basis: 'no_pace', fill };
  });
}

/**
 * The quotas on status from a read (pure): each quota forecast with the pace (plan/quotas.ts), at most `MAX_QUOTA_CELLS`
 * kept (the most behind first; shown in the exchange's order), the worst cell by fill over all of them.
 */
export function quotaView(read: { quotas: readonly QuotaFigures[]; notReported: number }, pace: QuotaPace | undefined, readAt: string): TargetGroupQuotas {
  const all = pace ? forecastQuotas(read.quotas, pace) : withoutPace(read.quotas);
  const kept = new Set(
    all
      .map((cell, i) => ({ cell, i }))
      .sort((a, b) => keepRank(b.cell) - keepRank(a.cell) || a.i - b.i)
      .slice(0, MAX_QUOTA_CELLS)
      .map((x) => x.i),
  );
  const view: TargetGroupQuotas = { readAt, cells: all.filter((_, i) => kept.has(i)) };
  if (pace) view.pace = pace;
  if (all.length > kept.size) view.omitted = all.length - kept.size;
  if (read.notReported > 0) view.notReported = read.notReported;
  const worst = worstQuota(read.quotas);
  if (worst) view.worst = worst;
  return view;
}

/** The target group's pace for its quotas: its fielding forecast (../forecast.ts) over what the state holds (pure). */
export function quotaPaceFrom(source: ForecastSource, now: string): QuotaPace | undefined {
  const forecast = targetGroupForecast(source);
  return forecast ? quotaPaceOf(forecast, now) : undefined;
}

/** What the guards judge `quota_behind` from: the cells' figures and the pace they were forecast with (absent: not read, or no pace). */
export function quotaReadingOf(quotas: TargetGroupQuotas | undefined): { figures: QuotaFigures[]; pace: QuotaPace } | undefined {
  if (!quotas?.pace || quotas.cells.length === 0) return undefined;
  const figures = quotas.cells.map(({ profile, quota, goal, completes, prescreens }): QuotaFigures => ({ profile, quota, goal, completes, ...(prescreens === undefined ? {} : { prescreens }) }));
  return { figures, pace: quotas.pace };
}

/** What the study is told of: a shown figure changed (not only the read's time). */
const shown = (q: TargetGroupQuotas | undefined) => JSON.stringify(q ? { ...q, readAt: undefined, failedAt: undefined } : null);

/**
 * Reads the quotas when due (see quotaReadDue) and stores them on status; called by the watch after a performance
 * reading and before the guards judge it. A failure keeps the last cells and records why.
 */
export async function watchQuotas(state: TargetGroupState, api: Api): Promise<void> {
  const before = state.status.quotas;
  const due = quotaReadDue(
    { desired: state.revision.desired, phase: state.status.phase, apiVersion: state.ctx.apiVersion, last: before, intervalMs: state.revision.desired.timing.watchIntervalMs },
    Date.now(),
  );
  if (!due) {
    // The revision dropped its quotas: nothing to show.
    if (before && !desiredHasQuotas(state.revision.desired)) {
      delete state.status.quotas;
      state.publish();
    }
    return;
  }
  try {
    const read = await api(`quotas ${state.revision.desired.key}`, 'best_effort').readQuotaFigures(state.base);
    const now = new Date().toISOString();
    const pace = quotaPaceFrom({ status: state.status, report: state.reportData() }, now);
    state.status.quotas = quotaView(read, pace, now);
  } catch (error) {
    if (isCancellation(error)) throw error;
    state.status.quotas = { ...(before ?? { readAt: new Date().toISOString(), cells: [] }), error: failureOf(error).message, failedAt: new Date().toISOString() };
  }
  if (shown(before) !== shown(state.status.quotas)) state.publish();
}
