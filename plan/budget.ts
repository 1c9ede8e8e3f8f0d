// The study's budget: its predicted cost before launch (feasibility's suggested price × filling goal, summed
// over the target groups) and its spend during fielding (completes_cost, summed). Pure: `studyflow plan`
// judges the price answers of its server checks with it, and the workflows (once wired) judge the gate
// readings and the watch's performance readings with the same functions. Money is exact (plan/money.ts).
import { differenceMicros, moneyOf, moneyText, scaleMicros, toMicros } from './money';
import { isWrite } from './plan-study';
import type { TargetGroupChecks } from './server-checks';
import type { BudgetVerdict, DesiredStudy, Money, ObservedStudy, PlanNote, PlannedAction, StudyPlan } from './types';

/**
 * The name of the refusal: apply refuses to launch a study whose predicted cost is above its budget. The plan
 * shows it as a `blocked` action (so `plan --detailed-exitcode` exits 3); the workflow fails the launch with
 * an ApplicationFailure of this type.
 */
export const OVER_BUDGET = 'StudyOverBudget';

/** One target group's part of the prediction: its goal, and the price feasibility suggests (or why there is none). */
export interface BudgetInput {
  key: string;
  goal: number;
  price?: Money;
  /** Why there is no price (not asked, unavailable, already launched). */
  why?: string;
}

const percent = (part: bigint, whole: bigint) => (whole > 0n ? Number((part * 100n + whole / 2n) / whole) : 0);

/**
 * The predicted cost against the budget: `over` as soon as the priced target groups alone cost more than it
 * (more target groups only cost more), `within` when every target group is priced and the sum is at most the
 * budget, else `incomplete`. A price in another currency than the budget's is not converted: that target
 * group is unpriced, with the reason.
 */
export function budgetVerdict(budget: Money, inputs: readonly BudgetInput[]): BudgetVerdict {
  const limit = toMicros(budget.value) ?? 0n;
  const currency = budget.currency_code;
  let sum = 0n;
  const priced: BudgetVerdict['priced'] = [];
  const unpriced: BudgetVerdict['unpriced'] = [];
  for (const input of inputs) {
    const micros = input.price ? toMicros(input.price.value) : undefined;
    if (!input.price || micros === undefined) {
      unpriced.push({ key: input.key, why: input.why ?? 'no suggested price' });
    } else if (input.price.currency_code !== currency) {
      unpriced.push({ key: input.key, why: `its price is in ${input.price.currency_code}, the budget in ${currency}` });
    } else {
      const cost = micros * BigInt(input.goal);
      sum += cost;
      priced.push({ key: input.key, price: { ...input.price }, goal: input.goal, cost: moneyOf(cost, currency) });
    }
  }
  const predicted = moneyOf(sum, currency);
  const verdict: BudgetVerdict['verdict'] = sum > limit ? 'over' : unpriced.length ? 'incomplete' : 'within';
  const head = `predicted cost ${moneyText(predicted)} of the budget ${moneyText(budget)} (${percent(sum, limit)}%)`;
  const text =
    verdict === 'over'
      ? `${head}: over budget${unpriced.length ? ` before ${unpriced.length} unpriced target group(s)` : ''}; apply refuses to launch`
      : verdict === 'within'
        ? head
        : priced.length === 0
          ? `${moneyText(budget)}; no cost predicted (${unpricedText(unpriced, inputs.length)})`
          : `${head} for ${priced.length} of ${inputs.length} target groups; not priced: ${unpricedText(unpriced, inputs.length)}`;
  return { budget: { ...budget }, verdict, predicted, priced, unpriced, text };
}

/** The unpriced target groups by reason: `de, uk: not asked; us: unavailable: …`, or the one reason of all of them. */
function unpricedText(unpriced: BudgetVerdict['unpriced'], total: number): string {
  const byWhy = new Map<string, string[]>();
  for (const { key, why } of unpriced) byWhy.set(why, [...(byWhy.get(why) ?? []), key]);
  if (byWhy.size === 1 && unpriced.length === total) return [...byWhy.keys()][0];
  return [...byWhy].map(([why, keys]) => `${keys.join(', ')}: ${why}`).join('; ');
}

/** Why a target group's feasibility gave no price, from its check. */
function noPriceWhy(checks: TargetGroupChecks | undefined): string {
  const feasibility = checks?.checks.find((c) => c.name === 'feasibility');
  if (!feasibility) return 'feasibility not asked';
  if (feasibility.outcome === 'skipped' || feasibility.outcome === 'unavailable') return feasibility.summary;
  return 'feasibility suggested no price';
}

function isMoney(value: unknown): value is Money {
  return typeof value === 'object' && value !== null && typeof (value as Money).value === 'string' && typeof (value as Money).currency_code === 'string';
}

/**
 * The budget inputs of a study from its plan's server checks: each target group's filling goal and the
 * suggested price its feasibility check read (the check's `data.suggestedPrice`). Without checks (offline),
 * every target group is unpriced.
 */
export function budgetInputsFromChecks(desired: DesiredStudy, checks: readonly TargetGroupChecks[] | undefined, why = 'feasibility not asked'): BudgetInput[] {
  return desired.targetGroups.map((tg) => {
    const goal = Number(tg.draft.filling_goal);
    const own = checks?.find((c) => c.key === tg.key);
    const price = own?.checks.find((c) => c.name === 'feasibility')?.data?.suggestedPrice;
    if (isMoney(price)) return { key: tg.key, goal, price };
    return { key: tg.key, goal, why: checks ? noPriceWhy(own) : why };
  });
}

/**
 * The target groups whose launch is ahead: not in the exchange yet, or a draft there. Their prices make the
 * prediction: `studyflow plan` asks its server checks of exactly these (a launched one is skipped, "already
 * live"), and the study workflow reads the launch gates of exactly these before it plans a revision.
 */
export function launchAhead(desired: DesiredStudy, observed: ObservedStudy): string[] {
  return desired.targetGroups
    .filter((tg) => {
      const remote = observed.targetGroups[tg.key] ?? (tg.movedFrom ? observed.targetGroups[tg.movedFrom] : undefined);
      return !remote || remote.status === 'draft';
    })
    .map((tg) => tg.key);
}

/** What a launch gate read found of a target group's price: the suggested price, none, or why the read failed. */
export type GatePrice = { ok: true; price?: Money } | { ok: false; why: string };

/**
 * The budget inputs of a study from the launch gates the study workflow read (`prices`, by key): each target
 * group's filling goal and feasibility's suggested price. One whose gate was not read has no launch ahead
 * (`launchAhead`): it is unpriced, as `studyflow plan` leaves it.
 */
export function budgetInputsFromGates(desired: DesiredStudy, prices: Readonly<Record<string, GatePrice>>): BudgetInput[] {
  return desired.targetGroups.map((tg) => {
    const goal = Number(tg.draft.filling_goal);
    const read = prices[tg.key];
    if (!read) return { key: tg.key, goal, why: 'no launch ahead' };
    if (!read.ok) return { key: tg.key, goal, why: `unavailable: ${read.why}` };
    if (isMoney(read.price)) return { key: tg.key, goal, price: read.price };
    return { key: tg.key, goal, why: 'feasibility suggested no price' };
  });
}

/** The blocked action of a study over its budget: what `plan --detailed-exitcode` answers 3 for, and apply names (field `budget`). */
export function overBudgetAction(studyId: string, verdict: BudgetVerdict): PlannedAction {
  return { kind: 'blocked', resource: 'project', key: studyId, reason: `${OVER_BUDGET}: ${verdict.text}` };
}

/** Whether an action is the refusal of a study over its budget. */
export function isOverBudgetAction(action: PlannedAction): boolean {
  return action.kind === 'blocked' && action.resource === 'project' && action.reason.startsWith(`${OVER_BUDGET}:`);
}

/**
 * The decision: the plan with its budget judged against the predicted cost of `inputs`. Over budget, the plan
 * launches nothing: every launch becomes a `none` that names the refusal, and one `blocked` action of the
 * project names it with the figures (the plan exits 3, apply 4 with it among the changes not made). The
 * drafts, lists and other writes stay: a study over budget is written up to its drafts, so that raising the
 * budget (or lowering a goal) launches it. Within budget, or with an incomplete prediction (some target group
 * unpriced, the priced ones within), the plan is left as it is beside the verdict. A study without a budget:
 * the plan as it is.
 */
export function judgeBudget(plan: StudyPlan, desired: DesiredStudy, inputs: readonly BudgetInput[]): StudyPlan {
  if (!desired.budget) return plan;
  const verdict = budgetVerdict(desired.budget, inputs);
  const kept = plan.actions.filter((a) => !isOverBudgetAction(a));
  if (verdict.verdict !== 'over') return { ...plan, actions: kept, budget: verdict };
  const actions: PlannedAction[] = kept.map((a) =>
    a.kind === 'launch' && a.resource === 'fielding' ? { kind: 'none', resource: 'fielding', key: a.key, reason: `not launched: ${OVER_BUDGET} (the study's predicted cost is over its budget)` } : a,
  );
  actions.push(overBudgetAction(desired.studyId, verdict));
  return { ...plan, actions, hasChanges: actions.some(isWrite), budget: verdict };
}

/**
 * The plan with its budget judged against the server checks' prices (`studyflow plan`): {@link judgeBudget}
 * over the prices the feasibility checks read.
 */
export function withBudget(plan: StudyPlan, desired: DesiredStudy, checks: readonly TargetGroupChecks[] | undefined, why?: string): StudyPlan {
  return judgeBudget(plan, desired, budgetInputsFromChecks(desired, checks, why));
}

/** What the study's status holds of a budget hold: the spend last read and the target groups it paused. */
export interface BudgetHoldState {
  spent?: Money;
  paused: readonly string[];
}

/** The target groups a budget holds paused, and why (the spend against it). */
export interface BudgetHeld {
  keys: string[];
  why: string;
}

/**
 * Whether a revision keeps the hold: the target groups the study paused at its budget stay held while the
 * spend is at or above the revision's budget. A budget above the spend, or none, holds nothing (the hold lifts).
 */
export function heldByBudget(budget: Money | undefined, hold: BudgetHoldState | undefined): BudgetHeld | undefined {
  if (!budget || !hold?.spent || hold.paused.length === 0) return undefined;
  const spend = budgetSpent(budget, [{ key: 'study', spend: hold.spent }]);
  return spend.reached ? { keys: [...hold.paused], why: spend.text } : undefined;
}

/**
 * The plan with the budget's hold kept: a target group the study paused at its budget is not resumed by the
 * revision (the file's `fielding: live`, stated or by default, would resume it as drift). Its resume becomes a
 * `blocked` action that names why, so apply lists it among the changes not made.
 */
export function holdResumes(plan: StudyPlan, held: BudgetHeld | undefined): StudyPlan {
  if (!held?.keys.length) return plan;
  const actions = plan.actions.map((a): PlannedAction =>
    a.kind === 'resume' && a.resource === 'fielding' && held.keys.includes(a.key)
      ? { kind: 'blocked', resource: 'fielding', key: a.key, reason: `held paused by the study's budget (${held.why}); a revision whose budget is above the spend resumes it` }
      : a,
  );
  return { ...plan, actions, hasChanges: actions.some(isWrite) };
}

/** The spend of a study against its budget, for the watch. */
export interface BudgetSpend {
  budget: Money;
  spent: Money;
  /** True when the spend has reached the budget: the watch pauses the study's target groups and sends budget_reached. */
  reached: boolean;
  /** Whole percent of the budget spent. */
  percent: number;
  /** Target groups whose spend is in another currency: not counted. */
  otherCurrency: string[];
  text: string;
}

/**
 * The spend so far (each target group's latest `completes_cost`, summed) against the budget. Reached at the
 * budget itself: a budget is what may be spent, so spending all of it stops the study.
 */
export function budgetSpent(budget: Money, spends: readonly { key: string; spend?: Money }[]): BudgetSpend {
  const limit = toMicros(budget.value) ?? 0n;
  let sum = 0n;
  const otherCurrency: string[] = [];
  for (const { key, spend } of spends) {
    if (!spend) continue;
    const micros = toMicros(spend.value);
    if (spend.currency_code !== budget.currency_code || micros === undefined) otherCurrency.push(key);
    else sum += micros;
  }
  const spent = moneyOf(sum, budget.currency_code);
  const reached = sum >= limit;
  const pct = percent(sum, limit);
  const text = `spent ${moneyText(spent)} of the budget ${moneyText(budget)} (${pct}%)${reached ? ': budget reached' : ''}${otherCurrency.length ? `; not counted (another currency): ${otherCurrency.join(', ')}` : ''}`;
  return { budget: { ...budget }, spent, reached, percent: pct, otherCurrency, text };
}

/** The cost of `completes` at `price`, exactly. */
export function costOf(price: Money, completes: number): Money | undefined {
  const micros = toMicros(price.value);
  return micros === undefined ? undefined : moneyOf(scaleMicros(micros, BigInt(Math.max(0, Math.round(completes))), 1n), price.currency_code);
}

/**
 * The plan's warnings of a budget (`studyflow plan`, as notes beside the actions):
 * - a price the exchange gave in another currency than the budget's: the budget can never be judged against it
 *   (studyflow converts nothing), so it would pass without a word;
 * - a spend so far in another currency: the same, during fielding;
 * - a budget at or below the spend so far (the study's status): applying it pauses the live target groups.
 * `spent` is the study's spend as its status last read it; `live` the target groups live now. None without a budget.
 */
export function budgetNotes(budget: Money | undefined, verdict: BudgetVerdict | undefined, spent: Money | undefined, live: readonly string[], held = false): PlanNote[] {
  if (!budget) return [];
  const notes: PlanNote[] = [];
  const byCurrency = new Map<string, string[]>();
  for (const p of verdict?.unpriced ?? []) {
    const currency = /^its price is in (\S+),/.exec(p.why)?.[1];
    if (currency) byCurrency.set(currency, [...(byCurrency.get(currency) ?? []), p.key]);
  }
  for (const [currency, keys] of byCurrency) {
    notes.push({ severity: 'warning', text: `the exchange prices ${keys.join(', ')} in ${currency}, the budget is in ${budget.currency_code}: the budget can never be judged against them (studyflow converts nothing); give the budget in the business unit's currency` });
  }
  if (spent) {
    const over = differenceMicros(spent, budget);
    if (spent.currency_code !== budget.currency_code) {
      notes.push({ severity: 'warning', text: `the spend so far is in ${spent.currency_code}, the budget in ${budget.currency_code}: the budget can never stop the study's spend` });
    } else if (over !== undefined && over >= 0n && live.length && !held) {
      notes.push({ severity: 'warning', text: `the budget ${moneyText(budget)} is at or below the spend so far (${moneyText(spent)}): applying it pauses the live target groups ${live.join(', ')}` });
    }
  }
  return notes;
}
