// The activities against the real sandbox: every resource area the sandbox serves, end to end.
import { describe, expect, it } from 'vitest';
import { rejectionOf } from './helpers/mock-api';
import { ctx, draftTargetGroup } from './helpers/sandbox-harness';
import { useSandboxHarness } from '../fixtures/activities';

const h = useSandboxHarness();

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** RSIDs are UUIDs (the reference); the sandbox refuses any other line. */
const rsid = (n: number) => `0e8b5c1a-1234-4abc-8def-${String(n).padStart(12, '0')}`;

async function pollUntilDone<T extends { status: string }>(read: () => Promise<T>): Promise<T> {
  for (let i = 0; i < 100; i += 1) {
    const out = await read();
    if (out.status !== 'Processing') return out;
    await wait(50);
  }
  throw new Error('job did not finish');
}

async function projectAndDraft(reference = 'PO-1', tgOverrides: Record<string, unknown> = {}) {
  const { project } = await h.activities.ensureProject({
    ctx, idempotencyKey: `project:${reference}`, desired: { name: 'Tracker', project_customer_reference_number: reference, project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001' },
  });
  const { targetGroup } = await h.activities.ensureDraftTargetGroup({
    ctx, projectId: project.id, idempotencyKey: `tg:${reference}`, desired: draftTargetGroup({ target_group_customer_reference_number: `${reference}-us`, ...tgOverrides }),
  });
  return { projectId: project.id, targetGroupId: targetGroup.id };
}

describe('sandbox: projects and target groups', () => {
  it('ensure twice creates once (read before create)', async () => {
    const first = await projectAndDraft();
    const second = await projectAndDraft();
    expect(second).toEqual(first);
    const state = h.sandbox.state();
    expect(Object.keys(state.projects)).toHaveLength(1);
    expect(Object.keys(state.target_groups)).toHaveLength(1);
  });

  it('a 2025-02-17 draft round-trips the renamed fields and values', async () => {
    const old = { ...ctx, apiVersion: '2025-02-17' as const };
    const { project } = await h.activities.ensureProject({ ctx: old, idempotencyKey: 'p-old', desired: { name: 'Old version', project_customer_reference_number: 'PO-OLD', project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001' } });
    // The server assigns the human-readable id; the old version's `human-readable-id` comes back under the 2025-12-18 name.
    const read = (await h.activities.getProject({ ctx: old, projectId: project.id })).project;
    expect(read.human_readable_id).toMatch(/^[0-9A-Z]{6}$/);
    expect(read).not.toHaveProperty('human-readable-id');
    const { targetGroup } = await h.activities.ensureDraftTargetGroup({
      ctx: old, projectId: project.id, idempotencyKey: 'tg-old',
      desired: draftTargetGroup({ client_cost_per_interview_note: { value: '2.50', currency_code: 'USD' } }),
    });
    expect(targetGroup).toMatchObject({ client_cost_per_interview_note: { value: '2.50', currency_code: 'USD' } });
    // The old version answers `ratecard` and `client_cpi`; the client reads them in 2025-12-18 names.
    const viaOld = await h.activities.readTargetGroupState({ ctx: old, projectId: project.id, targetGroupId: targetGroup.id, reads: [] });
    expect(viaOld.state.fields).toMatchObject({ pricing_model: 'rate_card', client_cost_per_interview_note: { value: '2.50', currency_code: 'USD' } });
    const viaCurrent = await h.activities.readTargetGroupState({ ctx, projectId: project.id, targetGroupId: targetGroup.id, reads: [] });
    expect(viaCurrent.state.status).toBe('draft');
    expect(viaCurrent.state.fields).toMatchObject({ pricing_model: 'rate_card', client_cost_per_interview_note: { value: '2.50', currency_code: 'USD' } });
  });

  it('after a 2025-12-18 write, an older-version write is refused non-retryably', async () => {
    const { projectId, targetGroupId } = await projectAndDraft();
    const f = await rejectionOf(h.activities.updateDraftTargetGroup({ ctx: { ...ctx, apiVersion: '2025-05-27' }, projectId, targetGroupId, desired: draftTargetGroup() }));
    expect(f.type).toBe('version_downgrade_not_allowed');
    expect(f.nonRetryable).toBe(true);
  });

  it('a draft the API rejects surfaces invalid_params in a non-retryable failure', async () => {
    const { projectId } = await projectAndDraft();
    const f = await rejectionOf(h.activities.ensureDraftTargetGroup({ ctx, projectId, idempotencyKey: 'bad', desired: draftTargetGroup({ expected_incidence_rate: 0 }) }));
    expect(f.nonRetryable).toBe(true);
    expect(f.details[0].invalid_params).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'expected_incidence_rate' })]));
  });

  it('lists, overview and a missing project (404 not_found_error)', async () => {
    const { projectId } = await projectAndDraft();
    expect((await h.activities.listTargetGroups({ ctx, projectId })).targetGroups).toHaveLength(1);
    expect((await h.activities.getProjectOverview({ ctx, projectId })).overview).toMatchObject({ id: projectId, status: 'active', statistics: { filling_goal: expect.any(Number) } });
    const f = await rejectionOf(h.activities.getProject({ ctx, projectId: 'prj_missing' }));
    expect(f.type).toBe('not_found_error');
    expect(f.nonRetryable).toBe(true);
  });
});

describe('sandbox: exclusions', () => {
  it('activity exclusions replace the list', async () => {
    const { projectId, targetGroupId } = await projectAndDraft();
    await h.activities.putActivityExclusions({ ctx, projectId, targetGroupId, duration: 'P30D', items: [{ type: 'project', id: projectId }] });
    const out = await h.activities.getActivityExclusions({ ctx, projectId, targetGroupId });
    expect(out.items).toEqual([expect.objectContaining({ type: 'project', id: projectId })]);
    await h.activities.putActivityExclusions({ ctx, projectId, targetGroupId, items: [] });
    expect((await h.activities.getActivityExclusions({ ctx, projectId, targetGroupId })).items).toEqual([]);
  });

  it('upload, job, remote digest equals the blob digest; remove-all empties the list', async () => {
    const { projectId, targetGroupId } = await projectAndDraft();
    const stored = await h.blobs.put([`${rsid(3)}\n${rsid(1)}\n${rsid(2)}\n${rsid(1)}\n`]);
    const list = { ref: stored.ref, sha256: stored.sha256, count: stored.count };
    const { jobId } = await h.activities.uploadIdList({ ctx, projectId, targetGroupId, entityType: 'RSID', list, idempotencyKey: 'up-1' });
    expect(await pollUntilDone(() => h.activities.getIdListJob({ ctx, projectId, targetGroupId, jobId }))).toEqual({ status: 'Success' });
    expect(await h.activities.listExcludedIds({ ctx, projectId, targetGroupId, entityType: 'RSID' })).toEqual({ count: 3, sha256: stored.sha256 });
    const removal = await h.activities.removeAllExcludedIds({ ctx, projectId, targetGroupId, entityType: 'RSID', idempotencyKey: 'rm-1' });
    expect((await pollUntilDone(() => h.activities.getRemoveAllJob({ ctx, projectId, targetGroupId, jobId: removal.jobId }))).status).toBe('Success');
    expect((await h.activities.listExcludedIds({ ctx, projectId, targetGroupId, entityType: 'RSID' })).count).toBe(0);
  });

  it('a bad line fails the job with a failure_reason', async () => {
    const { projectId, targetGroupId } = await projectAndDraft();
    const stored = await h.blobs.put(['not-a-guid\n']);
    const { jobId } = await h.activities.uploadIdList({ ctx, projectId, targetGroupId, entityType: 'ACCESS_RESPONDENT_GUID', list: stored, idempotencyKey: 'up-bad' });
    const done = await pollUntilDone(() => h.activities.getIdListJob({ ctx, projectId, targetGroupId, jobId }));
    expect(done.status).toBe('Failed');
    expect(done.failureReason).toBeTruthy();
  });

  it('exclusion groups: ensure once, membership, delete twice', async () => {
    const { targetGroupId } = await projectAndDraft();
    const a = await h.activities.ensureExclusionGroup({ ctx, idempotencyKey: 'eg', desired: { name: 'past_waves' } });
    const b = await h.activities.ensureExclusionGroup({ ctx, idempotencyKey: 'eg', desired: { name: 'past_waves' } });
    expect(b).toEqual({ exclusionGroup: a.exclusionGroup, created: false });
    const id = a.exclusionGroup.id;
    await h.activities.addTargetGroupsToExclusionGroup({ ctx, exclusionGroupId: id, targetGroupIds: [targetGroupId] });
    await h.activities.addTargetGroupsToExclusionGroup({ ctx, exclusionGroupId: id, targetGroupIds: [targetGroupId] });
    expect(await h.activities.listExclusionGroupTargetGroups({ ctx, exclusionGroupId: id })).toEqual({ targetGroupIds: [targetGroupId] });
    expect((await h.activities.getTargetGroupExclusionGroups({ ctx, targetGroupId })).exclusionGroups.map((g) => g.id)).toEqual([id]);
    await h.activities.removeTargetGroupsFromExclusionGroup({ ctx, exclusionGroupId: id, targetGroupIds: [targetGroupId] });
    expect(await h.activities.listExclusionGroupTargetGroups({ ctx, exclusionGroupId: id })).toEqual({ targetGroupIds: [] });
    expect(await h.activities.deleteExclusionGroup({ ctx, exclusionGroupId: id })).toEqual({ deleted: true });
    expect(await h.activities.deleteExclusionGroup({ ctx, exclusionGroupId: id })).toEqual({ deleted: false });
  });

  it('recontact: upload to a recontact target group and poll the job', async () => {
    const { projectId, targetGroupId } = await projectAndDraft('PO-RC', {
      study_type_code: 'recontact', live_url: 'https://s.example.com/r?rsid=[%RECONTACT_RSID%]', allocations: { template_id: 'recontact-global', open_exchange_allocations: { exchange_min_percentage: 0, exchange_max_percentage: 100, blocked_supplier_ids: [], groups: [] } },
    });
    const stored = await h.blobs.put([`${rsid(101)}\n${rsid(102)}\n`]);
    const { jobId } = await h.activities.uploadRecontactList({ ctx, projectId, targetGroupId, list: stored, idempotencyKey: 'rc-1' });
    expect((await pollUntilDone(() => h.activities.getRecontactJob({ ctx, projectId, targetGroupId, jobId }))).status).toBe('Completed');
  });
});

describe('sandbox: launch and fielding', () => {
  it('launch refuses without live_url, then launches, and the run is controlled with ETags', async () => {
    const { projectId, targetGroupId } = await projectAndDraft();
    const target = { ctx, projectId, targetGroupId };
    const refused = await rejectionOf(h.activities.launchFromDraft({ ...target, idempotencyKey: 'launch-0', endFieldingAt: '2099-01-01T00:00:00Z' }));
    expect(refused.type).toBe('invalid_state_error');
    await h.activities.updateDraftTargetGroup({ ...target, desired: draftTargetGroup({ live_url: 'https://s.example.com/x?rid=[%RID%]', target_group_customer_reference_number: 'PO-1-us' }) });
    const launch = await h.activities.launchFromDraft({ ...target, idempotencyKey: 'launch-1', endFieldingAt: '2099-01-01T00:00:00Z' });
    expect(launch.alreadyLaunched).toBe(false);
    const job = await pollUntilDone(() => h.activities.getLaunchJob({ ...target, jobId: launch.jobId as string }));
    expect(job.status).toBe('Completed');
    const fieldingRunId = job.fieldingRunId as string;
    expect(await h.activities.launchFromDraft({ ...target, idempotencyKey: 'launch-1', endFieldingAt: '2099-01-01T00:00:00Z' })).toEqual({ jobId: null, alreadyLaunched: true, fieldingRunId });

    const run = await h.activities.getFieldingRun({ ...target, fieldingRunId });
    const paused = await h.activities.pauseFieldingRun({ ...target, fieldingRunId, etag: run.etag });
    expect(paused.outcome).toBe('applied');
    // The stale ETag of the first read: 412 -> re-read -> the run is already paused.
    expect(await h.activities.pauseFieldingRun({ ...target, fieldingRunId, etag: run.etag })).toMatchObject({ outcome: 'already_in_state', etag: paused.etag });
    // A stale ETag for another action: precondition_failed with the fresh state to decide on.
    const stale = await h.activities.completeFieldingRun({ ...target, fieldingRunId, etag: run.etag });
    expect(stale).toMatchObject({ outcome: 'precondition_failed', etag: paused.etag, run: { status: 'paused' } });
    const resumed = await h.activities.resumeFieldingRun({ ...target, fieldingRunId, etag: stale.etag });
    expect(resumed.outcome).toBe('applied');
    const completed = await h.activities.completeFieldingRun({ ...target, fieldingRunId, etag: resumed.etag });
    expect(completed.outcome).toBe('applied');
    // Resuming a completed run with a fresh ETag: invalid_state (422).
    expect(await h.activities.resumeFieldingRun({ ...target, fieldingRunId, etag: completed.etag })).toMatchObject({ outcome: 'invalid_state', run: { status: 'completed' } });
  });
});
