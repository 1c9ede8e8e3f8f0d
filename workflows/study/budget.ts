// The study's budget in its workflow. The decisions are plan/budget.ts's; this file gives them their inputs
// and carries them out:
// - before a revision is planned, the launch gates of the target groups whose launch is ahead are read: their
//   suggested prices are the prediction's inputs (planRevision judges them; over budget the program launches
//   nothing, and the plan's blocked action is the refusal apply names);
// - during fielding, the spend the children's watches report (completes_cost) is summed against the budget; at
//   the budget the study pauses its live target groups through their fielding path (the operators' control
//   signal), records it, tells the `notify:` targets once, and resumes nothing on its own. A revision whose
//   budget is above the spend (or that drops the budget) lifts the hold: it resumes what the study paused.
import { getExternalWorkflowHandle, isCancellation, log, upsertSearchAttributes } from '@temporalio/workflow';
import { budgetInputsFromGates, budgetSpent, launchAhead, OVER_BUDGET, type BudgetInput, type GatePrice } from '../../plan/budget';
import { moneyText } from '../../plan/money';
import type { DesiredStudy, Money, ObservedStudy, StudyPlan } from '../../plan/types';
import type { Api } from '../activity-proxies';
import { readGates, type GateRead } from '../launch';
import { targetGroupControlSignal, type FieldingControlRequest, type StudyBudgetStatus } from '../messages';
import { notify } from '../notify';
import { REASON } from '../search-attributes';
import type { StudyState } from './state';

/** The study's StudyflowReason while its budget is reached. */
export const BUDGET_REACHED_REASON = 'budget_reached';

/** What the study read before planning: the prediction's inputs, and the gate readings (the launch path reuses them). */
export interface LaunchPrices {
  inputs: BudgetInput[];
  gates: Record<string, GateRead>;
}

/**
 * Reads the launch gates (feasibility and price) of the target groups whose launch is ahead, for a study with a
 * budget: the same reading the launch path judges, made once. Nothing to read (no budget, nothing ahead): undefined.
 */
export async function readLaunchPrices(state: StudyState, api: Api, desired: DesiredStudy, observed: ObservedStudy): Promise<LaunchPrices | undefined> {
  if (!desired.budget) return undefined;
  const ahead = new Set(launchAhead(desired, observed));
  if (ahead.size === 0) return undefined;
  const items = desired.targetGroups.filter((tg) => ahead.has(tg.key)).map((tg) => ({ desired: tg, ctx: state.ctxFor(`tg:${tg.key}`), businessUnitId: desired.businessUnitId }));
  const gates = await readGates(api, items);
  const prices: Record<string, GatePrice> = {};
  for (const [key, read] of Object.entries(gates)) prices[key] = read.ok ? { ok: true, ...(read.gate.price ? { price: read.gate.price } : {}) } : { ok: false, why: read.failure.message };
  return { inputs: budgetInputsFromGates(desired, prices), gates };
}

/**
 * Takes a revision's budget up once it is planned: the prediction (and the refusal, when the plan launched
 * nothing over budget), the notify targets, and the hold re-judged against the new budget. A study without a
 * budget lifts any hold.
 */
export function takeRevisionBudget(state: StudyState, desired: DesiredStudy, plan: StudyPlan): void {
  state.notify = desired.notify;
  const prior = state.status.budget;
  if (!desired.budget) {
    if (prior?.reached) liftHold(state, prior, 'the revision has no budget');
    delete state.status.budget;
    return;
  }
  const refused = plan.budget?.verdict === 'over';
  const next: StudyBudgetStatus = { budget: { ...desired.budget }, ...(plan.budget ? { prediction: plan.budget.text } : {}), ...(refused ? { refused: OVER_BUDGET } : {}) };
  if (prior?.reached) next.reached = prior.reached;
  state.status.budget = next;
  if (refused) log.warn('revision over budget: nothing launched', { revision: desired.revision, prediction: plan.budget?.text });
  judgeSpend(state);
  if (next.reached && !budgetSpent(next.budget, spends(state)).reached) liftHold(state, next, `the budget is now ${moneyText(next.budget)}`);
}

/** Each target group's latest spend (completes_cost), from its watch's readings. */
function spends(state: StudyState): { key: string; spend?: Money }[] {
  return Object.keys(state.status.targetGroups).map((key) => ({ key, spend: state.reports[key]?.performance?.completesCost }));
}

/**
 * Judges the spend after a reading (or a progress) of a target group: records it, and at the budget pauses every
 * live target group the hold has not paused yet (one that went live after the budget was reached too), and
 * raises `budget_reached` once per budget amount. Never resumes anything.
 */
export function judgeSpend(state: StudyState): void {
  const budget = state.status.budget;
  const read = spends(state);
  // Nothing read yet (no target group fielding): no spend to judge.
  if (!budget || !read.some((s) => s.spend)) return;
  const spend = budgetSpent(budget.budget, read);
  budget.spent = spend.spent;
  budget.spend = spend.text;
  if (!spend.reached) return;
  const first = !budget.reached;
  const reached = (budget.reached ??= { at: new Date().toISOString(), spent: spend.spent, paused: [] });
  const live = [...state.children].filter((key) => state.status.targetGroups[key]?.phase === 'live' && !reached.paused.includes(key));
  for (const key of live) {
    reached.paused.push(key);
    control(state, key, 'pause', () => {
      // Not taken (the workflow ended): the next reading tries again.
      reached.paused = reached.paused.filter((k) => k !== key);
    });
    noteChange(state, key, `budget reached: ${spend.text}; the study paused it`);
  }
  if (!first) return;
  upsertSearchAttributes([{ key: REASON, value: BUDGET_REACHED_REASON }]);
  log.info('budget reached: pausing the live target groups', { spent: spend.text, paused: live });
  const figure = (m: Money) => ({ amount: Number(m.value), currency: m.currency_code });
  // Best effort, never rejects; the occurrence is the budget amount: a retry or a replay sends nothing new, a hold under a new budget does.
  void notify(state.notify, { kind: 'budget_reached', studyId: state.studyId, at: reached.at, spent: figure(spend.spent), budget: figure(budget.budget) }, `${budget.budget.value} ${budget.budget.currency_code}`);
}

/** Lifts the hold: resumes the target groups the study paused for the budget that are still paused. */
function liftHold(state: StudyState, budget: StudyBudgetStatus, why: string): void {
  const paused = budget.reached?.paused ?? [];
  delete budget.reached;
  upsertSearchAttributes([{ key: REASON, value: null }]);
  const resumed = paused.filter((key) => state.children.has(key) && state.status.targetGroups[key]?.phase === 'paused');
  log.info('budget hold lifted: resuming the target groups it paused', { why, resumed });
  for (const key of resumed) {
    control(state, key, 'resume');
    noteChange(state, key, `budget hold lifted (${why}); the study resumed it`);
  }
}

/** The operators' control signal to a target group's workflow (it pauses or resumes through its fielding path). */
function control(state: StudyState, key: string, action: FieldingControlRequest['action'], onRefused?: () => void): void {
  getExternalWorkflowHandle(state.childId(key))
    .signal(targetGroupControlSignal, action)
    .catch((error: unknown) => {
      if (isCancellation(error)) return;
      log.warn(`a target group's workflow did not take the budget's ${action}`, { key });
      onRefused?.();
    });
}

/** A line in the target group's report changes (what `studyflow report` lists since launch). */
function noteChange(state: StudyState, key: string, detail: string): void {
  const report = state.reports[key];
  if (!report) return;
  const seq = (report.changes.at(-1)?.seq ?? 0) + 1;
  state.takeReport({ key, expected: report.expected, changes: [{ seq, time: new Date().toISOString(), kind: 'event', detail }] });
}
