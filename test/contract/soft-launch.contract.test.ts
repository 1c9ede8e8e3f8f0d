// The sandbox's answers a soft launch and a quota view read (issue 38) against the published reference, in both
// dialects: a run drives a soft launch to its end (the fielding assistant's soft_launch module, the overview with its
// median length of interview, incidence and drop-off, the paused fielding run, per-quota completes and prescreens in
// get_profile and list_profiles) and each answer is checked strictly with the project's oracle (reference-openapi.ts:
// ajv from the yml, no field the reference does not declare, the spec's stated fields in the spec dialect only): the
// operation's method and path are the reference's, its status one the reference documents, a JSON answer fits its
// schema, the JSON requests sent fit the reference's request schema, and required answer headers (the ETag) are there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox, SandboxDialectName } from '../../sandbox/index';
import { SandboxTestClient, startTestSandbox, type ApiResponse, type RequestOptions } from '../sandbox/sandbox-test-client';
import { answerProblems, referenceAvailable, referenceOperation, referenceStatuses, requestProblems, requiredAnswerHeaders } from './reference-openapi';

const A = '/demand/accounts/{account_id}';
const TG = `${A}/projects/{project_id}/target-groups/{target_group_id}`;

/** The operations the run checks and their reference paths (the sandbox serves them under /v1). */
const OPERATIONS: Record<string, { method: string; path: string }> = {
  get_target_group_overview: { method: 'GET', path: `${TG}/overview` },
  get_fielding_assistant_assignment: { method: 'GET', path: `${TG}/fielding-assistant-assignment` },
  create_or_update_fielding_assistant_assignment: { method: 'PUT', path: `${TG}/fielding-assistant-assignment` },
  get_profile: { method: 'GET', path: `${TG}/profiles/{profile_id}` },
  list_profiles: { method: 'GET', path: `${TG}/profiles` },
  get_fielding_run: { method: 'GET', path: `${TG}/fielding-runs/{fielding_run_id}` },
  resume_fielding_run: { method: 'POST', path: `${TG}/fielding-runs/{fielding_run_id}/resume` },
  get_target_group_performance: { method: 'GET', path: `${TG}/performance` },
  get_list_target_groups: { method: 'GET', path: `${A}/projects/{project_id}/target-groups` },
};

/** Every status each operation must be seen answering in a run. */
const EXPECTED_STATUSES: Record<string, number[]> = {
  get_target_group_overview: [200, 404],
  get_fielding_assistant_assignment: [200],
  create_or_update_fielding_assistant_assignment: [204, 400, 412],
  get_profile: [200, 404],
  list_profiles: [200],
  get_fielding_run: [200],
  resume_fielding_run: [204],
  get_target_group_performance: [200],
  get_list_target_groups: [200],
};

/**
 * The reference's own flaws, which no answer can meet (listed as test/contract/profiles.contract.test.ts lists them):
 * QuotaDetailsV3's branches with and without a quota carry no additionalProperties, so a target with a quota matches
 * both and fails the oneOf; its profile then fails RegularProfileV3's oneOf (the blended branch names `object`), and
 * ProfilesResponseV3's "No profiles" branch is tried too. Nothing else may fail; each flaw must still show.
 */
const TARGET_ONE_OF = 'reference: QuotaDetailsV3\'s branches with and without a quota both match a target with a quota';
const REFERENCE_FLAWS: Record<string, Array<{ problem: RegExp; why: string }>> = {
  get_profile: [
    { problem: /^\/targets\/\d+ must match exactly one schema in oneOf$/, why: TARGET_ONE_OF },
    { problem: /^\(body\) must match exactly one schema in oneOf$/, why: 'reference: follows from the target oneOf' },
    { problem: /^\/object must be equal to one of the allowed values$/, why: 'reference: the blended branch of RegularProfileV3, tried for a regular profile' },
  ],
  list_profiles: [
    { problem: /^\/profiles\/\d+\/targets\/\d+ must match exactly one schema in oneOf$/, why: TARGET_ONE_OF },
    { problem: /^\/profiles\/\d+ must match exactly one schema in oneOf$/, why: 'reference: follows from the target oneOf' },
    { problem: /^\/profiles\/\d+\/object must be equal to one of the allowed values$/, why: 'reference: the blended branch of RegularProfileV3, tried for a regular profile' },
    { problem: /^\/profiles must NOT have more than 0 items$/, why: 'reference: the "No profiles" branch of ProfilesResponseV3, tried when the profiles branch fails' },
    { problem: /^\(body\) must match exactly one schema in oneOf$/, why: 'reference: follows from the profile oneOf' },
  ],
};
const isFlaw = (operation: string, problem: string) => (REFERENCE_FLAWS[operation] ?? []).some((f) => f.problem.test(problem));

interface Exchange { operation: string; method: string; path: string; status: number; body: unknown; headers: Headers; request?: unknown }

const GENDER = {
  object: 'regular', id: 'g', name: 'Gender', quotas_enabled: true, targets: [
    { id: 'm', conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { completes_goal: 100 } },
    { id: 'f', conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { completes_goal: 100 } },
  ],
};

for (const dialect of ['spec', 'cint'] as SandboxDialectName[]) {
  describe.skipIf(!referenceAvailable)(`soft launch and quota reads against the reference (${dialect} dialect)`, () => {
    let sb: RunningSandbox;
    let api: SandboxTestClient;
    const exchanges: Exchange[] = [];
    const seen: Record<string, unknown> = {};

    async function call(operation: string, method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse> {
      const res = await api.req(method, path, opts);
      exchanges.push({ operation, method, path, status: res.status, body: res.body, headers: res.headers, request: opts.body });
      return res;
    }
    const admin = async (method: string, path: string, body?: unknown) => {
      const res = await api.admin(method, path, body);
      expect(res.status, res.text).toBe(200);
      return res.body;
    };

    beforeAll(async () => {
      ({ sb, api } = await startTestSandbox({ dialect }));
      await admin('PUT', '/fielding/settings', { pool_size: 4000, speed: 1, seed: `soft-launch-contract-${dialect}` });
      const draft = await api.projectWithTargetGroup({ live_url: 'https://survey.example/s', filling_goal: 200, profiling: { profile_adjustment_type: 'nominal', profiles: [GENDER] } });
      await call('get_target_group_overview', 'GET', `${draft.tgPath}/overview`);
      await call('get_profile', 'GET', `${draft.tgPath}/profiles/g`);
      const launch = await api.req('POST', `${draft.tgPath}/fielding-run-jobs/launch-from-draft`, { body: { end_fielding_at: '2099-01-01T00:00:00Z' } });
      expect(launch.status, launch.text).toBe(201);
      const job = await api.waitForJob(launch.headers.get('location')!);
      const tgPath = draft.tgPath;
      const runPath = `${tgPath}/fielding-runs/${job.body.created_fielding_run_id}`;
      const assistant = `${tgPath}/fielding-assistant-assignment`;
      await admin('PUT', `/fielding/target-groups/${draft.tg.id}/settings`, { quota_fill: { m: 0.2 }, length_of_interview_minutes: 12 });
      await call('get_target_group_overview', 'GET', `${tgPath}/overview`);
      const first = await call('get_fielding_assistant_assignment', 'GET', assistant);
      const simulatedNow = Date.parse((await admin('GET', '/fielding/settings')).simulated_now as string);
      const endAt = new Date(simulatedNow + 150 * 60_000).toISOString();
      const body = { pacing: { type: 'linear', increment_interval: 'P1D' }, quota_overlay: { prevent_overfill: true, balance_fill: true }, soft_launch: { end_at: endAt, filling_goal_percentage: 20, demographics_strictness_percentage: 0 } };
      await call('create_or_update_fielding_assistant_assignment', 'PUT', assistant, { body, headers: { 'If-Match': first.headers.get('etag')! } });
      await call('create_or_update_fielding_assistant_assignment', 'PUT', assistant, { body: {}, headers: { 'If-Match': first.headers.get('etag')! } });
      await call('create_or_update_fielding_assistant_assignment', 'PUT', assistant, { body: { soft_launch: { end_at: endAt, filling_goal_percentage: 0, demographics_strictness_percentage: 0 } } });
      seen.assignment = (await call('get_fielding_assistant_assignment', 'GET', assistant)).body;
      await admin('POST', '/fielding/advance', { minutes: 90 });
      seen.during = (await call('get_target_group_overview', 'GET', `${tgPath}/overview`)).body;
      seen.performance = (await call('get_target_group_performance', 'GET', `${tgPath}/performance`)).body;
      seen.list = (await call('get_list_target_groups', 'GET', tgPath.replace(/\/[^/]+$/, ''))).body;
      await admin('POST', '/fielding/advance', { minutes: 90 });
      seen.paused = (await call('get_target_group_overview', 'GET', `${tgPath}/overview`)).body;
      const run = await call('get_fielding_run', 'GET', runPath);
      seen.run = run.body;
      seen.profile = (await call('get_profile', 'GET', `${tgPath}/profiles/g`)).body;
      await call('get_profile', 'GET', `${tgPath}/profiles/unknown`);
      seen.profiles = (await call('list_profiles', 'GET', `${tgPath}/profiles`)).body;
      seen.sessions = (await api.admin('GET', `/fielding/target-groups/${draft.tg.id}/sessions`)).body.data;
      await call('resume_fielding_run', 'POST', `${runPath}/resume`, { headers: { 'If-Match': run.headers.get('etag')! } });
      await admin('POST', '/fielding/advance', { minutes: 600 });
      seen.done = (await call('get_target_group_overview', 'GET', `${tgPath}/overview`)).body;
    }, 60_000);

    afterAll(() => sb?.close());

    it('each operation is the reference\'s (method and path) and answered every status the run expects, each documented', () => {
      for (const [operation, statuses] of Object.entries(EXPECTED_STATUSES)) {
        expect(referenceOperation(operation)).toEqual(OPERATIONS[operation]);
        const answered = new Set(exchanges.filter((e) => e.operation === operation).map((e) => e.status));
        expect([...answered].sort(), operation).toEqual([...statuses].sort());
        for (const status of answered) expect(referenceStatuses(operation), `${operation} ${status}`).toContain(String(status));
      }
    });

    it('every answer fits the reference strictly (no undeclared field), with its required headers, apart from the reference\'s listed flaws', () => {
      const problems = exchanges.flatMap((e) => [
        ...answerProblems(e.operation, e.status, e.body, dialect).filter((p) => !isFlaw(e.operation, p)).map((p) => `${e.operation} ${e.status}: ${p}`),
        ...requiredAnswerHeaders(e.operation, e.status).filter((h) => !e.headers.get(h)).map((h) => `${e.operation} ${e.status}: no ${h} header`),
      ]);
      expect(problems).toEqual([]);
      expect(exchanges.filter((e) => e.operation === 'get_fielding_assistant_assignment').every((e) => /\S/.test(e.headers.get('etag') ?? ''))).toBe(true);
    });

    it('the reference\'s listed flaws still show (a reference that fixed them would let these checks tighten)', () => {
      for (const operation of Object.keys(REFERENCE_FLAWS)) {
        const answer = exchanges.find((e) => e.operation === operation && e.status === 200)!;
        const problems = answerProblems(operation, 200, answer.body, dialect);
        expect(problems.some((p) => REFERENCE_FLAWS[operation][0].problem.test(p)), operation).toBe(true);
      }
    });

    it('a quota target of get_profile fits the reference\'s "Targets with conditions and quota" branch on its own, each counter an integer', () => {
      for (const target of (seen.profile as { targets: Array<Record<string, any>> }).targets) {
        expect(Object.keys(target).sort()).toEqual(expect.arrayContaining(['conditions', 'id', 'quota']));
        expect(Object.keys(target.quota).sort()).toEqual(['completes', 'completes_goal', 'completes_goal_percentage', 'name', 'prescreens', 'quota_nominal'].filter((k) => k in target.quota));
        for (const field of ['completes_goal', 'quota_nominal', 'completes', 'prescreens']) {
          expect(Number.isInteger(target.quota[field]), field).toBe(true);
          expect(target.quota[field]).toBeGreaterThanOrEqual(0);
        }
        expect(target.quota.prescreens).toBeGreaterThanOrEqual(target.quota.completes);
      }
    });

    it('the JSON requests the run sent that the sandbox took fit the reference\'s request schema', () => {
      const taken = exchanges.filter((e) => e.request !== undefined && e.status < 300);
      expect(taken.length).toBeGreaterThan(0);
      expect(taken.flatMap((e) => requestProblems(e.operation, e.request).map((p) => `${e.operation}: ${p}`))).toEqual([]);
    });

    it('the overview answers median_length_of_interview_seconds (an integer of seconds near the actual LOI), incidence and drop-off from the sessions; `type` in the spec dialect only', () => {
      const during = seen.during as Record<string, any>;
      expect(Number.isInteger(during.median_length_of_interview_seconds)).toBe(true);
      expect(during.median_length_of_interview_seconds).toBeGreaterThanOrEqual(0.8 * 720);
      expect(during.median_length_of_interview_seconds).toBeLessThanOrEqual(1.2 * 720);
      const performance = seen.performance as Record<string, any>;
      expect([during.incidence_rate, during.drop_off_rate, during.conversion_rate]).toEqual([performance.incidence_rate, performance.drop_off_rate, performance.conversion_rate]);
      // The list's statistics carry the same median as {value, issues}.
      const item = (seen.list as { target_groups: Array<Record<string, any>> }).target_groups[0];
      expect(item.statistics.median_length_of_interview_seconds).toEqual({ value: during.median_length_of_interview_seconds, issues: [] });
      expect('type' in during).toBe(dialect === 'spec');
      const draftOverview = exchanges.find((e) => e.operation === 'get_target_group_overview')!;
      expect(draftOverview.status).toBe(404);
    });

    it('the soft launch capped the completes, paused the group and its run at end_at with the assignment kept; resumed, it fields on to the full goal', () => {
      expect((seen.assignment as Record<string, any>).soft_launch).toMatchObject({ filling_goal_percentage: 20, demographics_strictness_percentage: 0 });
      expect((seen.assignment as Record<string, any>).pacing).toEqual({ type: 'linear', increment_interval: 'P1D' });
      expect((seen.during as Record<string, any>).progress.current_completes).toBe(40);
      expect((seen.paused as Record<string, any>).status).toBe('paused');
      expect((seen.run as Record<string, any>).status).toBe('paused');
      expect((seen.done as Record<string, any>).progress.current_completes).toBe(200);
    });

    it('get_profile and list_profiles answer each quota\'s completes and prescreens as the sessions count them; the thinned quota is behind', () => {
      const sessions = seen.sessions as Array<{ status: string; quota_target_ids: string[] }>;
      const count = (target: string, complete: boolean) =>
        sessions.filter((s) => s.status !== 'PreClientSurveyProcess' && s.quota_target_ids.includes(`g/${target}`) && (!complete || s.status === 'Complete')).length;
      const profile = seen.profile as Record<string, any>;
      expect(profile.targets.map((t: any) => [t.id, t.quota.completes, t.quota.prescreens])).toEqual([['m', count('m', true), count('m', false)], ['f', count('f', true), count('f', false)]]);
      expect(profile.targets[0].quota.completes).toBeLessThan(profile.targets[1].quota.completes);
      expect((seen.profiles as Record<string, any>).profiles[0]).toEqual(profile);
    });
  });
}
