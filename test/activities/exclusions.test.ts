// Activity exclusions, ID-list jobs and digests, remove-all, exclusion groups.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { apiError, rejectionOf } from './helpers/mock-api';
import { createMockActivities, type MockActivities } from './helpers/mock-activities';
import { MOCK_CTX as ctx, MOCK_TARGET as target, expectMockApiUsedAfterEach } from '../fixtures/activities';

const P = '/v1/demand/accounts/1001';
const TG = `${P}/projects/p1/target-groups/tg1`;
const X = `${TG}/exclusions`;
let m: MockActivities;
expectMockApiUsedAfterEach(() => m);

describe('respondent activity exclusions', () => {
  it('PUT replaces the list with {duration, respondent_activity_exclusions}', async () => {
    m = createMockActivities();
    const items = [{ type: 'project' as const, id: 'p0', respondent_statuses: ['Complete', 'Terminate'], duration: 'P30D' }];
    m.on('PUT', `${TG}/respondent-activity-exclusions`, (req) => ({ status: 200, body: req.body }));
    const out = await m.activities.putActivityExclusions({ ...target, duration: 'P90D', items });
    expect(m.requests[0].body).toEqual({ duration: 'P90D', respondent_activity_exclusions: items });
    expect(out).toEqual({ duration: 'P90D', items });
  });

  it('sends target_group items as the reference\'s target-group, and reads them back as target_group', async () => {
    m = createMockActivities();
    m.on('PUT', `${TG}/respondent-activity-exclusions`, () => ({ status: 204 }));
    const items = [{ type: 'target_group' as const, id: 'tg0' }];
    expect(await m.activities.putActivityExclusions({ ...target, items })).toEqual({ items });
    expect(m.requests[0].body).toEqual({ respondent_activity_exclusions: [{ type: 'target-group', id: 'tg0' }] });
  });

  it('PUT answered with 204 returns what was sent', async () => {
    m = createMockActivities();
    m.on('PUT', `${TG}/respondent-activity-exclusions`, () => ({ status: 204 }));
    expect(await m.activities.putActivityExclusions({ ...target, items: [] })).toEqual({ items: [] });
    expect(m.requests[0].body).toEqual({ respondent_activity_exclusions: [] });
  });

  it('GET reads the current list', async () => {
    m = createMockActivities();
    m.on('GET', `${TG}/respondent-activity-exclusions`, () => ({ status: 200, body: { respondent_activity_exclusions: [{ type: 'target-group', id: 'tg0' }] } }));
    expect(await m.activities.getActivityExclusions(target)).toEqual({ items: [{ type: 'target_group', id: 'tg0' }] });
  });
});

describe('ID-list jobs and digests', () => {
  it('reads upload job status with failure_reason', async () => {
    m = createMockActivities();
    m.on('GET', `${X}/jobs/upload-respondents-by-file/j1`, () => ({ status: 200, body: { job_id: 'j1', status: 'Failed', failure_reason: { code: 'invalid_file', description: 'line 3: not a GUID' } } }));
    expect(await m.activities.getIdListJob({ ...target, jobId: 'j1' })).toEqual({ status: 'Failed', failureReason: 'invalid_file: line 3: not a GUID' });
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
    // The reference's ID pages: {data: [id…], url, next_cursor}, no has_more; the last page has no cursor.
    m.on('GET', `${X}/rsid/paginated?page_size=1000`, () => ({ status: 200, body: { data: ['c', 'a', 'b'], url: 'x', next_cursor: 'n1' } }));
    m.on('GET', `${X}/rsid/paginated?page_size=1000&start_after=n1`, () => ({ status: 200, body: { data: ['d', 'a'], url: 'x' } }));
    const out = await m.activities.listExcludedIds({ ...target, entityType: 'RSID' });
    expect(out).toEqual({ count: 4, sha256: createHash('sha256').update('a\nb\nc\nd\n').digest('hex') });
    // Same digest as the blob store gives the same set: the workflow can compare them.
    const stored = await m.putList('d\nc\nb\na\n');
    expect(out.sha256).toBe(stored.sha256);
  });

  it('reads GUID lists from the access-respondent-guid path', async () => {
    m = createMockActivities();
    m.on('GET', `${X}/access-respondent-guid/paginated?page_size=1000`, () => ({ status: 200, body: { data: [], url: 'x' } }));
    expect(await m.activities.listExcludedIds({ ...target, entityType: 'ACCESS_RESPONDENT_GUID' })).toEqual({
      count: 0, sha256: createHash('sha256').update('').digest('hex'),
    });
  });

  it('remove-all starts a job for one entity_type with the Idempotency-Key and polls it', async () => {
    m = createMockActivities();
    m.on('POST', `${X}/jobs/remove-all-respondents?entity_type=ACCESS_RESPONDENT_GUID`, () => ({ status: 201, body: { job_id: 'r1' } }));
    m.on('GET', `${X}/jobs/remove-all-respondents/r1`, () => ({ status: 200, body: { job_id: 'r1', status: 'Success', created_at: '2026-01-01T00:00:00Z' } }));
    expect(await m.activities.removeAllExcludedIds({ ...target, entityType: 'ACCESS_RESPONDENT_GUID', idempotencyKey: 'rm' })).toEqual({ jobId: 'r1' });
    expect(m.requests[0].headers['idempotency-key']).toBe('rm');
    expect(await m.activities.getRemoveAllJob({ ...target, jobId: 'r1' })).toEqual({ status: 'Success' });
  });

  it('reads failure_reason as the reference\'s {code, description} object', async () => {
    m = createMockActivities();
    m.on('GET', `${X}/jobs/remove-all-respondents/r1`, () => ({
      status: 200, body: { job_id: 'r1', status: 'Failed', failure_reason: { code: 'invalid_file', description: 'line 3 is not an id' } },
    }));
    expect(await m.activities.getRemoveAllJob({ ...target, jobId: 'r1' })).toEqual({ status: 'Failed', failureReason: 'invalid_file: line 3 is not an id' });
  });

  it('a job answer without status is a wire_mismatch naming the operation', async () => {
    m = createMockActivities();
    m.on('GET', `${X}/jobs/remove-all-respondents/r1`, () => ({ status: 200, body: { job_id: 'r1' } }));
    const f = await rejectionOf(m.activities.getRemoveAllJob({ ...target, jobId: 'r1' }));
    expect(f).toMatchObject({ type: 'wire_mismatch', nonRetryable: true });
    expect(f.message).toContain('get_all_respondent_exclusions_removal_job');
  });
});

describe('exclusion groups', () => {
  const EG = `${P}/exclusion-groups`;
  const G1 = '01JEXC1US10NGR0UP000000001';
  const G2 = '01JEXC1US10NGR0UP000000002';
  const T1 = '01JTARGETGR0UP000000000001';
  const T2 = '01JTARGETGR0UP000000000002';
  const info = (id: string, tag: string) => ({ exclusion_group_id: id, tag, description: '', create_date: '2026-01-01T00:00:00Z' });

  it('ensure finds an existing group by name, else creates it with the Idempotency-Key', async () => {
    m = createMockActivities();
    m.on('GET', `${EG}?page_size=2`, () => ({ status: 200, body: { data: [info(G1, 'past_waves')], url: EG } }), 2);
    m.on('GET', `${EG}/${G1}`, () => ({ status: 200, body: info(G1, 'past_waves') }));
    expect(await m.activities.ensureExclusionGroup({ ctx, idempotencyKey: 'k1', desired: { name: 'past_waves' } })).toEqual({
      exclusionGroup: { id: G1, name: 'past_waves', description: '' },
      created: false,
    });
    m.on('POST', EG, () => ({ status: 201, body: { exclusion_group_id: G2 } }));
    expect(await m.activities.ensureExclusionGroup({ ctx, idempotencyKey: 'k2', desired: { name: 'new_group' } })).toEqual({
      exclusionGroup: { id: G2, name: 'new_group', description: '' },
      created: true,
    });
    // create_exclusion_group: {tag, description}, both required.
    expect(m.requests.at(-1)?.body).toEqual({ tag: 'new_group', description: '' });
    expect(m.requests.at(-1)?.headers['idempotency-key']).toBe('k2');
  });

  it('a create answer without exclusion_group_id is a non-retryable wire_mismatch naming the operation', async () => {
    m = createMockActivities();
    m.on('GET', `${EG}?page_size=2`, () => ({ status: 200, body: { data: [], url: EG } }));
    m.on('POST', EG, () => ({ status: 201, body: { id: G2, name: 'new_group' } }));
    const f = await rejectionOf(m.activities.ensureExclusionGroup({ ctx, idempotencyKey: 'k2', desired: { name: 'new_group' } }));
    expect(f.type).toBe('wire_mismatch');
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toContain('create_exclusion_group');
    expect(f.message).toContain('{id: string, name: string}');
  });

  it('update sends {tag, description} and takes the 204', async () => {
    m = createMockActivities();
    m.on('PUT', `${EG}/${G1}`, () => ({ status: 204 }));
    expect(await m.activities.updateExclusionGroup({ ctx, exclusionGroupId: G1, desired: { name: 'renamed', description: 'waves' } })).toEqual({
      exclusionGroup: { id: G1, name: 'renamed', description: 'waves' },
    });
    expect(m.requests[0].body).toEqual({ tag: 'renamed', description: 'waves' });
  });

  it('membership add/remove send {data: [ids]}; listing returns ids', async () => {
    m = createMockActivities();
    m.on('POST', `${EG}/${G1}/target-groups/add`, () => ({ status: 204 }));
    m.on('POST', `${EG}/${G1}/target-groups/remove`, () => ({ status: 204 }));
    m.on('GET', `${EG}/${G1}/target-groups?page_size=2`, () => ({ status: 200, body: { data: [T1], url: 'x', next_cursor: 'c1' } }));
    m.on('GET', `${EG}/${G1}/target-groups?page_size=2&start_after=c1`, () => ({ status: 200, body: { data: [T2], url: 'x', next_cursor: null } }));
    await m.activities.addTargetGroupsToExclusionGroup({ ctx, exclusionGroupId: G1, targetGroupIds: [T1, T2] });
    await m.activities.removeTargetGroupsFromExclusionGroup({ ctx, exclusionGroupId: G1, targetGroupIds: [T2] });
    expect(m.requests.map((r) => r.body)).toEqual([{ data: [T1, T2] }, { data: [T2] }]);
    expect(await m.activities.listExclusionGroupTargetGroups({ ctx, exclusionGroupId: G1 })).toEqual({ targetGroupIds: [T1, T2] });
  });

  it('adds more than 100 target groups in calls of at most 100 (the reference\'s maxItems)', async () => {
    m = createMockActivities();
    const ids = Array.from({ length: 230 }, (_, i) => `01JTARGETGR0UP${String(i).padStart(12, '0')}`);
    m.on('POST', `${EG}/${G1}/target-groups/add`, () => ({ status: 204 }), 3);
    await m.activities.addTargetGroupsToExclusionGroup({ ctx, exclusionGroupId: G1, targetGroupIds: ids });
    expect(m.requests.map((r) => (r.body as { data: string[] }).data.length)).toEqual([100, 100, 30]);
    expect(m.requests.flatMap((r) => (r.body as { data: string[] }).data)).toEqual(ids);
  });

  it('delete is idempotent: a group already gone reports deleted: false', async () => {
    m = createMockActivities();
    m.on('DELETE', `${EG}/${G1}`, () => ({ status: 204 }));
    m.on('DELETE', `${EG}/${G1}`, () => ({ status: 404, body: apiError('not_found') }));
    expect(await m.activities.deleteExclusionGroup({ ctx, exclusionGroupId: G1 })).toEqual({ deleted: true });
    expect(await m.activities.deleteExclusionGroup({ ctx, exclusionGroupId: G1 })).toEqual({ deleted: false });
  });

  it('reads the exclusion groups of a target group', async () => {
    m = createMockActivities();
    m.on('GET', `${P}/target-groups/${T1}/exclusion-groups?page_size=2`, () => ({ status: 200, body: { data: [info(G1, 'x')], url: 'x' } }));
    expect(await m.activities.getTargetGroupExclusionGroups({ ctx, targetGroupId: T1 })).toEqual({
      exclusionGroups: [{ id: G1, name: 'x', description: '' }],
    });
  });
});

