// The study's budget: its predicted cost before launch (feasibility's suggested price × filling goal, summed
// over the target groups) and its spend during fielding (completes_cost, summed). Pure: `studyflow plan`
// judges the price answers of its server checks with it, and the workflows (once wired) judge the gate
// readings and the watch's performance readings with the same functions. Money is exact (plan/money.ts).
import { moneyOf, moneyText, scaleMicros, toMicros } from './money';
import type { TargetGroupChecks } from './server-checks';
import type { BudgetVerdict, DesiredStudy, Money, PlannedAction, StudyPlan } from './types';

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

/** The blocked action of a study over its budget: what `plan --detailed-exitcode` answers 3 for. */
export function overBudgetAction(studyId: string, verdict: BudgetVerdict): PlannedAction {
  return { kind: 'blocked', resource: 'project', key: studyId, reason: `${OVER_BUDGET}: ${verdict.text}` };
}

/**
 * The plan with its budget judged against the server checks' prices: the verdict, and a blocked action when
 * the study is over budget. A plan of a study without a budget is returned as it is.
 */
export function withBudget(plan: StudyPlan, desired: DesiredStudy, checks: readonly TargetGroupChecks[] | undefined, why?: string): StudyPlan {
  if (!desired.budget) return plan;
  const verdict = budgetVerdict(desired.budget, budgetInputsFromChecks(desired, checks, why));
  const actions = plan.actions.filter((a) => !(a.kind === 'blocked' && a.resource === 'project' && a.reason.startsWith(`${OVER_BUDGET}:`)));
  if (verdict.verdict === 'over') actions.push(overBudgetAction(desired.studyId, verdict));
  return { ...plan, actions, budget: verdict };
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
