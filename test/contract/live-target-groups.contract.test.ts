// Contract and unit tests of the operations on a launched target group (api/operations/live-target-groups.ts;
// api/wire/operations.ts LIVE_TARGET_GROUP_OPERATIONS): the plain functions drive the real sandbox (127.0.0.1, a
// free port) through a client that records every exchange; each exchange is checked against studyflow's zod wire
// schemas and the reference's JSON schemas (test/contract/operation-checks.ts), under the profile the run names
// (STUDYFLOW_TEST_PROFILE). The tests hold the operations' rules: a re-apply makes no write (already_in_state), a
// stale ETag is precondition_failed with the fresh state, a state the exchange refuses is invalid_state.
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemandApiClient } from '../../api/http/demand-api-client';
import { apiCaller, type ApiCaller } from '../../api/operations/caller';
import {
  controlLiveRun, liveFeasibility, readFieldingAssistant, readFieldingRun, readLiveTargetGroup, readOverviewFigures, readScheduleJob, scheduleLaunch, setSoftLaunchModule,
  updateAllocations, updateCostPerInterview, updateDetails, updateFieldingAssistant, updateFieldingWindow, updateFillingGoal,
} from '../../api/operations/live-target-groups';
import { LIVE_TARGET_GROUP_OPERATIONS } from '../../api/wire/operations';
import type { RunningSandbox } from '../../sandbox/index';
import { describeOperationChecks } from './operation-checks';
import type { RecordedExchange } from './recording-client';
import { CONTRACT_CTX, projectWithLaunchedAndDraft, startRecordingSandbox } from './launched-pair';
import { recordingClient } from './recording-client';

const PM = '6f1c2a4e-3001-4c8e-9d2b-000000003001';
const exchanges: RecordedExchange[] = [];
let sandbox: RunningSandbox;
let agent: Agent;
let inner: DemandApiClient;
let caller: ApiCaller;
const ids = { projectId: '', launched: '', draft: '', runId: '' };
const draft = {
  name: 'Live contract us', business_unit_id: '2001', locale: 'eng_us', live_url: 'https://survey.example.com/s?rid=[%RID%]', test_url: 'https://survey.example.com/t',
  expected_incidence_rate: 0.5, expected_length_of_interview_minutes: 10, filling_goal: 200, project_manager_id: PM, collects_pii: false, study_type_code: 'adhoc',
  fielding_specification: { start_at: '2027-01-04T00:00:00Z', end_at: '2027-02-01T00:00:00Z' },
  fielding_assistant_assignment: {},
  allocations: { open_exchange_allocations: { exchange_min_percentage: 0, exchange_max_percentage: 100, blocked_supplier_ids: [], groups: [] } },
};
const writes = (from: number) => exchanges.slice(from).filter((e) => e.method !== 'GET' && !e.path.endsWith('/calculate-feasibility')).length;
const live = () => ({ projectId: ids.projectId, targetGroupId: ids.launched });

beforeAll(async () => {
  const started = await startRecordingSandbox(exchanges);
  ({ sandbox, agent, inner } = started);
  caller = apiCaller(recordingClient(inner, exchanges), CONTRACT_CTX);
  Object.assign(ids, await projectWithLaunchedAndDraft(started.activities, { key: 'live', label: 'Live contract', projectManagerId: PM, draft }));
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await sandbox?.close();
});

describe('live target groups through api/operations', () => {
  it('readLiveTargetGroup: null for a draft; every changeable field of a live group, with the ETags to write', async () => {
    expect(await readLiveTargetGroup(caller, { projectId: ids.projectId, targetGroupId: ids.draft })).toBeNull();
    const state = (await readLiveTargetGroup(caller, live()))!;
    expect(state).toMatchObject({ status: 'live', completesGoal: 200, fieldingRun: { id: ids.runId, status: 'live', etag: expect.any(String) } });
    expect(state.details).toMatchObject({ name: 'Live contract us', lengthOfInterviewMinutes: 10, incidenceRate: 0.5, projectManagerId: PM });
    expect(state.fieldingAssistant.etag).toMatch(/\S/);
    expect(state.allocations.open_exchange_allocations.exchange_max_percentage).toBe(100);
  });

  it('filling goal: raised with one write, the re-apply makes none', async () => {
    const from = exchanges.length;
    expect((await updateFillingGoal(caller, live(), { completesGoal: 300 })).outcome).toBe('applied');
    expect(writes(from)).toBe(1);
    const again = exchanges.length;
    const second = await updateFillingGoal(caller, live(), { completesGoal: 300 });
    expect(second).toMatchObject({ outcome: 'already_in_state', state: { completesGoal: 300 } });
    expect(writes(again)).toBe(0);
  });

  it('fielding window: moved with If-Match; a stale ETag is precondition_failed with the fresh run; the re-apply makes no write', async () => {
    const ref = { ...live(), fieldingRunId: ids.runId };
    const before = await readFieldingRun(caller, ref);
    const end = new Date(Date.now() + 20 * 86_400_000).toISOString();
    const applied = await updateFieldingWindow(caller, { ...ref, etag: before.etag }, { endFieldingAt: end });
    expect(applied.outcome).toBe('applied');
    expect(Date.parse(applied.state.endFieldingAt!)).toBe(Date.parse(end));
    const stale = await updateFieldingWindow(caller, { ...ref, etag: before.etag }, { endFieldingAt: new Date(Date.now() + 30 * 86_400_000).toISOString() });
    expect(stale).toMatchObject({ outcome: 'precondition_failed', state: { etag: applied.state.etag } });
    const from = exchanges.length;
    expect((await updateFieldingWindow(caller, ref, { endFieldingAt: end })).outcome).toBe('already_in_state');
    expect(writes(from)).toBe(0);
  });

  it('relaunch: nothing to do while live, invalid_state while paused; after complete, live again', async () => {
    const ref = { ...live(), fieldingRunId: ids.runId };
    const runUrl = `/v1/demand/accounts/1001/projects/${ids.projectId}/target-groups/${ids.launched}/fielding-runs/${ids.runId}`;
    // A live run is where relaunch leads: no write.
    expect((await controlLiveRun(caller, ref, 'relaunch')).outcome).toBe('already_in_state');
    expect((await caller.send({ method: 'POST', path: `${runUrl}/pause`, ifMatch: (await readFieldingRun(caller, ref)).etag })).status).toBe(204);
    const refused = await controlLiveRun(caller, ref, 'relaunch');
    expect(refused).toMatchObject({ outcome: 'invalid_state', state: { status: 'paused' } });
    expect((await caller.send({ method: 'POST', path: `${runUrl}/complete`, ifMatch: (await readFieldingRun(caller, ref)).etag })).status).toBe(204);
    const relaunched = await controlLiveRun(caller, ref, 'relaunch');
    expect(relaunched).toMatchObject({ outcome: 'applied', state: { status: 'live' } });
    expect((await controlLiveRun(caller, ref, 'relaunch')).outcome).toBe('already_in_state');
  });

  it('details, CPI, allocations and fielding assistant: one write each, none on the re-apply', async () => {
    const allocations = {
      open_exchange_allocations: { blocked_supplier_ids: ['421'], exchange_min_percentage: 10, exchange_max_percentage: 90, groups: [{ group_name: 'Premium', min_percentage: 10, max_percentage: 80, supplier_ids: ['420'] }] },
      private_exchange_allocations: { blocked_supplier_ids: [], groups: [] },
    };
    const assistant = { pacing: { type: 'linear' as const, increment_interval: 'P1D' } };
    const from = exchanges.length;
    expect((await updateDetails(caller, live(), { name: 'Live contract us (w2)', liveUrl: 'https://survey.example.com/s2?rid=[%RID%]' })).outcome).toBe('applied');
    expect((await updateCostPerInterview(caller, live(), { value: '4.5', currency_code: 'USD' })).state).toEqual({ value: '4.50', currency_code: 'USD' });
    expect((await updateAllocations(caller, live(), allocations)).outcome).toBe('applied');
    expect((await updateFieldingAssistant(caller, live(), assistant)).outcome).toBe('applied');
    expect(writes(from)).toBe(4);
    const again = exchanges.length;
    expect((await updateDetails(caller, live(), { name: 'Live contract us (w2)' })).outcome).toBe('already_in_state');
    expect((await updateCostPerInterview(caller, live(), { value: '4.50', currency_code: 'USD' })).outcome).toBe('already_in_state');
    expect((await updateAllocations(caller, live(), allocations)).outcome).toBe('already_in_state');
    expect((await updateFieldingAssistant(caller, live(), assistant)).outcome).toBe('already_in_state');
    expect(writes(again)).toBe(0);
    const stale = await updateFieldingAssistant(caller, { ...live(), etag: '"fa.stale.0"' }, {});
    expect(stale.outcome).toBe('precondition_failed');
  });

  it('the soft launch module: merged into the assignment with If-Match, the other modules kept; once only; removed alone', async () => {
    const before = await readFieldingAssistant(caller, live());
    expect(before.modules.pacing).toBeDefined(); // the module of the test before, which the soft launch keeps
    const module = { end_at: '2026-12-30T10:00:00Z', filling_goal_percentage: 5, demographics_strictness_percentage: 100 };
    const from = exchanges.length;
    expect((await setSoftLaunchModule(caller, live(), module)).outcome).toBe('applied');
    expect(writes(from)).toBe(1);
    const put = exchanges.slice(from).find((e) => e.method === 'PUT')!;
    expect(put.ifMatch).toBe(before.etag);
    const set = await readFieldingAssistant(caller, live());
    expect(set.modules).toEqual({ ...before.modules, soft_launch: expect.objectContaining({ filling_goal_percentage: 5, demographics_strictness_percentage: 100 }) });
    expect(Date.parse((set.modules.soft_launch as { end_at: string }).end_at)).toBe(Date.parse(module.end_at));
    // The same module again (its end written another way): nothing written.
    const again = exchanges.length;
    expect((await setSoftLaunchModule(caller, live(), { ...module, end_at: '2026-12-30T10:00:00.000Z' })).outcome).toBe('already_in_state');
    expect(writes(again)).toBe(0);
    // Removed: the other modules as they were; removed again: nothing written.
    expect((await setSoftLaunchModule(caller, live(), null)).outcome).toBe('applied');
    expect((await readFieldingAssistant(caller, live())).modules).toEqual(before.modules);
    const gone = exchanges.length;
    expect((await setSoftLaunchModule(caller, live(), null)).outcome).toBe('already_in_state');
    expect(writes(gone)).toBe(0);
  });

  it('the overview\'s figures a soft launch is judged on', async () => {
    const figures = await readOverviewFigures(caller, live());
    expect(figures).toMatchObject({ status: 'live', completes: expect.any(Number) });
    for (const rate of [figures.incidenceRate, figures.dropOffRate]) if (rate !== undefined) expect(rate).toBeGreaterThanOrEqual(0);
    if (figures.medianLengthOfInterviewSeconds !== undefined) expect(Number.isInteger(figures.medianLengthOfInterviewSeconds)).toBe(true);
  });

  it('feasibility of a change to the live group', async () => {
    const answer = await liveFeasibility(caller, live(), { completes_goal: 400 });
    expect(Number(answer.suggestedPrice.value)).toBeGreaterThan(0);
    expect(answer.completesGoalRange).toMatchObject({ min: expect.any(Number), max: expect.any(Number) });
  });

  it('a scheduled launch of the draft, then launch-now', async () => {
    const ref = { projectId: ids.projectId, targetGroupId: ids.draft };
    const start = new Date(Date.now() + 3_600_000).toISOString();
    const { jobId } = await scheduleLaunch(caller, ref, { startFieldingAt: start, endFieldingAt: new Date(Date.now() + 10 * 86_400_000).toISOString(), idempotencyKey: 'live/schedule' });
    let job = await readScheduleJob(caller, { ...ref, jobId });
    for (let i = 0; i < 200 && job.status === 'Processing'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      job = await readScheduleJob(caller, { ...ref, jobId });
    }
    expect(job).toMatchObject({ status: 'Completed', fieldingRunId: expect.any(String) });
    const runRef = { ...ref, fieldingRunId: job.fieldingRunId! };
    expect((await readFieldingRun(caller, runRef)).status).toBe('scheduled');
    expect((await controlLiveRun(caller, runRef, 'launch-now')).state.status).toBe('live');
  });
});

describeOperationChecks(LIVE_TARGET_GROUP_OPERATIONS, () => exchanges);
