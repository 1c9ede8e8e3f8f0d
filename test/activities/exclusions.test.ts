// Activity exclusions, ID-list jobs and digests, remove-all, exclusion groups.
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { API_ORIGIN, apiError, rejectionOf } from './helpers/mock-api';
import { createMockActivities, type MockActivities } from './helpers/mock-activities';

const P = '/v1/demand/accounts/1001';
const TG = `${P}/projects/p1/target-groups/tg1`;
const X = `${TG}/exclusions`;
const ctx = { accountId: '1001', apiVersion: '2025-12-18' as const };
const target = { ctx, projectId: 'p1', targetGroupId: 'tg1' };
let m: MockActivities;
afterEach(async () => {
  expect(m.agent.pendingInterceptors().filter((i) => i.origin === API_ORIGIN)).toEqual([]);
  await m.agent.close();
});

describe('respondent activity exclusions', () => {
  it('PUT replaces the list with {duration, respondent_activity_exclusions}', async () => {
    m = createMockActivities();
    const items = [{ type: 'project' as const, id: 'p0', respondent_statuses: ['Complete', 'Terminate'], duration: 'P30D' }];
    m.on('PUT', `${TG}/respondent-activity-exclusions`, (req) => ({ status: 200, body: req.body }));
    const out = await m.activities.putActivityExclusions({ ...target, duration: 'P90D', items });
    expect(m.requests[0].body).toEqual({ duration: 'P90D', respondent_activity_exclusions: items });
    expect(out).toEqual({ duration: 'P90D', items });
  });

  it('PUT answered with 204 returns what was sent', async () => {
    m = createMockActivities();
    m.on('PUT', `${TG}/respondent-activity-exclusions`, () => ({ status: 204 }));
    expect(await m.activities.putActivityExclusions({ ...target, items: [] })).toEqual({ items: [] });
    expect(m.requests[0].body).toEqual({ respondent_activity_exclusions: [] });
  });

  it('GET reads the current list', async () => {
    m = createMockActivities();
    m.on('GET', `${TG}/respondent-activity-exclusions`, () => ({ status: 200, body: { respondent_activity_exclusions: [{ type: 'target_group', id: 'tg0' }] } }));
    expect(await m.activities.getActivityExclusions(target)).toEqual({ items: [{ type: 'target_group', id: 'tg0' }] });
  });
});

describe('ID-list jobs and digests', () => {
  it('reads upload job status with failure_reason', async () => {
    m = createMockActivities();
    m.on('GET', `${X}/jobs/upload-respondents-by-file/j1`, () => ({ status: 200, body: { job_id: 'j1', status: 'Failed', failure_reason: 'line 3: not a GUID' } }));
    expect(await m.activities.getIdListJob({ ...target, jobId: 'j1' })).toEqual({ status: 'Failed', failureReason: 'line 3: not a GUID' });
  });

  it('a 409 job_already_running on upload is retryable after a wait', async () => {
    m = createMockActivities();
    m.on('POST', /upload-respondents-by-file\?entity_type=RSID$/, () => ({ status: 409, body: apiError('job_already_running') }));
    const stored = await m.putList('a\n');
    const f = await rejectionOf(m.activities.uploadIdList({ ...target, entityType: 'RSID', list: stored, idempotencyKey: 'k' }));
    expect(f.type).toBe('job_already_running');
    expect(f.nonRetryable).toBe(false);
    expect(f.nextRetryDelay).toBeGreaterThan(0);
  });

  it('listExcludedIds returns a count and the canonical digest over all pages, never the IDs', async () => {
    m = createMockActivities();
    m.on('GET', `${X}/rsid/paginated?page_size=1000`, () => ({ status: 200, body: { data: ['c', 'a', 'b'], has_more: true, next_cursor: 'n1' } }));
    m.on('GET', `${X}/rsid/paginated?page_size=1000&start_after=n1`, () => ({ status: 200, body: { data: [{ rsid: 'd' }, 'a'], has_more: false, next_cursor: null } }));
    const out = await m.activities.listExcludedIds({ ...target, entityType: 'RSID' });
    expect(out).toEqual({ count: 4, sha256: createHash('sha256').update('a\nb\nc\nd\n').digest('hex') });
    // Same digest as the blob store gives the same set: the workflow can compare them.
    const stored = await m.putList('d\nc\nb\na\n');
    expect(out.sha256).toBe(stored.sha256);
  });

  it('reads GUID lists from the access-respondent-guid path', async () => {
    m = createMockActivities();
    m.on('GET', `${X}/access-respondent-guid/paginated?page_size=1000`, () => ({ status: 200, body: { data: [], has_more: false, next_cursor: null } }));
    expect(await m.activities.listExcludedIds({ ...target, entityType: 'ACCESS_RESPONDENT_GUID' })).toEqual({
      count: 0, sha256: createHash('sha256').update('').digest('hex'),
    });
  });

  it('remove-all starts a job with the Idempotency-Key and polls it', async () => {
    m = createMockActivities();
    m.on('POST', `${X}/jobs/remove-all-respondents`, () => ({ status: 201, body: { job_id: 'r1' } }));
    m.on('GET', `${X}/jobs/remove-all-respondents/r1`, () => ({ status: 200, body: { job_id: 'r1', status: 'Success' } }));
    expect(await m.activities.removeAllExcludedIds({ ...target, idempotencyKey: 'rm' })).toEqual({ jobId: 'r1' });
    expect(m.requests[0].headers['idempotency-key']).toBe('rm');
    expect(await m.activities.getRemoveAllJob({ ...target, jobId: 'r1' })).toEqual({ status: 'Success' });
  });

  it('a job answer without status is an unexpected response', async () => {
    m = createMockActivities();
    m.on('GET', `${X}/jobs/remove-all-respondents/r1`, () => ({ status: 200, body: { job_id: 'r1' } }));
    expect((await rejectionOf(m.activities.getRemoveAllJob({ ...target, jobId: 'r1' }))).type).toBe('unexpected_response');
  });
});

describe('exclusion groups', () => {
  const EG = `${P}/exclusion-groups`;

  it('ensure finds an existing group by name, else creates it with the Idempotency-Key', async () => {
    m = createMockActivities();
    m.on('GET', `${EG}?page_size=2`, () => ({ status: 200, body: { data: [{ id: 'g1', name: 'past_waves' }], has_more: false, next_cursor: null } }), 2);
    m.on('GET', `${EG}/g1`, () => ({ status: 200, body: { id: 'g1', name: 'past_waves' } }));
    expect(await m.activities.ensureExclusionGroup({ ctx, idempotencyKey: 'k1', desired: { name: 'past_waves' } })).toEqual({ exclusionGroup: { id: 'g1', name: 'past_waves' }, created: false });
    m.on('POST', EG, () => ({ status: 201, body: { id: 'g2', name: 'new_group' } }));
    expect(await m.activities.ensureExclusionGroup({ ctx, idempotencyKey: 'k2', desired: { name: 'new_group' } })).toEqual({ exclusionGroup: { id: 'g2', name: 'new_group' }, created: true });
    expect(m.requests.at(-1)?.headers['idempotency-key']).toBe('k2');
  });

  it('membership add/remove send {data: [ids]}; listing returns ids', async () => {
    m = createMockActivities();
    m.on('POST', `${EG}/g1/target-groups/add`, () => ({ status: 204 }));
    m.on('POST', `${EG}/g1/target-groups/remove`, () => ({ status: 204 }));
    m.on('GET', `${EG}/g1/target-groups?page_size=2`, () => ({ status: 200, body: { data: [{ id: 'tg1' }, 'tg2'], has_more: false, next_cursor: null } }));
    await m.activities.addTargetGroupsToExclusionGroup({ ctx, exclusionGroupId: 'g1', targetGroupIds: ['tg1', 'tg2'] });
    await m.activities.removeTargetGroupsFromExclusionGroup({ ctx, exclusionGroupId: 'g1', targetGroupIds: ['tg2'] });
    expect(m.requests.map((r) => r.body)).toEqual([{ data: ['tg1', 'tg2'] }, { data: ['tg2'] }]);
    expect(await m.activities.listExclusionGroupTargetGroups({ ctx, exclusionGroupId: 'g1' })).toEqual({ targetGroupIds: ['tg1', 'tg2'] });
  });

  it('delete is idempotent: a group already gone reports deleted: false', async () => {
    m = createMockActivities();
    m.on('DELETE', `${EG}/g1`, () => ({ status: 204 }));
    m.on('DELETE', `${EG}/g1`, () => ({ status: 404, body: apiError('not_found') }));
    expect(await m.activities.deleteExclusionGroup({ ctx, exclusionGroupId: 'g1' })).toEqual({ deleted: true });
    expect(await m.activities.deleteExclusionGroup({ ctx, exclusionGroupId: 'g1' })).toEqual({ deleted: false });
  });

  it('reads the exclusion groups of a target group', async () => {
    m = createMockActivities();
    m.on('GET', `${P}/target-groups/tg1/exclusion-groups?page_size=2`, () => ({ status: 200, body: { data: [{ id: 'g1', name: 'x' }], has_more: false, next_cursor: null } }));
    expect(await m.activities.getTargetGroupExclusionGroups({ ctx, targetGroupId: 'tg1' })).toEqual({ exclusionGroups: [{ id: 'g1', name: 'x' }] });
  });
});

