// Contract tests, one per operation on the reference's wire (api/wire/operations.ts): the client
// drives the real sandbox; every exchange is matched to its operation, and both the request the client sent
// and the answer the sandbox gave are checked against studyflow's zod wire schemas and, independently,
// against the reference's own JSON schemas (ajv, straight from the published yml).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore } from '../../blobs/blob-store';
import { createDemandApiClient } from '../../api/http/demand-api-client';
import { CLOSEOUT_OPERATIONS, LAUNCH_FIELDING_OPERATIONS, LIVE_TARGET_GROUP_OPERATIONS, PERFORMANCE_OPERATIONS, PROFILE_HELPER_OPERATIONS, PROFILE_OPERATIONS, TARGET_GROUP_STATE_OPERATIONS, WIRE_OPERATIONS } from '../../api/wire/operations';
import { createActivities } from '../../activities/index';
import { startSandbox, type RunningSandbox } from '../../sandbox/index';
import { testDialect, testSandboxOptions } from '../helpers/test-profile';
import { ErrorBody } from '../../api/wire/common';
import { boundaryFromSeed, multipartFileBody } from '../../api/http/multipart-body';
import { rejectionOf } from '../activities/helpers/mock-api';
import { describeOperationChecks, type ReferenceGaps } from './operation-checks';
import { answerProblems, referenceAvailable } from './reference-openapi';
import { sandboxApiConfig } from '../activities/helpers/sandbox-harness';
import { recordingClient, type RecordedExchange } from './recording-client';

const ctx = { accountId: '1001', apiVersion: '2025-12-18' as const };
const exchanges: RecordedExchange[] = [];
let sandbox: RunningSandbox;
let agent: Agent;
let blobDir: string;

beforeAll(async () => {
  sandbox = await startSandbox({ quiet: true, ...testSandboxOptions() });
  agent = new Agent({ keepAliveTimeout: 1000 });
  blobDir = await mkdtemp(join(tmpdir(), 'studyflow-contract-'));
  const config = sandboxApiConfig(sandbox);
  const secrets = new Map<string, string>();
  const blobs = createBlobStore({ dir: blobDir });
  // Small pages, so that every list is walked across more than one page.
  const a = createActivities({
    api: recordingClient(createDemandApiClient({ config, dispatcher: agent }), exchanges),
    blobs,
    listPageSize: 1,
    webhookSecrets: {
      save: async ({ accountId, webhookId, secret }) => void secrets.set(`${accountId}/${webhookId}`, secret),
      has: async ({ accountId, webhookId }) => secrets.has(`${accountId}/${webhookId}`),
    },
  });

  // One run through every operation on the reference's wire.
  await a.getAccounts({ ctx });
  await a.getBusinessUnits({ ctx });
  const desiredProject = { name: 'Contract study', project_customer_reference_number: 'PO-CONTRACT-1', project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001' };
  await a.ensureProject({ ctx, idempotencyKey: 'contract/p0', desired: { ...desiredProject, project_customer_reference_number: 'PO-CONTRACT-0' } });
  const projectId = (await a.ensureProject({ ctx, idempotencyKey: 'contract/p1', desired: desiredProject })).project.id;
  await a.ensureProject({ ctx, idempotencyKey: 'contract/p1', desired: desiredProject });
  await a.ensureProject({ ctx, idempotencyKey: 'contract/p1', knownId: projectId, desired: desiredProject });
  await a.updateProject({ ctx, projectId, idempotencyKey: 'contract/p1/update', desired: { ...desiredProject, name: 'Contract study, renamed' } });
  await a.getProjectOverview({ ctx, projectId });
  const draft = (reference: string) => ({
    name: `Contract ${reference}`, expected_incidence_rate: 0.4, expected_length_of_interview_minutes: 10, filling_goal: 100,
    project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001', collects_pii: false, target_group_customer_reference_number: reference,
    // What plan/desired.ts puts on every draft: the study's business unit, its fielding window, the default allocations and fielding assistant.
    business_unit_id: '2001', locale: 'eng_us', fielding_specification: { start_at: '2027-01-04T00:00:00Z', end_at: '2027-02-01T00:00:00Z' },
    allocations: { open_exchange_allocations: { exchange_min_percentage: 0, exchange_max_percentage: 100, blocked_supplier_ids: [], groups: [] } },
    fielding_assistant_assignment: {},
  });
  const tgA = (await a.ensureDraftTargetGroup({ ctx, projectId, idempotencyKey: 'contract/tg-a', desired: draft('contract-a') })).targetGroup.id;
  const tgB = (await a.ensureDraftTargetGroup({ ctx, projectId, idempotencyKey: 'contract/tg-b', desired: draft('contract-b') })).targetGroup.id;
  await a.ensureDraftTargetGroup({ ctx, projectId, idempotencyKey: 'contract/tg-a', desired: draft('contract-a') });
  await a.listTargetGroups({ ctx, projectId });
  await a.updateDraftTargetGroup({ ctx, projectId, targetGroupId: tgB, desired: { ...draft('contract-b'), filling_goal: 150 } });
  await a.putActivityExclusions({ ctx, projectId, targetGroupId: tgA, duration: 'P30D', items: [{ type: 'target_group', id: tgB }, { type: 'project', id: projectId, duration: 'P10D' }] });
  expect((await a.getActivityExclusions({ ctx, projectId, targetGroupId: tgA })).items.map((i) => i.type)).toEqual(['target_group', 'project']);

  const group = (await a.ensureExclusionGroup({ ctx, idempotencyKey: 'contract/eg', desired: { name: 'Contract waves' } })).exclusionGroup.id;
  await a.ensureExclusionGroup({ ctx, idempotencyKey: 'contract/eg-2', desired: { name: 'Other waves' } });
  await a.ensureExclusionGroup({ ctx, idempotencyKey: 'contract/eg', desired: { name: 'Contract waves' } });
  await a.ensureExclusionGroup({ ctx, knownId: group, idempotencyKey: 'contract/eg', desired: { name: 'Contract waves' } });
  await a.updateExclusionGroup({ ctx, exclusionGroupId: group, desired: { name: 'Contract waves', description: 'all waves' } });
  await a.addTargetGroupsToExclusionGroup({ ctx, exclusionGroupId: group, targetGroupIds: [tgA, tgB] });
  await a.listExclusionGroupTargetGroups({ ctx, exclusionGroupId: group });
  await a.getTargetGroupExclusionGroups({ ctx, targetGroupId: tgA });
  await a.removeTargetGroupsFromExclusionGroup({ ctx, exclusionGroupId: group, targetGroupIds: [tgB] });

  const list = await blobs.put(['0f1ce179-a917-49ff-9d50-000000000001\n0f1ce179-a917-49ff-9d50-000000000002\n0f1ce179-a917-49ff-9d50-000000000003\n']);
  const { jobId } = await a.uploadIdList({ ctx, projectId, targetGroupId: tgA, entityType: 'RSID', list, idempotencyKey: 'contract/ids' });
  for (let i = 0; i < 100 && (await a.getIdListJob({ ctx, projectId, targetGroupId: tgA, jobId })).status === 'Processing'; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(await a.listExcludedIds({ ctx, projectId, targetGroupId: tgA, entityType: 'RSID' })).toMatchObject({ count: 3 });
  await a.listExcludedIds({ ctx, projectId, targetGroupId: tgA, entityType: 'ACCESS_RESPONDENT_GUID' });
  const removal = await a.removeAllExcludedIds({ ctx, projectId, targetGroupId: tgA, entityType: 'RSID', idempotencyKey: 'contract/rm' });
  for (let i = 0; i < 100 && (await a.getRemoveAllJob({ ctx, projectId, targetGroupId: tgA, jobId: removal.jobId })).status === 'Processing'; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  const hook = { url: 'https://hooks.example.com/contract', events: ['target-group-updated'], compression: null };
  const created = (await a.createWebhook({ ctx, idempotencyKey: 'contract/wh', desired: hook })).webhook.id;
  await a.createWebhook({ ctx, idempotencyKey: 'contract/wh-2', desired: { ...hook, url: 'https://hooks.example.com/contract-2' } });
  await a.listWebhooks({ ctx });
  // The spec's gzip compression (sandbox); the cint dialect has none, so its update changes the events instead.
  await a.updateWebhook({ ctx, webhookId: created, desired: testDialect() === 'spec' ? { ...hook, compression: 'gzip' } : { ...hook, events: ['target-group-updated', 'session-updated'] } });
  await a.deleteWebhook({ ctx, webhookId: created });
  await a.deleteExclusionGroup({ ctx, exclusionGroupId: group });
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await sandbox?.close();
  if (blobDir) await rm(blobDir, { recursive: true, force: true });
});

/**
 * Where the sandbox's answer still differs from the reference on an operation that is otherwise on its
 * wire: the spec's explicit deviations (kept as the spec says), and the fields whose formats follow once
 * the study format carries them (docs/api-conventions.md, "Not yet on the reference's wire").
 */
const SPEC_DIALECT_GAPS: ReferenceGaps = {
  create_target_group: [
    { problem: /must have required property 'completes_goal'/, why: 'spec: filling_goal on draft create and update (the reference: completes_goal)' },
    { problem: /^\(body\) has filling_goal, a field the reference does not name$/, why: 'spec: filling_goal on draft create and update' },
  ],
  update_target_group: [
    { problem: /must have required property 'completes_goal'/, why: 'spec: filling_goal on draft create and update (the reference: completes_goal)' },
    { problem: /^\(body\) has filling_goal, a field the reference does not name$/, why: 'spec: filling_goal on draft create and update' },
  ],
  create_webhook: [{ problem: /^\(body\) has compression, a field the reference does not name$/, why: 'spec: webhook compression (gzip)' }],
  update_webhook: [{ problem: /^\(body\) has compression, a field the reference does not name$/, why: 'spec: webhook compression (gzip)' }],
  // The TG list's missing name (spec line 52) is on the oracle's own list (reference-openapi.ts SPEC_REMOVED_ANSWER_FIELDS).
};
/** The spec's deviations are the spec dialect's (STUDYFLOW_TEST_PROFILE=cint runs the reference's, with no gap). */
const REFERENCE_GAPS: ReferenceGaps = testDialect() === 'spec' ? SPEC_DIALECT_GAPS : {};

// Operations with a contract test of their own (launch-fielding, target-group-state, profiles, profile-helpers, performance, live-target-groups and reconciliations-client .contract.test.ts) are checked there.
const OWN_CONTRACT_TESTS = { ...LAUNCH_FIELDING_OPERATIONS, ...TARGET_GROUP_STATE_OPERATIONS, ...PROFILE_OPERATIONS, ...PROFILE_HELPER_OPERATIONS, ...PERFORMANCE_OPERATIONS, ...LIVE_TARGET_GROUP_OPERATIONS, ...CLOSEOUT_OPERATIONS };
describeOperationChecks(
  Object.fromEntries(Object.entries(WIRE_OPERATIONS).filter(([id]) => !(id in OWN_CONTRACT_TESTS))),
  () => exchanges,
  REFERENCE_GAPS,
);

describe('exclusion_create_upload_rids_by_file_job: an RSID that is not a UUID', () => {
  const PM = '6f1c2a4e-3001-4c8e-9d2b-000000003001';
  const lines = '0f1ce179-a917-49ff-9d50-000000000001\nrespondent-42\n';

  it('is refused at once with the reference\'s error object (400 bad_request_error naming the line, not its content); no job starts', async () => {
    const client = createDemandApiClient({ config: sandboxApiConfig(sandbox), dispatcher: agent });
    const a = createActivities({ api: client, blobs: createBlobStore({ dir: blobDir }), webhookSecrets: { save: async () => undefined, has: async () => false } });
    const projectId = (await a.ensureProject({ ctx, idempotencyKey: 'contract/rsid-p', desired: { name: 'RSID refusals', project_customer_reference_number: 'PO-RSID-1', project_manager_id: PM } })).project.id;
    const tg = (await a.ensureDraftTargetGroup({
      ctx, projectId, idempotencyKey: 'contract/rsid-tg',
      desired: {
        name: 'RSID refusals us', expected_incidence_rate: 0.4, expected_length_of_interview_minutes: 10, filling_goal: 100, project_manager_id: PM, collects_pii: false,
        business_unit_id: '2001', locale: 'eng_us', fielding_specification: { start_at: '2027-01-04T00:00:00Z', end_at: '2027-02-01T00:00:00Z' },
        allocations: { open_exchange_allocations: { exchange_min_percentage: 0, exchange_max_percentage: 100, blocked_supplier_ids: [], groups: [] } },
        fielding_assistant_assignment: {}, target_group_customer_reference_number: 'contract-rsid',
      },
    })).targetGroup.id;
    const path = `/v1/demand/accounts/${ctx.accountId}/projects/${projectId}/target-groups/${tg}/exclusions/jobs/upload-respondents-by-file`;
    const bytes = Buffer.from(lines);
    const stream = multipartFileBody({ field: 'file', filename: 'ids.txt', contentType: 'text/plain', size: bytes.length, open: async function* () { yield bytes; } }, boundaryFromSeed('rsid'));
    const res = await client.request({ method: 'POST', path, apiVersion: ctx.apiVersion, query: { entity_type: 'RSID' }, stream, idempotencyKey: 'contract/rsid-raw', acceptStatuses: [400] });
    expect(res.status).toBe(400);
    expect(ErrorBody.safeParse(res.body).error?.issues ?? []).toEqual([]);
    expect(res.body).toMatchObject({ object: 'bad_request_error', invalid_params: [{ name: 'file', reason: 'line 2 is not an RSID (a UUID)' }] });
    expect(JSON.stringify(res.body)).not.toContain('respondent-42');
    if (referenceAvailable) expect(answerProblems('exclusion_create_upload_rids_by_file_job', 400, res.body)).toEqual([]);

    // Through the activity (a list the study-file check would have refused with SF6003): a final failure of that type.
    const list = await createBlobStore({ dir: blobDir }).put([lines]);
    const f = await rejectionOf(a.uploadIdList({ ctx, projectId, targetGroupId: tg, entityType: 'RSID', list, idempotencyKey: 'contract/rsid-activity' }));
    expect(f).toMatchObject({ type: 'bad_request_error', nonRetryable: true });
    expect(f.details?.[0]).toMatchObject({ status: 400, invalid_params: [{ name: 'file', reason: 'line 2 is not an RSID (a UUID)' }] });
    // Nothing was excluded and no job runs: a valid upload starts at once.
    expect(await a.listExcludedIds({ ctx, projectId, targetGroupId: tg, entityType: 'RSID' })).toMatchObject({ count: 0 });
    const good = await createBlobStore({ dir: blobDir }).put(['0f1ce179-a917-49ff-9d50-000000000001\n']);
    expect((await a.uploadIdList({ ctx, projectId, targetGroupId: tg, entityType: 'RSID', list: good, idempotencyKey: 'contract/rsid-good' })).jobId).toMatch(/\S/);
  });
});
