// The study's budget in its workflow. The decisions are plan/budget.ts's; this file gives them their inputs
// and carries them out:
// - before a revision is planned, the launch gates of the target groups whose launch is ahead are read: their
//   suggested prices are the prediction's inputs (planRevision judges them; over budget the program launches
//   nothing, and the plan's blocked action is the refusal apply names);
// - during fielding, the spend the children's watches report (completes_cost) is summed against the budget; at
//   the budget the study pauses its live target groups through their fielding path (the operators' control
//   signal), records it, tells the `notify:` targets once, and resumes nothing on its own. The hold is part
//   of planning (plan/budget.ts heldByBudget, holdResumes): a revision under the same budget does not resume
//   what the study paused; one whose budget is above the spend (or that drops the budget) lifts it, and its
//   plan resumes them.
import { log, upsertSearchAttributes } from '@temporalio/workflow';
import { budgetInputsFromGates, budgetSpent, OVER_BUDGET, type GatePrice } from '../../plan/budget';
import type { RevisionBudget } from '../../plan/pipeline';
import { revisionBudgetFrom, type RevisionInputs } from '../../plan/revision-inputs';
import { moneyText } from '../../plan/money';
import type { DesiredStudy, Money, StudyPlan } from '../../plan/types';
import type { Api } from '../activity-proxies';
import { readGates, type GateRead } from '../launch';
import type { FieldingControlRequest, StudyBudgetStatus } from '../messages';
import { notify } from '../notify';
import { REASON } from '../search-attributes';
import { sendControl } from './controls';
import type { StudyState } from './state';

/** The study's StudyflowReason while its budget is reached. */
export const BUDGET_REACHED_REASON = 'budget_reached';

/** What planning a revision takes of the budget (plan/pipeline.ts), and the gate readings the launch path reuses. */
export interface RevisionBudgetRead extends RevisionBudget {
  gates?: Record<string, GateRead>;
}

/**
 * The budget's part of planning a revision: the target groups its hold keeps paused under the revision's budget,
 * and, for a study with a budget and launches ahead, the prices their launch gates read (feasibility and price: the
 * same reading the launch path judges, made once). Which gates, and the hold, are plan/revision-inputs.ts's
 * (`revisionInputs`, which `studyflow plan` calls too); this reads them.
 */
export async function revisionBudget(state: StudyState, api: Api, desired: DesiredStudy, inputs: RevisionInputs): Promise<RevisionBudgetRead> {
  const ahead = new Set(inputs.toPrice);
  if (ahead.size === 0) return revisionBudgetFrom(inputs);
  const items = desired.targetGroups.filter((tg) => ahead.has(tg.key)).map((tg) => ({ desired: tg, ctx: state.ctxFor(`tg:${tg.key}`), businessUnitId: desired.businessUnitId }));
  const gates = await readGates(api, items);
  const prices: Record<string, GatePrice> = {};
  for (const [key, read] of Object.entries(gates)) prices[key] = read.ok ? { ok: true, ...(read.gate.price ? { price: read.gate.price } : {}) } : { ok: false, why: read.failure.message };
  return { ...revisionBudgetFrom(inputs, budgetInputsFromGates(desired, prices)), gates };
}

/**
 * Takes a revision's budget up once it is planned: the prediction (and the refusal, when the plan launched
 * nothing over budget), the notify targets, and the hold as the plan judged it (`held`: kept; absent: a hold
 * is lifted). A study without a budget lifts any hold.
 */
export function takeRevisionBudget(state: StudyState, desired: DesiredStudy, plan: StudyPlan, held: RevisionBudget['held']): void {
  state.notify = desired.notify;
  const prior = state.status.budget;
  if (!desired.budget) {
    if (prior?.reached) liftHold(state, prior, desired, plan, 'the revision has no budget');
    delete state.status.budget;
    return;
  }
  const refused = plan.budget?.verdict === 'over';
  const next: StudyBudgetStatus = { budget: { ...desired.budget }, ...(plan.budget ? { prediction: plan.budget.text } : {}), ...(refused ? { refused: OVER_BUDGET } : {}) };
  if (prior?.reached) next.reached = prior.reached;
  if (prior?.spent) next.spent = prior.spent;
  if (prior?.spend) next.spend = prior.spend;
  state.status.budget = next;
  if (refused) log.warn('revision over budget: nothing launched', { revision: desired.revision, prediction: plan.budget?.text });
  // The hold stays exactly when the plan kept it; else the revision lifts it.
  if (next.reached && !held) liftHold(state, next, desired, plan, `the budget is now ${moneyText(next.budget)}`);
  judgeSpend(state);
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
  // Best effort, never rejects. The occurrence is the budget and the moment the hold began (workflow time, kept in the
  // status): a retry or a replay sends nothing new; a new hold (after a revision lifted the last one) sends again.
  const occurrence = `${budget.budget.value} ${budget.budget.currency_code} ${reached.at}`;
  void notify(state.notify, { kind: 'budget_reached', studyId: state.studyId, at: reached.at, spent: figure(spend.spent), budget: figure(budget.budget) }, occurrence);
}

/**
 * Lifts the hold. The revision's plan resumes the target groups the study paused that it observed paused (the
 * file's `fielding: live`, stated or by default); one it did not see paused yet (the pause was on its way) and
 * whose file wants it live is resumed here with the control signal. One the file wants paused stays paused.
 */
function liftHold(state: StudyState, budget: StudyBudgetStatus, desired: DesiredStudy, plan: StudyPlan, why: string): void {
  const paused = budget.reached?.paused ?? [];
  delete budget.reached;
  upsertSearchAttributes([{ key: REASON, value: null }]);
  const byPlan = new Set(plan.actions.filter((a) => a.kind === 'resume' && a.resource === 'fielding').map((a) => a.key));
  const wantsLive = (key: string) => (desired.targetGroups.find((tg) => tg.key === key)?.fielding ?? 'live') === 'live';
  const bySignal = paused.filter((key) => !byPlan.has(key) && wantsLive(key) && state.children.has(key) && state.status.targetGroups[key]?.phase === 'paused');
  log.info('budget hold lifted', { why, resumedByPlan: paused.filter((k) => byPlan.has(k)), resumedBySignal: bySignal });
  for (const key of bySignal) control(state, key, 'resume');
  for (const key of paused) noteChange(state, key, `budget hold lifted (${why})`);
}

/** The operators' control signal to a target group's workflow (it pauses or resumes through its fielding path); a revision settles once it shows. */
function control(state: StudyState, key: string, action: FieldingControlRequest['action'], onRefused?: () => void): void {
  void sendControl(state, key, action)
    .then((taken) => {
      if (!taken) onRefused?.();
    })
    .catch(() => undefined); // cancelled with the workflow: nothing to tell
}

/** A line in the target group's report changes (what `studyflow report` lists since launch). */
function noteChange(state: StudyState, key: string, detail: string): void {
  const report = state.reports[key];
  if (!report) return;
  const seq = (report.changes.at(-1)?.seq ?? 0) + 1;
  state.takeReport({ key, expected: report.expected, changes: [{ seq, time: new Date().toISOString(), kind: 'event', detail }] });
}
