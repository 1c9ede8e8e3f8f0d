// Contract tests of the target-group state reads (api/wire/operations.ts TARGET_GROUP_STATE_OPERATIONS):
// GET TG answers a draft (no id, status or fielding run) and 301 with Location to TG/details once launched;
// TG/details and TG/overview answer 404 for a draft; TG/fielding-runs lists zero or one run. The client drives
// the real sandbox through a draft's read, a launch, and the launched group's reads; every exchange is checked
// against studyflow's zod wire schemas and the reference's JSON schemas (test/contract/operation-checks.ts).
// An answer of another shape is `wire_mismatch`, never an undefined id or status.
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiRequest, ApiResponse, DemandApiClient } from '../../api/http/demand-api-client';
import { TARGET_GROUP_STATE_OPERATIONS } from '../../api/wire/operations';
import { createActivities } from '../../activities/index';
import { holdsDesired } from '../../plan/compare';
import type { RunningSandbox } from '../../sandbox/index';
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

const draft = {
  name: 'State contract us', business_unit_id: '2001', locale: 'eng_us', live_url: 'https://survey.example.com/s?rid=[%RID%]', test_url: 'https://survey.example.com/t',
  expected_incidence_rate: 0.5, expected_length_of_interview_minutes: 10, filling_goal: 200, project_manager_id: PM, collects_pii: false, study_type_code: 'adhoc',
  fielding_specification: { start_at: '2027-01-04T00:00:00Z', end_at: '2027-02-01T00:00:00Z' },
  fielding_assistant_assignment: { quota_overlay: { prevent_overfill: true, balance_fill: false } },
  allocations: { open_exchange_allocations: { exchange_min_percentage: 10, exchange_max_percentage: 90, blocked_supplier_ids: ['17'], groups: [{ group_name: 'panels', min_percentage: 0, max_percentage: 50, suppliers: ['3', '4'] }] } },
};
const ids: { projectId: string; launched: string; draft: string; runId: string } = { projectId: '', launched: '', draft: '', runId: '' };
const mark = () => exchanges.length;
const since = (from: number) => exchanges.slice(from).map((e) => `${e.method} ${e.path.split('?')[0].replace(/^.*\/target-groups\/[^/]+/, 'TG')} ${e.status}`);

beforeAll(async () => {
  ({ sandbox, agent, inner, activities } = await startRecordingSandbox(exchanges));
  const a = activities;
  Object.assign(ids, await projectWithLaunchedAndDraft(a, { key: 'state', label: 'State contract', projectManagerId: PM, draft }));
  expect(ids.runId).toMatch(/\S/);
  // The launched group's state, every read of it; the draft's; a second launch finds it launched.
  await a.readTargetGroupState({ ctx, projectId: ids.projectId, targetGroupId: ids.launched, reads: ['status', 'fieldingRun', 'fields'] });
  await a.readTargetGroupState({ ctx, projectId: ids.projectId, targetGroupId: ids.draft, reads: ['status', 'fieldingRun', 'fields'] });
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await sandbox?.close();
});

describeOperationChecks(TARGET_GROUP_STATE_OPERATIONS, () => exchanges);

describe('target-group state on the wire', () => {
  it('a draft is one read: GET TG answers its fields without id, status or fielding run, and they hold what was sent', async () => {
    const from = mark();
    const { state } = await activities.readTargetGroupState({ ctx, projectId: ids.projectId, targetGroupId: ids.draft, reads: ['status', 'fieldingRun', 'fields'] });
    expect(since(from)).toEqual(['GET TG 200']);
    const answer = exchanges.at(-1)!.body as Record<string, unknown>;
    for (const field of ['id', 'status', 'fielding_run_id', 'filling_goal']) expect(answer).not.toHaveProperty(field);
    expect(answer.completes_goal).toBe(200);
    expect(state).toMatchObject({ id: ids.draft, status: 'draft', fieldingRunId: null });
    const sent = { ...draft, name: 'State contract uk', target_group_customer_reference_number: 'state_uk' };
    expect(Object.keys(sent).filter((f) => !state.fieldsRead.includes(f))).toEqual([]);
    expect(Object.entries(sent).filter(([f, v]) => !holdsDesired(v, state.fields[f])).map(([f]) => f)).toEqual([]);
  });

  it('once launched, GET TG answers 301 with Location to TG/details; the client does not follow it and reads only what it is asked', async () => {
    let from = mark();
    const { state } = await activities.readTargetGroupState({ ctx, projectId: ids.projectId, targetGroupId: ids.launched, reads: ['status', 'fieldingRun', 'fields'] });
    const reads = since(from);
    expect(reads[0]).toBe('GET TG 301');
    expect(exchanges[from].headers.location).toMatch(new RegExp(`/target-groups/${ids.launched}/details$`));
    expect(reads.slice(1).sort()).toEqual(['GET TG/details 200', 'GET TG/fielding-runs 200', 'GET TG/overview 200']);
    expect(state).toMatchObject({ id: ids.launched, status: 'live', fieldingRunId: ids.runId });
    // The details carry fewer fields than a draft: only those are compared; they hold what was sent.
    expect(state.fieldsRead).not.toContain('allocations');
    expect(state.fields).toMatchObject({ name: draft.name, filling_goal: 200, business_unit_id: '2001', live_url: draft.live_url });

    from = mark();
    const statusOnly = await activities.readTargetGroupState({ ctx, projectId: ids.projectId, targetGroupId: ids.launched, reads: ['status', 'fieldingRun'] });
    expect(since(from).sort()).toEqual(['GET TG 301', 'GET TG/fielding-runs 200', 'GET TG/overview 200']);
    expect(statusOnly.state).toMatchObject({ status: 'live', fieldingRunId: ids.runId, fields: {}, fieldsRead: [] });
  });

  it('launching a launched group again reads GET TG (301) and its fielding runs only, and reports the run', async () => {
    const from = mark();
    const out = await activities.launchFromDraft({ ctx, projectId: ids.projectId, targetGroupId: ids.launched, idempotencyKey: 'state/launch-again', endFieldingAt: new Date(Date.now() + 5 * 86_400_000).toISOString() });
    expect(out).toEqual({ jobId: null, alreadyLaunched: true, fieldingRunId: ids.runId });
    expect(since(from)).toEqual(['GET TG 301', 'GET TG/fielding-runs 200']);
  });

  it('details and overview answer 404 for a draft; its fielding runs are an empty list; the list carries id and status', async () => {
    const tg = `/v1/demand/accounts/${ctx.accountId}/projects/${ids.projectId}/target-groups/${ids.draft}`;
    const get = (path: string) => inner.request<Record<string, unknown>>({ method: 'GET', path, apiVersion: ctx.apiVersion, acceptStatuses: [404] });
    for (const path of [`${tg}/details`, `${tg}/overview`]) expect(await get(path)).toMatchObject({ status: 404, body: { object: 'not_found_error' } });
    expect((await get(`${tg}/fielding-runs`)).body).toEqual({ data: [], has_more: false });
    const listed = (await activities.listTargetGroups({ ctx, projectId: ids.projectId })).targetGroups;
    expect(Object.fromEntries(listed.map((t) => [t.id, t.status]))).toEqual({ [ids.launched]: 'live', [ids.draft]: 'draft' });
  });

  it('a 404 is the API\'s not_found_error, final', async () => {
    const f = await rejectionOf(activities.readTargetGroupState({ ctx, projectId: ids.projectId, targetGroupId: '01ZZZZZZZZZZZZZZZZZZZZZZZZ', reads: ['status'] }));
    expect(f).toMatchObject({ type: 'not_found_error', nonRetryable: true });
  });
});

describe('an answer of another shape is wire_mismatch, never an undefined id or status', () => {
  /** Activities over a client that answers `reply` for the path matching `pattern` (and 404 elsewhere). */
  function answering(replies: Array<[RegExp, ApiResponse]>) {
    const fake: DemandApiClient = {
      config: inner.config,
      tokenRequestCount: 0,
      async request<T>(req: ApiRequest): Promise<ApiResponse<T>> {
        const found = replies.find(([pattern]) => pattern.test(req.path));
        if (!found) throw new Error(`unexpected call ${req.method} ${req.path}`);
        return found[1] as ApiResponse<T>;
      },
    };
    return activitiesOver(fake);
  }
  const input = { ctx, projectId: '01AAAAAAAAAAAAAAAAAAAAAAAA', targetGroupId: '01BBBBBBBBBBBBBBBBBBBBBBBB', reads: ['status', 'fieldingRun', 'fields'] as ('status' | 'fieldingRun' | 'fields')[] };
  const TG_ONLY = /\/target-groups\/[^/]+$/;
  const moved: ApiResponse = { status: 301, headers: { location: '/details' }, body: undefined };
  const run = { id: '01CCCCCCCCCCCCCCCCCCCCCCCC', last_changed_at: '2027-01-01T00:00:00.000Z', last_changed_by: PM, start_fielding_at: '2027-01-01T00:00:00.000Z', end_fielding_at: '2027-02-01T00:00:00.000Z', status: 'live', version: 1 };

  const details = { id: '01BBBBBBBBBBBBBBBBBBBBBBBB', name: 'Launched one', account_name: 'a', business_unit_id: '2001', project_manager_id: PM, study_type_code: 'adhoc', industry_code: 'other', locale: 'eng_us', completes_goal: 50, expected_length_of_interview_minutes: 5, expected_incidence_rate: 0.5, industry_lockout_code: 'no_lock_out', collects_pii: false, created_at: '2027-01-01T00:00:00.000Z' };
  const overview = { project_name: 'p', target_group_name: 't', project_manager_id: PM, progress: { current_completes: 1, current_prescreens: 2, filling_goal: 50, filling_strategy: 'completes' }, pricing_model: 'dynamic', is_pricing_restricted: false, current_cost_per_interview: { value: '1.00', currency_code: 'USD' }, current_cost: { value: '1.00', currency_code: 'USD' }, status: 'paused', country_code: 'US', language_code: 'ENG', conversion_rate: 0.1, drop_off_rate: 0, incidence_rate: 0.5, created_at: '2027-01-01T00:00:00.000Z' };
  const { status: _status, ...overviewWithoutStatus } = overview;
  type Read = 'status' | 'fieldingRun' | 'fields';
  const all: Read[] = ['status', 'fieldingRun', 'fields'];
  const cases: Array<[string, Array<[RegExp, ApiResponse]>, Read[], string, RegExp]> = [
    ['200 with the old shape (id and status, no draft fields)', [[TG_ONLY, { status: 200, headers: {}, body: { id: 'x', status: 'live', fielding_run_id: 'r' } }]], all, 'get_target_group', /completes_goal/],
    ['301 without Location', [[TG_ONLY, { status: 301, headers: {}, body: undefined }]], all, 'get_target_group', /Location/],
    ['a 2xx the reference does not give', [[TG_ONLY, { status: 204, headers: {}, body: undefined }]], all, 'get_target_group', /200 with a draft or 301/],
    ['an overview without status', [[TG_ONLY, moved], [/\/overview$/, { status: 200, headers: {}, body: overviewWithoutStatus }]], ['status'], 'get_target_group_overview', /status/],
    ['two fielding runs', [[TG_ONLY, moved], [/\/fielding-runs$/, { status: 200, headers: {}, body: { data: [run, run], has_more: false } }]], ['fieldingRun'], 'get_fielding_runs_by_target_group_id', /data/],
    ['details without an id', [[TG_ONLY, moved], [/\/details$/, { status: 200, headers: {}, body: { name: 'n' } }]], ['fields'], 'get_target_group_details', /id/],
  ];

  it.each(cases)('%s', async (_name, replies, reads, operation, problem) => {
    const f = await rejectionOf(answering(replies).readTargetGroupState({ ...input, reads }));
    expect(f).toMatchObject({ type: 'wire_mismatch', nonRetryable: true });
    expect(f.details[0]).toMatchObject({ operation });
    expect(f.details[0].problems.join('; ')).toMatch(problem);
  });

  it('a well-formed launched answer gives the id, status and run', async () => {
    const a = answering([[TG_ONLY, moved], [/\/overview$/, { status: 200, headers: {}, body: overview }], [/\/fielding-runs$/, { status: 200, headers: {}, body: { data: [{ ...run, status: 'paused' }], has_more: false } }], [/\/details$/, { status: 200, headers: {}, body: details }]]);
    const { state } = await a.readTargetGroupState({ ...input, reads: all });
    expect(state).toMatchObject({ id: input.targetGroupId, status: 'paused', fieldingRunId: run.id, fields: { name: 'Launched one', filling_goal: 50 } });
    expect(state.fields).not.toHaveProperty('completes_goal');
  });
});
