// The judgement of a live target group's feasibility check (the `check` action plan/live-plan.ts plans
// before a goal raise or a shorter window): the answer of calculate_target_group_feasibility_by_id read as
// the launch gate reads a draft's, judged by the same rules. The judgement is data (the verdict, the rules it
// fails, whether it waits for approval); the lines `studyflow plan` and the unapplied list show are rendered
// from it here, last. Pure.
import { gateFailures, readFeasibility, type FeasibilityVerdict } from './launch-gates';
import type { DesiredTargetGroup, LiveGate } from './types';

export interface LiveGateJudgement {
  verdict: FeasibilityVerdict;
  /** What the check is for (the gate's `because`), e.g. "raising filling_goal 200 -> 300". */
  because: string[];
  /** Why the change is refused; empty when it may be written (after approval when `waitsForApproval`). */
  failures: string[];
  /** No rule refuses it and the launch mode is manual: it is written once approved. */
  waitsForApproval: boolean;
}

export function judgeLiveGate(desired: DesiredTargetGroup, gate: LiveGate, answer: Record<string, unknown>): LiveGateJudgement {
  const verdict = readFeasibility(answer, desired);
  const rules: DesiredTargetGroup = { ...desired, launch: { ...desired.launch, requireFeasible: gate.requireFeasible, maxCpi: gate.maxCpi } };
  const failures = gateFailures(rules, verdict, verdict.suggestedPrice);
  return { verdict, because: [...gate.because], failures, waitsForApproval: failures.length === 0 && gate.approval };
}

/** Why a judged change is held, or undefined when it may be written now (`approved`: `studyflow approve` was given). */
export type LiveGateHold =
  | { held: 'refused'; failures: string[] }
  | { held: 'waits_for_approval' };

export function liveGateHold(judged: LiveGateJudgement, approved: boolean): LiveGateHold | undefined {
  if (judged.failures.length) return { held: 'refused', failures: judged.failures };
  if (judged.waitsForApproval && !approved) return { held: 'waits_for_approval' };
  return undefined;
}

/** e.g. "raising filling_goal 200 -> 300: feasible (up to 420 completes), suggested price 4.10 USD". */
export function liveGateReading(judged: LiveGateJudgement): string {
  const { verdict } = judged;
  const reach = verdict.feasibleCompletes === undefined ? 'no completes range' : `up to ${verdict.feasibleCompletes} completes`;
  const price = verdict.suggestedPrice ? `, suggested price ${verdict.suggestedPrice.value} ${verdict.suggestedPrice.currency_code}` : '';
  return `${judged.because.join(' and ')}: ${verdict.feasible ? 'feasible' : 'infeasible'} (${reach})${price}`;
}

/** Why a hold holds, in words: the rules refused, or the approval it waits for. */
export function liveGateHoldText(hold: LiveGateHold): string {
  return hold.held === 'refused' ? hold.failures.join('; ') : 'waits for `studyflow approve` (launch.mode manual), then apply again';
}

/** The reading and its outcome, e.g. "…, suggested price 4.10 USD; waits for approval" (or "; held: …", "; may be written"). */
export function liveGateLine(judged: LiveGateJudgement): string {
  const outcome = judged.failures.length ? `held: ${judged.failures.join('; ')}` : judged.waitsForApproval ? 'waits for approval' : 'may be written';
  return `${liveGateReading(judged)}; ${outcome}`;
}
