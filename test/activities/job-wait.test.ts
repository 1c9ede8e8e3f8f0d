// Waiting for a job inside one activity (awaitJob) and launching with the wait (launchAndAwait).
import { describe, expect, it } from 'vitest';
import { draftAnswer, fieldingRunsAnswer, movedAnswer, rejectionOf } from './helpers/mock-api';
import { createMockActivities, type MockActivities } from './helpers/mock-activities';
import { MOCK_TARGET as target, expectMockApiUsedAfterEach } from '../fixtures/activities';

const TG = '/v1/demand/accounts/1001/projects/p1/target-groups/tg1';
const LAUNCH_JOB = `${TG}/fielding-run-jobs/launch-from-draft`;
const fast = { pollInitialMs: 5, pollMaxMs: 10, budgetMs: 5_000 };
let m: MockActivities;
expectMockApiUsedAfterEach(() => m);

describe('awaitJob', () => {
  it('polls a launch job until it completes and returns the fielding run and the number of polls', async () => {
    m = createMockActivities();
    m.on('GET', `${LAUNCH_JOB}/job9`, () => ({ status: 200, body: { job_id: 'job9', status: 'Processing' } }), 2);
    m.on('GET', `${LAUNCH_JOB}/job9`, () => ({ status: 200, body: { job_id: 'job9', status: 'Completed', created_fielding_run_id: 'run1' } }));
    const out = await m.activities.awaitJob({ ...target, kind: 'launch', jobId: 'job9', ...fast });
    expect(out).toEqual({ status: 'Completed', fieldingRunId: 'run1', polls: 3, done: true });
  });

  it('returns a failed job as done, with its reason (the workflow decides what a failure means)', async () => {
    m = createMockActivities();
    m.on('GET', `${TG}/exclusions/jobs/upload-respondents-by-file/j1`, () => ({ status: 200, body: { job_id: 'j1', status: 'Failed', failure_reason: { code: 'invalid_file', description: 'bad file' } } }));
    expect(await m.activities.awaitJob({ ...target, kind: 'id_list_upload', jobId: 'j1', ...fast })).toEqual({ status: 'Failed', failureReason: 'invalid_file: bad file', polls: 1, done: true });
  });

  it('hands a job still running back when its time is up (done: false)', async () => {
    m = createMockActivities();
    // As often as it is asked (a persisting interceptor is no longer pending once used).
    m.api
      .intercept({ method: 'GET', path: `${TG}/exclusions/jobs/remove-all-respondents/j2` })
      .reply(200, { job_id: 'j2', status: 'Processing' }, { headers: { 'content-type': 'application/json' } })
      .persist();
    const started = Date.now();
    const out = await m.activities.awaitJob({ ...target, kind: 'remove_all', jobId: 'j2', pollInitialMs: 20, pollMaxMs: 40, budgetMs: 150 });
    expect(out.done).toBe(false);
    expect(out.status).toBe('Processing');
    expect(out.polls).toBeGreaterThanOrEqual(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    // Later delays grow from the first up to the maximum: far fewer polls than 150 ms / 20 ms.
    expect(out.polls).toBeLessThan(8);
  });

  it('reads recontact jobs from their own path', async () => {
    m = createMockActivities();
    m.on('GET', `${TG}/recontacts/jobs/upload-respondents-by-file/r1`, () => ({ status: 200, body: { job_id: 'r1', status: 'Completed' } }));
    expect(await m.activities.awaitJob({ ...target, kind: 'recontact_upload', jobId: 'r1', ...fast })).toEqual({ status: 'Completed', polls: 1, done: true });
  });

  it('rejects an unknown job kind as invalid input, without a call', async () => {
    m = createMockActivities();
    const failure = await rejectionOf(m.activities.awaitJob({ ...target, kind: 'export' as never, jobId: 'x', ...fast }));
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toMatch(/kind must be one of launch, id_list_upload, remove_all, recontact_upload/);
    expect(m.requests).toEqual([]);
  });

  it('lets a retryable API error fail the attempt, for Temporal to retry the whole wait', async () => {
    m = createMockActivities();
    m.on('GET', `${LAUNCH_JOB}/job5`, () => ({ status: 503, body: { id: 'e', object: 'service_unavailable', detail: 'try later' } }));
    const failure = await rejectionOf(m.activities.awaitJob({ ...target, kind: 'launch', jobId: 'job5', ...fast }));
    expect(failure.nonRetryable).toBeFalsy();
  });
});

describe('launchAndAwaitBatch', () => {
  it('launches a draft with the Idempotency-Key, then waits for the job in the same activity', async () => {
    m = createMockActivities();
    m.on('GET', TG, () => draftAnswer());
    m.on('POST', LAUNCH_JOB, () => ({ status: 201, headers: { location: `${LAUNCH_JOB}/job9` } }));
    m.on('GET', `${LAUNCH_JOB}/job9`, () => ({ status: 200, body: { job_id: 'job9', status: 'Processing' } }));
    m.on('GET', `${LAUNCH_JOB}/job9`, () => ({ status: 200, body: { job_id: 'job9', status: 'Completed', created_fielding_run_id: 'run7' } }));
    const out = await m.activities.launchAndAwaitBatch({ items: [{ ...target, idempotencyKey: 'launch-k', endFieldingAt: '2026-12-20T00:00:00Z', wait: fast }] });
    expect(out.results).toEqual([{ ok: true, jobId: 'job9', alreadyLaunched: false, fieldingRunId: null, job: { status: 'Completed', fieldingRunId: 'run7', polls: 2, done: true } }]);
    expect(m.requests[1].headers['idempotency-key']).toBe('launch-k');
  });

  it('does not launch, nor wait, for a target group already live', async () => {
    m = createMockActivities();
    m.on('GET', TG, () => movedAnswer(TG));
    m.on('GET', `${TG}/fielding-runs`, () => fieldingRunsAnswer('run1'));
    const out = await m.activities.launchAndAwaitBatch({ items: [{ ...target, idempotencyKey: 'k', endFieldingAt: '2026-12-20T00:00:00Z', wait: fast }] });
    expect(out.results).toEqual([{ ok: true, jobId: null, alreadyLaunched: true, fieldingRunId: 'run1' }]);
    expect(m.requests).toHaveLength(2);
  });
});
