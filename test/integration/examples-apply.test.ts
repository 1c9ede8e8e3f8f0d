// Every shipped example applies against the sandbox to the outcome its comments promise, re-applies
// with zero writes, and leaves no secret or respondent ID in a workflow history. Each example is
// copied (with its ID lists and shared.yaml) into the stack's temp dir and applied as it is, except
// every-exclusion's two remote ids, which name resources outside the study: the test creates them in
// the sandbox first and writes their ids into the copy (the sandbox assigns its own ids).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TargetGroupRecord } from '../../sandbox/core/state-records';
import { SandboxTestClient } from '../sandbox/sandbox-test-client';
import { REPO_ROOT, eventually, startTestStack, writeCalls, type CliResult, type TestStack } from './harness';
import { cintStudyText } from '../contract/cint-examples';
import { testProfile } from '../helpers/test-profile';

const EXAMPLES = path.join(REPO_ROOT, 'examples');
const ACCOUNT = '1001';

/**
 * Copies examples/<name> (study, shared.yaml, ID lists) into the stack's dir (under `as`, default the
 * example's name), passing the study text through `edit`; returns the copied study file.
 */
function copyExample(t: TestStack, name: string, edit: (text: string) => string = (text) => text, as = name): string {
  const target = path.join(t.dir, 'examples', as);
  fs.cpSync(path.join(EXAMPLES, name), target, { recursive: true });
  const file = path.join(target, 'study.yaml');
  // Under the cint profile (STUDYFLOW_TEST_PROFILE=cint), as a buyer on the real exchange has the example: migrated
  // to its event names, without the spec-only fields (test/contract/cint-examples.ts).
  const text = testProfile() === 'cint' ? cintStudyText(fs.readFileSync(file, 'utf8')).text : fs.readFileSync(file, 'utf8');
  fs.writeFileSync(file, edit(text));
  return file;
}

/** The distinct non-blank lines of an example's ID list. */
function idList(name: string, file: string): string[] {
  return [...new Set(fs.readFileSync(path.join(EXAMPLES, name, 'ids', file), 'utf8').split(/\r?\n/).filter(Boolean))];
}

function targetGroupOf(t: TestStack, study: string, key: string): TargetGroupRecord {
  const reference = `${study}_${key}`;
  const found = Object.values(t.stack.sandbox.state().target_groups).find((tg) => tg.target_group_customer_reference_number === reference);
  if (!found) throw new Error(`no target group ${reference} in the sandbox`);
  return found;
}

/** Applies the file, asserting the CLI succeeded, and returns the result. */
async function apply(t: TestStack, file: string, ...flags: string[]): Promise<CliResult> {
  const result = await t.cli(['apply', file, ...flags]);
  expect(result.code, result.stdout + result.stderr).toBe(0);
  return result;
}

/** Re-applies the unchanged file and returns the write calls it made (with their routes). */
async function reapplyWrites(t: TestStack, file: string): Promise<string[]> {
  const before = t.stack.sandbox.requests().length;
  const result = await t.cli(['apply', file, '--json']);
  expect(result.code, result.stdout + result.stderr).toBe(0);
  const out = JSON.parse(result.stdout) as { studies: { status: { plan: { kind: string; resource: string; reason: string }[] } }[] };
  // Only the launch of a target group still waiting for approval may stay planned.
  const planned = out.studies[0].status.plan.filter((a) => a.kind !== 'none' && a.kind !== 'launch');
  expect(planned).toEqual([]);
  return writeCalls(t.stack.sandbox.requests().slice(before)).map((w) => `${w.method} ${w.route}`);
}

/** The end_fielding_at an example names lies ahead (else the example itself could not launch any more). */
function expectFutureEndFielding(file: string): void {
  const match = /end_fielding_at:\s*(\S+)/.exec(fs.readFileSync(file, 'utf8'));
  if (match) expect(Date.parse(match[1]), `${path.relative(REPO_ROOT, file)}: end_fielding_at ${match[1]} has passed; move it forward`).toBeGreaterThan(Date.now());
}

describe('the shipped examples apply against the sandbox', () => {
  let t: TestStack;
  let api: SandboxTestClient;
  beforeAll(async () => {
    t = await startTestStack('examples');
    api = new SandboxTestClient(t.stack.sandbox);
  });
  afterAll(async () => t?.stop());

  describe('quickstart', () => {
    let file: string;
    beforeAll(() => {
      file = copyExample(t, 'quickstart');
    });

    it('goes live once feasibility passes, with the end of fielding the file names', async () => {
      expectFutureEndFielding(file);
      const result = await apply(t, file);
      expect(result.stdout).toMatch(/us_gen_pop\s+live/);
      const tg = targetGroupOf(t, 'quickstart-us-gen-pop', 'us_gen_pop');
      expect(tg).toMatchObject({ status: 'live', locale: 'en_US', filling_goal: 200, project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001' });
      const run = t.stack.sandbox.state().fielding_runs[tg.fielding_run_id!];
      expect(Date.parse(run.end_fielding_at)).toBe(Date.parse('2027-06-30T00:00:00Z'));
      const project = t.stack.sandbox.state().projects[tg.project_id];
      expect(project).toMatchObject({ human_readable_id: expect.stringMatching(/^[0-9A-Z]{6}$/), project_manager_id: '6f1c2a4e-3001-4c8e-9d2b-000000003001', project_customer_reference_number: 'PO-QUICKSTART-0001' });
    });

    it('re-applies with zero writes', async () => {
      expect(await reapplyWrites(t, file)).toEqual([]);
    });
  });

  describe('multi-country-tracker', () => {
    const study = 'acme-tracker-2026q4';
    let file: string;
    beforeAll(() => {
      file = copyExample(t, 'multi-country-tracker');
    });

    it('drafts three target groups with their profiles; all three pass the price gate in the business unit\'s currency and wait for approval', async () => {
      expectFutureEndFielding(file);
      const result = await apply(t, file);
      // Every cap is in USD, the currency the business unit is quoted in: no target group is held for a currency.
      for (const key of ['us_gen_pop', 'uk_gen_pop', 'de_gen_pop']) expect(result.stdout).toMatch(new RegExp(`${key}\\s+awaiting_approval`));
      expect(result.stdout).not.toMatch(/gate_blocked|max_cpi in/);

      const [us, uk, de] = ['us_gen_pop', 'uk_gen_pop', 'de_gen_pop'].map((key) => targetGroupOf(t, study, key));
      expect([us.status, uk.status, de.status]).toEqual(['draft', 'draft', 'draft']);
      expect([us.locale, uk.locale, de.locale]).toEqual(['en_US', 'en_GB', 'de_DE']);
      expect(de.expected_length_of_interview_minutes).toBe(14);

      // The shared template's blended age x gender profile, in the spec's shape, and the US regions.
      type StoredProfile = { object: string; name: string; profile_ids?: unknown; targets: { conditions: { question_id: number }[]; quota: { name: string; completes_goal: number } }[] };
      const usProfiles = us.profiles as StoredProfile[];
      expect(usProfiles.map((p) => [p.object, p.name])).toEqual([['blended', 'age_gender'], ['regular', 'us_region']]);
      expect(usProfiles[0].profile_ids).toBeUndefined();
      expect(usProfiles[0].targets.map((target) => target.conditions.map((c) => c.question_id))).toEqual(Array(6).fill([43, 42]));
      expect(usProfiles[0].targets.map((target) => target.quota.completes_goal)).toEqual([60, 68, 68, 60, 68, 76]);
      expect(usProfiles[1].targets.map((target) => [target.quota.name, target.quota.completes_goal])).toEqual([
        ['us_northeast', 72], ['us_midwest', 84], ['us_south', 152], ['us_west', 92],
      ]);
      expect((uk.profiles as StoredProfile[]).map((p) => p.name)).toEqual(['age_gender']);
      expect((uk.profiles as StoredProfile[])[0].targets.map((target) => target.quota.completes_goal)).toEqual([45, 51, 51, 45, 51, 57]);
      const deProfiles = de.profiles as StoredProfile[];
      expect(deProfiles.map((p) => [p.object, p.name])).toEqual([['blended', 'de_age_gender']]);
      expect(deProfiles[0].targets.map((target) => [target.quota.name, target.quota.completes_goal])).toEqual([
        ['de_men_18_49', 70], ['de_men_50_plus', 55], ['de_women_18_49', 70], ['de_women_50_plus', 60],
      ]);

      // The shared exclusion group holds all three; the webhook is registered.
      const groups = Object.values(t.stack.sandbox.state().exclusion_groups).filter((g) => g.tag === 'ACME trackers (all waves)');
      expect(groups).toHaveLength(1);
      expect([...groups[0].target_group_ids].sort()).toEqual([us.id, uk.id, de.id].sort());
      const hooks = await api.req('GET', `/v1/accounts/${ACCOUNT}/webhooks`);
      expect(hooks.status, hooks.text).toBe(200);
      expect(JSON.stringify(hooks.body)).toContain('https://hooks.example.com/studyflow');
    });

    it('re-applies with zero writes while the target groups wait', async () => {
      expect(await reapplyWrites(t, file)).toEqual([]);
    });

    it('launches all three on `studyflow approve` (feasible, price within max_cpi), Germany included', async () => {
      const approved = await t.cli(['approve', file]);
      expect(approved.code, approved.stdout + approved.stderr).toBe(0);
      expect(approved.stdout).toContain('approved: de_gen_pop, uk_gen_pop, us_gen_pop');
      const keys = ['us_gen_pop', 'uk_gen_pop', 'de_gen_pop'];
      await eventually(async () => {
        const s = await t.status(ACCOUNT, study);
        return keys.every((key) => s.targetGroups[key].phase === 'live') ? s : undefined;
      });
      expect(keys.map((key) => targetGroupOf(t, study, key).status)).toEqual(['live', 'live', 'live']);
    });

    it('re-applies with zero writes once all three are live', async () => {
      expect(await reapplyWrites(t, file)).toEqual([]);
    });
  });

  describe('recontact-wave', () => {
    const study = 'acme-recontact-wave2';
    const respondents = idList('recontact-wave', 'wave1-completes.txt');
    let file: string;
    beforeAll(() => {
      file = copyExample(t, 'recontact-wave');
    });

    it('uploads the recontact list and waits for approval', async () => {
      const result = await apply(t, file);
      expect(result.stdout).toMatch(/wave2_recontact\s+awaiting_approval/);
      const tg = targetGroupOf(t, study, 'wave2_recontact');
      expect(tg).toMatchObject({ status: 'draft', study_type: 'recontact', allocations: { template_id: 'recontact-global' } });
      expect(tg.profiles).toEqual([]);
      const held = t.stack.sandbox.state().recontact_respondents[tg.id];
      expect(held.rsid).toHaveLength(respondents.length);
      expect([...held.rsid].sort()).toEqual([...respondents].sort());
    });

    it('goes live on `studyflow approve`', async () => {
      const approved = await t.cli(['approve', file, '--target-group', 'wave2_recontact']);
      expect(approved.code, approved.stdout + approved.stderr).toBe(0);
      await eventually(async () => ((await t.status(ACCOUNT, study)).targetGroups.wave2_recontact.phase === 'live' ? true : undefined));
      expect(targetGroupOf(t, study, 'wave2_recontact').status).toBe('live');
    });

    it('re-applies with zero writes', async () => {
      expect(await reapplyWrites(t, file)).toEqual([]);
    });
  });

  describe('every-exclusion', () => {
    const study = 'acme-every-exclusion';
    const rsids = idList('every-exclusion', 'past-completes.txt');
    const guids = idList('every-exclusion', 'access-guids.txt');
    let file: string;
    let outside: { projectId: string; targetGroupId: string };

    beforeAll(async () => {
      // The remote project and target group the example names by id ("5001", "7001") must exist in the account.
      const project = await api.createProject({ name: 'ACME pricing study, earlier wave', project_customer_reference_number: 'PO-2025-0040' });
      const tg = await api.createTargetGroup(project.id as string, { locale: 'eng_us' });
      outside = { projectId: project.id as string, targetGroupId: tg.id as string };
      file = copyExample(t, 'every-exclusion', (text) => {
        expect(text).toContain('project: "5001"');
        expect(text).toContain('target_group_id: "7001"');
        return text.replace('project: "5001"', `project: "${outside.projectId}"`).replace('target_group_id: "7001"', `target_group_id: "${outside.targetGroupId}"`);
      });
    });

    it('launches us_main with every exclusion in place and holds us_boost for approval', async () => {
      const result = await apply(t, file);
      expect(result.stdout).toMatch(/us_main\s+live/);
      expect(result.stdout).toMatch(/us_boost\s+awaiting_approval/);
      const main = targetGroupOf(t, study, 'us_main');
      const boost = targetGroupOf(t, study, 'us_boost');
      expect([main.status, boost.status]).toEqual(['live', 'draft']);

      const lists = t.stack.sandbox.state().id_exclusion_lists[main.id];
      expect(lists.rsid).toHaveLength(rsids.length);
      expect([...lists.rsid].sort()).toEqual([...rsids].sort());
      expect(lists.access_respondent_guid).toHaveLength(guids.length);
      expect([...lists.access_respondent_guid].sort()).toEqual(guids.map((g) => g.toLowerCase()).sort());

      const groups = Object.values(t.stack.sandbox.state().exclusion_groups).filter((g) => g.tag === 'ACME pricing waves');
      expect(groups).toHaveLength(1);
      expect([...groups[0].target_group_ids].sort()).toEqual([main.id, boost.id].sort());

      const items: Record<string, unknown>[] = [
        { type: 'target_group', id: boost.id, respondent_statuses: ['Complete'], duration_days: 30 },
        { type: 'target_group', id: boost.id, respondent_statuses: ['Terminate', 'OverQuota'], duration_days: 14 },
        // The request-level P60D reaches the item without its own duration.
        { type: 'project', id: main.project_id, respondent_statuses: ['Complete'], duration: 'P60D', duration_days: 60 },
        { type: 'project', id: outside.projectId, respondent_statuses: ['Complete'], duration_days: 90 },
        { type: 'target_group', id: outside.targetGroupId, respondent_statuses: ['Complete', 'SecurityFailure'], duration_days: 365 },
      ];
      // Under cint the example is the cint buyer's (test/contract/cint-examples.ts): no statuses, the item without completes dropped.
      const expected = testProfile() === 'cint'
        ? items.filter((i) => (i.respondent_statuses as string[]).includes('Complete')).map(({ respondent_statuses: _statuses, ...rest }) => rest)
        : items;
      expect(main.respondent_activity_exclusions).toEqual(expected.map((i) => expect.objectContaining(i)));
    });

    it('re-applies with zero writes', async () => {
      expect(await reapplyWrites(t, file)).toEqual([]);
    });

    it('launches us_boost on `studyflow approve`, the step its file asks for: both target groups live', async () => {
      const approved = await t.cli(['approve', file, '--target-group', 'us_boost']);
      expect(approved.code, approved.stdout + approved.stderr).toBe(0);
      await eventually(async () => ((await t.status(ACCOUNT, study)).targetGroups.us_boost.phase === 'live' ? true : undefined));
      expect(['us_main', 'us_boost'].map((key) => targetGroupOf(t, study, key).status)).toEqual(['live', 'live']);
      expect(await reapplyWrites(t, file)).toEqual([]);
    });

    it('as shipped, names remote ids a fresh sandbox lacks: us_main fails with 400 bad_request_error (the reference\'s status), as its header says', async () => {
      // Under its own study id (last: its exclusion group, found by name, is the one above).
      const unresolved = copyExample(t, 'every-exclusion', (text) => text.replace('study: acme-every-exclusion', 'study: acme-every-exclusion-unresolved'), 'every-exclusion-unresolved');
      const result = await t.cli(['apply', unresolved]);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/us_main\s+failed.*bad_request_error.*does not exist/);
      expect(result.stdout).toMatch(/us_boost\s+awaiting_approval/);
    });
  });

  it('keeps the client secret and the respondent IDs out of every workflow history', async () => {
    const ids = [
      ...idList('every-exclusion', 'past-completes.txt').slice(0, 5),
      ...idList('every-exclusion', 'access-guids.txt').slice(0, 5),
      ...idList('recontact-wave', 'wave1-completes.txt').slice(0, 5),
    ];
    const scanned = await t.scanHistories([t.env.STUDYFLOW_CLIENT_SECRET, ...ids], 'examples');
    expect(scanned.workflows).toBeGreaterThanOrEqual(4 + 7);
  });
});
