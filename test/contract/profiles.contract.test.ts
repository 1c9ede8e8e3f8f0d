// Contract tests of profiles on the reference's wire (api/wire/operations.ts PROFILE_OPERATIONS, and
// the draft create and update that carry a draft's `profiling`): the client drives the real sandbox with the
// bodies the planning core builds (plan/profiling.ts), and every exchange is checked against studyflow's zod
// wire schemas and, independently, against the reference's own JSON schemas (test/contract/operation-checks.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore } from '../../blobs/blob-store';
import { createDemandApiClient } from '../../api/http/demand-api-client';
import { PROFILE_OPERATIONS, WIRE_OPERATIONS } from '../../api/wire/operations';
import { createActivities } from '../../activities/index';
import { manageProfilesBody, profilingHolds, profilingOf, validateProfilesBody } from '../../plan/profiling';
import type { DesiredTargetGroup } from '../../plan/types';
import { startSandbox, type RunningSandbox } from '../../sandbox/index';
import { testSandboxOptions } from '../helpers/test-profile';
import { sandboxApiConfig } from '../activities/helpers/sandbox-harness';
import { describeOperationChecks } from './operation-checks';
import { recordingClient, type RecordedExchange } from './recording-client';

const ctx = { accountId: '1001', apiVersion: '2025-12-18' as const };
const PM = '6f1c2a4e-3001-4c8e-9d2b-000000003001';
const TEMPLATE = '0b7c3f6e-5a41-4c1e-9a6d-1f2e3d4c5b02';
const exchanges: RecordedExchange[] = [];
let sandbox: RunningSandbox;
let agent: Agent;
let blobDir: string;
let activities: ReturnType<typeof createActivities>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Profiles as a study file writes them (labels included): a nominal profiling, zip codes repeated, free-text values differing in case. */
const NOMINAL = [
  {
    object: 'regular', name: 'Gender', quotas_enabled: true,
    targets: [
      { text: 'Men', conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { name: 'men', completes_goal: 100 } },
      { text: 'Women', conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { name: 'women', completes_goal: 100 } },
    ],
  },
  {
    object: 'regular', name: 'Metro', quotas_enabled: false,
    targets: [{ text: 'NYC', conditions: [{ object: 'open_ended', question_id: 45, allow_all_values: false, open_ended_values: ['10001', '10002', '10001'] }] }],
  },
  {
    object: 'regular', name: 'Brand', quotas_enabled: false,
    targets: [{ conditions: [{ object: 'open_ended', question_id: 9001, allow_all_values: false, open_ended_values: ['Acme', 'acme', 'Acme'] }] }],
  },
  {
    object: 'blended', blended_type: 'interlock', name: 'Age x gender', quotas_enabled: false,
    targets: [{ conditions: [{ object: 'selection', question_id: 43, option: '1' }, { object: 'range', question_id: 42, min: 18, max: 34 }] }],
  },
];
/** A percentage profiling with a profile template in the API. */
const SHARES = [
  {
    object: 'regular', name: 'Gender', quotas_enabled: true,
    targets: [
      { conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { name: 'men', completes_goal_percentage: 50 } },
      { conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { name: 'women', completes_goal_percentage: 50 } },
    ],
  },
];

/** The draft body plan/desired.ts builds (with the fields the reference requires), carrying `profiling`. */
const draftOf = (profiling: unknown) => ({
  name: 'Profiles contract us', business_unit_id: '2001', locale: 'en_US', live_url: 'https://survey.example.com/s?rid=[%RID%]', expected_incidence_rate: 0.5,
  expected_length_of_interview_minutes: 10, filling_goal: 200, project_manager_id: PM, collects_pii: false,
  fielding_specification: { start_at: '2027-01-04T00:00:00Z', end_at: '2027-02-01T00:00:00Z' },
  fielding_assistant_assignment: {},
  allocations: { open_exchange_allocations: { exchange_min_percentage: 0, exchange_max_percentage: 100, blocked_supplier_ids: [], groups: [] } },
  target_group_customer_reference_number: 'contract-profiles_us', ...(profiling ? { profiling } : {}),
});
const desiredOf = (draft: Record<string, unknown>): DesiredTargetGroup => ({
  key: 'us', draft, idLists: {}, exclusionGroups: [],
  launch: { mode: 'auto', requireFeasible: false },
  timing: { jobPollInitialMs: 20, jobPollMaxMs: 50, jobTimeoutMs: 10_000, launchRetries: 1, watchIntervalMs: 60_000 },
});

const results: Record<string, unknown> = {};

beforeAll(async () => {
  sandbox = await startSandbox({ quiet: true, ...testSandboxOptions() });
  agent = new Agent({ keepAliveTimeout: 1000 });
  blobDir = await mkdtemp(join(tmpdir(), 'studyflow-contract-profiles-'));
  activities = createActivities({
    api: recordingClient(createDemandApiClient({ config: sandboxApiConfig(sandbox), dispatcher: agent }), exchanges),
    blobs: createBlobStore({ dir: blobDir }),
    webhookSecrets: { save: async () => undefined, has: async () => false },
  });
  const a = activities;
  const projectId = (await a.ensureProject({ ctx, idempotencyKey: 'contract-profiles/p', desired: { name: 'Profiles contract', project_customer_reference_number: 'PO-PROFILES-1', project_manager_id: PM } })).project.id;

  // A draft with profiles is one create call; the draft read back holds them, so a re-apply writes nothing.
  const firstDraft = draftOf(profilingOf(NOMINAL));
  const first = desiredOf(firstDraft);
  const created = await a.ensureDraftTargetGroup({ ctx, projectId, idempotencyKey: 'contract-profiles/tg', desired: firstDraft });
  const base = { ctx, projectId, targetGroupId: created.targetGroup.id };
  results.createdRead = (await a.readTargetGroupState({ ...base, reads: [] })).state.fields.profiling;
  results.firstProfiling = first.draft.profiling;

  // Update: a percentage profiling with a template in the API, in the draft's own body (204).
  const secondDraft = draftOf(profilingOf(SHARES, [TEMPLATE]));
  const second = desiredOf(secondDraft);
  await a.updateDraftTargetGroup({ ...base, desired: secondDraft });
  results.updatedRead = (await a.readTargetGroupState({ ...base, reads: [] })).state.fields.profiling;
  results.secondProfiling = second.draft.profiling;

  // validate: 204 for the valid set, 422 (ValidationErrorResponseDemographics) for a duplicate condition.
  results.valid = await a.validateProfiles({ ctx, request: validateProfilesBody(first)! });
  const duplicate = [{ ...NOMINAL[0], targets: [NOMINAL[0].targets[0], NOMINAL[0].targets[0]] }];
  results.invalid = await a.validateProfiles({ ctx, request: validateProfilesBody(desiredOf(draftOf(profilingOf(duplicate))))! });

  // manage-profiles: the launched target group's complete set, {completes_goal, profiling} -> 201.
  const { jobId } = await a.launchFromDraft({ ...base, idempotencyKey: 'contract-profiles/launch', endFieldingAt: new Date(Date.now() + 20 * 86_400_000).toISOString() });
  let job = await a.getLaunchJob({ ...base, jobId: jobId! });
  for (let i = 0; i < 200 && job.status === 'Processing'; i += 1) {
    await sleep(25);
    job = await a.getLaunchJob({ ...base, jobId: jobId! });
  }
  expect(job.status).toBe('Completed');
  results.managed = (await a.manageProfiles({ ...base, request: manageProfilesBody(first)! })).result;
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await sandbox?.close();
  if (blobDir) await rm(blobDir, { recursive: true, force: true });
});

describe('profiles on the wire', () => {
  it('a draft carries its profiles in profiling on create; the answer holds them (duplicate open-ended values sent once)', () => {
    const sent = (results.firstProfiling as { profiles: { targets: { conditions: { open_ended_values?: string[] }[] }[] }[] }).profiles;
    expect(sent[1].targets[0].conditions[0].open_ended_values).toEqual(['10001', '10002']);
    // Exact repeats only, on both sides: values that differ in case are sent and stored as two, so the draft read
    // back holds the desired profiling and a re-apply writes nothing.
    expect(sent[2].targets[0].conditions[0].open_ended_values).toEqual(['Acme', 'acme']);
    const read = (results.createdRead as { profiles: { targets: { conditions: { open_ended_values?: string[] }[] }[] }[] }).profiles;
    expect(read[2].targets[0].conditions[0].open_ended_values).toEqual(['Acme', 'acme']);
    expect(sent[3]).toMatchObject({ object: 'blended', blended_type: 'interlock' });
    expect(profilingHolds(results.firstProfiling, results.createdRead)).toBe(true);
    const creates = exchanges.filter((e) => e.method === 'POST' && /\/target-groups$/.test(e.path));
    expect(creates).toHaveLength(1);
    expect(exchanges.filter((e) => /manage-profiles/.test(e.path) && e.status !== 201)).toEqual([]);
  });

  it('an update replaces the profiling (a template in the API with percentages); the answer holds it', () => {
    expect(results.secondProfiling).toMatchObject({ profile_adjustment_type: 'percentage', template_id: TEMPLATE });
    expect(profilingHolds(results.secondProfiling, results.updatedRead)).toBe(true);
    expect(profilingHolds(results.firstProfiling, results.updatedRead)).toBe(false);
  });

  it('validate answers 204 for a valid set and the reference\'s 422 for a duplicate condition', () => {
    expect(results.valid).toEqual({ valid: true });
    expect(results.invalid).toMatchObject({ valid: false, object: 'unprocessable_entity_error', invalidParams: [{ name: 'profile_validation_error_039', reason: 'duplicate_condition_039' }] });
  });

  it('manage-profiles replaces a launched target group\'s profiles and answers ProfilesResponseV3', () => {
    expect(results.managed).toMatchObject({ locale: 'en_US', completes_goal: 200 });
    expect((results.managed as { profiles: unknown[] }).profiles).toHaveLength(4);
  });
});

// The reference's ProfilingRequest ends its oneOf with "No profiling": an object without properties, which every
// object matches; so a draft's profiling (profiles only, or a template with profiles) always matches two branches and
// no profiling can pass the strict oneOf (ajv then also lists what the template branches miss). The profiles,
// targets and conditions inside pass the reference's schemas. Likewise its QuotaDetailsV3 (the targets of a
// ProfilesResponseV3) has a branch with a quota and one without, both without additionalProperties: a target with
// a quota matches both.
const PROFILING_ONE_OF = 'reference: ProfilingRequest\'s "No profiling" branch (an object without properties) matches every profiling';
const PROFILING_GAPS = [
  { problem: /^\/profiling must match exactly one schema in oneOf$/, why: PROFILING_ONE_OF },
  { problem: /^\/profiling must have required property 'template_id'$/, why: `${PROFILING_ONE_OF}: the template branches, tried for profiles only` },
  { problem: /^\/profiling\/profile_adjustment_type must be equal to one of the allowed values$/, why: `${PROFILING_ONE_OF}: the template branches take percentage only, tried for a nominal profiling` },
];
const FILLING_GOAL = { problem: /must have required property 'completes_goal'/, why: 'spec: filling_goal on draft create and update (the reference: completes_goal)', spec: true as const };
const FILLING_GOAL_FIELD = { problem: /^\(body\) has filling_goal, a field the reference does not name$/, why: 'spec: filling_goal on draft create and update', spec: true as const };

describeOperationChecks(
  { ...PROFILE_OPERATIONS, create_target_group: WIRE_OPERATIONS.create_target_group, update_target_group: WIRE_OPERATIONS.update_target_group },
  () => exchanges,
  {
    create_target_group: [FILLING_GOAL, FILLING_GOAL_FIELD, ...PROFILING_GAPS],
    update_target_group: [FILLING_GOAL, FILLING_GOAL_FIELD, PROFILING_GAPS[0]],
    manage_target_group_profiles: [
      { problem: /^\/profiles\/\d+\/targets\/\d+ must match exactly one schema in oneOf$/, why: 'reference: QuotaDetailsV3\'s branches with and without a quota both match a target with a quota' },
      { problem: /^\/profiles\/\d+ must match exactly one schema in oneOf$/, why: 'reference: follows from the target oneOf' },
      { problem: /^\/profiles\/\d+\/object must be equal to one of the allowed values$/, why: 'reference: the blended branch of RegularProfileV3, tried for a regular profile' },
      { problem: /^\/profiles must NOT have more than 0 items$/, why: 'reference: the "No profiles" branch of ProfilesResponseV3, tried when the profiles branch fails' },
    ],
  },
);
