// Changes of a launched target group (issue 28; the reference's update_fielding_run, relaunch_fielding_run,
// launch_now_fielding_run, create_schedule_fielding_run_from_draft_job, update_launched_target_group_details,
// update_cost_per_interview, the allocation specification, the fielding-assistant assignment and
// calculate_target_group_feasibility_by_id): state-machine refusals, ETag/If-Match, the fielding simulation, and
// the spec's target-group-updated event for each change.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../sandbox/index';
import { SandboxTestClient, paramNames, projectManager, startTestSandbox } from './sandbox-test-client';

let sb: RunningSandbox;
let api: SandboxTestClient;
let offsetMs = 0;
let receiver: Server;
let receiverUrl: string;
let received: any[] = [];

beforeAll(async () => {
  // A clock the tests can move forward (a scheduled launch goes live when its start comes).
  ({ sb, api } = await startTestSandbox({ clock: () => Date.now() + offsetMs }));
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
beforeEach(() => {
  sb.reset();
  sb.setFaults({ job_duration_ms: 20 });
  offsetMs = 0;
  received = [];
});
afterAll(async () => {
  await sb.close();
  await new Promise((resolve) => receiver.close(resolve));
});

const END = '2099-01-01T00:00:00.000Z';

async function liveTargetGroup(overrides: Record<string, unknown> = {}) {
  const made = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s', ...overrides });
  const launch = await api.req('POST', `${made.tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: END } });
  const job = await api.waitForJob(launch.headers.get('location')!);
  const runPath = `${made.tgPath}/fielding-runs/${job.body.created_fielding_run_id}`;
  return { ...made, runPath };
}

const etagOf = async (path: string) => (await api.req('GET', path)).headers.get('etag')!;
const run = async (runPath: string) => (await api.req('GET', runPath)).body;

async function until<T>(probe: () => T | Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const value = await probe();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('Live target groups › update_fielding_run', () => {
  it('moves the end with the current ETag: 202 {id}, a new ETag, the run and the group carry the new end', async () => {
    const { runPath, tgPath } = await liveTargetGroup();
    const before = await run(runPath);
    const res = await api.req('PUT', runPath, { body: { start_fielding_at: before.start_fielding_at, end_fielding_at: '2098-06-01T00:00:00Z' }, headers: { 'If-Match': await etagOf(runPath) } });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toEqual({ id: before.id });
    expect(res.headers.get('etag')).toBe(await etagOf(runPath));
    expect(await run(runPath)).toMatchObject({ end_fielding_at: '2098-06-01T00:00:00.000Z', version: before.version + 1 });
    const runs = (await api.req('GET', `${tgPath}/fielding-runs`)).body.data;
    expect(runs[0].end_fielding_at).toBe('2098-06-01T00:00:00.000Z');
  });

  it('refuses a stale If-Match with 412 and a missing one with 400, without changing state', async () => {
    const { runPath } = await liveTargetGroup();
    const before = await run(runPath);
    const body = { start_fielding_at: before.start_fielding_at, end_fielding_at: '2098-06-01T00:00:00Z' };
    const stale = `"${before.id}.${before.version - 1}"`;
    const state = await api.state();
    const refused = await api.req('PUT', runPath, { body, headers: { 'If-Match': stale } });
    expect(refused.status).toBe(412);
    expect(refused.body.object).toBe('precondition_failed_error');
    const missing = await api.req('PUT', runPath, { body });
    expect(missing.status).toBe(400);
    expect(paramNames(missing)).toEqual(['If-Match']);
    expect(await api.state()).toEqual(state);
  });

  it('refuses a completed run (422 invalid_state_error), a new start of a started run (422), and an end before the start (400)', async () => {
    const { runPath } = await liveTargetGroup();
    const before = await run(runPath);
    const earlier = await api.req('PUT', runPath, { body: { start_fielding_at: before.start_fielding_at, end_fielding_at: '2001-01-01T00:00:00Z' }, headers: { 'If-Match': await etagOf(runPath) } });
    expect(earlier.status).toBe(400);
    expect(paramNames(earlier)).toEqual(['end_fielding_at']);
    const moved = await api.req('PUT', runPath, { body: { start_fielding_at: '2098-01-01T00:00:00Z', end_fielding_at: END }, headers: { 'If-Match': await etagOf(runPath) } });
    expect(moved.status).toBe(422);
    expect(moved.body.object).toBe('invalid_state_error');
    expect((await api.req('POST', `${runPath}/complete`, { headers: { 'If-Match': await etagOf(runPath) } })).status).toBe(204);
    const completed = await api.req('PUT', runPath, { body: { start_fielding_at: before.start_fielding_at, end_fielding_at: '2098-06-01T00:00:00Z' }, headers: { 'If-Match': await etagOf(runPath) } });
    expect(completed.status).toBe(422);
    expect(completed.body.object).toBe('invalid_state_error');
  });
});

describe('Live target groups › relaunch and the fielding simulation', () => {
  it('a paused run collects nothing; a completed run stops; a relaunched run fields again; a raised goal fills further', async () => {
    const { tgPath, runPath, tg } = await liveTargetGroup({ filling_goal: 5 });
    const completes = async () => (await api.req('GET', `${tgPath}/overview`)).body.progress.current_completes as number;
    const advance = async (minutes: number) => expect((await api.admin('POST', '/fielding/advance', { minutes })).status).toBe(200);
    expect((await api.req('POST', `${runPath}/pause`, { headers: { 'If-Match': await etagOf(runPath) } })).status).toBe(204);
    await advance(60 * 24 * 30);
    expect(await completes()).toBe(0);
    // Relaunch is for completed runs only.
    const notCompleted = await api.req('POST', `${runPath}/relaunch`, { headers: { 'If-Match': await etagOf(runPath) } });
    expect(notCompleted.status).toBe(422);
    expect(notCompleted.body.object).toBe('invalid_state_error');
    expect((await api.req('POST', `${runPath}/resume`, { headers: { 'If-Match': await etagOf(runPath) } })).status).toBe(204);
    expect((await api.req('POST', `${runPath}/complete`, { headers: { 'If-Match': await etagOf(runPath) } })).status).toBe(204);
    const atComplete = await completes();
    await advance(60 * 24 * 30);
    expect(await completes()).toBe(atComplete);
    expect(atComplete).toBeLessThan(5);
    // Relaunch: live again, and it fills to the goal, then the simulation completes it.
    const relaunched = await api.req('POST', `${runPath}/relaunch`, { headers: { 'If-Match': await etagOf(runPath) } });
    expect(relaunched.status, relaunched.text).toBe(204);
    expect((await run(runPath)).status).toBe('live');
    // It fields again: arrivals are drawn per target group (its id seeds them), 60 days at a time, a year at most.
    for (let i = 0; i < 6 && (await completes()) === atComplete; i++) await advance(60 * 24 * 60);
    expect(await completes()).toBeGreaterThan(atComplete);
    expect(await completes()).toBeLessThanOrEqual(5);
    expect(tg.id).toBeTruthy();
  });

  it('a goal raised on a live group lets it fill beyond the old goal', async () => {
    const { tgPath } = await liveTargetGroup({ filling_goal: 3 });
    const raised = await api.req('PUT', `${tgPath}/profiles/completes-goal`, { body: { completes_goal: 6 } });
    expect(raised.status, raised.text).toBe(200);
    const progress = async () => (await api.req('GET', `${tgPath}/overview`)).body.progress as { current_completes: number };
    // Arrivals are drawn per target group (its id seeds them): fielding days until the new goal, 60 at a time, a year at most.
    for (let i = 0; i < 6 && (await progress()).current_completes <= 3; i++) {
      expect((await api.admin('POST', '/fielding/advance', { minutes: 60 * 24 * 60 })).status).toBe(200);
    }
    const after = (await progress()) as { current_completes: number; filling_goal: number };
    expect(after.filling_goal).toBe(6);
    expect(after.current_completes).toBeGreaterThan(3);
    expect(after.current_completes).toBeLessThanOrEqual(6);
  });
});

describe('Live target groups › scheduled launch', () => {
  const schedule = (tgPath: string, body: unknown, key: string | null = `k-${Math.random()}`) =>
    api.req('POST', `${tgPath}/fielding-run-jobs/schedule-from-draft`, { body, headers: key ? { 'Idempotency-Key': key } : {} });

  it('schedules a draft (201 + Location), goes live at its start on the tick; launch-now refuses a live run', async () => {
    const { tgPath } = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s' });
    const start = new Date(Date.now() + 3_600_000).toISOString();
    const res = await schedule(tgPath, { start_fielding_at: start, end_fielding_at: END });
    expect(res.status, res.text).toBe(201);
    const job = await api.waitForJob(res.headers.get('location')!);
    expect(job.body).toMatchObject({ status: 'Completed', created_fielding_run_id: expect.any(String) });
    const runPath = `${tgPath}/fielding-runs/${job.body.created_fielding_run_id}`;
    expect(await run(runPath)).toMatchObject({ status: 'scheduled', start_fielding_at: start });
    expect(await api.tgStatus(tgPath)).toBe('scheduled');
    await sb.runTicks();
    expect((await run(runPath)).status).toBe('scheduled');
    offsetMs = 3_600_000 + 1000;
    await sb.runTicks();
    expect(await run(runPath)).toMatchObject({ status: 'live', start_fielding_at: start });
    const again = await api.req('POST', `${runPath}/launch-now`, { headers: { 'If-Match': await etagOf(runPath) } });
    expect(again.status).toBe(422);
  });

  it('launch-now takes a scheduled run live now and keeps its duration', async () => {
    const { tgPath } = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s' });
    const start = Date.now() + 10 * 86_400_000;
    const end = start + 7 * 86_400_000;
    const job = await api.waitForJob((await schedule(tgPath, { start_fielding_at: new Date(start).toISOString(), end_fielding_at: new Date(end).toISOString() })).headers.get('location')!);
    const runPath = `${tgPath}/fielding-runs/${job.body.created_fielding_run_id}`;
    const res = await api.req('POST', `${runPath}/launch-now`, { headers: { 'If-Match': await etagOf(runPath) } });
    expect(res.status, res.text).toBe(200);
    const duration = Date.parse(res.body.end_fielding_at) - Date.parse(res.body.start_fielding_at);
    expect(duration).toBe(7 * 86_400_000);
    expect((await run(runPath)).status).toBe('live');
  });

  it('requires an Idempotency-Key and a future start before the end (400); a launched group fails the job with TargetGroupInvalidState', async () => {
    const live = await liveTargetGroup();
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await schedule(live.tgPath, { start_fielding_at: future, end_fielding_at: END }, null)).status).toBe(400);
    const past = await schedule(live.tgPath, { start_fielding_at: '2001-01-01T00:00:00Z', end_fielding_at: '2000-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(paramNames(past).sort()).toEqual(['end_fielding_at', 'start_fielding_at']);
    const job = await api.waitForJob((await schedule(live.tgPath, { start_fielding_at: future, end_fielding_at: END })).headers.get('location')!);
    expect(job.body).toMatchObject({ status: 'Failed', failure_reason: { code: 'TargetGroupInvalidState' } });
  });
});

describe('Live target groups › details, CPI, allocations, fielding assistant', () => {
  const details = (overrides: Record<string, unknown> = {}) => ({
    name: 'Adults 18-65 (wave 2)', project_manager_id: projectManager(), expected_length_of_interview_minutes: 12, expected_incidence_rate: 0.4,
    industry_lockout_code: 'no_lock_out', live_url: 'https://survey.example/s2', test_url: 'https://survey.example/t2', ...overrides,
  });

  it('update_launched_target_group_details: 200 with the details; a draft is 404; a bad field is 400 naming it', async () => {
    const { tgPath } = await liveTargetGroup();
    const res = await api.req('PUT', `${tgPath}/details`, { body: details() });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ name: 'Adults 18-65 (wave 2)', live_url: 'https://survey.example/s2', expected_length_of_interview_minutes: 12 });
    expect((await api.req('GET', `${tgPath}/details`)).body.expected_incidence_rate).toBe(0.4);
    const bad = await api.req('PUT', `${tgPath}/details`, { body: details({ expected_length_of_interview_minutes: 90 }) });
    expect(bad.status).toBe(400);
    expect(paramNames(bad)).toEqual(['expected_length_of_interview_minutes']);
    const draft = await api.projectWithTargetGroup();
    expect((await api.req('PUT', `${draft.tgPath}/details`, { body: details() })).status).toBe(404);
  });

  it('update_cost_per_interview: 200 {target_group_cpi}; the overview shows it; above 105.00 is 400; a draft is 404', async () => {
    const { tgPath } = await liveTargetGroup();
    const res = await api.req('PUT', `${tgPath}/cost-per-interview`, { body: { target_group_cpi: { value: '4.5', currency_code: 'USD' } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ target_group_cpi: { value: '4.50', currency_code: 'USD', currency_scale: 2 } });
    expect((await api.req('GET', `${tgPath}/overview`)).body.current_cost_per_interview).toMatchObject({ value: '4.50' });
    const high = await api.req('PUT', `${tgPath}/cost-per-interview`, { body: { target_group_cpi: { value: '105.01', currency_code: 'USD' } } });
    expect(high.status).toBe(400);
    expect(paramNames(high)).toEqual(['target_group_cpi.value']);
    const draft = await api.projectWithTargetGroup();
    expect((await api.req('PUT', `${draft.tgPath}/cost-per-interview`, { body: { target_group_cpi: { value: '4.50', currency_code: 'USD' } } })).status).toBe(404);
  });

  it('allocation specification: PUT 204 then GET answers the blocked suppliers and groups; min above max is 400', async () => {
    const { tgPath } = await liveTargetGroup();
    const body = {
      open_exchange_allocations: { blocked_supplier_ids: ['421'], exchange_min_percentage: 10, exchange_max_percentage: 90, groups: [{ group_name: 'Premium', min_percentage: 50, max_percentage: 80, supplier_ids: ['420'] }] },
      private_exchange_allocations: { blocked_supplier_ids: [], groups: [] },
    };
    expect((await api.req('PUT', `${tgPath}/allocation-specification`, { body })).status).toBe(204);
    const got = (await api.req('GET', `${tgPath}/allocation-specification`)).body;
    expect(got.open_exchange_allocations).toMatchObject({ blocked_suppliers: [{ id: 421 }], exchange_min_percentage: 10, groups: [{ group_name: 'Premium', suppliers: [{ id: 420 }] }] });
    const bad = await api.req('PUT', `${tgPath}/allocation-specification`, { body: { ...body, open_exchange_allocations: { ...body.open_exchange_allocations, exchange_min_percentage: 95 } } });
    expect(bad.status).toBe(400);
    expect(paramNames(bad)).toEqual(['open_exchange_allocations.exchange_min_percentage']);
  });

  it('fielding assistant: GET with ETag; PUT replaces all modules (204 + new ETag); a stale If-Match is 412; If-None-Match: * refuses an existing one', async () => {
    const { tgPath } = await liveTargetGroup();
    const path = `${tgPath}/fielding-assistant-assignment`;
    const first = await api.req('GET', path);
    expect(first.body).toEqual({ pricing: null, quota_overlay: null, pacing: null, soft_launch: null });
    const etag = first.headers.get('etag')!;
    const put = await api.req('PUT', path, { body: { pacing: { type: 'linear', increment_interval: 'P1D' }, quota_overlay: { prevent_overfill: true, balance_fill: false } }, headers: { 'If-Match': etag } });
    expect(put.status, put.text).toBe(204);
    expect(put.headers.get('etag')).not.toBe(etag);
    expect((await api.req('GET', path)).body).toMatchObject({ pacing: { type: 'linear' }, quota_overlay: { prevent_overfill: true }, pricing: null });
    const stale = await api.req('PUT', path, { body: {}, headers: { 'If-Match': etag } });
    expect(stale.status).toBe(412);
    expect((await api.req('PUT', path, { body: {}, headers: { 'If-None-Match': '*' } })).status).toBe(412);
    // The whole object: a PUT with only pacing disables the overlay.
    expect((await api.req('PUT', path, { body: { pacing: { type: 'adaptive', increment_interval: 'PT12H' } } })).status).toBe(204);
    expect((await api.req('GET', path)).body).toMatchObject({ pacing: { type: 'adaptive' }, quota_overlay: null });
  });

  it('calculate_target_group_feasibility_by_id: a what-if for a live group; a draft is 422', async () => {
    const { tgPath } = await liveTargetGroup();
    const res = await api.req('POST', `${tgPath}/calculate-feasibility`, { body: { completes_goal: 300 } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ suggested_price: { value: expect.any(String) }, suggested_completes_goal_range: { min: expect.any(Number), max: expect.any(Number) } });
    const narrow = await api.req('POST', `${tgPath}/calculate-feasibility`, { body: { completes_goal: 300, end_at: new Date(Date.now() + 86_400_000).toISOString() } });
    expect(narrow.body.suggested_completes_goal_range.max).toBeLessThan(res.body.suggested_completes_goal_range.max);
    const draft = await api.projectWithTargetGroup();
    const refused = await api.req('POST', `${draft.tgPath}/calculate-feasibility`, { body: {} });
    expect(refused.status).toBe(422);
    expect(refused.body.object).toBe('invalid_state_error');
  });
});

describe('Live target groups › target-group-updated events', () => {
  it('each change reaches a subscribed webhook as field_change / status_change objects', async () => {
    const hook = await api.req('POST', '/v1/accounts/1001/webhooks', { body: { url: `${receiverUrl}/hook`, events: ['target-group-updated'] } });
    expect(hook.status, hook.text).toBe(201);
    const { tgPath, runPath } = await liveTargetGroup({ filling_goal: 50 });
    const before = await run(runPath);
    await api.req('PUT', runPath, { body: { start_fielding_at: before.start_fielding_at, end_fielding_at: '2098-06-01T00:00:00Z' }, headers: { 'If-Match': await etagOf(runPath) } });
    await api.req('PUT', `${tgPath}/profiles/completes-goal`, { body: { completes_goal: 80 } });
    await api.req('PUT', `${tgPath}/cost-per-interview`, { body: { target_group_cpi: { value: '3.00', currency_code: 'USD' } } });
    await api.req('POST', `${runPath}/complete`, { headers: { 'If-Match': await etagOf(runPath) } });
    await api.req('POST', `${runPath}/relaunch`, { headers: { 'If-Match': await etagOf(runPath) } });
    const changes = () => received.filter((e) => e.type === 'target-group-updated').flatMap((e) => e.data.changes);
    const all = await until(changes, (list) => list.filter((c: any) => c.object === 'status_change').length >= 3, 'the events');
    const fields = all.filter((c: any) => c.object === 'field_change').map((c: any) => c.field);
    expect(fields).toEqual(expect.arrayContaining(['end_fielding_at', 'filling_goal', 'cost_per_interview']));
    expect(all.filter((c: any) => c.object === 'status_change').map((c: any) => c.current)).toEqual(expect.arrayContaining(['live', 'completed']));
    expect(all.find((c: any) => c.field === 'filling_goal')).toMatchObject({ previous: 50, current: 80 });
  });
});
