// What soft launches and quota views read (issue 38, the sandbox's part; docs/sandbox.md › Fielding simulation):
// the fielding assistant's soft_launch module (create_or_update_fielding_assistant_assignment: ETag, If-Match; other
// modules kept as written) caps completes at its share of the goal and pauses the group at its end_at on the simulated
// clock, with the target-group-updated event of any pause; without it fielding goes on to the full goal. The overview
// answers the median length of interview, incidence and drop-off from the simulated sessions; get_profile and
// list_profiles answer each quota's completes and prescreens. The admin settings of a target group drive the outcomes a
// soft launch is judged by: pass, fail (incidence, LOI), inconclusive, one quota behind.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../sandbox/index';
import { SandboxTestClient, V_MID, paramNames, startTestSandbox } from './sandbox-test-client';

let sb: RunningSandbox;
let api: SandboxTestClient;
let receiver: Server;
let receiverUrl: string;
let received: any[] = [];

beforeAll(async () => {
  ({ sb, api } = await startTestSandbox());
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
beforeEach(async () => {
  sb.reset();
  sb.setFaults({ job_duration_ms: 20 });
  received = [];
  const res = await api.admin('PUT', '/fielding/settings', { pool_size: 4000, speed: 1, seed: 'soft-launch' });
  expect(res.status, res.text).toBe(200);
});
afterAll(async () => {
  await sb.close();
  await new Promise((resolve) => receiver.close(resolve));
});

const MINUTE = 60_000;
const GENDER = {
  object: 'regular', id: 'g', name: 'Gender', quotas_enabled: true, targets: [
    { id: 'm', conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { completes_goal: 100 } },
    { id: 'f', conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { completes_goal: 100 } },
  ],
};

async function liveGroup(overrides: Record<string, unknown> = {}) {
  const made = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s', filling_goal: 200, expected_incidence_rate: 0.5, expected_length_of_interview_minutes: 10, ...overrides });
  const launch = await api.req('POST', `${made.tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
  expect(launch.status, launch.text).toBe(201);
  const job = await api.waitForJob(launch.headers.get('location')!);
  return { ...made, runPath: `${made.tgPath}/fielding-runs/${job.body.created_fielding_run_id}`, assistant: `${made.tgPath}/fielding-assistant-assignment` };
}

const simulatedNow = async () => Date.parse((await api.admin('GET', '/fielding/settings')).body.simulated_now as string);
const at = async (minutesFromNow: number) => new Date((await simulatedNow()) + minutesFromNow * MINUTE).toISOString();
const advance = async (minutes: number) => {
  const res = await api.admin('POST', '/fielding/advance', { minutes });
  expect(res.status, res.text).toBe(200);
};
const sessions = async (tgId: string) => (await api.admin('GET', `/fielding/target-groups/${tgId}/sessions`)).body.data as Record<string, any>[];
const overview = async (tgPath: string) => {
  const res = await api.req('GET', `${tgPath}/overview`);
  expect(res.status, res.text).toBe(200);
  return res.body;
};
const etagOf = async (path: string) => (await api.req('GET', path)).headers.get('etag')!;
const tgSettings = (id: string, body: Record<string, unknown>) => api.admin('PUT', `/fielding/target-groups/${id}/settings`, body);

async function softLaunch(assistant: string, module: Record<string, unknown>, others: Record<string, unknown> = {}) {
  const res = await api.req('PUT', assistant, { body: { ...others, soft_launch: module }, headers: { 'If-Match': await etagOf(assistant) } });
  expect(res.status, res.text).toBe(204);
  return res;
}

describe('Soft launch › the fielding assistant\'s soft_launch module', () => {
  it('pass: completes stop at the soft goal, the overview reads good incidence and LOI; at end_at the group and its run pause (target-group-updated), the assignment unchanged; resumed it fields to the full goal', async () => {
    const hook = await api.req('POST', '/v1/accounts/1001/webhooks', { body: { url: `${receiverUrl}/hook`, events: ['target-group-updated'] } });
    expect(hook.status, hook.text).toBe(201);
    // A soft goal of 100 completes, so that the rates read have a sample to speak of.
    const { tg, tgPath, runPath, assistant } = await liveGroup({ filling_goal: 1000 });
    await softLaunch(assistant, { end_at: await at(150), filling_goal_percentage: 10, demographics_strictness_percentage: 100 });
    const written = await api.req('GET', assistant);
    await advance(120);
    const during = await overview(tgPath);
    expect(during.status).toBe('live');
    expect(during.progress.current_completes).toBe(100);
    const all = await sessions(tg.id);
    expect(all.filter((s) => s.status === 'Complete')).toHaveLength(100);
    // Arrivals stopped once the completes in hand and in the survey made the soft goal: no one is left in the survey.
    expect(all.filter((s) => s.status === 'Started')).toHaveLength(0);
    expect(Number.isInteger(during.median_length_of_interview_seconds)).toBe(true);
    expect(during.median_length_of_interview_seconds).toBeGreaterThanOrEqual(0.8 * 600);
    expect(during.median_length_of_interview_seconds).toBeLessThanOrEqual(1.2 * 600);
    expect(during.incidence_rate).toBeGreaterThan(0.38);
    expect(during.incidence_rate).toBeLessThan(0.62);
    // Nothing more while the soft launch runs.
    await advance(20);
    expect((await overview(tgPath)).progress.current_completes).toBe(100);
    await advance(20);
    expect((await overview(tgPath)).status).toBe('paused');
    expect((await api.req('GET', runPath)).body.status).toBe('paused');
    const after = await api.req('GET', assistant);
    expect(after.body).toEqual(written.body);
    expect(after.headers.get('etag')).toBe(written.headers.get('etag'));
    for (let i = 0; i < 200 && !received.some((e) => e.data.changes.some((c: any) => c.object === 'status_change' && c.current === 'paused')); i++) await new Promise((r) => setTimeout(r, 10));
    const statusChanges = received.filter((e) => e.type === 'target-group-updated' && e.data.target_group_id === tg.id).flatMap((e) => e.data.changes).filter((c: any) => c.object === 'status_change');
    expect(statusChanges).toContainEqual(expect.objectContaining({ previous: 'live', current: 'paused' }));
    // The soft launch is over: resumed, the group fields on to its full goal and completes.
    const resume = await api.req('POST', `${runPath}/resume`, { headers: { 'If-Match': await etagOf(runPath) } });
    expect(resume.status, resume.text).toBe(204);
    await advance(720);
    const done = await overview(tgPath);
    expect(done.progress.current_completes).toBe(1000);
    expect(done.status).toBe('completed');
  });

  it('an update without the module lets fielding go on to the full goal before end_at; other modules stay as written', async () => {
    const { tg, tgPath, assistant } = await liveGroup();
    const pacing = { type: 'linear', increment_interval: 'P1D' };
    const overlay = { prevent_overfill: true, balance_fill: false };
    await softLaunch(assistant, { end_at: await at(600), filling_goal_percentage: 25, demographics_strictness_percentage: 50 }, { pacing, quota_overlay: overlay });
    await advance(120);
    expect((await overview(tgPath)).progress.current_completes).toBe(50);
    const read = await api.req('GET', assistant);
    const { soft_launch: _soft, ...rest } = read.body;
    const removed = await api.req('PUT', assistant, { body: rest, headers: { 'If-Match': read.headers.get('etag')! } });
    expect(removed.status, removed.text).toBe(204);
    expect((await api.req('GET', assistant)).body).toEqual({ pricing: null, pacing, quota_overlay: overlay, soft_launch: null });
    await advance(240);
    const done = await overview(tgPath);
    expect(done.progress.current_completes).toBe(200);
    expect(done.status).toBe('completed');
    expect((await sessions(tg.id)).filter((s) => s.status === 'Complete')).toHaveLength(200);
  });

  it('a module written next to others keeps them byte for byte; a stale If-Match is 412 and changes nothing; If-None-Match: * on an existing assignment too', async () => {
    const { assistant } = await liveGroup();
    const first = { pricing: { type: 'dynamic', maximum_cpi: { value: '5.00', currency_code: 'USD' } }, pacing: { type: 'adaptive', increment_interval: 'PT12H' }, quota_overlay: { prevent_overfill: true, balance_fill: true } };
    const put = await api.req('PUT', assistant, { body: first });
    expect(put.status, put.text).toBe(204);
    const read = await api.req('GET', assistant);
    const stale = read.headers.get('etag')!;
    const module = { end_at: await at(60), filling_goal_percentage: 5, demographics_strictness_percentage: 80 };
    await softLaunch(assistant, module, { pricing: read.body.pricing, pacing: read.body.pacing, quota_overlay: read.body.quota_overlay });
    const now = await api.req('GET', assistant);
    expect(now.body).toEqual({ ...first, soft_launch: module });
    expect(now.headers.get('etag')).not.toBe(stale);
    const state = await api.state();
    const refused = await api.req('PUT', assistant, { body: {}, headers: { 'If-Match': stale } });
    expect(refused.status, refused.text).toBe(412);
    expect(refused.body.object).toBe('precondition_failed_error');
    expect((await api.req('PUT', assistant, { body: {}, headers: { 'If-None-Match': '*' } })).status).toBe(412);
    expect((await api.state()).records).toEqual(state.records);
  });

  it('refuses a module without its fields or out of range (400 naming them) and leaves the assignment as it was', async () => {
    const { assistant } = await liveGroup();
    const before = await api.req('GET', assistant);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ end_at: '2099-01-01T00:00:00Z', filling_goal_percentage: 0, demographics_strictness_percentage: 10 }, 'soft_launch.filling_goal_percentage'],
      [{ end_at: '2099-01-01T00:00:00Z', filling_goal_percentage: 10, demographics_strictness_percentage: 101 }, 'soft_launch.demographics_strictness_percentage'],
      [{ end_at: 'tomorrow', filling_goal_percentage: 10, demographics_strictness_percentage: 10 }, 'soft_launch.end_at'],
      [{ filling_goal_percentage: 10, demographics_strictness_percentage: 10 }, 'soft_launch.end_at'],
    ];
    for (const [module, name] of cases) {
      const res = await api.req('PUT', assistant, { body: { soft_launch: module } });
      expect(res.status, res.text).toBe(400);
      expect(paramNames(res)).toContain(name);
    }
    expect((await api.req('GET', assistant)).body).toEqual(before.body);
  });

  it('fail, incidence: arrivals screened in far below the expected rate read as a low incidence, and the group pauses at end_at whatever its fill', async () => {
    const { tg, tgPath, assistant } = await liveGroup();
    const set = await tgSettings(tg.id, { incidence_rate: 0.05 });
    expect(set.status, set.text).toBe(200);
    await softLaunch(assistant, { end_at: await at(120), filling_goal_percentage: 10, demographics_strictness_percentage: 100 });
    await advance(150);
    const read = await overview(tgPath);
    expect(read.status).toBe('paused');
    expect(read.incidence_rate).toBeLessThan(0.15);
    const all = await sessions(tg.id);
    const completes = all.filter((s) => s.status === 'Complete').length;
    expect(read.incidence_rate).toBe(Math.round((completes / (completes + all.filter((s) => s.status === 'Terminate').length)) * 10_000) / 10_000);
  });

  it('fail, LOI: respondents taking 30 minutes on a 10-minute survey read as a median near 1,800 s; the settings answer what is in use', async () => {
    const { tg, tgPath, assistant } = await liveGroup();
    const set = await tgSettings(tg.id, { length_of_interview_minutes: 30, drop_off_rate: 0 });
    expect(set.body).toEqual({ incidence_rate: 0.5, length_of_interview_minutes: 30, drop_off_rate: 0 });
    expect((await api.admin('GET', `/fielding/target-groups/${tg.id}/settings`)).body).toEqual(set.body);
    await softLaunch(assistant, { end_at: await at(240), filling_goal_percentage: 25, demographics_strictness_percentage: 100 });
    await advance(180);
    const read = await overview(tgPath);
    expect(read.progress.current_completes).toBe(50);
    expect(read.median_length_of_interview_seconds).toBeGreaterThan(0.9 * 1800);
    expect(read.median_length_of_interview_seconds).toBeLessThan(1.1 * 1800);
    const lengths = (await sessions(tg.id)).filter((s) => s.status === 'Complete').map((s) => s.length_of_interview_seconds as number).sort((a, b) => a - b);
    expect(read.median_length_of_interview_seconds).toBe(Math.round((lengths[24] + lengths[25]) / 2));
  });

  it('inconclusive: a soft launch that ends before its goal pauses the group with fewer completes, and no one entered after end_at', async () => {
    const { tg, tgPath, assistant } = await liveGroup();
    const end = await at(15);
    await softLaunch(assistant, { end_at: end, filling_goal_percentage: 50, demographics_strictness_percentage: 100 });
    await advance(60);
    const read = await overview(tgPath);
    expect(read.status).toBe('paused');
    expect(read.progress.current_completes).toBeLessThan(100);
    const all = await sessions(tg.id);
    expect(all.length).toBeGreaterThan(0);
    expect(all.every((s) => Date.parse(s.entry_date) < Date.parse(end))).toBe(true);
  });

  it('a soft launch written on the draft runs once the group is launched', async () => {
    const end = await at(180);
    const { tg, tgPath } = await liveGroup({ fielding_assistant_assignment: { soft_launch: { end_at: end, filling_goal_percentage: 5, demographics_strictness_percentage: 100 } } });
    await advance(120);
    const read = await overview(tgPath);
    expect([read.status, read.progress.current_completes]).toEqual(['live', 10]);
    await advance(90);
    expect((await overview(tgPath)).status).toBe('paused');
    expect((await sessions(tg.id)).every((s) => Date.parse(s.entry_date) < Date.parse(end))).toBe(true);
  });

  it('a group the buyer paused before end_at stays paused at it, and resumed after it fields on to the full goal', async () => {
    const { tgPath, runPath, assistant } = await liveGroup({ filling_goal: 60 });
    await softLaunch(assistant, { end_at: await at(60), filling_goal_percentage: 50, demographics_strictness_percentage: 100 });
    await advance(5);
    const pause = await api.req('POST', `${runPath}/pause`, { headers: { 'If-Match': await etagOf(runPath) } });
    expect(pause.status, pause.text).toBe(204);
    const etag = await etagOf(runPath);
    await advance(90);
    // The end of the soft launch changed nothing: the run is as the buyer left it.
    expect(await etagOf(runPath)).toBe(etag);
    expect((await overview(tgPath)).status).toBe('paused');
    expect((await api.req('POST', `${runPath}/resume`, { headers: { 'If-Match': etag } })).status).toBe(204);
    await advance(240);
    const done = await overview(tgPath);
    expect([done.status, done.progress.current_completes]).toEqual(['completed', 60]);
  });

  it('a drop-off pushed up reads as the overview\'s drop-off rate: drop-outs stay in the survey, unfinished', async () => {
    const { tg, tgPath, assistant } = await liveGroup({ expected_incidence_rate: 0.9 });
    expect((await tgSettings(tg.id, { drop_off_rate: 0.6 })).status).toBe(200);
    await softLaunch(assistant, { end_at: await at(240), filling_goal_percentage: 10, demographics_strictness_percentage: 100 });
    await advance(60);
    const read = await overview(tgPath);
    const all = await sessions(tg.id);
    expect(read.drop_off_rate).toBe(Math.round((all.filter((s) => s.status === 'Started').length / all.length) * 10_000) / 10_000);
    expect(read.drop_off_rate).toBeGreaterThan(0.3);
  });
});

describe('Quota views › per-quota completes and prescreens of a launched group', () => {
  it('one quota falls behind while the total looks fine: get_profile and list_profiles answer each quota\'s completes and prescreens as the sessions count them', async () => {
    const { tg, tgPath, assistant } = await liveGroup({ profiling: { profile_adjustment_type: 'nominal', profiles: [GENDER] } });
    const set = await tgSettings(tg.id, { quota_fill: { m: 0.15 } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.quota_fill).toEqual({ m: 0.15 });
    await softLaunch(assistant, { end_at: await at(180), filling_goal_percentage: 20, demographics_strictness_percentage: 0 });
    await advance(200);
    const read = await overview(tgPath);
    expect(read.status).toBe('paused');
    expect(read.progress.current_completes).toBe(40);
    const profile = await api.req('GET', `${tgPath}/profiles/g`);
    expect(profile.status, profile.text).toBe(200);
    const all = await sessions(tg.id);
    const count = (target: string, complete: boolean) =>
      all.filter((s) => s.status !== 'PreClientSurveyProcess' && s.quota_target_ids.includes(`g/${target}`) && (!complete || s.status === 'Complete')).length;
    const [male, female] = profile.body.targets;
    expect(male).toMatchObject({ id: 'm', quota: { completes_goal: 100, completes: count('m', true), prescreens: count('m', false) } });
    expect(female).toMatchObject({ id: 'f', quota: { completes_goal: 100, completes: count('f', true), prescreens: count('f', false) } });
    // The total is the soft goal; the male quota is far short of its half of it. A fill of 0.15 lets about one male in
    // for every seven women (5 of 40 expected); which arrivals are drawn depends on the simulated times they come at
    // (2 to 9 in eight quiet runs, 11 once under load), so the bound leaves room: under half the women's count (at most
    // 13 of 40), still far from the 20 an even fill gives.
    expect(male.quota.completes + female.quota.completes).toBe(40);
    expect(male.quota.completes * 2).toBeLessThan(female.quota.completes);
    const list = await api.req('GET', `${tgPath}/profiles`);
    expect(list.status, list.text).toBe(200);
    expect(list.body.profiles[0].targets).toEqual(profile.body.targets);
  });

  it('strictness 100 keeps each quota to its share of the soft goal', async () => {
    const { tgPath, assistant } = await liveGroup({ profiling: { profile_adjustment_type: 'nominal', profiles: [GENDER] } });
    await softLaunch(assistant, { end_at: await at(240), filling_goal_percentage: 10, demographics_strictness_percentage: 100 });
    await advance(150);
    const targets = (await api.req('GET', `${tgPath}/profiles/g`)).body.targets;
    expect(targets.map((t: any) => t.quota.completes)).toEqual([10, 10]);
  });

  it('a reversal takes the complete off its quota in get_profile at once', async () => {
    const { tg, tgPath } = await liveGroup({ filling_goal: 20, profiling: { profile_adjustment_type: 'nominal', profiles: [{ ...GENDER, targets: GENDER.targets.map((t) => ({ ...t, quota: { completes_goal: 10 } })) }] } });
    await advance(120);
    const before = (await api.req('GET', `${tgPath}/profiles/g`)).body.targets;
    const complete = (await sessions(tg.id)).find((s) => s.status === 'Complete' && s.quota_target_ids.includes('g/m'))!;
    const post = await api.req('POST', `/v1/demand/accounts/1001/reconciliations?name=one.csv`, { raw: `${complete.session_id},21\n`, contentType: 'text/csv' });
    expect(post.status, post.text).toBe(202);
    await new Promise((r) => setTimeout(r, 300));
    const status = await api.req('GET', `/v1/demand/accounts/1001/reconciliations/${post.body.request_id}`);
    expect(status.body.status).toBe('complete');
    const after = (await api.req('GET', `${tgPath}/profiles/g`)).body.targets;
    expect(after[0].quota.completes).toBe(before[0].quota.completes - 1);
    expect(after[0].quota.prescreens).toBe(before[0].quota.prescreens);
    expect(after[1].quota).toEqual(before[1].quota);
  });

  it('get_profile: 404 for a draft, for a profile the group does not have, and before 2025-12-18', async () => {
    const draft = await api.projectWithTargetGroup({ profiling: { profile_adjustment_type: 'nominal', profiles: [GENDER] } });
    expect((await api.req('GET', `${draft.tgPath}/profiles/g`)).status).toBe(404);
    const { tgPath } = await liveGroup({ profiling: { profile_adjustment_type: 'nominal', profiles: [GENDER] } });
    const unknown = await api.req('GET', `${tgPath}/profiles/nope`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.object).toBe('not_found_error');
    expect((await api.req('GET', `${tgPath}/profiles/g`, { version: V_MID })).status).toBe(404);
  });
});

describe('Admin › a target group\'s fielding settings', () => {
  it('refuses an unknown quota target, a fill out of 0..1, a LOI not above 0 and a drop-off above 1 (400 naming each), changing nothing; null goes back to the group\'s own', async () => {
    const { tg } = await liveGroup({ profiling: { profile_adjustment_type: 'nominal', profiles: [GENDER] } });
    const path = `/fielding/target-groups/${tg.id}/settings`;
    expect((await api.admin('PUT', path, { quota_fill: { 'g/f': 0.5 }, length_of_interview_minutes: 12 })).body).toEqual({ incidence_rate: 0.5, quota_fill: { 'g/f': 0.5 }, length_of_interview_minutes: 12 });
    const refused = await api.admin('PUT', path, { quota_fill: { x: 0.5, m: 1.5 }, length_of_interview_minutes: 0, drop_off_rate: 2 });
    expect(refused.status).toBe(400);
    expect(paramNames(refused).sort()).toEqual(['drop_off_rate', 'length_of_interview_minutes', 'quota_fill.m', 'quota_fill.x']);
    expect((await api.admin('GET', path)).body).toEqual({ incidence_rate: 0.5, quota_fill: { 'g/f': 0.5 }, length_of_interview_minutes: 12 });
    expect((await api.admin('PUT', path, { quota_fill: null, length_of_interview_minutes: null })).body).toEqual({ incidence_rate: 0.5 });
  });
});
