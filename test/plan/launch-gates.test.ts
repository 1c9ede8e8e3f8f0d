import { describe, expect, it } from 'vitest';
import type { DesiredTargetGroup } from '../../plan/types';
import { feasibilityRequest, gateFailures, judgedCpi, readFeasibility, readPrice } from '../../plan/launch-gates';
import { nextPollDelay } from '../../plan/job-timing';

const tg: DesiredTargetGroup = {
  key: 'us',
  draft: { locale: 'en_US', expected_incidence_rate: 0.3, expected_length_of_interview_minutes: 12, filling_goal: 400, pricing_model: 'rate_card' },
  idLists: {},
  exclusionGroups: [],
  launch: { mode: 'auto', requireFeasible: true, maxCpi: { value: '5.00', currency_code: 'USD' } },
  timing: { jobPollInitialMs: 100, jobPollMaxMs: 1000, jobTimeoutMs: 10_000, launchRetries: 3, watchIntervalMs: 60_000 },
};

describe('launch gates', () => {
  it('builds the feasibility request from the draft, without project_id', () => {
    const request = feasibilityRequest(tg);
    expect(request).toEqual({ locale: 'en_US', expected_incidence_rate: 0.3, expected_length_of_interview_minutes: 12, filling_goal: 400 });
    expect(request).not.toHaveProperty('project_id');
  });

  it('reads feasibility from an explicit flag or from completes against the goal', () => {
    expect(readFeasibility({ feasible: false, feasible_completes: 120, filling_goal: 400 }, tg)).toMatchObject({ feasible: false, feasibleCompletes: 120 });
    expect(readFeasibility({ feasible_completes: 500 }, tg)).toMatchObject({ feasible: true, fillingGoal: 400 });
    expect(readFeasibility({ feasible_completes: 399 }, tg).feasible).toBe(false);
  });

  it('holds the gate for an infeasible target group and for a price above max_cpi, and says why', () => {
    const verdict = readFeasibility({ feasible: false, feasible_completes: 120, filling_goal: 400 }, tg);
    const reasons = gateFailures(tg, verdict, { value: '6.10', currency_code: 'USD' });
    expect(reasons).toHaveLength(2);
    expect(reasons[0]).toContain('120 feasible completes for a filling_goal of 400');
    expect(reasons[1]).toContain('6.10 USD is above max_cpi 5.00');
  });

  it('passes the gate when feasible and within price; a missing price with max_cpi set holds it', () => {
    const ok = readFeasibility({ feasible: true }, tg);
    expect(gateFailures(tg, ok, { value: '4.99', currency_code: 'USD' })).toEqual([]);
    expect(gateFailures(tg, ok, undefined)).toEqual(['max_cpi is set but the API predicted no price']);
    expect(gateFailures({ ...tg, launch: { ...tg.launch, requireFeasible: false, maxCpi: undefined } }, readFeasibility({ feasible: false }, tg), undefined)).toEqual([]);
  });

  it('reads money in the API currency format', () => {
    expect(readPrice({ cpi: { value: '3.25', currency_code: 'USD', currency_scale: 2 } })).toEqual({ value: '3.25', currency_code: 'USD' });
    expect(readPrice({ nothing: true })).toBeUndefined();
  });

  it('judges the predicted CPI, else the one feasibility suggests', () => {
    const usd = (value: string) => ({ value, currency_code: 'USD' });
    const verdict = { feasible: true, suggestedCpi: usd('4.00') };
    expect(judgedCpi({ cost_per_interview: usd('2.50') }, verdict)).toEqual(usd('2.50'));
    expect(judgedCpi({ nothing: true }, verdict)).toEqual(usd('4.00'));
    expect(judgedCpi(undefined, verdict)).toEqual(usd('4.00'));
    expect(judgedCpi(undefined, undefined)).toBeUndefined();
  });

  it('backs off job polling from the initial delay up to the maximum', () => {
    const delays: number[] = [];
    let d = 0;
    for (let i = 0; i < 8; i += 1) delays.push((d = nextPollDelay(d, 100, 1000)));
    expect(delays).toEqual([100, 150, 225, 338, 507, 761, 1000, 1000]);
  });
});
