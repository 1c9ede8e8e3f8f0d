// The plan's server-side dry run, judged: what the API says about a target group before launch
// (profile validation, feasibility, price, supplier quota distribution, calendar), turned into check
// results, and the forecast before launch they give (plan/forecast.ts). Pure: the caller asks the API (client/plan-checks.ts) and hands the answers in; the launch
// rules are judged by the same functions the target-group workflow's gate uses.

import { draftFieldingSpecification, feasibilityRequest, gateFailures, judgedCpi, priceQuery, readFeasibility, type FeasibilityVerdict } from './launch-gates';
import { forecastCheck } from './forecast';
import type { DesiredTargetGroup, Money } from './types';
import { desiredProfiling, validateProfilesBody } from './profiling';
import type { ServerCheck, ServerCheckName, TargetGroupChecks } from './check-types';

export type { ServerCheck, ServerCheckName, ServerCheckOutcome, TargetGroupChecks } from './check-types';

/** An API answer, or why there is none (a failed call, reported as "unavailable: <reason>"). */
export type Answer<T> = { ok: true; value: T } | { ok: false; reason: string };

export interface ProfileValidationAnswer {
  valid: boolean;
  object?: string;
  detail?: string;
  invalidParams?: { name: string; reason: string }[];
}

/**
 * A question of the questions-translation catalogue (the reference's QuestionResponseProfileFormat: `description`
 * and each target's `text` in the locale, the `_translated` ones in English; the question id and a selection's
 * option are its targets' conditions), as far as the plan shows it.
 */
export interface QuestionText {
  questionId: number;
  text: string;
  textTranslated?: string;
  options: { option: string; text: string; textTranslated?: string }[];
}

/** What the API answered for one target group; a missing entry was not asked. */
export interface ServerAnswers {
  validation?: Answer<ProfileValidationAnswer>;
  feasibility?: Answer<Record<string, unknown>>;
  price?: Answer<Record<string, unknown>>;
  /** One answered profile per {@link distributionRequests} entry, in their order (each target's projected goal). */
  distribution?: Answer<Record<string, unknown>[]>;
  suggestedDays?: Answer<Record<string, unknown>>;
  timeRange?: Answer<Record<string, unknown>>;
  questions?: Answer<QuestionText[]>;
}

export interface ServerCheckContext {
  /** The clock the calendar is compared against (end_fielding_at). */
  now: number;
}

/** Days the calendar is asked for when neither suggest-days nor feasibility give a field time. */
export const DEFAULT_CALENDAR_DAYS = 14;
const MAX_FEASIBILITY_GOAL = 100_000;

// ---------------------------------------------------------------------------------------------
// Requests: what to ask the API for a target group.

/** The profiles of a target group as the wire carries them (its draft's `profiling`), or undefined when it declares none. */
function profilesOf(desired: DesiredTargetGroup): Record<string, unknown>[] | undefined {
  const profiling = desiredProfiling(desired);
  if (!profiling) return undefined;
  return profiling.profiles ?? [];
}

/** Body of `validateProfiles` (ValidateProfilesRequestV3), or undefined when there are no own profiles to validate. */
export function validationRequest(desired: DesiredTargetGroup): { locale: unknown; completes_goal: unknown; profiling: { profile_adjustment_type: string; profiles: Record<string, unknown>[] } } | undefined {
  return validateProfilesBody(desired) as ReturnType<typeof validationRequest>;
}

/** The feasibility request: exactly what the launch gate sends. */
export function feasibilityCheckRequest(desired: DesiredTargetGroup, studyBusinessUnit: string, nowMs: number): Record<string, unknown> {
  return feasibilityRequest(desired, studyBusinessUnit, nowMs);
}

/** The price prediction query: exactly what the launch gate sends. */
export function priceCheckQuery(desired: DesiredTargetGroup): Record<string, string | number | boolean> {
  return priceQuery(desired);
}

/**
 * The supplier quota distribution requests of a target group (reference: get_panel_distribution_draft,
 * PanelDistributionRequestV3): one per own profile with quotas, as its draft carries it (one profile a request),
 * with the draft's completes goal, adjustment type and fielding window as the draft sends it. None without a profile
 * with quotas (a template's profiles are the API's, not sent). No supplier allocation: the reference does not take it yet.
 */
export function distributionRequests(desired: DesiredTargetGroup, nowMs: number): Record<string, unknown>[] {
  const profiling = desiredProfiling(desired);
  const profiles = (profilesOf(desired) ?? []).filter((profile) => profile.quotas_enabled === true);
  if (!profiling || profiles.length === 0) return [];
  const window = draftFieldingSpecification(desired, nowMs);
  return profiles.map((profile) => {
    const request: Record<string, unknown> = {
      locale: desired.draft.locale,
      completes_goal: desired.draft.filling_goal,
      profile_adjustment_type: profiling.profile_adjustment_type,
      start_at: window.start_at,
      end_at: window.end_at,
    };
    if (typeof desired.draft.collects_pii === 'boolean') request.collects_pii = desired.draft.collects_pii;
    request.profile = profile;
    return request;
  });
}

/** Every question id the profiles use, ascending. */
export function profileQuestionIds(desired: DesiredTargetGroup): number[] {
  const ids = new Set<number>();
  for (const profile of (desired.profiles ?? []) as Record<string, unknown>[]) {
    for (const target of array(profile.targets)) {
      for (const condition of array(record(target)?.conditions)) {
        const id = record(condition)?.question_id;
        if (isCount(id)) ids.add(id);
      }
    }
  }
  return [...ids].sort((a, b) => a - b);
}

/** The suggest-days request for a predicted CPI, or why the calendar cannot be asked. */
export function suggestDaysRequest(desired: DesiredTargetGroup, cpi: Money | undefined): { request: Record<string, unknown> } | { skip: string } {
  const incidence = Number(desired.draft.expected_incidence_rate);
  const completes = Number(desired.draft.filling_goal);
  if (!cpi) return { skip: 'no price to ask with' };
  if (cpi.currency_code !== 'USD') return { skip: `the calendar takes USD prices only (the price is in ${cpi.currency_code})` };
  if (!(incidence > 0 && incidence < 1)) return { skip: 'the calendar needs an incidence rate strictly between 0 and 1' };
  if (!(completes >= 1 && completes <= MAX_FEASIBILITY_GOAL)) return { skip: 'filling_goal is outside 1 … 100,000' };
  return {
    request: {
      locale: desired.draft.locale,
      price: { value: cpi.value, currency_code: cpi.currency_code },
      length_of_interview: desired.draft.expected_length_of_interview_minutes,
      incidence_rate: incidence,
      completes,
    },
  };
}

/** How many days to ask suggest-time-range for: suggest-days' answer (`days`), else 14. */
export function calendarDays(suggestedDays: Answer<Record<string, unknown>> | undefined): number {
  const fromDays = suggestedDays?.ok ? num(suggestedDays.value.days) : undefined;
  const days = fromDays ?? DEFAULT_CALENDAR_DAYS;
  return Math.min(365, Math.max(1, Math.ceil(days)));
}

/** The CPI the gate would judge: feasibility's suggested_price, else the price prediction's. */
export function gateCpi(answers: Pick<ServerAnswers, 'feasibility' | 'price'>, desired: DesiredTargetGroup): Money | undefined {
  return judgedCpi(answers.price?.ok ? answers.price.value : undefined, answers.feasibility?.ok ? readFeasibility(answers.feasibility.value, desired) : undefined);
}

// ---------------------------------------------------------------------------------------------
// Judging the answers.

/** Every check of one target group from the API's answers. */
export function evaluateServerChecks(desired: DesiredTargetGroup, answers: ServerAnswers, context: ServerCheckContext): TargetGroupChecks {
  const questions = answers.questions;
  const checks = [
    profilesCheck(desired, answers.validation, questions),
    feasibilityCheck(desired, answers.feasibility),
    priceCheck(desired, answers),
    distributionCheck(desired, answers.distribution, questions),
    calendarCheck(desired, answers, context.now),
  ];
  // The forecast before launch from the feasibility and calendar checks (plan/forecast.ts), judged by the launch rule.
  checks.push(forecastCheck(desired, { checks }, context.now));
  return { key: desired.key, blocking: checks.some((c) => c.outcome === 'blocking'), checks };
}

/** The checks of a target group that is not checked at all (offline, already launched). */
export function skippedServerChecks(key: string, why: string): TargetGroupChecks {
  const names: ServerCheckName[] = ['profiles', 'feasibility', 'price', 'supplier_distribution', 'calendar', 'forecast'];
  return { key, blocking: false, checks: names.map((name) => ({ name, outcome: 'skipped', summary: why })) };
}

function unavailable(name: ServerCheckName, reason: string): ServerCheck {
  return { name, outcome: 'unavailable', summary: `unavailable: ${reason}` };
}

export function profilesCheck(desired: DesiredTargetGroup, answer: Answer<ProfileValidationAnswer> | undefined, questions: Answer<QuestionText[]> | undefined): ServerCheck {
  const request = validationRequest(desired);
  if (!request) return { name: 'profiles', outcome: 'skipped', summary: 'no profiles to validate' };
  if (!answer) return { name: 'profiles', outcome: 'skipped', summary: 'not validated' };
  const details = profileLines(desired, questions);
  if (!answer.ok) return { ...unavailable('profiles', answer.reason), details };
  const profiles = request.profiling.profiles.length;
  const targets = request.profiling.profiles.reduce((n, p) => n + array(p.targets).length, 0);
  const templates = desired.profileTemplateIds?.length ? ` and ${plural(desired.profileTemplateIds.length, 'template')}` : '';
  const counted = `${plural(profiles, 'profile')} (${plural(targets, 'target')})${templates}`;
  if (answer.value.valid) return { name: 'profiles', outcome: 'pass', summary: `valid: ${counted}`, details, data: { valid: true, profiles, targets } };
  const params = (answer.value.invalidParams ?? []).map((p) => `${p.name}: ${p.reason}`);
  const why = [answer.value.object, answer.value.detail].filter(Boolean).join(': ') || 'invalid';
  const reason = `the API refuses the profiles (${why})${params.length ? `: ${params.join('; ')}` : ''}`;
  return {
    name: 'profiles',
    outcome: 'blocking',
    summary: `invalid: ${counted}`,
    reason,
    details: [...params.map((p) => `problem: ${p}`), ...details],
    data: { valid: false, object: answer.value.object, invalidParams: answer.value.invalidParams ?? [] },
  };
}

export function feasibilityCheck(desired: DesiredTargetGroup, answer: Answer<Record<string, unknown>> | undefined): ServerCheck {
  if (!answer) return { name: 'feasibility', outcome: 'skipped', summary: 'not asked' };
  if (!answer.ok) return unavailable('feasibility', answer.reason);
  const verdict = readFeasibility(answer.value, desired);
  const range = verdict.feasibleCompletes === undefined ? 'no completes range' : `${verdict.minCompletes ?? '?'}-${verdict.feasibleCompletes} completes in the window`;
  const parts = [
    `${range} for a filling_goal of ${verdict.fillingGoal ?? '?'}`,
    verdict.suggestedPrice ? `suggested price ${moneyText(verdict.suggestedPrice)}` : undefined,
  ].filter(Boolean);
  const data = { feasible: verdict.feasible, feasibleCompletes: verdict.feasibleCompletes, minCompletes: verdict.minCompletes, fillingGoal: verdict.fillingGoal, suggestedPrice: verdict.suggestedPrice, ...(verdict.suggestedPriceRange ? { suggestedPriceRange: verdict.suggestedPriceRange } : {}) };
  const summary = `${verdict.feasible ? 'feasible' : 'infeasible'}: ${parts.join(', ')}`;
  if (verdict.feasible) return { name: 'feasibility', outcome: 'pass', summary, data };
  const failures = gateFailures({ ...desired, launch: { ...desired.launch, maxCpi: undefined } }, verdict, undefined);
  if (failures.length) return { name: 'feasibility', outcome: 'blocking', summary, reason: `${failures.join('; ')} (require_feasible)`, data };
  return { name: 'feasibility', outcome: 'warning', summary: `${summary} (require_feasible is off)`, data };
}

/**
 * The price check judges what the launch gate judges: feasibility's suggested_price, else the price
 * prediction's CPI (the reference's prediction gives a CPI and no total).
 */
export function priceCheck(desired: DesiredTargetGroup, answers: Pick<ServerAnswers, 'feasibility' | 'price'>): ServerCheck {
  const answer = answers.price;
  const suggested = answers.feasibility?.ok ? readFeasibility(answers.feasibility.value, desired).suggestedPrice : undefined;
  if (!answer && !suggested) return { name: 'price', outcome: 'skipped', summary: 'not asked' };
  if (!suggested && answer && !answer.ok) return unavailable('price', answer.reason);
  const cpi = gateCpi(answers, desired);
  const max = desired.launch.maxCpi;
  const source = suggested ? 'suggested price (feasibility)' : 'predicted CPI';
  const summary = cpi
    ? `${source} ${moneyText(cpi)}${max ? ` (max_cpi ${moneyText(max)})` : ''}`
    : 'the API suggested no price';
  const data = { cpi, maxCpi: max, pricingModel: answer?.ok ? answer.value.pricing_model : undefined };
  const noFeasibility: FeasibilityVerdict = { feasible: true };
  const failures = gateFailures({ ...desired, launch: { ...desired.launch, requireFeasible: false } }, noFeasibility, cpi);
  if (failures.length) return { name: 'price', outcome: 'blocking', summary, reason: `${failures.join('; ')} (max_cpi)`, data };
  if (!cpi) return { name: 'price', outcome: 'warning', summary, data };
  return { name: 'price', outcome: 'pass', summary, data };
}

/**
 * The supplier quota distribution of each own profile with quotas: the goal projected for every quota target, and
 * whether a profile's projected goals add up to the target group's completes goal (a warning when they do not, or
 * when a target's projection differs from the study's quota). Skipped without a profile with quotas.
 */
export function distributionCheck(desired: DesiredTargetGroup, answer: Answer<Record<string, unknown>[]> | undefined, questions?: Answer<QuestionText[]>): ServerCheck {
  const profiles = ((desired.profiles ?? []) as Record<string, unknown>[]).filter((profile) => profile.quotas_enabled === true);
  if (!profilesOf(desired)?.length) return { name: 'supplier_distribution', outcome: 'skipped', summary: 'no profiles to distribute' };
  if (profiles.length === 0) return { name: 'supplier_distribution', outcome: 'skipped', summary: 'no profile with quotas to distribute' };
  if (!answer) return { name: 'supplier_distribution', outcome: 'skipped', summary: 'not asked' };
  if (!answer.ok) return unavailable('supplier_distribution', answer.reason);
  const goal = num(desired.draft.filling_goal);
  const byId = questions?.ok ? new Map(questions.value.map((q) => [q.questionId, q])) : undefined;
  const details: string[] = [];
  const problems: string[] = [];
  const data = profiles.map((profile, p) => {
    const name = text(profile.name) ?? `profile ${p + 1}`;
    const answered = record(answer.value[p]);
    const studyTargets = array(profile.targets).map(record);
    const targets = array(answered?.targets).map((raw, t) => {
      const target = record(raw) ?? {};
      const study = studyTargets[t];
      const label = text(study?.text) ?? text(record(study?.quota)?.name) ?? text(record(target.quota)?.name)
        ?? array(target.conditions).map(record).filter((c): c is Record<string, unknown> => c !== undefined).map((c) => conditionText(c, byId)).join(' and ');
      const projected = num(record(target.quota)?.completes_goal);
      const wanted = studyGoal(record(study?.quota), goal);
      return { label, projected, wanted };
    });
    const sum = targets.reduce((n, t) => n + (t.projected ?? 0), 0);
    details.push(`profile ${name}: ${sum} of ${goal ?? '?'} completes projected`);
    for (const t of targets) {
      const differs = t.projected !== undefined && t.wanted !== undefined && t.projected !== t.wanted;
      details.push(`  ${t.label}: ${t.projected === undefined ? 'no goal projected' : `${t.projected} completes`}${differs ? ` (the study's quota: ${t.wanted})` : ''}`);
    }
    if (!answered || targets.length !== studyTargets.length) problems.push(`profile ${name}: the answer has ${targets.length} of ${studyTargets.length} targets`);
    else if (targets.some((t) => t.projected === undefined)) problems.push(`profile ${name}: no goal projected for some targets`);
    else if (goal !== undefined && sum !== goal) problems.push(`profile ${name}: the projected goals add up to ${sum}, not ${goal}`);
    else if (targets.some((t) => t.wanted !== undefined && t.projected !== t.wanted)) problems.push(`profile ${name}: projected goals differ from the study's quotas`);
    return { profile: name, projectedCompletes: sum, targets: targets.map((t) => ({ target: t.label, projected: t.projected, quota: t.wanted })) };
  });
  const summary = `${plural(profiles.length, 'profile')} with quotas: projected goals${problems.length ? '' : ` add up to ${goal ?? '?'} completes`}`;
  if (problems.length) return { name: 'supplier_distribution', outcome: 'warning', summary: `${summary}: ${problems.join('; ')}`, details, data: { fillingGoal: goal, profiles: data } };
  return { name: 'supplier_distribution', outcome: 'pass', summary, details, data: { fillingGoal: goal, profiles: data } };
}

/** A study quota's goal in completes: its completes_goal, else its percentage of the filling goal, rounded. */
function studyGoal(quota: Record<string, unknown> | undefined, fillingGoal: number | undefined): number | undefined {
  const goal = num(quota?.completes_goal);
  if (goal !== undefined) return goal;
  const pct = num(quota?.completes_goal_percentage);
  return pct !== undefined && fillingGoal !== undefined ? Math.round((fillingGoal * pct) / 100) : undefined;
}

export function calendarCheck(desired: DesiredTargetGroup, answers: Pick<ServerAnswers, 'suggestedDays' | 'timeRange'>, now: number): ServerCheck {
  const { suggestedDays: days, timeRange: range } = answers;
  if (!days && !range) return { name: 'calendar', outcome: 'skipped', summary: 'not asked' };
  if ((days === undefined || !days.ok) && (range === undefined || !range.ok)) {
    const reasons = [days, range].filter((a): a is { ok: false; reason: string } => a !== undefined && !a.ok).map((a) => a.reason);
    return unavailable('calendar', [...new Set(reasons)].join('; '));
  }
  const details: string[] = [];
  const data: Record<string, unknown> = {};
  const parts: string[] = [];
  let warning: string | undefined;
  if (range?.ok) {
    // The activity reads either dialect's range into suggested_start/suggested_end (activities/calendar.ts).
    const start = text(range.value.suggested_start);
    const end = text(range.value.suggested_end);
    if (start === undefined || end === undefined) {
      details.push('time range unavailable: the answer gives no suggested start and end');
    } else {
      data.suggestedStart = start;
      data.suggestedEnd = end;
      data.days = num(range.value.days);
      parts.push(`field ${start} to ${end}${data.days !== undefined ? ` (${String(data.days)} day(s))` : ''}`);
    }
  } else if (range && !range.ok) {
    details.push(`time range unavailable: ${range.reason}`);
  }
  if (days?.ok) {
    const suggested = num(days.value.days);
    const completes = String(desired.draft.filling_goal);
    data.suggestedDays = suggested ?? null;
    if (suggested === undefined) warning = `the calendar suggests no number of days for ${completes} completes at this price`;
    else parts.push(`${suggested} day(s) suggested for ${completes} completes`);
    const endAt = desired.launch.endFieldingAt ? Date.parse(desired.launch.endFieldingAt) : NaN;
    if (suggested !== undefined && Number.isFinite(endAt)) {
      const left = Math.floor((endAt - now) / 86_400_000);
      if (suggested > left) warning = `${suggested} day(s) suggested, but end_fielding_at leaves ${Math.max(0, left)}`;
    }
  } else if (days && !days.ok) {
    details.push(`suggested days unavailable: ${days.reason}`);
  }
  const summary = [...parts, warning].filter(Boolean).join('; ') || 'no suggestion';
  return { name: 'calendar', outcome: warning ? 'warning' : 'pass', summary, details: details.length ? details : undefined, data };
}

// ---------------------------------------------------------------------------------------------
// Profiles with their question texts.

/**
 * Questions by id from the items of questions-translation (QuestionResponseProfileFormat): the question id is the one
 * its targets' conditions name; each selection target is an option (`option`, with the target's texts).
 */
export function readQuestions(items: readonly unknown[]): QuestionText[] {
  const out: QuestionText[] = [];
  for (const item of items.map(record)) {
    if (!item) continue;
    const targets = array(item.targets).map(record).filter((t): t is Record<string, unknown> => t !== undefined);
    const conditions = targets.flatMap((t) => array(t.conditions).map(record).filter((c): c is Record<string, unknown> => c !== undefined));
    const questionId = conditions.map((c) => c.question_id).find(isCount);
    if (questionId === undefined) continue;
    const options = targets.flatMap((t) => {
      const selection = array(t.conditions).map(record).find((c) => c?.object === 'selection' && c.question_id === questionId && typeof c.option === 'string');
      return selection ? [{ option: String(selection.option), text: text(t.text) ?? '', textTranslated: text(t.text_translated) }] : [];
    });
    out.push({ questionId, text: text(item.description) ?? '', textTranslated: text(item.description_translated), options });
  }
  return out;
}

function quoted(textValue: string, translated?: string): string {
  return translated && translated !== textValue ? `"${textValue}" [${translated}]` : `"${textValue}"`;
}

/** One condition with its question's text, e.g. `43 "What is your gender?" = 1 "Male"`. */
export function conditionText(condition: Record<string, unknown>, questions: Map<number, QuestionText> | undefined): string {
  const id = condition.question_id;
  const question = isCount(id) ? questions?.get(id) : undefined;
  const head = `${String(id)}${question ? ` ${quoted(question.text, question.textTranslated)}` : ''}`;
  switch (condition.object) {
    case 'selection': {
      const option = String(condition.option);
      const known = question?.options.find((o) => o.option === option);
      return `${head} = ${option}${known ? ` ${quoted(known.text, known.textTranslated)}` : question ? ' (unknown option)' : ''}`;
    }
    case 'range':
      return `${head} in ${String(condition.min)}–${String(condition.max)}`;
    case 'open_ended': {
      if (condition.allow_all_values === true) return `${head} any answer`;
      const values = array(condition.open_ended_values).map((v) => `"${String(v)}"`);
      return `${head} answers ${values.slice(0, 5).join(', ')}${values.length > 5 ? `, … (${values.length})` : ''}`;
    }
    default:
      return `${head} (${String(condition.object)})`;
  }
}

function quotaText(quota: Record<string, unknown> | undefined, fillingGoal: number | undefined): string {
  if (!quota) return '';
  const goal = num(quota.completes_goal);
  const pct = num(quota.completes_goal_percentage);
  const derived = goal ?? (pct !== undefined && fillingGoal !== undefined ? Math.round((fillingGoal * pct) / 100) : undefined);
  const name = text(quota.name);
  const figures = [pct !== undefined ? `${pct}%` : undefined, derived !== undefined ? `${derived} completes` : undefined].filter(Boolean).join(', ');
  return ` — quota${name ? ` ${name}` : ''}${figures ? ` ${figures}` : ''}`;
}

/** The profiles as lines: `profile <name>`, then `  <target>: <conditions> — quota …`. */
export function profileLines(desired: DesiredTargetGroup, questions: Answer<QuestionText[]> | undefined): string[] {
  const byId = questions?.ok ? new Map(questions.value.map((q) => [q.questionId, q])) : undefined;
  const fillingGoal = num(desired.draft.filling_goal);
  const lines: string[] = [];
  if (questions && !questions.ok) lines.push(`question texts unavailable: ${questions.reason}`);
  for (const id of desired.profileTemplateIds ?? []) lines.push(`profile template ${id}`);
  for (const profile of (desired.profiles ?? []) as Record<string, unknown>[]) {
    const quotas = profile.quotas_enabled === true;
    lines.push(`profile ${text(profile.name) ?? '?'} (${text(profile.object) ?? 'regular'}${quotas ? ', quotas' : ''})`);
    for (const target of array(profile.targets).map(record)) {
      if (!target) continue;
      const conditions = array(target.conditions).map(record).filter((c): c is Record<string, unknown> => c !== undefined).map((c) => conditionText(c, byId));
      const label = text(target.text);
      lines.push(`  ${label ? `${label}: ` : ''}${conditions.join(' and ')}${quotas ? quotaText(record(target.quota), fillingGoal) : ''}`);
    }
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function array(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

export function moneyText(money: Money): string {
  return `${money.value} ${money.currency_code}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
