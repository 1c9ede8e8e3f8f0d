import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  calendarCheck,
  calendarDays,
  conditionText,
  distributionCheck,
  distributionRequests,
  evaluateServerChecks,
  feasibilityCheck,
  priceCheck,
  profileQuestionIds,
  profilesCheck,
  readQuestions,
  skippedServerChecks,
  suggestDaysRequest,
  validationRequest,
  type Answer,
  type QuestionText,
  type ServerAnswers,
} from '../../plan/server-checks';
import type { DesiredTargetGroup } from '../../plan/types';
import { gateFailures, readFeasibility } from '../../plan/launch-gates';
import { judgeGate } from '../../workflows/launch';
import { profilingOf, wireProfile } from '../../plan/profiling';

const timing = { jobPollInitialMs: 100, jobPollMaxMs: 1000, jobTimeoutMs: 60_000, launchRetries: 3, watchIntervalMs: 60_000 };
const NOW = Date.parse('2026-03-02T12:00:00Z');

const GENDER = {
  object: 'regular',
  name: 'gender',
  quotas_enabled: true,
  targets: [
    { text: 'Men', conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { name: 'men', completes_goal_percentage: 50 } },
    { text: 'Women', conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { name: 'women', completes_goal_percentage: 50 } },
  ],
};

function tg(patch: Partial<DesiredTargetGroup> = {}, launch: Partial<DesiredTargetGroup['launch']> = {}): DesiredTargetGroup {
  const draft = { locale: 'en_US', expected_incidence_rate: 0.5, expected_length_of_interview_minutes: 10, filling_goal: 200, project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001', collects_pii: false };
  // As plan/desired.ts builds it: the draft carries the profiles (and a template in the API) in its profiling.
  const profiling = profilingOf(patch.profiles ?? [], patch.profileTemplateIds ?? []);
  return {
    key: 'panel',
    draft: profiling ? { ...draft, profiling } : draft,
    idLists: {},
    exclusionGroups: [],
    launch: { mode: 'auto', requireFeasible: true, ...launch },
    timing,
    ...patch,
  };
}

const ok = <T>(value: T): Answer<T> => ({ ok: true, value });
const failed = (reason: string): Answer<never> => ({ ok: false, reason });
const usd = (value: string) => ({ value, currency_code: 'USD', currency_scale: 2 });
/** Items of questions-translation as the reference gives them (QuestionResponseProfileFormat). */
const QUESTION_ITEMS = [
  {
    object: 'regular', name: 'GENDER', description: 'Geschlecht?', description_translated: 'What is your gender?', quotas_enabled: false, standard: true, profile_condition_type: 'Single Punch',
    targets: [
      { text: 'Männlich', text_translated: 'Male', conditions: [{ object: 'selection', question_id: 43, option: '1' }] },
      { text: 'Weiblich', text_translated: 'Female', conditions: [{ object: 'selection', question_id: 43, option: '2' }] },
    ],
  },
  {
    object: 'regular', name: 'AGE', description: 'What is your age?', description_translated: 'What is your age?', quotas_enabled: false, standard: true, profile_condition_type: 'Numeric - Open-end',
    targets: [{ text: '', text_translated: '', conditions: [{ object: 'range', question_id: 42, min: 18, max: 99 }] }],
  },
];
const QUESTIONS: QuestionText[] = readQuestions(QUESTION_ITEMS);

describe('question texts (questions-translation items)', () => {
  it('reads the question id and each selection option from the targets\' conditions, the texts from description and text', () => {
    expect(QUESTIONS).toEqual([
      { questionId: 43, text: 'Geschlecht?', textTranslated: 'What is your gender?', options: [{ option: '1', text: 'Männlich', textTranslated: 'Male' }, { option: '2', text: 'Weiblich', textTranslated: 'Female' }] },
      { questionId: 42, text: 'What is your age?', textTranslated: 'What is your age?', options: [] },
    ]);
    // An item whose targets name no question (null, or no conditions) says nothing about any question.
    expect(readQuestions([{ ...QUESTION_ITEMS[0], targets: null }, { ...QUESTION_ITEMS[1], targets: [] }, 'x', null])).toEqual([]);
  });
});

describe('profiles check', () => {
  const desired = tg({ profiles: [GENDER] });

  it('passes valid profiles and shows targets with question and option texts and quotas', () => {
    const check = profilesCheck(desired, ok({ valid: true }), ok(QUESTIONS));
    expect(check.outcome).toBe('pass');
    expect(check.summary).toBe('valid: 1 profile (2 targets)');
    expect(check.details).toEqual([
      'profile gender (regular, quotas)',
      '  Men: 43 "Geschlecht?" [What is your gender?] = 1 "Männlich" [Male] — quota men 50%, 100 completes',
      '  Women: 43 "Geschlecht?" [What is your gender?] = 2 "Weiblich" [Female] — quota women 50%, 100 completes',
    ]);
  });

  it('is BLOCKING when the API refuses the profiles, with every problem as the reason', () => {
    const check = profilesCheck(desired, ok({ valid: false, object: 'unknown_question', detail: 'question 96 does not exist', invalidParams: [{ name: 'profiles[0].targets[0]', reason: 'unknown' }] }), ok(QUESTIONS));
    expect(check.outcome).toBe('blocking');
    expect(check.reason).toBe('the API refuses the profiles (unknown_question: question 96 does not exist): profiles[0].targets[0]: unknown');
    expect(check.details?.[0]).toBe('problem: profiles[0].targets[0]: unknown');
  });

  it('is unavailable when the validation call fails, keeping the ids when the question texts fail too', () => {
    const check = profilesCheck(desired, failed('HTTP 503 service_unavailable'), failed('network_error: reset'));
    expect(check.outcome).toBe('unavailable');
    expect(check.summary).toBe('unavailable: HTTP 503 service_unavailable');
    expect(check.details).toContain('question texts unavailable: network_error: reset');
    expect(check.details).toContain('  Men: 43 = 1 — quota men 50%, 100 completes');
  });

  it('is skipped without profiles', () => {
    expect(profilesCheck(tg(), undefined, undefined)).toMatchObject({ outcome: 'skipped', summary: 'no profiles to validate' });
    expect(validationRequest(tg())).toBeUndefined();
  });

  it('validates the own profiles with the locale and completes goal (ValidateProfilesRequestV3 takes no template)', () => {
    expect(validationRequest(tg({ profiles: [], profileTemplateIds: ['0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b02'] }))).toBeUndefined();
    const request = validationRequest(tg({ profiles: [GENDER], profileTemplateIds: ['0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b02'] }));
    expect(request).toEqual({ locale: 'en_US', completes_goal: 200, profiling: { profile_adjustment_type: 'percentage', profiles: [expect.objectContaining({ name: 'gender' })] } });
    // The wire shape: no labels of the study file's own.
    expect(request!.profiling.profiles[0].targets).toEqual([
      { conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { name: 'men', completes_goal_percentage: 50 } },
      { conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { name: 'women', completes_goal_percentage: 50 } },
    ]);
  });
});

describe('feasibility check', () => {
  const answer = (_feasible: boolean, completes: number) => ok({ suggested_price: usd('2.65'), suggested_completes_goal_range: { min: Math.floor(completes * 0.9), max: completes } });

  it('passes a feasible target group', () => {
    const check = feasibilityCheck(tg(), answer(true, 5000));
    expect(check).toMatchObject({ outcome: 'pass', summary: 'feasible: 4500-5000 completes in the window for a filling_goal of 200, suggested price 2.65 USD' });
    expect(check.data).toMatchObject({ feasible: true, feasibleCompletes: 5000, fillingGoal: 200 });
  });

  it('is BLOCKING under require_feasible, with the gate reason', () => {
    const check = feasibilityCheck(tg(), answer(false, 40));
    expect(check.outcome).toBe('blocking');
    expect(check.reason).toBe('infeasible: at most 40 completes in the fielding window for a filling_goal of 200 (require_feasible)');
    expect(check.summary).toBe('infeasible: 36-40 completes in the window for a filling_goal of 200, suggested price 2.65 USD');
  });

  it('is only a warning when require_feasible is off', () => {
    expect(feasibilityCheck(tg({}, { requireFeasible: false }), answer(false, 40))).toMatchObject({ outcome: 'warning', summary: expect.stringContaining('(require_feasible is off)') });
  });

  it('is unavailable when the call fails', () => {
    expect(feasibilityCheck(tg(), failed('HTTP 422 unsupported_locale'))).toEqual({ name: 'feasibility', outcome: 'unavailable', summary: 'unavailable: HTTP 422 unsupported_locale' });
  });
});

describe('price check', () => {
  const prediction = (value: string, currency = 'USD') => ok({ cost_per_interview: { value, currency_code: currency, currency_scale: 2 }, pricing_model: 'rate_card' });

  it('passes a predicted CPI at or below max_cpi', () => {
    const check = priceCheck(tg({}, { maxCpi: { value: '2.65', currency_code: 'USD' } }), { price: prediction('2.65') });
    expect(check).toMatchObject({ outcome: 'pass', summary: 'predicted CPI 2.65 USD (max_cpi 2.65 USD)' });
  });

  it('is BLOCKING above max_cpi', () => {
    const check = priceCheck(tg({}, { maxCpi: { value: '2.00', currency_code: 'USD' } }), { price: prediction('2.65') });
    expect(check.outcome).toBe('blocking');
    expect(check.reason).toBe('suggested price 2.65 USD is above max_cpi 2.00 (max_cpi)');
  });

  it('is BLOCKING when the currencies differ or no price comes back while max_cpi is set', () => {
    const max = { maxCpi: { value: '5.00', currency_code: 'EUR' } };
    expect(priceCheck(tg({}, max), { price: prediction('2.65') }).reason).toBe('suggested price is in USD, max_cpi in EUR (max_cpi)');
    expect(priceCheck(tg({}, max), { price: ok({}) }).reason).toBe('max_cpi is set but the API suggested no price (max_cpi)');
  });

  it('judges feasibility\'s suggested price before the prediction, as the gate does', () => {
    const feasibility = ok({ suggested_price: usd('3.10'), suggested_completes_goal_range: { min: 1, max: 900 } });
    const check = priceCheck(tg({}, { maxCpi: { value: '2.00', currency_code: 'USD' } }), { price: prediction('1.50'), feasibility });
    expect(check).toMatchObject({ outcome: 'blocking', reason: 'suggested price 3.10 USD is above max_cpi 2.00 (max_cpi)' });
    expect(check.summary).toContain('suggested price (feasibility) 3.10 USD');
    // Without the prediction (not asked, or failed) feasibility still answers the price.
    expect(priceCheck(tg(), { feasibility })).toMatchObject({ outcome: 'pass', summary: 'suggested price (feasibility) 3.10 USD' });
    expect(priceCheck(tg(), { feasibility, price: failed('HTTP 404 not_found') }).outcome).toBe('pass');
  });

  it('warns when no price comes back and no max_cpi is set', () => {
    expect(priceCheck(tg(), { price: ok({}) })).toMatchObject({ outcome: 'warning', summary: 'the API suggested no price' });
  });

  it('is unavailable when the call fails, even with max_cpi set', () => {
    expect(priceCheck(tg({}, { maxCpi: { value: '2.00', currency_code: 'USD' } }), { price: failed('HTTP 404 not_found') })).toMatchObject({ outcome: 'unavailable', summary: 'unavailable: HTTP 404 not_found' });
  });
});

describe('supplier distribution check', () => {
  const AGE = {
    object: 'regular', name: 'age', quotas_enabled: true,
    targets: [
      { conditions: [{ object: 'range', question_id: 42, min: 18, max: 34 }], quota: { name: 'young', completes_goal_percentage: 40 } },
      { conditions: [{ object: 'range', question_id: 42, min: 35, max: 99 }], quota: { completes_goal_percentage: 60 } },
    ],
  };
  const KIDS = { object: 'regular', name: 'kids', quotas_enabled: false, targets: [{ conditions: [{ object: 'selection', question_id: 7064, option: '1' }] }] };
  /** The answer to one request: the profile as sent, each quota target with the projected goal. */
  const projected = (profile: Record<string, unknown>, goals: number[]) => ({
    ...wireProfile(profile),
    targets: (wireProfile(profile).targets as Record<string, unknown>[]).map((t, i) => ({ conditions: t.conditions, quota: { completes_goal: goals[i] } })),
  });

  it('asks one request per profile with quotas: the profile as its draft carries it, the completes goal, the adjustment type and the draft\'s window', () => {
    const desired = tg({ profiles: [GENDER, KIDS, AGE] });
    const spec = { start_at: '2026-04-01T00:00:00Z', end_at: '2026-04-20T00:00:00Z' };
    const withWindow = { ...desired, draft: { ...desired.draft, fielding_specification: spec } };
    const requests = distributionRequests(withWindow, NOW);
    expect(requests).toEqual([
      { locale: 'en_US', completes_goal: 200, profile_adjustment_type: 'percentage', ...spec, collects_pii: false, profile: wireProfile(GENDER) },
      { locale: 'en_US', completes_goal: 200, profile_adjustment_type: 'percentage', ...spec, collects_pii: false, profile: wireProfile(AGE) },
    ]);
    // The study file's labels are not sent; without a window of its own, the one the draft create would send.
    expect(wireProfile(GENDER).targets).not.toContainEqual(expect.objectContaining({ text: 'Men' }));
    const [first] = distributionRequests(desired, NOW);
    expect(first).toMatchObject({ start_at: '2026-03-02T12:00:00.000Z' });
    expect(Date.parse(String(first.end_at))).toBeGreaterThan(NOW);
    expect(distributionRequests(tg(), NOW)).toEqual([]);
    expect(distributionRequests(tg({ profiles: [KIDS] }), NOW)).toEqual([]);
  });

  it('passes when each profile\'s projected goals add up to the completes goal, showing the goal per target with question texts', () => {
    const check = distributionCheck(tg({ profiles: [GENDER, KIDS, AGE] }), ok([projected(GENDER, [100, 100]), projected(AGE, [80, 120])]), ok(QUESTIONS));
    expect(check).toMatchObject({ outcome: 'pass', summary: '2 profiles with quotas: projected goals add up to 200 completes' });
    expect(check.details).toEqual([
      'profile gender: 200 of 200 completes projected',
      '  Men: 100 completes',
      '  Women: 100 completes',
      'profile age: 200 of 200 completes projected',
      '  young: 80 completes',
      '  42 "What is your age?" in 35–99: 120 completes',
    ]);
    expect(check.data).toEqual({
      fillingGoal: 200,
      profiles: [
        { profile: 'gender', projectedCompletes: 200, targets: [{ target: 'Men', projected: 100, quota: 100 }, { target: 'Women', projected: 100, quota: 100 }] },
        { profile: 'age', projectedCompletes: 200, targets: [{ target: 'young', projected: 80, quota: 80 }, { target: '42 "What is your age?" in 35–99', projected: 120, quota: 120 }] },
      ],
    });
  });

  it('warns when the projected goals miss the completes goal, differ from the study\'s quotas, or a target has none', () => {
    const short = distributionCheck(tg({ profiles: [GENDER] }), ok([projected(GENDER, [100, 90])]));
    expect(short).toMatchObject({ outcome: 'warning', summary: '1 profile with quotas: projected goals: profile gender: the projected goals add up to 190, not 200' });
    expect(short.details?.[2]).toBe('  Women: 90 completes (the study\'s quota: 100)');
    expect(distributionCheck(tg({ profiles: [GENDER] }), ok([projected(GENDER, [120, 80])])).summary).toContain('projected goals differ from the study\'s quotas');
    const noGoal = { ...projected(GENDER, [100, 100]), targets: [{ conditions: [{ object: 'selection', question_id: 43, option: '1' }] }, { conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { completes_goal: 200 } }] };
    expect(distributionCheck(tg({ profiles: [GENDER] }), ok([noGoal])).summary).toContain('no goal projected for some targets');
    expect(distributionCheck(tg({ profiles: [GENDER] }), ok([])).summary).toContain('the answer has 0 of 2 targets');
  });

  it('is unavailable when a call fails, and skipped without a profile with quotas', () => {
    expect(distributionCheck(tg({ profiles: [GENDER] }), failed('HTTP 400 bad_request_error'))).toMatchObject({ outcome: 'unavailable', summary: 'unavailable: HTTP 400 bad_request_error' });
    expect(distributionCheck(tg(), undefined)).toMatchObject({ outcome: 'skipped', summary: 'no profiles to distribute' });
    expect(distributionCheck(tg({ profiles: [KIDS] }), undefined)).toMatchObject({ outcome: 'skipped', summary: 'no profile with quotas to distribute' });
    expect(distributionCheck(tg({ profiles: [GENDER] }), undefined)).toMatchObject({ outcome: 'skipped', summary: 'not asked' });
  });
});

describe('calendar check', () => {
  const range = ok({ locale: 'en_US', days: 3, suggested_start: '2026-03-03T00:00:00.000Z', suggested_end: '2026-03-05T23:59:59.999Z' });
  const days = (suggested: number | null) => ok(suggested === null ? {} : { days: suggested });

  it('passes with the suggested window and days', () => {
    const check = calendarCheck(tg(), { timeRange: range, suggestedDays: days(3) }, NOW);
    expect(check).toMatchObject({ outcome: 'pass', summary: 'field 2026-03-03T00:00:00.000Z to 2026-03-05T23:59:59.999Z (3 day(s)); 3 day(s) suggested for 200 completes' });
    expect(check.data).toMatchObject({ suggestedDays: 3, suggestedStart: '2026-03-03T00:00:00.000Z' });
  });

  it('warns when the panel cannot deliver, or end_fielding_at leaves too few days', () => {
    expect(calendarCheck(tg(), { timeRange: range, suggestedDays: days(null) }, NOW)).toMatchObject({ outcome: 'warning', summary: expect.stringContaining('the calendar suggests no number of days for 200 completes at this price') });
    const short = tg({}, { endFieldingAt: '2026-03-04T12:00:00Z' });
    expect(calendarCheck(short, { timeRange: range, suggestedDays: days(3) }, NOW)).toMatchObject({ outcome: 'warning', summary: expect.stringContaining('3 day(s) suggested, but end_fielding_at leaves 2') });
  });

  it('is unavailable only when every calendar call failed; one failure shows in the details', () => {
    expect(calendarCheck(tg(), { timeRange: failed('HTTP 401 unauthorized'), suggestedDays: failed('HTTP 401 unauthorized') }, NOW)).toMatchObject({ outcome: 'unavailable', summary: 'unavailable: HTTP 401 unauthorized' });
    expect(calendarCheck(tg(), { timeRange: failed('HTTP 401 unauthorized') }, NOW).outcome).toBe('unavailable');
    const half = calendarCheck(tg(), { timeRange: failed('HTTP 500 internal_server_error'), suggestedDays: days(3) }, NOW);
    expect(half.outcome).toBe('pass');
    expect(half.details).toContain('time range unavailable: HTTP 500 internal_server_error');
  });

  it('asks suggest-days only with a USD price and an incidence strictly between 0 and 1', () => {
    expect(suggestDaysRequest(tg(), { value: '2.65', currency_code: 'USD' })).toEqual({
      request: { locale: 'en_US', price: { value: '2.65', currency_code: 'USD' }, length_of_interview: 10, incidence_rate: 0.5, completes: 200 },
    });
    expect(suggestDaysRequest(tg(), { value: '2.65', currency_code: 'EUR' })).toEqual({ skip: 'the calendar takes USD prices only (the price is in EUR)' });
    expect(suggestDaysRequest(tg({ draft: { ...tg().draft, expected_incidence_rate: 1 } }), { value: '2.65', currency_code: 'USD' })).toEqual({ skip: 'the calendar needs an incidence rate strictly between 0 and 1' });
    expect(suggestDaysRequest(tg(), undefined)).toEqual({ skip: 'no price to ask with' });
  });

  it('asks the time range for suggest-days\' days (clamped to 1-365), else 14', () => {
    expect(calendarDays(days(3))).toBe(3);
    expect(calendarDays(failed('x'))).toBe(14);
    expect(calendarDays(days(null))).toBe(14);
    expect(calendarDays(undefined)).toBe(14);
    expect(calendarDays(ok({ days: 900 }))).toBe(365);
  });
});

describe('conditions with question texts', () => {
  const byId = new Map(QUESTIONS.map((q) => [q.questionId, q]));

  it('writes each condition kind, with the ids alone when the texts are unknown', () => {
    expect(conditionText({ object: 'range', question_id: 42, min: 18, max: 34 }, byId)).toBe('42 "What is your age?" in 18–34');
    expect(conditionText({ object: 'selection', question_id: 43, option: '9' }, byId)).toBe('43 "Geschlecht?" [What is your gender?] = 9 (unknown option)');
    expect(conditionText({ object: 'open_ended', question_id: 45, allow_all_values: false, open_ended_values: ['1', '2', '3', '4', '5', '6'] }, undefined)).toBe('45 answers "1", "2", "3", "4", "5", … (6)');
    expect(conditionText({ object: 'open_ended', question_id: 9001, allow_all_values: false, open_ended_values: ['acme'] }, undefined)).toBe('9001 answers "acme"');
    expect(conditionText({ object: 'open_ended', question_id: 9001, allow_all_values: true, open_ended_values: [] }, undefined)).toBe('9001 any answer');
  });

  it('collects every question id of the profiles, grouped open-ended questions included', () => {
    const open = (id: number) => ({ object: 'open_ended', question_id: id, allow_all_values: true, open_ended_values: [] });
    const desired = tg({ profiles: [GENDER, { object: 'regular', name: 'oe', targets: [{ conditions: [open(9002), open(9001)] }, { conditions: [{ object: 'range', question_id: 42, min: 1, max: 2 }] }] }] });
    expect(profileQuestionIds(desired)).toEqual([42, 43, 9001, 9002]);
  });
});

describe('all checks of a target group', () => {
  it('is blocking when any check blocks, and lists the six checks in order', () => {
    const answers: ServerAnswers = {
      feasibility: ok({ suggested_completes_goal_range: { min: 800, max: 900 } }),
      price: ok({ cost_per_interview: usd('9.00') }),
    };
    const result = evaluateServerChecks(tg({}, { maxCpi: { value: '5.00', currency_code: 'USD' } }), answers, { now: NOW });
    expect(result.checks.map((c) => c.name)).toEqual(['profiles', 'feasibility', 'price', 'supplier_distribution', 'calendar', 'forecast']);
    expect(result.checks.map((c) => c.outcome)).toEqual(['skipped', 'pass', 'blocking', 'skipped', 'skipped', 'pass']);
    expect(result.blocking).toBe(true);
    expect(skippedServerChecks('x', 'offline')).toMatchObject({ key: 'x', blocking: false, checks: expect.arrayContaining([{ name: 'price', outcome: 'skipped', summary: 'offline' }]) });
  });

  it('blocks exactly when the workflow launch gate would hold (property)', () => {
    const money = fc.record({ value: fc.integer({ min: 1, max: 2000 }).map((c) => (c / 100).toFixed(2)), currency_code: fc.constantFrom('USD', 'EUR') });
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.integer({ min: 0, max: 500 }),
        fc.option(money, { nil: undefined }),
        fc.option(money, { nil: undefined }),
        fc.option(money, { nil: undefined }),
        fc.boolean(),
        fc.integer({ min: 1, max: 30 }),
        (requireFeasible, feasibleCompletes, maxCpi, predicted, suggested, requireForecastBeforeEnd, days) => {
          const endFieldingAt = new Date(NOW + days * 86_400_000).toISOString();
          const desired = tg({}, { requireFeasible, maxCpi, endFieldingAt, ...(requireForecastBeforeEnd ? { requireForecastBeforeEnd } : {}) });
          const feasibility = { suggested_completes_goal_range: { min: Math.floor(feasibleCompletes / 2), max: feasibleCompletes }, ...(suggested ? { suggested_price: suggested } : {}) };
          const prediction = predicted ? { cost_per_interview: predicted } : {};
          const result = evaluateServerChecks(desired, { feasibility: ok(feasibility), price: ok(prediction) }, { now: NOW });
          const gate = gateFailures(desired, readFeasibility(feasibility, desired), suggested ?? predicted);
          // The workflow's gate judges the same answer with the forecast rule too (workflows/launch.ts judgeGate).
          const held = judgeGate(desired, { feasibility } as unknown as Parameters<typeof judgeGate>[1], NOW).held;
          // (The gate judges feasibility's suggested price alone; plan falls back to the prediction without one.)
          if (!predicted || suggested) expect(held).toEqual([...gate, ...held.slice(gate.length)]);
          expect(result.blocking).toBe(gate.length + held.filter((h) => h.endsWith('(require_forecast_before_end)')).length > 0);
          const reasons = result.checks.filter((c) => c.outcome === 'blocking').map((c) => c.reason?.replace(/ \((require_feasible|max_cpi)\)$/, ''));
          expect(reasons).toEqual([...gate, ...held.filter((h) => h.endsWith('(require_forecast_before_end)'))]);
        },
      ),
      { numRuns: 200 },
    );
  });
});
