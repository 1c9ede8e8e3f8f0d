// Contract tests of feasibility, the price prediction, the calendar (suggest-time-range, suggest-days), launch from draft, the fielding runs and the recontact upload
// (api/wire/operations.ts LAUNCH_FIELDING_OPERATIONS): the client drives the real sandbox with the
// requests the planning core builds, and every exchange is checked against studyflow's zod wire schemas and,
// independently, against the reference's own JSON schemas (test/contract/operation-checks.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, expect } from 'vitest';
import { createBlobStore } from '../../blobs/blob-store';
import { createDemandApiClient } from '../../api/http/demand-api-client';
import { LAUNCH_FIELDING_OPERATIONS } from '../../api/wire/operations';
import { createActivities } from '../../activities/index';
import { feasibilityRequest, judgedCpi, priceQuery, readFeasibility, readPrice } from '../../plan/launch-gates';
import { profilingOf } from '../../plan/profiling';
import { suggestDaysRequest } from '../../plan/server-checks';
import type { DesiredTargetGroup } from '../../plan/types';
import { startSandbox, type RunningSandbox } from '../../sandbox/index';
import { testSandboxOptions } from '../helpers/test-profile';
import { describeOperationChecks } from './operation-checks';
import { sandboxApiConfig } from '../activities/helpers/sandbox-harness';
import { recordingClient, type RecordedExchange } from './recording-client';

const ctx = { accountId: '1001', apiVersion: '2025-12-18' as const };
const exchanges: RecordedExchange[] = [];
let sandbox: RunningSandbox;
let agent: Agent;
let blobDir: string;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  sandbox = await startSandbox({ quiet: true, ...testSandboxOptions() });
  agent = new Agent({ keepAliveTimeout: 1000 });
  blobDir = await mkdtemp(join(tmpdir(), 'studyflow-contract-launch-'));
  const config = sandboxApiConfig(sandbox);
  const blobs = createBlobStore({ dir: blobDir });
  const a = createActivities({
    api: recordingClient(createDemandApiClient({ config, dispatcher: agent }), exchanges),
    blobs,
    webhookSecrets: { save: async () => undefined, has: async () => false },
  });

  const projectId = (await a.ensureProject({ ctx, idempotencyKey: 'contract-launch/p', desired: { name: 'Launch contract', project_customer_reference_number: 'PO-LAUNCH-1', project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001' } })).project.id;
  const draft = {
    name: 'Launch contract us', locale: 'en_US', live_url: 'https://survey.example.com/s?rid=[%RID%]', expected_incidence_rate: 0.5,
    expected_length_of_interview_minutes: 10, filling_goal: 200, project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001', collects_pii: false,
    business_unit_id: '2001', fielding_specification: { start_at: '2027-01-04T00:00:00.000Z', end_at: '2027-02-01T00:00:00.000Z' }, fielding_assistant_assignment: {},
    allocations: { open_exchange_allocations: { exchange_min_percentage: 0, exchange_max_percentage: 100, blocked_supplier_ids: [], groups: [] } },
  };
  const tgId = (await a.ensureDraftTargetGroup({ ctx, projectId, idempotencyKey: 'contract-launch/tg', desired: { ...draft, target_group_customer_reference_number: 'contract-launch_us' } })).targetGroup.id;

  // Feasibility: the request the launch gate builds, with profiles (nominal quotas) and without.
  const end = new Date(Date.now() + 20 * 86_400_000).toISOString();
  const desiredProfiles = [
    {
      object: 'regular', name: 'Gender', quotas_enabled: true,
      targets: [
        { text: 'Men', conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { name: 'men', completes_goal: 100 } },
        { text: 'Women', conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { name: 'women', completes_goal: 100 } },
      ],
    },
    {
      object: 'regular', name: 'Age', quotas_enabled: false,
      targets: [{ text: '18-34', conditions: [{ object: 'range', question_id: 42, min: 18, max: 34 }] }],
    },
  ];
  const desired: DesiredTargetGroup = {
    key: 'us',
    // As plan/desired.ts builds it: the draft carries the profiles in its profiling, which feasibility sends.
    draft: { ...draft, profiling: profilingOf(desiredProfiles) },
    idLists: {},
    exclusionGroups: [],
    launch: { mode: 'auto', requireFeasible: true, maxCpi: { value: '5.00', currency_code: 'USD' }, endFieldingAt: end },
    timing: { jobPollInitialMs: 20, jobPollMaxMs: 50, jobTimeoutMs: 10_000, launchRetries: 1, watchIntervalMs: 60_000 },
    profiles: desiredProfiles,
  };
  const { feasibility } = await a.calculateFeasibility({ ctx, request: feasibilityRequest(desired, '2001') });
  const verdict = readFeasibility(feasibility, desired);
  expect(verdict).toMatchObject({ feasible: true, fillingGoal: 200 });
  await a.checkLaunchGatesBatch({ items: [{ ctx, feasibility: feasibilityRequest({ ...desired, draft, profiles: undefined }, '2001') }] });

  // The plan's price prediction (the planning core's rate-card config: GET query under sandbox, POST body under cint)
  // and the calendar's time range, both read with their wire schemas.
  const { prediction } = await a.generatePricePrediction({ ctx, businessUnitId: '2001', query: priceQuery(desired) });
  expect(readPrice(prediction)).toMatchObject({ currency_code: 'USD' });
  const range = await a.suggestTimeRange({ ctx, locale: 'en_US', days: 14 });
  expect(Date.parse(range.suggestedEnd)).toBeGreaterThan(Date.parse(range.suggestedStart));

  // suggest-days with the price the gate judged.
  const days = suggestDaysRequest(desired, judgedCpi(undefined, verdict));
  if (!('request' in days)) throw new Error(`suggest-days not asked: ${days.skip}`);
  expect((await a.suggestDays({ ctx, request: days.request })).suggestion.days).toBeGreaterThanOrEqual(1);

  // Launch, its job, the run and its controls (a stale ETag: 412; a wrong state: 422).
  const base = { ctx, projectId, targetGroupId: tgId };
  const { jobId } = await a.launchFromDraft({ ...base, idempotencyKey: 'contract-launch/launch', endFieldingAt: end });
  let job = await a.getLaunchJob({ ...base, jobId: jobId! });
  for (let i = 0; i < 200 && job.status === 'Processing'; i += 1) {
    await sleep(25);
    job = await a.getLaunchJob({ ...base, jobId: jobId! });
  }
  expect(job.status).toBe('Completed');
  const run = { ...base, fieldingRunId: job.fieldingRunId! };
  const first = await a.getFieldingRun(run);
  expect(first.run.status).toBe('live');
  const paused = await a.pauseFieldingRun({ ...run, etag: first.etag });
  expect(paused.outcome).toBe('applied');
  expect((await a.resumeFieldingRun({ ...run, etag: first.etag })).outcome).toBe('precondition_failed');
  const resumed = await a.resumeFieldingRun({ ...run, etag: paused.etag });
  expect(resumed.outcome).toBe('applied');
  const completed = await a.completeFieldingRun({ ...run, etag: resumed.etag });
  expect(completed.outcome).toBe('applied');
  expect((await a.pauseFieldingRun({ ...run, etag: completed.etag })).outcome).toBe('invalid_state');

  // Recontact: a recontact draft, its respondent upload and the job.
  const recontact = {
    ...draft, name: 'Launch contract recontact', live_url: 'https://survey.example.com/s?rsid=[%RECONTACT_RSID%]', study_type_code: 'recontact',
    allocations: { template_id: 'recontact-global', open_exchange_allocations: { exchange_min_percentage: 0, exchange_max_percentage: 100, blocked_supplier_ids: [], groups: [] } }, target_group_customer_reference_number: 'contract-launch_recontact',
  };
  const recontactId = (await a.ensureDraftTargetGroup({ ctx, projectId, idempotencyKey: 'contract-launch/tg-recontact', desired: recontact })).targetGroup.id;
  const list = await blobs.put(['0f1ce179-a917-49ff-9d50-b05fc91f7bd4\n75f1404c-65f6-4937-ad2a-588e4f66e07f\n']);
  const upload = await a.uploadRecontactList({ ctx, projectId, targetGroupId: recontactId, list, idempotencyKey: 'contract-launch/recontact' });
  let status = (await a.getRecontactJob({ ctx, projectId, targetGroupId: recontactId, jobId: upload.jobId })).status;
  for (let i = 0; i < 200 && status === 'Processing'; i += 1) {
    await sleep(25);
    status = (await a.getRecontactJob({ ctx, projectId, targetGroupId: recontactId, jobId: upload.jobId })).status;
  }
  expect(status).toBe('Completed');
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await sandbox?.close();
  if (blobDir) await rm(blobDir, { recursive: true, force: true });
});

describeOperationChecks(LAUNCH_FIELDING_OPERATIONS, () => exchanges, {
  generate_price_prediction: [
    { problem: /^\(body\) must be object$/, why: 'spec: a GET, its rate-card config as query parameters (checked against the reference\'s request schema before it is sent)', spec: true },
  ],
  calculate_target_group_feasibility: [
    { problem: /^\(body\) must have required property 'completes_goal'$/, why: 'spec: the wanted completes are filling_goal on feasibility', spec: true },
    { problem: /^\(body\) has filling_goal, a field the reference does not name$/, why: 'spec: the wanted completes are filling_goal on feasibility', spec: true },
    // The reference's FeasibilityRequestQuotaDetailsV3.quota is a oneOf of two object schemas without required
    // properties, so every quota object matches both and no quota can pass a strict oneOf; the profile carrying
    // it then fails the profile oneOf too, and the blended branch names its `object`. (The profile without
    // quotas passes, conditions included.)
    { problem: /^\/profiling\/profiles\/\d+\/targets\/\d+\/quota must match exactly one schema in oneOf$/, why: 'reference: the quota oneOf cannot be met by any quota' },
    { problem: /^\/profiling\/profiles\/\d+ must match exactly one schema in oneOf$/, why: 'reference: follows from the quota oneOf' },
    { problem: /^\/profiling\/profiles\/\d+\/object must be equal to one of the allowed values$/, why: 'reference: the blended branch of the profile oneOf, tried for a regular profile with quotas' },
  ],
});
