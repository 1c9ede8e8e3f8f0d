// Spec: Resources › completes_cost (target group performance), Session record, Respondent statuses,
// Respondent activity exclusion rules, ID-based exclusions; deprecated questions endpoints and
// questions-translation. Fielding is simulated (docs/sandbox.md › Fielding simulation).
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../fixtures/sandbox';
import { P, V_MID, V_OLD, draftBody, paramNames } from './sandbox-test-client';
import { respondentRsid } from '../../sandbox/model/synthetic-respondents';

const { sb, api } = useTestSandbox({ resetBeforeEach: true, faultsBeforeEach: { job_duration_ms: 20 } });

const rsid = (i: number) => respondentRsid('en_US', i);
const STATUSES = ['Complete', 'Terminate', 'SecurityFailure', 'OverQuota', 'FinancialTerm', 'PreClientSurveyProcess'];

async function settings(body: Record<string, unknown>) {
  const res = await api.admin('PUT', '/fielding/settings', body);
  expect(res.status, res.text).toBe(200);
}

async function liveGroup(overrides: Record<string, unknown> = {}, setup?: (tgPath: string) => Promise<void>) {
  const made = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s', ...overrides });
  if (setup) await setup(made.tgPath);
  const launch = await api.req('POST', `${made.tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
  expect(launch.status, launch.text).toBe(201);
  await api.waitForJob(launch.headers.get('location')!);
  return made;
}

const advance = async (minutes: number) => {
  const res = await api.admin('POST', '/fielding/advance', { minutes });
  expect(res.status, res.text).toBe(200);
  return res.body;
};
const sessions = async (tgId: string) => (await api.admin('GET', `/fielding/target-groups/${tgId}/sessions`)).body.data as Record<string, any>[];

describe('Reporting › target group performance', () => {
  it('a draft has no performance yet: 404 not_found_error, as its details and overview; an unknown target group too', async () => {
    const { tgPath } = await api.projectWithTargetGroup();
    const res = await api.req('GET', `${tgPath}/performance`);
    expect(res.status, res.text).toBe(404);
    expect(res.body.object).toBe('not_found_error');
    const unknown = await api.req('GET', `${tgPath.replace(/[^/]+$/, '01ZZZZZZZZZZZZZZZZZZZZZZZZ')}/performance`);
    expect(unknown.status, unknown.text).toBe(404);
  });

  it('a live group collects completes over simulated time: TargetGroupPerformance from its sessions, agreeing with the overview and the quotas', async () => {
    await settings({ pool_size: 2000, speed: 1, seed: 'perf' });
    const { tg, tgPath } = await liveGroup({ filling_goal: 40 }, async (path) => {
      const quota = { object: 'regular', id: 'g', name: 'Gender', quotas_enabled: true, targets: [
        { id: 'm', conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { completes_goal: 20 } },
        { id: 'f', conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { completes_goal: 20 } },
      ] };
      // A draft's profiles travel in its own profiling.
      const put = await api.req('PUT', path, { body: draftBody({ live_url: 'https://survey.example/s', filling_goal: 40, profiling: { profile_adjustment_type: 'nominal', profiles: [quota] } }) });
      expect(put.status, put.text).toBe(204);
    });
    const before = (await api.req('GET', `${tgPath}/performance`)).body;
    expect(before).toMatchObject({ entrants: 0, prescreens: 0, completes: 0, completes_cost: { value: '0.00', currency_code: 'USD', currency_scale: 2 } });
    for (const absent of ['first_complete', 'last_complete', 'incidence_rate', 'conversion_rate', 'drop_off_rate']) expect(before).not.toHaveProperty(absent);
    await advance(60);
    const res = await api.req('GET', `${tgPath}/performance`);
    expect(res.status, res.text).toBe(200);
    const perf = res.body;
    // Only the reference's fields: no status, goal, quotas or sessions in progress.
    expect(Object.keys(perf).sort()).toEqual(['completes', 'completes_cost', 'conversion_rate', 'drop_off_rate', 'entrants', 'first_complete', 'incidence_rate', 'last_complete', 'prescreens', 'respondent_analysis']);
    expect(perf.completes).toBeGreaterThan(0);
    expect(perf.completes).toBeLessThanOrEqual(40);
    const all = await sessions(tg.id);
    expect(perf.entrants).toBe(all.length);
    expect(perf.prescreens).toBe(all.filter((s) => s.status !== 'PreClientSurveyProcess').length);
    const live = perf.respondent_analysis.live as { status: string; count: number }[];
    expect(live.reduce((n, s) => n + s.count, 0)).toBe(all.length);
    for (const status of STATUSES) expect(live.find((s) => s.status === status)?.count, status).toBe(all.filter((s) => s.status === status).length);
    expect(live.find((s) => s.status === 'In Survey')?.count).toBe(all.filter((s) => s.status === 'Started').length);
    const completed = all.filter((s) => s.status === 'Complete');
    expect(perf.first_complete).toBe(completed.map((s) => s.respondent_update_date).sort()[0]);
    expect(perf.last_complete).toBe(completed.map((s) => s.respondent_update_date).sort().at(-1));
    const cpi = Number(completed[0].cost_per_interview.value);
    expect(perf.completes_cost).toEqual({ value: (perf.completes * cpi).toFixed(2), currency_code: 'USD', currency_scale: 2 });
    const overview = (await api.req('GET', `${tgPath}/overview`)).body;
    expect(overview.progress.current_completes).toBe(perf.completes);
    expect(overview.progress.current_prescreens).toBe(perf.prescreens);
    expect([overview.incidence_rate, overview.conversion_rate, overview.drop_off_rate]).toEqual([perf.incidence_rate, perf.conversion_rate, perf.drop_off_rate]);
    expect(perf.incidence_rate).toBe(Math.round((perf.completes / (perf.completes + all.filter((s) => s.status === 'Terminate').length)) * 10_000) / 10_000);
    // A launched group's profiles are not on GET TG (301 to its details): the sandbox's state holds them, with the quota counters.
    const record = (await api.state()).records.target_groups[tg.id];
    const quotaCompletes = record.profiles[0].targets.reduce((sum: number, t: { quota: { completes: number } }) => sum + t.quota.completes, 0);
    expect(quotaCompletes).toBe(perf.completes);
    // completes_cost before 2025-12-18: integer minor units.
    const legacy = (await api.req('GET', `${tgPath}/performance`, { version: V_MID })).body;
    expect(legacy.completes_cost).toEqual({ value: Math.round(perf.completes * cpi * 100), currency_code: 'USD', currency_scale: 2 });
  });

  it('stops at the filling goal and completes the fielding run', async () => {
    await settings({ pool_size: 2000, speed: 1 });
    const { tgPath } = await liveGroup({ filling_goal: 10 });
    const summary = await advance(24 * 60);
    expect(summary.completed_target_groups).toEqual([tgPath.split('/').pop()]);
    expect(await api.tgStatus(tgPath)).toBe('completed');
    const runs = (await api.req('GET', `${tgPath}/fielding-runs`)).body.data;
    const run = await api.req('GET', `${tgPath}/fielding-runs/${runs[0].id}`);
    expect(run.body.status).toBe('completed');
    expect((await api.req('GET', `${tgPath}/performance`)).body.completes).toBe(10);
  });

  it('completes the run when the simulated time passes end_fielding_at', async () => {
    await settings({ pool_size: 2000, speed: 1 });
    const made = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s', filling_goal: 10_000, expected_incidence_rate: 0.01 });
    const end = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const launch = await api.req('POST', `${made.tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: end } });
    await api.waitForJob(launch.headers.get('location')!);
    await advance(60);
    expect((await api.tgStatus(made.tgPath))).toBe('live');
    await advance(90);
    expect((await api.tgStatus(made.tgPath))).toBe('completed');
  });

  it('excluded respondent IDs never complete (PreClientSurveyProcess)', async () => {
    await settings({ pool_size: 60, speed: 1, seed: 'exclusions' });
    const excluded = Array.from({ length: 30 }, (_, i) => rsid(i));
    const { tg } = await liveGroup({ filling_goal: 200, expected_incidence_rate: 1 }, async (path) => {
      const upload = await api.upload(`${path}/exclusions/jobs/upload-respondents-by-file`, excluded.join('\n'), 'RSID');
      await api.waitForJob(`${path}/exclusions/jobs/upload-respondents-by-file/${upload.body.job_id}`);
    });
    await advance(24 * 60);
    const all = await sessions(tg.id);
    const fromExcluded = all.filter((s) => excluded.includes(s.respondent_id));
    expect(fromExcluded.length).toBeGreaterThan(0);
    expect(fromExcluded.every((s) => s.status === 'PreClientSurveyProcess')).toBe(true);
    expect(all.some((s) => s.status === 'Complete')).toBe(true);
  });

  it('activity exclusions keep respondents who completed the referenced target group out', async () => {
    await settings({ pool_size: 80, speed: 1, seed: 'activity' });
    const first = await liveGroup({ filling_goal: 30, expected_incidence_rate: 1 });
    await advance(24 * 60);
    const completed = new Set((await sessions(first.tg.id)).filter((s) => s.status === 'Complete').map((s) => s.respondent_id));
    expect(completed.size).toBe(30);
    const second = await api.createTargetGroup(first.project.id, { live_url: 'https://survey.example/s', filling_goal: 40, expected_incidence_rate: 1, respondent_activity_exclusions: [{ type: 'target-group', id: first.tg.id }] });
    const path = `${P()}/projects/${first.project.id}/target-groups/${second.id}`;
    const launch = await api.req('POST', `${path}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
    await api.waitForJob(launch.headers.get('location')!);
    await advance(24 * 60);
    // A reconciled complete (Complete -> Terminate) no longer excludes; judge by the final status in the first group.
    const stillComplete = new Set((await sessions(first.tg.id)).filter((s) => s.status === 'Complete').map((s) => s.respondent_id));
    const returning = (await sessions(second.id)).filter((s) => stillComplete.has(s.respondent_id));
    expect(returning.length).toBeGreaterThan(0);
    expect(returning.every((s) => s.status === 'PreClientSurveyProcess')).toBe(true);
  });

  it('session records: respondent_last_date_change is set once at the first terminal status', async () => {
    await settings({ pool_size: 2000, speed: 1 });
    const { tg } = await liveGroup({ filling_goal: 30 });
    await advance(12 * 60);
    for (const session of await sessions(tg.id)) {
      if (session.status === 'Started') expect(session.respondent_last_date_change).toBeNull();
      else expect(Date.parse(session.respondent_last_date_change)).toBeLessThanOrEqual(Date.parse(session.respondent_update_date));
    }
  });

  it('the one-second tick advances fielding only while auto_advance is on', async () => {
    await settings({ pool_size: 2000, speed: 50_000 });
    const { tg } = await liveGroup({ filling_goal: 50 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await sb.runTicks();
    expect(await sessions(tg.id)).toHaveLength(0);
    await settings({ auto_advance: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await sb.runTicks();
    expect((await sessions(tg.id)).length).toBeGreaterThan(0);
  });

  it('404 for a target group outside the account', async () => {
    const { project } = await api.projectWithTargetGroup();
    expect((await api.req('GET', `${P()}/projects/${project.id}/target-groups/tg_nope/performance`)).status).toBe(404);
  });

  it('a target group\'s simulated incidence: PUT /_sandbox/fielding/target-groups/{id}/settings screens the arrivals after it at the new rate, the earlier ones and other groups keep theirs', async () => {
    await settings({ pool_size: 5000, speed: 1, seed: 'incidence' });
    const dropped = await liveGroup({ filling_goal: 5000, expected_incidence_rate: 0.8 });
    const other = await liveGroup({ filling_goal: 5000, expected_incidence_rate: 0.8 });
    const path = `/fielding/target-groups/${dropped.tg.id}/settings`;
    expect((await api.admin('GET', path)).body).toEqual({ incidence_rate: 0.8 });
    await advance(3 * 60);
    const before = await sessions(dropped.tg.id);
    const changedAt = (await api.admin('GET', '/fielding/settings')).body.simulated_now as string;
    const put = await api.admin('PUT', path, { incidence_rate: 0 });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toEqual({ incidence_rate: 0 });
    await advance(6 * 60);
    const after = (await sessions(dropped.tg.id)).filter((s) => s.entry_date > changedAt);
    const screened = (list: Record<string, any>[]) => list.filter((s) => s.status === 'Complete' || s.status === 'Terminate');
    expect(screened(after).length).toBeGreaterThan(10);
    // Nobody who arrived after the change qualifies; those before it kept their outcomes (some completed).
    expect(after.filter((s) => s.status === 'Complete')).toEqual([]);
    expect((await sessions(dropped.tg.id)).filter((s) => s.entry_date <= changedAt && s.status === 'Complete').length).toBeGreaterThan(0);
    expect(before.filter((s) => s.status === 'Complete').length).toBeGreaterThan(0);
    // The other group, at its expected rate, still completes arrivals of the same window.
    const otherAfter = (await sessions(other.tg.id)).filter((s) => s.entry_date > changedAt);
    expect(otherAfter.filter((s) => s.status === 'Complete').length).toBeGreaterThan(0);
    // The performance the API reports follows: incidence falls.
    const perf = (await api.req('GET', `${dropped.tgPath}/performance`)).body;
    expect(perf.incidence_rate).toBeLessThan(0.8 * 0.9);
    // Validated; null goes back to the expected rate; an unknown target group is 404.
    expect((await api.admin('PUT', path, { incidence_rate: 1.5 })).status).toBe(400);
    expect((await api.admin('PUT', path, { colour: 'red' })).status).toBe(400);
    expect((await api.admin('PUT', path, { incidence_rate: null })).body).toEqual({ incidence_rate: 0.8 });
    expect((await api.admin('PUT', '/fielding/target-groups/01ZZZZZZZZZZZZZZZZZZZZZZZZ/settings', { incidence_rate: 0.1 })).status).toBe(404);
  });

  it('fielding settings: validated, and reset restores the defaults', async () => {
    expect((await api.admin('PUT', '/fielding/settings', { speed: 0 })).status).toBe(400);
    expect((await api.admin('PUT', '/fielding/settings', { colour: 'red' })).status).toBe(400);
    await settings({ speed: 5 });
    expect((await api.admin('GET', '/fielding/settings')).body.speed).toBe(5);
    await api.admin('POST', '/reset');
    expect((await api.admin('GET', '/fielding/settings')).body).toMatchObject({ speed: 60, pool_size: 20_000, auto_advance: false });
    expect((await api.admin('POST', '/fielding/advance', { minutes: 0 })).status).toBe(400);
  });
});

describe('Reporting › questions', () => {
  it('questions-translation answers the catalogue in the reference\'s profile vocabulary, in the locale with English translations, paginated', async () => {
    const res = await api.req('GET', `${P()}/questions-translation?locale=ger_de&id=43,633,42,9001`);
    expect(res.status, res.text).toBe(200);
    // The reference's envelope {total, profiles, has_more, next_cursor}; items QuestionResponseProfileFormat.
    expect(res.body.total).toBe(4);
    const [age, gender, , brand] = res.body.profiles;
    expect(gender).toEqual({
      object: 'regular', name: 'GENDER', description: 'Welches Geschlecht haben Sie?', description_translated: 'What is your gender?', quotas_enabled: false,
      targets: [
        { text: 'Männlich', text_translated: 'Male', conditions: [{ object: 'selection', question_id: 43, option: '1' }] },
        { text: 'Weiblich', text_translated: 'Female', conditions: [{ object: 'selection', question_id: 43, option: '2' }] },
        { text: 'Divers', text_translated: 'Other', conditions: [{ object: 'selection', question_id: 43, option: '3' }] },
      ],
      standard: true, profile_condition_type: 'Single Punch',
    });
    expect(age).toMatchObject({ name: 'AGE', profile_condition_type: 'Numeric - Open-end', targets: [{ text: '', conditions: [{ object: 'range', question_id: 42, min: 18, max: 99 }] }] });
    expect(brand).toMatchObject({ name: 'FAVORITE_BRAND', profile_condition_type: 'Text - Open-end', targets: [{ conditions: [{ object: 'open_ended', question_id: 9001, allow_all_values: true, open_ended_values: null }] }] });
    // translation_language (ISO 639-2) names the language of the _translated texts; query searches the texts.
    const spanish = await api.req('GET', `${P()}/questions-translation?locale=ger_de&id=43&translation_language=spa`);
    expect(spanish.body.profiles[0].description_translated).toBe('¿Cuál es su género?');
    expect(spanish.body.profiles[0].targets[0]).toMatchObject({ text: 'Männlich', text_translated: 'Hombre' });
    const searched = await api.req('GET', `${P()}/questions-translation?locale=eng_us&query=smartphone`);
    expect(searched.body.profiles.map((q: { name: string }) => q.name)).toEqual(['OWNERSHIP']);
    // Nothing matches: profiles null; a question not asked in the locale is not listed.
    expect((await api.req('GET', `${P()}/questions-translation?locale=eng_us&only_custom_quals=true`)).body).toEqual({ total: 0, profiles: null, has_more: false, next_cursor: null });
    expect((await api.req('GET', `${P()}/questions-translation?locale=ger_de&id=96`)).body.total).toBe(0);
    const page = await api.req('GET', `${P()}/questions-translation?locale=eng_us&page_size=2`);
    expect(page.body.profiles).toHaveLength(2);
    expect(page.body.has_more).toBe(true);
    const next = await api.req('GET', `${P()}/questions-translation?locale=eng_us&page_size=2&start_after=${page.body.next_cursor}`);
    expect(next.body.profiles[0].name).not.toBe(page.body.profiles[0].name);
    expect((await api.req('GET', `${P()}/questions-translation?locale=eng_us`)).body.profiles).toHaveLength(10);
    expect(paramNames(await api.req('GET', `${P()}/questions-translation`))).toEqual(['locale']);
    expect(paramNames(await api.req('GET', `${P()}/questions-translation?locale=eng_us&id=a`))).toEqual(['id']);
    expect(paramNames(await api.req('GET', `${P()}/questions-translation?locale=eng_us&question_ids=43`))).toEqual(['question_ids']);
    expect(paramNames(await api.req('GET', `${P()}/questions-translation?locale=eng_us&translation_language=xx`))).toEqual(['translation_language']);
  });

  it('the deprecated /v1/demand/questions endpoints keep answering in every version', async () => {
    for (const version of [V_OLD, V_MID, '2025-12-18']) {
      const list = await api.req('GET', '/v1/demand/questions', { version });
      expect(list.status).toBe(200);
      expect(list.headers.get('deprecation')).toBe('true');
      expect(list.body.data.length).toBeGreaterThan(5);
      const one = await api.req('GET', '/v1/demand/questions/42?locale=fra_fr', { version });
      expect(one.body).toMatchObject({ question_id: 42, kind: 'range', text: 'Quel âge avez-vous ?', range: { min: 18, max: 99 } });
    }
    expect((await api.req('GET', '/v1/demand/questions/999999')).status).toBe(404);
  });
});
