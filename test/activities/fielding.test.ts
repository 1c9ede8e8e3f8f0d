// Launch from draft (read before create, job polling) and fielding-run control with ETags and typed outcomes.
import { describe, expect, it } from 'vitest';
import { apiError, draftAnswer, fieldingRunsAnswer, movedAnswer, rejectionOf } from './helpers/mock-api';
import { createMockActivities, type MockActivities } from './helpers/mock-activities';
import { MOCK_TARGET as target, expectMockApiUsedAfterEach } from '../fixtures/activities';

const TG = '/v1/demand/accounts/1001/projects/p1/target-groups/tg1';
const RUN = `${TG}/fielding-runs/run1`;
let m: MockActivities;
expectMockApiUsedAfterEach(() => m);

describe('launchFromDraft', () => {
  it('posts end_fielding_at with the Idempotency-Key after checking the target group is a draft', async () => {
    m = createMockActivities();
    m.on('GET', TG, () => draftAnswer());
    m.on('POST', `${TG}/fielding-run-jobs/launch-from-draft`, () => ({ status: 201, headers: { location: `${TG}/fielding-run-jobs/launch-from-draft/job9` } }));
    const out = await m.activities.launchFromDraft({ ...target, idempotencyKey: 'launch-k', endFieldingAt: '2026-12-20T00:00:00Z' });
    expect(out).toEqual({ jobId: 'job9', alreadyLaunched: false, fieldingRunId: null });
    expect(m.requests[1].body).toEqual({ end_fielding_at: '2026-12-20T00:00:00Z' });
    expect(m.requests[1].headers['idempotency-key']).toBe('launch-k');
  });

  it('takes the job id from Location (the reference answers no body); an answer without Location is wire_mismatch', async () => {
    m = createMockActivities();
    m.on('GET', TG, () => draftAnswer());
    m.on('POST', `${TG}/fielding-run-jobs/launch-from-draft`, () => ({ status: 201, headers: { location: `${TG}/fielding-run-jobs/launch-from-draft/job7` } }));
    expect((await m.activities.launchFromDraft({ ...target, idempotencyKey: 'k', endFieldingAt: '2026-12-20T00:00:00Z' })).jobId).toBe('job7');
    m.on('POST', `${TG}/fielding-run-jobs/launch-from-draft`, () => ({ status: 201, body: { job_id: 'job8' } }));
    const failure = await rejectionOf(m.activities.launchFromDraft({ ...target, idempotencyKey: 'k2', endFieldingAt: '2026-12-20T00:00:00Z', knownDraft: true }));
    expect(failure).toMatchObject({ type: 'wire_mismatch', nonRetryable: true });
    expect(failure.message).toContain('create_launch_fielding_run_from_draft_job');
  });

  it('does not launch again a target group that is already live (GET TG answers 301; its run is read, not followed)', async () => {
    m = createMockActivities();
    m.on('GET', TG, () => movedAnswer(TG));
    m.on('GET', `${TG}/fielding-runs`, () => fieldingRunsAnswer('run1'));
    expect(await m.activities.launchFromDraft({ ...target, idempotencyKey: 'k', endFieldingAt: '2026-12-20T00:00:00Z' })).toEqual({ jobId: null, alreadyLaunched: true, fieldingRunId: 'run1' });
    expect(m.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${TG}`, `GET ${TG}/fielding-runs`]);
  });

  it('counts a target group another launch took live between its read and this launch (422 invalid_state_error, as the reference answers) as launched', async () => {
    m = createMockActivities();
    m.on('GET', TG, () => draftAnswer());
    m.on('POST', `${TG}/fielding-run-jobs/launch-from-draft`, () => ({ status: 422, body: apiError('invalid_state_error', 'Target group tg1 is live; only a draft can be launched.') }));
    m.on('GET', TG, () => movedAnswer(TG));
    m.on('GET', `${TG}/fielding-runs`, () => fieldingRunsAnswer('run3'));
    expect(await m.activities.launchFromDraft({ ...target, idempotencyKey: 'k', endFieldingAt: '2026-12-20T00:00:00Z' })).toEqual({ jobId: null, alreadyLaunched: true, fieldingRunId: 'run3' });
    expect(m.requests.map((r) => r.method)).toEqual(['GET', 'POST', 'GET', 'GET']);
  });

  it('422 live_url_required is a non-retryable failure of that type', async () => {
    m = createMockActivities();
    m.on('GET', TG, () => draftAnswer());
    m.on('POST', `${TG}/fielding-run-jobs/launch-from-draft`, () => ({ status: 422, body: apiError('live_url_required', 'set live_url first') }));
    const f = await rejectionOf(m.activities.launchFromDraft({ ...target, idempotencyKey: 'k', endFieldingAt: '2026-12-20T00:00:00Z' }));
    expect(f.type).toBe('live_url_required');
    expect(f.nonRetryable).toBe(true);
  });

  it('polls the launch job: created_fielding_run_id or failure_reason', async () => {
    m = createMockActivities();
    m.on('GET', `${TG}/fielding-run-jobs/launch-from-draft/job9`, () => ({ status: 200, body: { job_id: 'job9', status: 'Processing' } }));
    m.on('GET', `${TG}/fielding-run-jobs/launch-from-draft/job9`, () => ({ status: 200, body: { job_id: 'job9', status: 'Completed', created_fielding_run_id: 'run1' } }));
    m.on('GET', `${TG}/fielding-run-jobs/launch-from-draft/job8`, () => ({ status: 200, body: { job_id: 'job8', status: 'Failed', failure_reason: { code: 'no_supply', description: 'no supply' } } }));
    expect(await m.activities.getLaunchJob({ ...target, jobId: 'job9' })).toEqual({ status: 'Processing' });
    expect(await m.activities.getLaunchJob({ ...target, jobId: 'job9' })).toEqual({ status: 'Completed', fieldingRunId: 'run1' });
    expect(await m.activities.getLaunchJob({ ...target, jobId: 'job8' })).toEqual({ status: 'Failed', failureReason: 'no_supply: no supply' });
  });
});

describe('fielding runs', () => {
  it('getFieldingRun returns the run and its ETag', async () => {
    m = createMockActivities();
    m.on('GET', RUN, () => ({ status: 200, body: { id: 'run1', status: 'live' }, headers: { etag: '"v1"' } }));
    expect(await m.activities.getFieldingRun({ ...target, fieldingRunId: 'run1' })).toEqual({ run: { id: 'run1', status: 'live' }, etag: '"v1"' });
  });

  it('pause sends If-Match and returns the new ETag', async () => {
    m = createMockActivities();
    m.on('POST', `${RUN}/pause`, () => ({ status: 204, headers: { etag: '"v2"' } }));
    expect(await m.activities.pauseFieldingRun({ ...target, fieldingRunId: 'run1', etag: '"v1"' })).toEqual({ outcome: 'applied', etag: '"v2"' });
    expect(m.requests[0].headers['if-match']).toBe('"v1"');
  });

  it('on 412 it re-reads and returns precondition_failed with the fresh run and ETag', async () => {
    m = createMockActivities();
    m.on('POST', `${RUN}/complete`, () => ({ status: 412, body: apiError('precondition_failed') }));
    m.on('GET', RUN, () => ({ status: 200, body: { id: 'run1', status: 'paused' }, headers: { etag: '"v3"' } }));
    expect(await m.activities.completeFieldingRun({ ...target, fieldingRunId: 'run1', etag: '"v1"' })).toEqual({
      outcome: 'precondition_failed', etag: '"v3"', run: { id: 'run1', status: 'paused' },
    });
  });

  it('a retried pause whose first attempt went through reports already_in_state', async () => {
    m = createMockActivities();
    m.on('POST', `${RUN}/pause`, () => ({ status: 412, body: apiError('precondition_failed') }));
    m.on('GET', RUN, () => ({ status: 200, body: { id: 'run1', status: 'paused' }, headers: { etag: '"v2"' } }));
    expect(await m.activities.pauseFieldingRun({ ...target, fieldingRunId: 'run1', etag: '"v1"' })).toEqual({
      outcome: 'already_in_state', etag: '"v2"', run: { id: 'run1', status: 'paused' },
    });
  });

  it('a pause a guard asked for counts one guard trip by kind when it pauses the run; a retry that finds it paused, a resume or a plain pause count none', async () => {
    const trips: Record<string, string>[] = [];
    m = createMockActivities({ fieldingMetrics: { guardTrips: { inc: (labels) => void trips.push(labels) } } });
    m.on('POST', `${RUN}/pause`, () => ({ status: 204, headers: { etag: '"v2"' } }));
    const cause = { guard: 'incidence_below' as const };
    expect(await m.activities.pauseFieldingRun({ ...target, fieldingRunId: 'run1', etag: '"v1"', cause })).toEqual({ outcome: 'applied', etag: '"v2"' });
    expect(trips).toEqual([{ guard: 'incidence_below' }]);
    // The retry of that activity after a lost answer: 412, the run is paused already.
    m.on('POST', `${RUN}/pause`, () => ({ status: 412, body: apiError('precondition_failed') }));
    m.on('GET', RUN, () => ({ status: 200, body: { id: 'run1', status: 'paused' }, headers: { etag: '"v2"' } }));
    expect((await m.activities.pauseFieldingRun({ ...target, fieldingRunId: 'run1', etag: '"v1"', cause })).outcome).toBe('already_in_state');
    m.on('POST', `${RUN}/resume`, () => ({ status: 204, headers: { etag: '"v3"' } }));
    expect((await m.activities.resumeFieldingRun({ ...target, fieldingRunId: 'run1', etag: '"v2"' })).outcome).toBe('applied');
    m.on('POST', `${RUN}/pause`, () => ({ status: 204, headers: { etag: '"v4"' } }));
    expect((await m.activities.pauseFieldingRun({ ...target, fieldingRunId: 'run1', etag: '"v3"' })).outcome).toBe('applied');
    expect(trips).toEqual([{ guard: 'incidence_below' }]);
    // A cause without a guard is bad input, named with where.
    const failure = await rejectionOf(m.activities.pauseFieldingRun({ ...target, fieldingRunId: 'run1', etag: '"v4"', cause: { guard: '' as 'spend_above' } }));
    expect(failure.message).toContain('cause.guard is missing');
  });

  it('422 invalid_state_transition re-reads and returns invalid_state', async () => {
    m = createMockActivities();
    m.on('POST', `${RUN}/resume`, () => ({ status: 422, body: apiError('invalid_state_transition', 'run is completed') }));
    m.on('GET', RUN, () => ({ status: 200, body: { id: 'run1', status: 'completed' }, headers: { etag: '"v9"' } }));
    expect(await m.activities.resumeFieldingRun({ ...target, fieldingRunId: 'run1', etag: '"v8"' })).toEqual({
      outcome: 'invalid_state', etag: '"v9"', run: { id: 'run1', status: 'completed' }, detail: 'run is completed',
    });
  });

  it('another 422 stays a non-retryable failure', async () => {
    m = createMockActivities();
    m.on('POST', `${RUN}/pause`, () => ({ status: 422, body: apiError('something_else') }));
    const f = await rejectionOf(m.activities.pauseFieldingRun({ ...target, fieldingRunId: 'run1', etag: '"v1"' }));
    expect(f.type).toBe('something_else');
    expect(f.nonRetryable).toBe(true);
  });

  it('a run answer without ETag, or not of the reference\'s shape, is wire_mismatch naming get_fielding_run', async () => {
    m = createMockActivities();
    m.on('GET', RUN, () => ({ status: 200, body: { id: 'run1', status: 'live' } }));
    const noEtag = await rejectionOf(m.activities.getFieldingRun({ ...target, fieldingRunId: 'run1' }));
    expect(noEtag).toMatchObject({ type: 'wire_mismatch', nonRetryable: true });
    expect(noEtag.message).toContain('the ETag header is missing');
    m.on('GET', RUN, () => ({ status: 200, body: { run_id: 'run1', state: 'live' }, headers: { etag: '"r1.1"' } }));
    const shape = await rejectionOf(m.activities.getFieldingRun({ ...target, fieldingRunId: 'run1' }));
    expect(shape.message).toContain('get_fielding_run');
  });
});
