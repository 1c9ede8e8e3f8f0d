// The operator's console in the Temporal UI: what a target group's workflow shows in its search attributes
// (typed, so list queries compare numbers and dates) and in its current details. `consoleValues` is pure
// (a unit test judges it); `ConsoleAttributes` upserts only what changed (each upsert is a history event)
// and runs beside the progress sender. Values are figures, dates and reason codes: never names, tokens or
// respondent IDs. docs/operations.md, "The operator's console", has the saved views that read them.
import { condition, isCancellation, setCurrentDetails, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { TargetGroupForecast } from '../../plan/forecast';
import { mostBehind } from '../../plan/quotas';
import { softLaunchStatusText } from '../../plan/soft-launch';
import { targetGroupForecast } from '../forecast';
import type { GuardKind } from '../../plan/types';
import type { CompletesPoint, PerformanceSnapshot, TargetGroupStatus } from '../messages';
import type { TargetGroupRevision } from '../child-protocol';
import { CURRENCY, END_FIELDING_AT, FILL_PERCENT, FORECAST_END, REASON, SPEND } from '../search-attributes';

const HOUR_MS = 3_600_000;
/** The longest reason code kept (a failure type can be long; the attribute is for filtering, not reading). */
const MAX_REASON = 80;

/** What the console reads of a target group's workflow state. */
export interface ConsoleSource {
  status: Pick<TargetGroupStatus, 'key' | 'phase' | 'message' | 'failure' | 'drift' | 'feasibility' | 'price' | 'liveAt' | 'launchForecast'> & Partial<Pick<TargetGroupStatus, 'launchAt' | 'launchAfter' | 'guards' | 'softLaunch'>>;
  desired: Pick<TargetGroupRevision['desired'], 'draft' | 'launch'>;
  performance?: PerformanceSnapshot;
  series: readonly CompletesPoint[];
  /** The guards tripped and not resumed (plan/guards.ts `GuardEvaluation.active`), newest last; none while guards are not judged. */
  activeGuards?: readonly { kind: GuardKind }[];
}

/** What the console shows: each absent value is removed from the workflow's search attributes. */
export interface ConsoleValues {
  /** `guard:<kind>`, `soft_launch:<outcome>`, `gate_blocked:<code>`, `failed:<type>`, `drift:<field>`, or '' when nothing holds the target group. */
  reason: string;
  /** completes / filling_goal × 100 of the latest performance reading, one decimal. */
  fillPercent?: number;
  /** completes_cost of the latest reading, in `currency`. */
  spend?: number;
  currency?: string;
  /** The forecast's expected finish, to the hour (ISO). */
  forecastEnd?: string;
  /** end_fielding_at as the study file states it (ISO). */
  endFieldingAt?: string;
  /** The forecast behind `forecastEnd` (for current details). */
  forecast?: TargetGroupForecast;
}

/** `prefix:detail` with the detail reduced to letters, digits, `_`, `.` and `-` (a keyword to filter on). */
// eslint-disable-next-line no-restricted-syntax -- writes a filter keyword from a reason (rendering); no decision reads it
const code = (prefix: string, detail: string) => `${prefix}:${detail.replace(/[^A-Za-z0-9_.-]+/g, '_')}`.slice(0, MAX_REASON);
const goalOf = (draft: Record<string, unknown>) => (typeof draft.filling_goal === 'number' && draft.filling_goal > 0 ? draft.filling_goal : undefined);
const isoOrUndefined = (text: string | undefined) => (text !== undefined && !Number.isNaN(Date.parse(text)) ? new Date(Date.parse(text)).toISOString() : undefined);

/**
 * Why a gate holds, as codes from the same figures the gate judged (plan/launch-gates.ts `gateFailures`, the
 * forecast rule of plan/forecast.ts): `not_feasible`, `max_cpi`, `forecast_after_end`; `held` when none of
 * them explains it (a newer rule).
 */
export function gateReasons(source: Pick<ConsoleSource, 'status' | 'desired'>): string[] {
  const { status, desired } = source;
  const reasons: string[] = [];
  if (desired.launch.requireFeasible && status.feasibility && !status.feasibility.feasible) reasons.push('not_feasible');
  const max = desired.launch.maxCpi;
  if (max && (!status.price || status.price.currency_code !== max.currency_code || Number(status.price.value) > Number(max.value))) reasons.push('max_cpi');
  if (status.message?.includes('require_forecast_before_end')) reasons.push('forecast_after_end');
  return reasons.length ? reasons : ['held'];
}

/** The one reason code a target group is held or flagged by, in this order: a guard, a soft launch that waits, the gate, a failure, drift. */
export function reasonCode(source: Pick<ConsoleSource, 'status' | 'desired' | 'activeGuards'>): string {
  const { status } = source;
  const guard = source.activeGuards?.at(-1);
  if (guard && (status.phase === 'paused' || status.phase === 'live')) return `guard:${guard.kind}`;
  const soft = status.softLaunch;
  if (soft?.decision && (soft.state === 'awaiting_decision' || soft.state === 'paused')) return `soft_launch:${soft.decision.outcome}`;
  if (status.phase === 'gate_blocked') return `gate_blocked:${gateReasons(source)[0]}`;
  if (status.phase === 'failed') return code('failed', status.failure?.type ?? 'unknown');
  if (status.drift?.length) return code('drift', status.drift[0].field);
  return '';
}

/** Everything the console shows, from the state as it is (pure). */
export function consoleValues(source: ConsoleSource): ConsoleValues {
  const values: ConsoleValues = { reason: reasonCode(source) };
  const stated = isoOrUndefined(source.desired.launch.endFieldingAt);
  if (stated) values.endFieldingAt = stated;
  const performance = source.performance;
  const goal = goalOf(source.desired.draft);
  if (performance && goal !== undefined) values.fillPercent = Math.round((performance.completes / goal) * 1000) / 10;
  if (performance?.completesCost) {
    const spend = Number(performance.completesCost.value);
    if (Number.isFinite(spend)) {
      values.spend = spend;
      values.currency = performance.completesCost.currency_code;
    }
  }
  // The forecast as the study's status shows it (../forecast.ts), from this workflow's own readings.
  const forecast = goal === undefined ? undefined : targetGroupForecast({
    status: source.status,
    report: { expected: { fillingGoal: goal, ...(stated ? { endFieldingAt: stated } : {}) }, series: source.series, ...(performance ? { performance } : {}) },
  });
  if (forecast) {
    values.forecast = forecast;
    const expected = forecast.finish.expected;
    if (expected !== undefined) values.forecastEnd = new Date(Math.round(Date.parse(expected) / HOUR_MS) * HOUR_MS).toISOString();
  }
  return values;
}

/** The current details' second line: fill, spend and forecast (empty before the first reading). */
export function figuresLine(values: ConsoleValues, goal?: number, completes?: number): string {
  const parts: string[] = [];
  if (values.fillPercent !== undefined) parts.push(`fill ${values.fillPercent.toFixed(1)}%${goal !== undefined && completes !== undefined ? ` (${completes}/${goal})` : ''}`);
  if (values.spend !== undefined) parts.push(`spend ${values.spend.toFixed(2)} ${values.currency}`);
  const f = values.forecast;
  if (f?.finish.expected) {
    const band = f.finish.earliest && f.finish.latest ? `, ${f.finish.earliest} to ${f.finish.latest}` : f.finish.earliest ? `, not before ${f.finish.earliest}` : '';
    parts.push(`forecast end ${f.finish.expected}${band}`);
  } else if (f) {
    parts.push(
      f.basis === 'paused'
        ? 'paused: no forecast end while paused'
        : f.basis === 'awaiting'
          ? 'awaiting completes: no forecast end before it starts'
          : f.basis === 'soft_launch'
            ? 'soft launch: no forecast end until it is promoted'
            : 'no forecast yet',
    );
  }
  return parts.join(' · ');
}

/**
 * The current details' quota line (empty without quotas read): the worst cell by fill and, when one is forecast to
 * miss its goal, the one most behind with its shortfall, e.g. `worst quota: Age / age 55+ 12 of 350 (3.4%), forecast
 * short by 41 (11.7%) by 2027-04-26`. No search attribute: a new one costs a registration in every namespace.
 */
export function quotaLine(quotas: TargetGroupStatus['quotas']): string {
  if (!quotas) return '';
  if (!quotas.worst) return quotas.error ? `quotas not read: ${quotas.error}` : '';
  const w = quotas.worst;
  const parts = [`worst quota: ${w.profile} / ${w.quota} ${w.completes} of ${w.goal} (${w.fillPercent.toFixed(1)}%)`];
  const behind = mostBehind(quotas.cells);
  const end = quotas.pace?.end.slice(0, 10);
  if (behind?.shortfall && behind.shortfallFraction !== undefined) {
    const short = `short by ${behind.shortfall} (${(Math.round(behind.shortfallFraction * 1000) / 10).toFixed(1)}%)${end ? ` by ${end}` : ''}`;
    parts.push(behind.profile === w.profile && behind.quota === w.quota ? `forecast ${short}` : `most behind: ${behind.profile} / ${behind.quota} forecast ${short}`);
  }
  if (quotas.error) parts.push(`last read failed: ${quotas.error}`);
  return parts.join(', ');
}

/** The search-attribute updates from `before` to `after`: only what changed; null removes an attribute. */
export function attributeUpdates(before: ConsoleValues, after: ConsoleValues): SearchAttributeUpdatePair[] {
  const updates: SearchAttributeUpdatePair[] = [];
  const date = (iso: string | undefined) => (iso === undefined ? null : new Date(iso));
  if (before.reason !== after.reason) updates.push({ key: REASON, value: after.reason || null });
  if (before.fillPercent !== after.fillPercent) updates.push({ key: FILL_PERCENT, value: after.fillPercent ?? null });
  if (before.spend !== after.spend) updates.push({ key: SPEND, value: after.spend ?? null });
  if (before.currency !== after.currency) updates.push({ key: CURRENCY, value: after.currency ?? null });
  if (before.forecastEnd !== after.forecastEnd) updates.push({ key: FORECAST_END, value: date(after.forecastEnd) });
  if (before.endFieldingAt !== after.endFieldingAt) updates.push({ key: END_FIELDING_AT, value: date(after.endFieldingAt) });
  return updates;
}

/** The part of the target group's state the console watches (the workflow's TargetGroupState has all of it). */
export interface ConsoleState {
  readonly status: TargetGroupStatus;
  readonly revision: TargetGroupRevision;
  readonly report: { performance?: PerformanceSnapshot; series: CompletesPoint[] };
  readonly activeGuards?: readonly { kind: GuardKind }[];
  /** Bumped on every status change (state.publish(), which also rewrites current details). */
  readonly version: number;
}

/** The values the run's search attributes hold now (carried from the run before a continue-as-new). */
function valuesShown(): ConsoleValues {
  const sa = workflowInfo().typedSearchAttributes;
  const values: ConsoleValues = { reason: sa.get(REASON) ?? '' };
  const fill = sa.get(FILL_PERCENT);
  if (fill !== undefined) values.fillPercent = fill;
  const spend = sa.get(SPEND);
  if (spend !== undefined) values.spend = spend;
  const currency = sa.get(CURRENCY);
  if (currency !== undefined) values.currency = currency;
  const forecastEnd = sa.get(FORECAST_END);
  if (forecastEnd !== undefined) values.forecastEnd = forecastEnd.toISOString();
  const end = sa.get(END_FIELDING_AT);
  if (end !== undefined) values.endFieldingAt = end.toISOString();
  return values;
}

/**
 * Keeps the console up to date for the life of the workflow run: whenever the status is published, the revision,
 * the active guards or the latest performance reading change, it computes the values, upserts the attributes
 * that changed (one history event, none when nothing did) and rewrites current details (which
 * state.publish() sets without the figures).
 */
export class ConsoleAttributes {
  private shown: ConsoleValues;
  private seen = '';

  constructor(private readonly state: ConsoleState) {
    this.shown = valuesShown();
  }

  /** What the values depend on, as one string: nothing is computed while it is unchanged. */
  private fingerprint(): string {
    const { status, revision, report, activeGuards } = this.state;
    return [this.state.version, status.phase, status.message ?? '', status.failure?.type ?? '', (status.drift ?? []).map((d) => d.field).join(','), revision.revision, report.performance?.readAt ?? '', (activeGuards ?? []).map((g) => g.kind).join(',')].join('|');
  }

  /** Computes the values now, upserts those that differ from what the run shows, and rewrites current details. */
  update(): void {
    this.seen = this.fingerprint();
    const { status, revision, report, activeGuards } = this.state;
    const values = consoleValues({ status, desired: revision.desired, performance: report.performance, series: report.series, activeGuards });
    const updates = attributeUpdates(this.shown, values);
    if (updates.length) upsertSearchAttributes(updates);
    this.shown = values;
    const figures = figuresLine(values, goalOf(revision.desired.draft), report.performance?.completes);
    const quotas = quotaLine(status.quotas);
    const soft = status.softLaunch ? softLaunchStatusText(status.softLaunch) : '';
    const reason = values.reason ? ` [${values.reason}]` : '';
    setCurrentDetails(`**${status.key}**: ${status.phase}${reason}${status.message ? ` (${status.message})` : ''}${figures ? `\n\n${figures}` : ''}${quotas ? `\n\n${quotas}` : ''}${soft ? `\n\n${soft}` : ''}`);
  }

  /** Runs for the life of the workflow run; a cancellation ends it (the main path handles it). */
  async run(): Promise<void> {
    for (;;) {
      try {
        await condition(() => this.fingerprint() !== this.seen);
      } catch (error) {
        if (isCancellation(error)) return;
        throw error;
      }
      this.update();
    }
  }
}
