// The plan's guards in force and budget line in the human, markdown and GitHub plans, with a study over budget.
import { describe, expect, it } from 'vitest';
import { Output } from '../../cli/output';
import { renderPlanGithub, renderPlanHuman, renderPlanMarkdown } from '../../cli/plan-view';
import { budgetVerdict, overBudgetAction } from '../../plan/budget';
import type { StudyPlan } from '../../plan/types';

const USD = (value: string) => ({ value, currency_code: 'USD' });
const over = budgetVerdict(USD('1000'), [{ key: 'us', goal: 300, price: USD('4.00') }]);
const plan: StudyPlan = {
  studyId: 'budget-study',
  revision: 'r1',
  actions: [{ kind: 'launch', resource: 'fielding', key: 'us', reason: 'launch after approval' }, overBudgetAction('budget-study', over)],
  hasChanges: true,
  guards: [{ key: 'us', guards: ['low_incidence: incidence below 0.175 (0.5 of the expected 0.35) after 200 entrants; pauses', 'stalled: no complete for P2D while live; pauses'] }],
  budget: over,
};

describe('guards and budget in the plan', () => {
  it('human: the guards in force per target group, the budget line, and the blocked launch', () => {
    const text = renderPlanHuman(new Output({ stdout: process.stdout, stderr: process.stderr }, { NO_COLOR: '1' }), 'title', plan);
    expect(text).toContain(
      [
        'Guards in force:',
        '  us  low_incidence: incidence below 0.175 (0.5 of the expected 0.35) after 200 entrants; pauses',
        '      stalled: no complete for P2D while live; pauses',
        'Budget: predicted cost 1200.00 USD of the budget 1000 USD (120%): over budget; apply refuses to launch',
      ].join('\n'),
    );
    expect(text).toContain('  ! blocked project: StudyOverBudget: predicted cost 1200.00 USD');
    expect(text).toContain('1 blocked (cannot be applied)');
  });

  it('markdown: a table of the guards and the budget, marked blocking', () => {
    const md = renderPlanMarkdown([{ title: 'title', plan }]);
    expect(md).toContain('| us | stalled: no complete for P2D while live; pauses |');
    expect(md).toContain('> **budget (BLOCKING)**: predicted cost 1200.00 USD of the budget 1000 USD (120%): over budget; apply refuses to launch');
  });

  it('GitHub: over budget is a warning (its blocked action)', () => {
    const gh = renderPlanGithub([{ file: 'study.yaml', title: 'title', plan }]);
    expect(gh).toContain('::warning file=study.yaml,title=blocked budget-study::StudyOverBudget: predicted cost 1200.00 USD');
  });
});
