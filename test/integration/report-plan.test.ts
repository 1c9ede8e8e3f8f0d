// `studyflow plan` with the server-side dry run against the sandbox: profile validation with the
// question texts, feasibility, price against max_cpi, supplier quota distribution and the calendar,
// BLOCKING where a launch rule of the study file fails, "unavailable" where a call fails, and the
// fall-back to the local checks when the API cannot be reached. Plan writes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServerCheck, TargetGroupChecks } from '../../plan/server-checks';
import { writeCalls, writeStudy } from './harness';
import { useTestStack } from '../fixtures/stack';
import { sampleFields } from '../helpers/study-yaml';
import { testProfile } from '../helpers/test-profile';

const STUDY = `format: studyflow/v1
study: report-plan
account: "1001"
business_unit: "2001"
project:
  name: Plan checks
defaults:
${sampleFields('  ', { locale: 'en_US', incidenceRate: 0.5, lengthOfInterviewMinutes: 10 })}
  launch: { mode: auto, require_feasible: true }
target_groups:
  feasible:
    live_url: https://survey.example.com/s/feasible?rid=[%RID%]
    filling_goal: 200
    launch: { max_cpi: { value: "5.00", currency_code: USD } }
    profiles:
      - object: regular
        name: gender
        quotas_enabled: true
        targets:
          - text: Men
            conditions: [{ object: selection, question_id: 43, option: "1" }]
            quota: { name: men, completes_goal_percentage: 50 }
          - text: Women
            conditions: [{ object: selection, question_id: 43, option: "2" }]
            quota: { name: women, completes_goal_percentage: 50 }
  infeasible:
    live_url: https://survey.example.com/s/infeasible?rid=[%RID%]
    expected_incidence_rate: 0.02
    expected_length_of_interview_minutes: 45
    filling_goal: 9000
    profiles:
      - object: regular
        name: age
        targets:
          - text: Young adults
            conditions: [{ object: range, question_id: 42, min: 18, max: 24 }]
  pricey:
    live_url: https://survey.example.com/s/pricey?rid=[%RID%]
    filling_goal: 100
    launch: { max_cpi: { value: "1.00", currency_code: USD } }
  unknown_market:
    locale: zh_CN
    live_url: https://survey.example.com/s/zh?rid=[%RID%]
    filling_goal: 100
`;

interface PlanJson {
  offline: boolean;
  apiUnreachable?: string;
  studies: { file: string; hasChanges: boolean; checks: TargetGroupChecks[]; checksNote?: string }[];
}

const t = useTestStack('report-plan');
let file: string;

beforeAll(async () => {
  file = writeStudy(t.dir, 'plan.yaml', STUDY);
});

function check(plan: PlanJson, key: string, name: ServerCheck['name']): ServerCheck {
  const group = plan.studies[0].checks.find((g) => g.key === key);
  const found = group?.checks.find((c) => c.name === name);
  if (!found) throw new Error(`no ${name} check for ${key}`);
  return found;
}

describe('plan: server-side checks against the sandbox', () => {
  let plan: PlanJson;

  it('judges every target group in JSON without writing anything', async () => {
    const before = t.stack.sandbox.requests().length;
    const result = await t.cli(['plan', file, '--json']);
    expect(result.code, result.stderr).toBe(0);
    plan = JSON.parse(result.stdout) as PlanJson;
    const calls = t.stack.sandbox.requests().slice(before);
    expect(writeCalls(calls)).toEqual([]);
    // Every check asked the API: validation, feasibility, price, distribution, the calendar, the questions.
    const routes = new Set(calls.map((c) => c.path.replace(/\/v1\/demand\/accounts\/\d+/, 'P')));
    for (const route of ['P/profiles/validate', 'P/target-groups/calculate-feasibility', 'P/business-units/2001/generate-price-prediction', 'P/supplier-quota-distribution/draft', 'P/questions-translation', '/v1/demand/intelligent-calendar/suggest-days', '/v1/demand/intelligent-calendar/suggest-time-range']) {
      expect([...routes], route).toContain(route);
    }
    expect(plan.offline).toBe(false);
    expect(plan.studies[0].checks.map((g) => g.key).sort()).toEqual(['feasible', 'infeasible', 'pricey', 'unknown_market']);
  });

  it('passes a feasible target group with valid profiles, shown with their question texts', () => {
    const group = plan.studies[0].checks.find((g) => g.key === 'feasible')!;
    expect(group.blocking).toBe(false);
    expect(Object.fromEntries(group.checks.map((c) => [c.name, c.outcome]))).toEqual({
      profiles: 'pass',
      feasibility: 'pass',
      price: 'pass',
      supplier_distribution: 'pass',
      calendar: 'pass',
      forecast: 'pass',
    });
    const profiles = check(plan, 'feasible', 'profiles');
    expect(profiles.details).toContain('  Men: 43 "What is your gender?" = 1 "Male" — quota men 50%, 100 completes');
    expect(profiles.details).toContain('  Women: 43 "What is your gender?" = 2 "Female" — quota women 50%, 100 completes');
    const feasibility = check(plan, 'feasible', 'feasibility');
    expect(feasibility.data?.feasible).toBe(true);
    expect(feasibility.data?.feasibleCompletes as number).toBeGreaterThanOrEqual(200);
    expect(feasibility.data?.fillingGoal).toBe(200);
    expect(check(plan, 'feasible', 'price').data?.cpi).toEqual({ value: '2.65', currency_code: 'USD' });
    // The supplier quota distribution of the profile with quotas: the goal projected for each target.
    const distribution = check(plan, 'feasible', 'supplier_distribution');
    expect(distribution.summary).toBe('1 profile with quotas: projected goals add up to 200 completes');
    expect(distribution.details).toEqual(['profile gender: 200 of 200 completes projected', '  Men: 100 completes', '  Women: 100 completes']);
    expect(check(plan, 'infeasible', 'supplier_distribution')).toMatchObject({ outcome: 'skipped', summary: 'no profile with quotas to distribute' });
    expect(check(plan, 'pricey', 'supplier_distribution')).toMatchObject({ outcome: 'skipped', summary: 'no profiles to distribute' });
    const calendar = check(plan, 'feasible', 'calendar');
    expect(calendar.data?.suggestedDays).toEqual(expect.any(Number));
    expect(calendar.data?.suggestedStart).toMatch(/^\d{4}-\d\d-\d\dT00:00:00/);
  });

  it('marks an infeasible target group BLOCKING with the reason', () => {
    const feasibility = check(plan, 'infeasible', 'feasibility');
    expect(feasibility.outcome).toBe('blocking');
    expect(feasibility.reason).toMatch(/^infeasible: at most \d+ completes in the fielding window for a filling_goal of 9000 \(require_feasible\)$/);
    expect(feasibility.data?.feasible).toBe(false);
    expect(plan.studies[0].checks.find((g) => g.key === 'infeasible')?.blocking).toBe(true);
    expect(check(plan, 'infeasible', 'profiles').details).toContain('  Young adults: 42 "What is your age?" in 18–24');
  });

  it('marks a suggested price above max_cpi BLOCKING', () => {
    const price = check(plan, 'pricey', 'price');
    expect(price.outcome).toBe('blocking');
    expect(price.reason).toBe('suggested price 2.65 USD is above max_cpi 1.00 (max_cpi)');
    expect(check(plan, 'pricey', 'feasibility').outcome).toBe('pass');
    expect(check(plan, 'pricey', 'profiles').outcome).toBe('skipped');
  });

  it('reports a failed call as unavailable with its reason, not as a crash', () => {
    const feasibility = check(plan, 'unknown_market', 'feasibility');
    expect(feasibility.outcome).toBe('unavailable');
    expect(feasibility.summary).toMatch(/^unavailable: HTTP 422 unsupported_locale/);
    expect(check(plan, 'unknown_market', 'price').summary).toMatch(/^unavailable: HTTP \d{3} /);
  });

  it('reports the calendar as unavailable for a client without the calendar role, the other checks unharmed', async () => {
    const result = await t.cli(['plan', file, '--json'], { STUDYFLOW_CLIENT_ID: 'studyflow-sandbox-no-calendar', STUDYFLOW_CLIENT_SECRET: 'sandbox-secret-no-calendar' });
    expect(result.code, result.stderr).toBe(0);
    const denied = JSON.parse(result.stdout) as PlanJson;
    const calendar = check(denied, 'feasible', 'calendar');
    expect(calendar.outcome).toBe('unavailable');
    // The calendar's error object: the spec's `unauthorized`, the reference's `authorization_error` under cint.
    expect(calendar.summary).toMatch(testProfile() === 'cint' ? /^unavailable: HTTP 401 authorization_error/ : /^unavailable: HTTP 401 unauthorized/);
    expect(check(denied, 'feasible', 'feasibility').outcome).toBe('pass');
    expect(check(denied, 'pricey', 'price').outcome).toBe('blocking');
  });

  it('prints the same judgement for humans, BLOCKING lines with their reasons', async () => {
    const result = await t.cli(['plan', file]);
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    expect(out).toContain('\nServer checks: 2 blocking, 4 unavailable, 2 warning(s), 11 passed, 5 skipped.\n');
    expect(out).toContain('  feasible\n    ✓ profiles: valid: 1 profile (2 targets)');
    expect(out).toMatch(/^ {4}✓ feasibility: feasible: \d+-\d+ completes in the window for a filling_goal of 200, suggested price 2\.65 USD/m);
    expect(out).toContain('  infeasible (BLOCKING)');
    expect(out).toMatch(/^ {4}✗ feasibility: BLOCKING: infeasible: at most \d+ completes in the fielding window for a filling_goal of 9000 \(require_feasible\)$/m);
    expect(out).toContain('  pricey (BLOCKING)');
    expect(out).toContain('    ✗ price: BLOCKING: suggested price 2.65 USD is above max_cpi 1.00 (max_cpi)');
    expect(out).toMatch(/^ {4}\? feasibility: unavailable: HTTP 422 unsupported_locale/m);
    expect(out).toContain('    ✓ supplier distribution: 1 profile with quotas: projected goals add up to 200 completes');
    expect(out).toContain('    - supplier distribution: skipped: no profile with quotas to distribute');
  });

  it('annotates blocking checks for GitHub and tables them in markdown', async () => {
    const github = await t.cli(['plan', file, '--format', 'github']);
    expect(github.stdout).toContain('title=BLOCKING price pricey::suggested price 2.65 USD is above max_cpi 1.00 (max_cpi)');
    expect(github.stdout).toMatch(/::warning file=[^\n]*title=BLOCKING feasibility infeasible::infeasible: /);
    expect(github.stdout).toMatch(/::notice file=[^\n]*title=unavailable feasibility unknown_market::unavailable: HTTP 422/);
    const markdown = await t.cli(['plan', file, '--format', 'markdown']);
    expect(markdown.stdout).toContain('| pricey | price | ⛔ **BLOCKING** | suggested price 2.65 USD is above max_cpi 1.00 (max_cpi)');
  });

  it('plans from the local checks alone, and says so, when the API cannot be reached', async () => {
    const result = await t.cli(['plan', file, '--json'], { STUDYFLOW_API_BASE_URL: 'http://127.0.0.1:1', STUDYFLOW_AUTH_URL: 'http://127.0.0.1:1/auth' });
    expect(result.code, result.stderr).toBe(0);
    const offline = JSON.parse(result.stdout) as PlanJson;
    expect(offline.apiUnreachable).toMatch(/network_error/);
    expect(offline.studies[0].checks).toEqual([]);
    expect(offline.studies[0].checksNote).toBe('skipped: the API cannot be reached');
    const human = await t.cli(['plan', file], { STUDYFLOW_API_BASE_URL: 'http://127.0.0.1:1', STUDYFLOW_AUTH_URL: 'http://127.0.0.1:1/auth' });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/the API cannot be reached \(network_error: .*\): planned against an empty remote from the local checks alone/);
    expect(human.stdout).toContain('Server checks: skipped: the API cannot be reached');
    const flagged = await t.cli(['plan', file, '--offline']);
    expect(flagged.stdout).toContain('Server checks: skipped (offline): planned from the local checks alone');
  });
});
