// plan/budget.ts budgetNotes: the budget warnings `studyflow plan` gives beside its actions: prices (or spend) in
// another currency than the budget's can never be judged, and a budget at or below the spend so far pauses the live
// target groups when applied.
import { describe, expect, it } from 'vitest';
import { budgetNotes, budgetVerdict } from '../../plan/budget';

const USD = (value: string) => ({ value, currency_code: 'USD' });
const EUR = (value: string) => ({ value, currency_code: 'EUR' });

describe('budget warnings in plan', () => {
  it('a budget in EUR against the exchange\'s USD prices can never be judged: a warning, not silence', () => {
    const verdict = budgetVerdict(EUR('1000'), [{ key: 'us', goal: 100, price: USD('4.50') }, { key: 'uk', goal: 100, price: USD('3.00') }]);
    expect(verdict.verdict).toBe('incomplete');
    expect(budgetNotes(EUR('1000'), verdict, undefined, [])).toEqual([
      { severity: 'warning', text: "the exchange prices us, uk in USD, the budget is in EUR: the budget can never be judged against them (studyflow converts nothing); give the budget in the business unit's currency" },
    ]);
    expect(budgetNotes(USD('1000'), budgetVerdict(USD('1000'), [{ key: 'us', goal: 100, price: USD('4.50') }]), undefined, [])).toEqual([]);
  });

  it('a budget below the spend so far warns that applying it pauses the live target groups', () => {
    expect(budgetNotes(USD('500'), undefined, USD('540.00'), ['us', 'uk'])).toEqual([
      { severity: 'warning', text: 'the budget 500 USD is at or below the spend so far (540.00 USD): applying it pauses the live target groups us, uk' },
    ]);
    expect(budgetNotes(USD('600'), undefined, USD('540.00'), ['us'])).toEqual([]);
    // Already held by the budget, or nothing live: nothing new to say.
    expect(budgetNotes(USD('500'), undefined, USD('540.00'), ['us'], true)).toEqual([]);
    expect(budgetNotes(USD('500'), undefined, USD('540.00'), [])).toEqual([]);
    expect(budgetNotes(USD('500'), undefined, EUR('540.00'), ['us'])[0].text).toMatch(/spend so far is in EUR, the budget in USD/);
    expect(budgetNotes(undefined, undefined, USD('540.00'), ['us'])).toEqual([]);
  });
});
