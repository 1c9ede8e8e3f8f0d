// Spec: "States and transitions" (draft -> fielding) with the launch job and fielding-run control
// of docs/api-conventions.md (ETag / If-Match).
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { paramNames } from './sandbox-test-client';

const { sb, api } = useTestSandbox({ resetBeforeEach: true, faultsBeforeEach: { job_duration_ms: 20 } });

const END = { end_fielding_at: '2099-01-01T00:00:00Z' };

async function liveTargetGroup() {
  const { tgPath } = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s' });
  const launch = await api.req('POST', `${tgPath}/fielding-run-jobs/launch-from-draft`, { body: END });
  const job = await api.waitForJob(launch.headers.get('location')!);
  const runPath = `${tgPath}/fielding-runs/${job.body.created_fielding_run_id}`;
  return { tgPath, runPath };
}

describe('States and transitions › launch from draft', () => {
  it('refuses to launch while live_url is unset (422 invalid_state_error), without changing state', async () => {
    const { tgPath } = await api.projectWithTargetGroup();
    const before = await api.state();
    const res = await api.req('POST', `${tgPath}/fielding-run-jobs/launch-from-draft`, { body: END });
    expect(res.status).toBe(422);
    expect(res.body.object).toBe('invalid_state_error');
    expect(await api.state()).toEqual(before);
  });

  it('answers 201 without a body, the job named by its Location; the group goes live only when the job completes', async () => {
    sb.setFaults({ job_duration_ms: 150 });
    const { tgPath } = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s' });
    const res = await api.req('POST', `${tgPath}/fielding-run-jobs/launch-from-draft`, { body: END });
    expect(res.status).toBe(201);
    expect(res.text).toBe('');
    expect(res.headers.get('location')).toMatch(new RegExp(`^${tgPath}/fielding-run-jobs/launch-from-draft/[0-9A-Z]{26}$`));
    expect((await api.req('GET', res.headers.get('location')!)).body.status).toBe('Processing');
    expect((await api.tgStatus(tgPath))).toBe('draft');
    const job = await api.waitForJob(res.headers.get('location')!);
    expect(job.body.status).toBe('Completed');
    // Launched: GET TG moves to the details; the state is in the overview and the fielding runs.
    expect((await api.req('GET', tgPath)).status).toBe(301);
    expect(await api.tgStatus(tgPath)).toBe('live');
    const runs = (await api.req('GET', `${tgPath}/fielding-runs`)).body;
    expect(runs).toMatchObject({ has_more: false, data: [{ id: job.body.created_fielding_run_id, status: 'live', end_fielding_at: '2099-01-01T00:00:00.000Z' }] });
  });

  it('answers 409 conflict_error while a launch job is running, 422 invalid_state_error once the group is no longer a draft', async () => {
    sb.setFaults({ job_duration_ms: 60_000 });
    const { tgPath } = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s' });
    expect((await api.req('POST', `${tgPath}/fielding-run-jobs/launch-from-draft`, { body: END })).status).toBe(201);
    const again = await api.req('POST', `${tgPath}/fielding-run-jobs/launch-from-draft`, { body: END });
    expect(again.status).toBe(409);
    expect(again.body.object).toBe('conflict_error');
    sb.setFaults({ job_duration_ms: 20 });
    const live = await liveTargetGroup();
    const relaunch = await api.req('POST', `${live.tgPath}/fielding-run-jobs/launch-from-draft`, { body: END });
    expect(relaunch.status).toBe(422);
    expect(relaunch.body.object).toBe('invalid_state_error');
  });

  it.each([[{}], [{ end_fielding_at: 'tomorrow' }], [{ end_fielding_at: '2001-01-01T00:00:00Z' }], [{ end_fielding_at: '2099-01-01' }]])('rejects launch body %j with 400 naming end_fielding_at', async (body) => {
    const { tgPath } = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s' });
    const res = await api.req('POST', `${tgPath}/fielding-run-jobs/launch-from-draft`, { body });
    expect(res.status).toBe(400);
    expect(paramNames(res)).toEqual(['end_fielding_at']);
  });

  it('ends the launch job Failed with failure_reason under job_failure_rate; the group stays draft', async () => {
    sb.setFaults({ job_duration_ms: 5, job_failure_rate: 1 });
    const { tgPath } = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s' });
    const res = await api.req('POST', `${tgPath}/fielding-run-jobs/launch-from-draft`, { body: END });
    const job = await api.waitForJob(res.headers.get('location')!);
    expect(job.body.status).toBe('Failed');
    expect(job.body.failure_reason).toMatchObject({ code: 'job_failed', description: expect.any(String) });
    expect(job.body).not.toHaveProperty('created_fielding_run_id');
    expect((await api.tgStatus(tgPath))).toBe('draft');
  });

  it('refuses a draft update while the launch job runs (409)', async () => {
    sb.setFaults({ job_duration_ms: 60_000 });
    const { tgPath } = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s' });
    await api.req('POST', `${tgPath}/fielding-run-jobs/launch-from-draft`, { body: END });
    const tg = (await api.req('GET', tgPath)).body;
    const res = await api.req('PUT', tgPath, {
      body: { expected_incidence_rate: 0.5, expected_length_of_interview_minutes: 10, filling_goal: tg.completes_goal, project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001', collects_pii: false },
    });
    expect(res.status).toBe(409);
    expect(res.body.object).toBe('conflict_error');
  });
});

describe('States and transitions › fielding run control', () => {
  it('returns the fielding run with an ETag', async () => {
    const { runPath } = await liveTargetGroup();
    const res = await api.req('GET', runPath);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['end_fielding_at', 'id', 'last_changed_at', 'last_changed_by', 'start_fielding_at', 'status', 'version']);
    expect(res.body).toMatchObject({ status: 'live', version: 1, end_fielding_at: '2099-01-01T00:00:00.000Z' });
    expect(res.headers.get('etag')).toMatch(/^".+"$/);
  });

  it('requires If-Match (400 naming it), refuses a stale ETag (412), answers 204 with a new ETag', async () => {
    const { tgPath, runPath } = await liveTargetGroup();
    const etag = (await api.req('GET', runPath)).headers.get('etag')!;
    const missing = await api.req('POST', `${runPath}/pause`);
    expect(missing.status).toBe(400);
    expect(paramNames(missing)).toEqual(['If-Match']);
    const paused = await api.req('POST', `${runPath}/pause`, { headers: { 'if-match': etag } });
    expect(paused.status).toBe(204);
    const fresh = paused.headers.get('etag');
    expect(fresh).not.toBe(etag);
    expect((await api.tgStatus(tgPath))).toBe('paused');
    const stale = await api.req('POST', `${runPath}/resume`, { headers: { 'if-match': etag } });
    expect(stale.status).toBe(412);
    expect(stale.body.object).toBe('precondition_failed_error');
    expect((await api.req('GET', runPath)).headers.get('etag')).toBe(fresh);
  });

  it('follows live -> paused -> live -> completed and refuses wrong transitions with 422', async () => {
    const { tgPath, runPath } = await liveTargetGroup();
    const step = async (action: string) => {
      const etag = (await api.req('GET', runPath)).headers.get('etag')!;
      return api.req('POST', `${runPath}/${action}`, { headers: { 'if-match': etag } });
    };
    expect((await step('resume')).status).toBe(422);
    expect((await step('pause')).status).toBe(204);
    expect((await step('pause')).body.object).toBe('invalid_state_error');
    expect((await step('resume')).status).toBe(204);
    expect((await api.tgStatus(tgPath))).toBe('live');
    expect((await step('complete')).status).toBe(204);
    expect((await api.tgStatus(tgPath))).toBe('completed');
    expect((await api.req('GET', runPath)).body.status).toBe('completed');
    expect((await step('resume')).status).toBe(422);
  });

  it('answers 404 for a fielding run of another target group', async () => {
    const a = await liveTargetGroup();
    const b = await liveTargetGroup();
    const runId = a.runPath.split('/').pop();
    expect((await api.req('GET', `${b.tgPath}/fielding-runs/${runId}`)).status).toBe(404);
  });

  it('emits launched, paused and completed events', async () => {
    const names: string[] = [];
    const off = sb.events.on('*', (e) => void names.push((e as { name: string }).name));
    const { runPath } = await liveTargetGroup();
    for (const action of ['pause', 'complete']) {
      const etag = (await api.req('GET', runPath)).headers.get('etag')!;
      await api.req('POST', `${runPath}/${action}`, { headers: { 'if-match': etag } });
    }
    await sb.events.idle();
    off();
    expect(names.filter((n) => n !== 'target_group.created')).toEqual(['target_group.launched', 'target_group.paused', 'target_group.completed']);
  });
});
