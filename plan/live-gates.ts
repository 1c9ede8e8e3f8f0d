// The judgement of a live target group's feasibility check (the `check` action plan/live-plan.ts plans
// before a goal raise or a shorter window): the answer of calculate_target_group_feasibility_by_id read as
// the launch gate reads a draft's, judged by the same rules, and the line `studyflow plan` shows. Pure.
import { gateFailures, readFeasibility, type FeasibilityVerdict } from './launch-gates';
import type { DesiredTargetGroup, LiveGate } from './types';

export interface LiveGateJudgement {
  verdict: FeasibilityVerdict;
  /** Why the change is held; empty when it may be written (after approval when `gate.approval`). */
  failures: string[];
  /** e.g. "raising filling_goal 200 -> 300: feasible (up to 420 completes), suggested price 4.10 USD; waits for approval". */
  line: string;
}

export function judgeLiveGate(desired: DesiredTargetGroup, gate: LiveGate, answer: Record<string, unknown>): LiveGateJudgement {
  const verdict = readFeasibility(answer, desired);
  const rules: DesiredTargetGroup = { ...desired, launch: { ...desired.launch, requireFeasible: gate.requireFeasible, maxCpi: gate.maxCpi } };
  const failures = gateFailures(rules, verdict, verdict.suggestedPrice);
  const reach = verdict.feasibleCompletes === undefined ? 'no completes range' : `up to ${verdict.feasibleCompletes} completes`;
  const price = verdict.suggestedPrice ? `, suggested price ${verdict.suggestedPrice.value} ${verdict.suggestedPrice.currency_code}` : '';
  const outcome = failures.length ? `held: ${failures.join('; ')}` : gate.approval ? 'waits for approval' : 'may be written';
  return { verdict, failures, line: `${gate.because.join(' and ')}: ${verdict.feasible ? 'feasible' : 'infeasible'} (${reach})${price}; ${outcome}` };
}
