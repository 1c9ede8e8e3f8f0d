// plan/budget.ts: the predicted cost (suggested price × goal, summed, exactly) against the budget, over budget
// as a blocked action (plan exit code 3), and the watch's spend against it.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStudyFile } from '../../definitions';
import { budgetInputsFromChecks, budgetInputsFromGates, budgetSpent, budgetVerdict, heldByBudget, holdResumes, judgeBudget, launchAhead, OVER_BUDGET, withBudget, type BudgetInput } from '../../plan/budget';
import { desiredStudyOf } from '../../plan/desired';
import { blockedChanges, planExitCode, PLAN_EXIT } from '../../plan/exit-code';
import { planRevision } from '../../plan/pipeline';
import type { StudyStep, TargetGroupStep } from '../../plan/program';
import type { TargetGroupChecks } from '../../plan/server-checks';
import type { DesiredStudy, DesiredTargetGroup, ObservedStudy, StudyPlan } from '../../plan/types';

const USD = (value: string) => ({ value, currency_code: 'USD' });
// us: 400 × 4.50 = 1800.00; uk: 200 × 3.25 = 650.00; together 2450.00.
const INPUTS: BudgetInput[] = [
  { key: 'us', goal: 400, price: USD('4.50') },
  { key: 'uk', goal: 200, price: USD('3.25') },
];

describe('budgetVerdict', () => {
  it('sums price × goal exactly and is within at the budget itself', () => {
    const verdict = budgetVerdict(USD('2450.00'), INPUTS);
    expect(verdict).toMatchObject({ verdict: 'within', predicted: USD('2450.00'), text: 'predicted cost 2450.00 USD of the budget 2450.00 USD (100%)' });
    expect(verdict.priced.map((p) => [p.key, p.cost.value])).toEqual([['us', '1800.00'], ['uk', '650.00']]);
  });

  it('is over a cent below the prediction', () => {
    const verdict = budgetVerdict(USD('2449.99'), INPUTS);
    expect(verdict.verdict).toBe('over');
    expect(verdict.text).toBe('predicted cost 2450.00 USD of the budget 2449.99 USD (100%): over budget; apply refuses to launch');
  });

  it('adds prices of six decimals without rounding: 100,000 × 0.000001 = 0.10', () => {
    expect(budgetVerdict(USD('1'), [{ key: 'a', goal: 100_000, price: USD('0.000001') }]).predicted).toEqual(USD('0.10'));
  });

  it('is incomplete while a target group has no price, and over when the priced ones alone pass the budget', () => {
    const partial = budgetVerdict(USD('5000'), [...INPUTS, { key: 'de', goal: 300, why: 'unavailable: HTTP 503' }]);
    expect(partial).toMatchObject({ verdict: 'incomplete', unpriced: [{ key: 'de', why: 'unavailable: HTTP 503' }] });
    expect(partial.text).toBe('predicted cost 2450.00 USD of the budget 5000 USD (49%) for 2 of 3 target groups; not priced: de: unavailable: HTTP 503');
    expect(budgetVerdict(USD('2000'), [...INPUTS, { key: 'de', goal: 300 }]).verdict).toBe('over');
  });

  it('converts no currency: a price in EUR is not priced against a USD budget', () => {
    const verdict = budgetVerdict(USD('5000'), [{ key: 'de', goal: 300, price: { value: '4.00', currency_code: 'EUR' } }]);
    expect(verdict.unpriced).toEqual([{ key: 'de', why: 'its price is in EUR, the budget in USD' }]);
    expect(verdict.text).toBe('5000 USD; no cost predicted (its price is in EUR, the budget in USD)');
  });
});

describe('budgetSpent', () => {
  it('reaches the budget when the spend equals it, not a cent before', () => {
    expect(budgetSpent(USD('2500'), [{ key: 'us', spend: USD('1000.005') }, { key: 'uk', spend: USD('1499.995') }])).toMatchObject({ spent: USD('2500.00'), reached: true, percent: 100 });
    const short = budgetSpent(USD('2500'), [{ key: 'us', spend: USD('1000.00') }, { key: 'uk', spend: USD('1499.99') }, { key: 'de' }]);
    expect(short).toMatchObject({ spent: USD('2499.99'), reached: false, text: 'spent 2499.99 USD of the budget 2500 USD (100%)' });
  });

  it('leaves out a spend in another currency, and says so', () => {
    const spent = budgetSpent(USD('100'), [{ key: 'de', spend: { value: '500', currency_code: 'EUR' } }]);
    expect(spent).toMatchObject({ reached: false, otherCurrency: ['de'] });
    expect(spent.text).toContain('not counted (another currency): de');
  });
});

describe('the plan with its budget', () => {
  const tg = (key: string, goal: number): DesiredTargetGroup =>
    ({ key, draft: { filling_goal: goal }, idLists: {}, exclusionGroups: [], launch: { mode: 'manual', requireFeasible: true }, timing: {} }) as unknown as DesiredTargetGroup;
  const desired = { studyId: 'budget-study', targetGroups: [tg('uk', 200), tg('us', 400)], budget: USD('2000.00') } as unknown as DesiredStudy;
  const plan: StudyPlan = { studyId: 'budget-study', revision: 'r1', actions: [{ kind: 'launch', resource: 'fielding', key: 'us', reason: 'launch' }], hasChanges: true };
  const checks = (price: string): TargetGroupChecks[] =>
    ['uk', 'us'].map((key) => ({
      key,
      blocking: false,
      checks: [{ name: 'feasibility', outcome: 'pass', summary: 'feasible', data: { suggestedPrice: USD(price) } }],
    }));

  it('reads the suggested prices of the feasibility checks', () => {
    expect(budgetInputsFromChecks(desired, checks('3.00'))).toEqual([
      { key: 'uk', goal: 200, price: USD('3.00') },
      { key: 'us', goal: 400, price: USD('3.00') },
    ]);
  });

  it('blocks the plan over budget (exit code 3) and leaves it alone within', () => {
    // 600 completes × 3.40 = 2040.00 > 2000.00.
    const over = withBudget(plan, desired, checks('3.40'));
    expect(over.budget?.verdict).toBe('over');
    expect(over.actions.at(-1)).toEqual({ kind: 'blocked', resource: 'project', key: 'budget-study', reason: `${OVER_BUDGET}: predicted cost 2040.00 USD of the budget 2000.00 USD (102%): over budget; apply refuses to launch` });
    expect(planExitCode([over])).toBe(PLAN_EXIT.blocked);
    // 600 × 3.33 = 1998.00.
    const within = withBudget(plan, desired, checks('3.33'));
    expect(within.actions).toEqual(plan.actions);
    expect(planExitCode([within])).toBe(PLAN_EXIT.pending);
  });

  it('says why there is no prediction without checks, and leaves a study without a budget as it is', () => {
    expect(withBudget(plan, desired, undefined, 'skipped (offline)').budget?.text).toBe('2000.00 USD; no cost predicted (skipped (offline))');
    expect(withBudget(plan, { ...desired, budget: undefined }, checks('9'))).toBe(plan);
  });
});

describe('the decision: a study over budget launches nothing', () => {
  const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
  const EMPTY: ObservedStudy = { targetGroups: {}, exclusionGroups: {} };
  /** The multi-country tracker (budget 12000.00 USD; goals us 400, uk 300, de 250: 950 completes), launching automatically. */
  async function tracker(): Promise<DesiredStudy> {
    const loaded = await loadStudyFile(path.join(REPO_ROOT, 'examples', 'multi-country-tracker', 'study.yaml'));
    if (!loaded.study) throw new Error('the example does not load');
    const desired = desiredStudyOf(loaded.study.study, {});
    return { ...desired, targetGroups: desired.targetGroups.map((tg) => ({ ...tg, launch: { ...tg.launch, mode: 'auto' } })) };
  }
  const priced = (desired: DesiredStudy, price: string) => budgetInputsFromGates(desired, Object.fromEntries(desired.targetGroups.map((tg) => [tg.key, { ok: true, price: USD(price) }])));
  const launchSteps = (steps: readonly (StudyStep | TargetGroupStep)[]): string[] =>
    steps.flatMap((s): string[] => {
      if (s.kind === 'together') return s.lanes.flatMap((l) => launchSteps(l));
      // The study's launch steps name the target groups they launch (an empty one runs nothing).
      if (s.kind === 'launch_batch' || s.kind === 'await_launches') return s.keys.map((k) => `${s.kind} ${k}`);
      return ['launch', 'await_job', 'schedule_launch'].includes(s.kind) ? [s.kind] : [];
    });

  it('over budget: no launch in the plan, the schedule or any program, one blocked action naming the figures', async () => {
    const desired = await tracker();
    expect(desired.budget).toEqual(USD('12000.00'));
    // 950 × 12.64 = 12008.00 > 12000.00.
    const { plan, schedule, program } = planRevision(desired, EMPTY, undefined, undefined, { inputs: priced(desired, '12.64') });
    expect(plan.budget?.verdict).toBe('over');
    expect(plan.actions.filter((a) => a.kind === 'launch')).toEqual([]);
    expect(plan.actions.filter((a) => a.resource === 'fielding').map((a) => [a.key, a.kind, a.reason])).toEqual(
      desired.targetGroups.map((tg) => [tg.key, 'none', `not launched: ${OVER_BUDGET} (the study's predicted cost is over its budget)`]),
    );
    expect(plan.actions.filter((a) => a.kind === 'blocked')).toEqual([
      { kind: 'blocked', resource: 'project', key: desired.studyId, reason: `${OVER_BUDGET}: predicted cost 12008.00 USD of the budget 12000.00 USD (100%): over budget; apply refuses to launch` },
    ]);
    // The drafts are still written: creates remain, and the plan has changes.
    expect(plan.actions.some((a) => a.kind === 'create' && a.resource === 'target_group')).toBe(true);
    expect(plan.hasChanges).toBe(true);
    expect(schedule.targetGroups.map((t) => t.launch.by)).toEqual(desired.targetGroups.map(() => 'none'));
    expect(schedule.gateReads).toEqual([]);
    expect(launchSteps(program.study)).toEqual([]);
    for (const tg of program.targetGroups) {
      expect(launchSteps(tg.steps), tg.key).toEqual([]);
      expect(launchSteps(tg.fallback ?? []), tg.key).toEqual([]);
      expect(tg.steps.filter((s) => s.kind === 'read_gate')).toEqual([]);
    }
    // Apply names it among the changes not made, at the file's `budget`.
    expect(blockedChanges(plan.actions)).toEqual([{ targetGroup: desired.studyId, field: 'budget', reason: 'blocked', detail: expect.stringContaining(`${OVER_BUDGET}: predicted cost 12008.00 USD`) }]);
    expect(planExitCode([plan])).toBe(PLAN_EXIT.blocked);
  });

  it('within budget (at the budget itself) or incomplete: the program launches as without a budget', async () => {
    const desired = await tracker();
    const plain = planRevision(desired, EMPTY);
    // 950 × 12.63 = 11998.50 <= 12000.00.
    const within = planRevision(desired, EMPTY, undefined, undefined, { inputs: priced(desired, '12.63') });
    expect(within.plan.budget?.verdict).toBe('within');
    expect(within.program).toEqual(plain.program);
    expect(within.plan.actions).toEqual(plain.plan.actions);
    expect(launchSteps(within.program.study).length).toBeGreaterThan(0);
    const unread = budgetInputsFromGates(desired, { [desired.targetGroups[0].key]: { ok: false, why: 'HTTP 503' } });
    const incomplete = planRevision(desired, EMPTY, undefined, undefined, { inputs: unread });
    expect(incomplete.plan.budget?.verdict).toBe('incomplete');
    expect(incomplete.plan.budget?.unpriced[0]).toEqual({ key: desired.targetGroups[0].key, why: 'unavailable: HTTP 503' });
    expect(incomplete.program).toEqual(plain.program);
  });

  it('a revision within a raised budget launches again: the refusal is not carried over', async () => {
    const desired = await tracker();
    const over = judgeBudget(planRevision(desired, EMPTY).plan, desired, priced(desired, '20'));
    const raised = { ...desired, budget: USD('19000.00') };
    const again = judgeBudget(over, raised, priced(raised, '20'));
    expect(again.budget?.verdict).toBe('within');
    expect(again.actions.filter((a) => a.kind === 'blocked')).toEqual([]);
  });

  it('prices only the target groups whose launch is ahead (absent, or a draft in the exchange)', async () => {
    const desired = await tracker();
    const [us, uk, de] = desired.targetGroups.map((t) => t.key);
    const observed: ObservedStudy = {
      targetGroups: { [us]: { id: 'a', status: 'live', fields: {}, idLists: {} }, [uk]: { id: 'b', status: 'draft', fields: {}, idLists: {} } },
      exclusionGroups: {},
    };
    expect(launchAhead(desired, observed)).toEqual([uk, de]);
    const inputs = budgetInputsFromGates(desired, { [uk]: { ok: true, price: USD('2') }, [de]: { ok: true } });
    expect(inputs.map((i) => [i.key, i.price?.value ?? i.why])).toEqual([
      [us, 'no launch ahead'],
      [uk, '2'],
      [de, 'feasibility suggested no price'],
    ]);
  });
});

describe('the hold of a budget reached', () => {
  const paused = { spent: USD('120.50'), paused: ['us', 'uk'] };
  const plan: StudyPlan = {
    studyId: 's',
    revision: 'r2',
    actions: [
      { kind: 'resume', resource: 'fielding', key: 'us', operation: 'resume_fielding_run', drift: true, reason: 'paused in the exchange, `fielding: live` in the file: resume the fielding run' },
      { kind: 'resume', resource: 'fielding', key: 'de', operation: 'resume_fielding_run', drift: true, reason: 'paused in the exchange, `fielding: live` in the file: resume the fielding run' },
      { kind: 'none', resource: 'fielding', key: 'uk', reason: 'paused' },
    ],
    hasChanges: true,
  };

  it('holds the paused target groups while the spend is at or above the revision budget, and lifts above it or without one', () => {
    expect(heldByBudget(USD('120.50'), paused)).toEqual({ keys: ['us', 'uk'], why: 'spent 120.50 USD of the budget 120.50 USD (100%): budget reached' });
    expect(heldByBudget(USD('100'), paused)?.keys).toEqual(['us', 'uk']);
    expect(heldByBudget(USD('120.51'), paused)).toBeUndefined();
    expect(heldByBudget(undefined, paused)).toBeUndefined();
    expect(heldByBudget(USD('100'), undefined)).toBeUndefined();
    expect(heldByBudget(USD('100'), { ...paused, spent: { value: '500', currency_code: 'EUR' } })).toBeUndefined();
  });

  it('turns the resume of a held target group into a blocked action naming the hold; others resume', () => {
    const kept = holdResumes(plan, heldByBudget(USD('100'), paused));
    expect(kept.actions[0]).toEqual({
      kind: 'blocked',
      resource: 'fielding',
      key: 'us',
      reason: "held paused by the study's budget (spent 120.50 USD of the budget 100 USD (121%): budget reached); a revision whose budget is above the spend resumes it",
    });
    expect(kept.actions.slice(1)).toEqual(plan.actions.slice(1));
    expect(kept.hasChanges).toBe(true);
    expect(blockedChanges(kept.actions)).toEqual([{ targetGroup: 'us', field: 'fielding', reason: 'blocked', detail: expect.stringContaining("held paused by the study's budget") }]);
    expect(planExitCode([kept])).toBe(PLAN_EXIT.blocked);
    expect(holdResumes(plan, undefined)).toBe(plan);
    const onlyHeld = holdResumes({ ...plan, actions: plan.actions.filter((a) => a.key !== 'de') }, heldByBudget(USD('100'), paused));
    expect(onlyHeld.hasChanges).toBe(false);
  });
});
