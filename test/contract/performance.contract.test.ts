// Contract test of get_target_group_performance (api/wire/operations.ts PERFORMANCE_OPERATIONS):
// the client reads a launched target group's TargetGroupPerformance from the real sandbox, before and after
// simulated fielding; every exchange is checked against studyflow's zod wire schema and the reference's JSON
// schema (test/contract/operation-checks.ts). The answer reduced for the report (workflows/report-data.ts)
// agrees with the sandbox's sessions. A draft's or an unknown group's performance is the API's final
// not_found_error; an answer of another shape is `wire_mismatch`, never a report of zeros.
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiRequest, ApiResponse, DemandApiClient } from '../../api/http/demand-api-client';
import { PERFORMANCE_OPERATIONS } from '../../api/wire/operations';
import { createActivities } from '../../activities/index';
import type { RunningSandbox } from '../../sandbox/index';
import { performanceSnapshot } from '../../workflows/report-data';
import { rejectionOf } from '../activities/helpers/mock-api';
import { describeOperationChecks } from './operation-checks';
import { type RecordedExchange } from './recording-client';
import { activitiesOver, projectWithLaunchedAndDraft, startRecordingSandbox } from './launched-pair';

const ctx = { accountId: '1001', apiVersion: '2025-12-18' as const };
const PM = '6f1c2a4e-3001-4c8e-9d2b-000000003001';
const exchanges: RecordedExchange[] = [];
let sandbox: RunningSandbox;
let agent: Agent;
let inner: DemandApiClient;
let activities: ReturnType<typeof createActivities>;
const ids = { projectId: '', launched: '', draft: '' };

const draft = {
  name: 'Performance contract us', business_unit_id: '2001', locale: 'eng_us', live_url: 'https://survey.example.com/s?rid=[%RID%]',
  expected_incidence_rate: 0.5, expected_length_of_interview_minutes: 10, filling_goal: 40, project_manager_id: PM, collects_pii: false, study_type_code: 'adhoc',
  fielding_specification: { start_at: '2027-01-04T00:00:00Z', end_at: '2027-02-01T00:00:00Z' },
  fielding_assistant_assignment: {},
  allocations: { open_exchange_allocations: { exchange_min_percentage: 0, exchange_max_percentage: 100, blocked_supplier_ids: [], groups: [] } },
};

async function admin(method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${sandbox.baseUrl}/_sandbox${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

type Session = { status: string; respondent_update_date: string };
async function sessionsOf(targetGroupId: string): Promise<Session[]> {
  const res = await fetch(`${sandbox.baseUrl}/_sandbox/fielding/target-groups/${targetGroupId}/sessions`);
  return ((await res.json()) as { data: Session[] }).data;
}

const input = (targetGroupId: string) => ({ ctx, projectId: ids.projectId, targetGroupId });
const performanceReads = () => exchanges.filter((e) => e.path.endsWith('/performance'));

beforeAll(async () => {
  ({ sandbox, agent, inner, activities } = await startRecordingSandbox(exchanges));
  const a = activities;
  await admin('PUT', '/fielding/settings', { pool_size: 2000, speed: 1, seed: 'performance-contract' });
  Object.assign(ids, await projectWithLaunchedAndDraft(a, { key: 'perf', label: 'Performance contract', projectManagerId: PM, draft }));
  // Read before anyone entered, then after an hour of simulated fielding.
  await a.getTargetGroupPerformance(input(ids.launched));
  await admin('POST', '/fielding/advance', { minutes: 60 });
  await a.getTargetGroupPerformance(input(ids.launched));
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await sandbox?.close();
});

describeOperationChecks(PERFORMANCE_OPERATIONS, () => exchanges);

describe('target-group performance on the wire', () => {
  it('before anyone entered: zero counts and zero cost, no complete dates or rates', () => {
    const [first] = performanceReads();
    expect(first.body).toEqual({
      entrants: 0, prescreens: 0, completes: 0, completes_cost: { value: '0.00', currency_code: 'USD', currency_scale: 2 },
      respondent_analysis: { live: expect.any(Array), test: [] },
    });
  });

  it('after fielding: the reference\'s fields only, agreeing with the sandbox\'s sessions; the report\'s snapshot holds the same figures', async () => {
    const { performance } = await activities.getTargetGroupPerformance(input(ids.launched));
    expect(Object.keys(performance).sort()).toEqual(['completes', 'completes_cost', 'conversion_rate', 'drop_off_rate', 'entrants', 'first_complete', 'incidence_rate', 'last_complete', 'prescreens', 'respondent_analysis']);
    const sessions = await sessionsOf(ids.launched);
    const completes = sessions.filter((s) => s.status === 'Complete');
    expect(completes.length).toBeGreaterThan(0);
    expect(performance).toMatchObject({ entrants: sessions.length, completes: completes.length, first_complete: completes.map((s) => s.respondent_update_date).sort()[0] });
    const snapshot = performanceSnapshot(performance, '2027-01-05T00:00:00.000Z', 'live');
    expect(snapshot).toMatchObject({ entrants: sessions.length, prescreens: performance.prescreens, completes: completes.length, completesCost: { value: performance.completes_cost!.value, currency_code: 'USD' }, incidenceRate: performance.incidence_rate, conversionRate: performance.conversion_rate, dropOffRate: performance.drop_off_rate, firstComplete: performance.first_complete, lastComplete: performance.last_complete });
    expect(snapshot.respondents.reduce((n, r) => n + r.count, 0)).toBe(sessions.length);
    expect(snapshot.respondents.find((r) => r.status === 'Complete')).toMatchObject({ label: 'Completed', count: completes.length });
    // The overview, read by the same client, gives the same rates.
    const { overview } = await activities.getTargetGroupOverview(input(ids.launched));
    expect([overview.incidence_rate, overview.conversion_rate, overview.drop_off_rate]).toEqual([performance.incidence_rate, performance.conversion_rate, performance.drop_off_rate]);
  });

  it('an older version\'s completes_cost (integer minor units) is read as the 2025-12-18 money', async () => {
    const legacy = activitiesOver(inner);
    const current = (await activities.getTargetGroupPerformance(input(ids.launched))).performance;
    const older = (await legacy.getTargetGroupPerformance({ ...input(ids.launched), ctx: { ...ctx, apiVersion: '2025-05-27' } })).performance;
    expect(older.completes_cost).toEqual(current.completes_cost);
    expect(older.completes).toBe(current.completes);
  });

  it('a draft has no performance, and an unknown target group none either: the API\'s final not_found_error', async () => {
    const from = exchanges.length;
    expect(await rejectionOf(activities.getTargetGroupPerformance(input(ids.draft)))).toMatchObject({ type: 'not_found_error', nonRetryable: true });
    expect(await rejectionOf(activities.getTargetGroupPerformance(input('01ZZZZZZZZZZZZZZZZZZZZZZZZ')))).toMatchObject({ type: 'not_found_error', nonRetryable: true });
    expect(exchanges.length).toBe(from);
  });
});

describe('an answer of another shape is wire_mismatch, never a report of zeros', () => {
  function answering(reply: ApiResponse) {
    const fake: DemandApiClient = {
      config: inner.config,
      tokenRequestCount: 0,
      async request<T>(req: ApiRequest): Promise<ApiResponse<T>> {
        if (!req.path.endsWith('/performance')) throw new Error(`unexpected call ${req.method} ${req.path}`);
        return reply as ApiResponse<T>;
      },
    };
    return activitiesOver(fake);
  }
  const fake = { ctx, projectId: '01AAAAAAAAAAAAAAAAAAAAAAAA', targetGroupId: '01BBBBBBBBBBBBBBBBBBBBBBBB' };
  const good = { entrants: 10, prescreens: 8, completes: 3 };
  const cases: Array<[string, unknown, RegExp]> = [
    ['the sandbox\'s earlier shape (status, completes_by_status, quotas; no entrants)', { target_group_id: 'x', status: 'live', completes: 3, completes_by_status: { Complete: 3 }, quotas: [], in_progress: 1 }, /entrants/],
    ['completes_cost in integer minor units in 2025-12-18', { ...good, completes_cost: { value: 300, currency_code: 'USD', currency_scale: 2 } }, /completes_cost\.value/],
    ['a rate above 1', { ...good, incidence_rate: 42 }, /incidence_rate/],
    ['a count that is not an integer', { ...good, completes: '3' }, /completes/],
    ['respondent_analysis.live that is not a list', { ...good, respondent_analysis: { live: { Complete: 3 } } }, /respondent_analysis\.live/],
    ['a first complete that is not a date-time', { ...good, first_complete: 'yesterday' }, /first_complete/],
    ['a list instead of an object', [good], /\(body\)/],
  ];

  it.each(cases)('%s', async (_name, body, problem) => {
    const f = await rejectionOf(answering({ status: 200, headers: {}, body }).getTargetGroupPerformance(fake));
    expect(f).toMatchObject({ type: 'wire_mismatch', nonRetryable: true });
    expect(f.details[0]).toMatchObject({ operation: 'get_target_group_performance', method: 'GET', status: 200 });
    expect(f.details[0].problems.join('; ')).toMatch(problem);
  });

  it('names the shape answered, never its values', async () => {
    const f = await rejectionOf(answering({ status: 200, headers: {}, body: { completes: 3, respondents: ['sbx-en_US-000042'] } }).getTargetGroupPerformance(fake));
    expect(f.type).toBe('wire_mismatch');
    expect(f.message).toContain('respondents: array(1) of string');
    expect(JSON.stringify(f)).not.toContain('sbx-en_US-000042');
  });

  it('an answer with the required fields only is read; the report leaves the rest empty', async () => {
    const { performance } = await answering({ status: 200, headers: {}, body: good }).getTargetGroupPerformance(fake);
    expect(performance).toEqual(good);
    expect(performanceSnapshot(performance, '2027-01-05T00:00:00.000Z')).toEqual({ readAt: '2027-01-05T00:00:00.000Z', ...good, respondents: [] });
  });
});
