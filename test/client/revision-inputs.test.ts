// What `studyflow plan` and the study workflow both derive before planning a revision (plan/revision-inputs.ts):
// one function, so the plan's inputs are the ones apply plans with (issue 35).
import { describe, expect, it } from 'vitest';
import { revisionBudgetFrom, revisionInputs } from '../../plan/revision-inputs';
import type { DesiredStudy, DesiredTargetGroup, ObservedStudy } from '../../plan/types';

const tg = (key: string, extra: Partial<DesiredTargetGroup> = {}) => ({ key, draft: { filling_goal: 100 }, idLists: {}, exclusionGroups: [], ...extra }) as unknown as DesiredTargetGroup;
const study = (budget?: { value: string; currency_code: string }) =>
  ({ studyId: 's', accountId: '1001', targetGroups: [tg('us'), tg('de'), tg('uk', { movedFrom: 'gb' })], exclusionGroups: [], webhooks: [], ...(budget ? { budget } : {}) }) as unknown as DesiredStudy;
const remote = (status: string) => ({ id: `id-${status}`, status, fields: {}, idLists: {} });
const observed: ObservedStudy = { project: { id: 'p', fields: {} }, targetGroups: { us: remote('live'), de: remote('draft') }, exclusionGroups: {} };
const status = {
  managedTargetGroups: ['us'],
  childSpecDigests: { us: 'digest-us' },
  targetGroups: { us: { phase: 'paused' } },
  budget: { spent: { value: '900', currency_code: 'USD' }, reached: { paused: ['us'] } },
};

describe('revisionInputs', () => {
  it('derives the running children, the budget hold and the launches ahead from what was read', () => {
    const inputs = revisionInputs(study({ value: '800', currency_code: 'USD' }), observed, status);
    expect([...inputs.running]).toEqual([['us', { specDigest: 'digest-us', phase: 'paused' }]]);
    expect(inputs.held?.keys).toEqual(['us']);
    // us is live already: no launch ahead; de is a draft, uk not in the exchange yet.
    expect(inputs.launchAhead).toEqual(['de', 'uk']);
    expect(inputs.toPrice).toEqual(['de', 'uk']);
    expect(revisionBudgetFrom(inputs)).toEqual({ held: inputs.held });
    const prices = [{ key: 'de', goal: 100 }];
    expect(revisionBudgetFrom(inputs, prices)).toEqual({ inputs: prices, held: inputs.held });
  });

  it('prices nothing and holds nothing without a budget, or under a budget above the spend', () => {
    const none = revisionInputs(study(), observed, status);
    expect(none.toPrice).toEqual([]);
    expect(none.launchAhead).toEqual(['de', 'uk']);
    expect(none.held).toBeUndefined();
    expect(revisionInputs(study({ value: '1000', currency_code: 'USD' }), observed, status).held).toBeUndefined();
    expect(revisionBudgetFrom(none)).toEqual({});
  });

  it('starts from nothing when no workflow remembers the study (plan offline, or before the first apply)', () => {
    const inputs = revisionInputs(study({ value: '800', currency_code: 'USD' }), { targetGroups: {}, exclusionGroups: {} }, undefined);
    expect(inputs.running.size).toBe(0);
    expect(inputs.held).toBeUndefined();
    expect(inputs.launchAhead).toEqual(['us', 'de', 'uk']);
  });
});
