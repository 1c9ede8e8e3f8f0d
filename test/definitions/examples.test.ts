// The shipped examples validate clean and resolve to the model the planner expects.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadStudies, loadStudyFile } from '../../definitions';
import { desiredStudyOf } from '../../plan/desired';
import { planStudy } from '../../plan/plan-study';

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));
const exampleFiles = readdirSync(examples, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => path.join(examples, f))
  .sort();

describe('examples', () => {
  it('are all there', () => {
    const names = exampleFiles.map((f) => path.relative(examples, f));
    expect(names).toEqual(
      expect.arrayContaining([
        'quickstart/study.yaml',
        'multi-country-tracker/study.yaml',
        'multi-country-tracker/shared.yaml',
        'recontact-wave/study.yaml',
        'every-exclusion/study.yaml',
        'staged-launch/study.yaml',
        'closeout/study.yaml',
        'soft-launch/study.yaml',
      ]),
    );
  });

  it.each(exampleFiles)('%s starts with a yaml-language-server schema line that points at a committed schema', (file) => {
    const first = readFileSync(file, 'utf8').split('\n')[0];
    const m = /^# yaml-language-server: \$schema=(\S+)$/.exec(first);
    expect(m).not.toBeNull();
    const target = path.resolve(path.dirname(file), m![1]);
    expect(path.basename(target)).toBe(path.basename(file) === 'shared.yaml' ? 'shared.schema.json' : 'study.schema.json');
    expect(() => readFileSync(target)).not.toThrow();
  });

  it('validate clean as a whole, with no diagnostics at all', async () => {
    const { studies, diagnostics } = await loadStudies([examples], { env: {} });
    expect(diagnostics).toEqual([]);
    expect(studies.map((s) => s.study.study).sort()).toEqual(['acme-closeout-2027q1', 'acme-every-exclusion', 'acme-recontact-wave2', 'acme-soft-launch', 'acme-staged-launch', 'acme-tracker-2026q4', 'lifecycle-tracker-2027', 'quickstart-us-gen-pop']);
  });

  it('staged launch: the US launches at a moment with its zone, Germany after the US has 50 completes; plan says so', async () => {
    const { study, diagnostics } = await loadStudyFile(path.join(examples, 'staged-launch/study.yaml'), { env: {} });
    expect(diagnostics).toEqual([]);
    const s = study!.study;
    expect(s.target_groups.us.launch).toMatchObject({ mode: 'auto', at: '2027-03-01T08:00:00-05:00' });
    expect(s.target_groups.de.launch).toMatchObject({ mode: 'auto', after: { target_group: 'us', completes: 50 } });
    const plan = planStudy(desiredStudyOf(s, {}), { targetGroups: {}, exclusionGroups: {}, observedAt: '2027-01-04T00:00:00Z' });
    const launches = Object.fromEntries(plan.actions.filter((a) => a.kind === 'launch').map((a) => [a.key, a.reason]));
    expect(launches.us).toContain('launches at 2027-03-01T08:00:00-05:00 (scheduled in the exchange from the draft)');
    expect(launches.de).toContain('launches after us has 50 completes');
  });

  it('soft launch: 5% of the goal from defaults, judged on its thresholds; the UK only analyses; quota_behind on the US; plan shows it on the launch', async () => {
    const { study, diagnostics } = await loadStudyFile(path.join(examples, 'soft-launch/study.yaml'), { env: {} });
    expect(diagnostics).toEqual([]);
    const desired = desiredStudyOf(study!.study, {});
    const byKey = Object.fromEntries(desired.targetGroups.map((tg) => [tg.key, tg]));
    expect(byKey.us.softLaunch).toMatchObject({ completes: 50, completesWritten: '5%', maxDurationMs: 48 * 3_600_000, analysis: { minCompletes: 30 }, analysisOnly: false });
    expect(byKey.uk.softLaunch).toMatchObject({ completes: 40, analysisOnly: true, analysis: { incidence: { expected: 0.4, failBelow: 0.5 } } });
    expect(byKey.us.guards).toEqual([{ name: 'quotas_on_track', action: 'notify', kind: 'quota_behind', shortfallAbove: 0.1, minCompletes: 30 }]);
    expect(byKey.uk.guards).toBeUndefined();
    const plan = planStudy(desired, { targetGroups: {}, exclusionGroups: {}, observedAt: '2027-01-04T00:00:00Z' });
    const launches = Object.fromEntries(plan.actions.filter((a) => a.kind === 'launch').map((a) => [a.key, a]));
    expect(launches.us.softLaunch).toEqual(byKey.us.softLaunch);
    expect(launches.us.reason).toContain('soft launch: 50 completes (5% of 1000) within PT48H');
    expect(launches.uk.reason).toContain('analysis only');
  });

  it('closeout: reversal files (a reason per file, codes per line, upper-case RIDs), approved completes, reports', async () => {
    const { study, diagnostics } = await loadStudyFile(path.join(examples, 'closeout/study.yaml'), { env: {} });
    expect(diagnostics).toEqual([]);
    expect(study!.study.closeout).toMatchObject({ reports: ['completes', 'reconciliations-status'], deadline_warning: 'P3D' });
    expect(study!.closeout!.reversals!.summary).toMatchObject({ count: 6, byCode: { '11': 3, '932': 3 }, submissions: 1 });
    expect(study!.closeout!.approvedCompletes).toMatchObject({ count: 3 });
  });

  it('quickstart: one target group that launches automatically on account 1001', async () => {
    const { study, diagnostics } = await loadStudyFile(path.join(examples, 'quickstart/study.yaml'), { env: {} });
    expect(diagnostics).toEqual([]);
    const s = study!.study;
    expect([s.account, s.business_unit]).toEqual(['1001', '2001']);
    const groups = Object.values(s.target_groups);
    expect(groups).toHaveLength(1);
    const [tg] = groups;
    expect(tg.project_manager_id).toBe('6f1c2a4e-3001-4c8e-9d2b-000000003001');
    expect(tg.locale).toBe('en_US');
    expect(tg.launch.mode).toBe('auto');
    expect(tg.live_url).toMatch(/^https:\/\//);
    expect(tg.timing).toEqual({ job_poll_initial: '1s', job_poll_max: '30s', job_timeout: '30m', launch_retries: 5 });
  });

  it('multi-country tracker: defaults merged, shared template expanded, shared exclusion group joined', async () => {
    const { study } = await loadStudyFile(path.join(examples, 'multi-country-tracker/study.yaml'), { env: {} });
    const s = study!.study;
    expect(study!.sharedFile).toBe(path.join(examples, 'multi-country-tracker/shared.yaml'));
    expect(new Set(Object.values(s.target_groups).map((tg) => tg.locale))).toEqual(new Set(['en_US', 'en_GB', 'de_DE']));
    const us = s.target_groups.us_gen_pop;
    expect(us.profiles.map((p) => [p.name, p.object])).toEqual([
      ['age_gender', 'blended'],
      ['us_region', 'regular'],
    ]);
    expect(us.expected_length_of_interview_minutes).toBe(12);
    expect(s.target_groups.de_gen_pop.expected_length_of_interview_minutes).toBe(14);
    expect(us.launch).toMatchObject({ mode: 'manual', max_cpi: { value: '6.00', currency_code: 'USD' } });
    expect(s.target_groups.de_gen_pop.launch).toMatchObject({ mode: 'manual', require_feasible: true, max_cpi: { value: '5.50', currency_code: 'USD' } });
    expect(us.timing).toEqual({ job_poll_initial: '2s', job_poll_max: '1m', job_timeout: '30m', launch_retries: 5 });
    expect(s.exclusion_groups.acme_trackers).toEqual({ name: 'ACME trackers (all waves)', shared: true, target_groups: ['us_gen_pop', 'uk_gen_pop', 'de_gen_pop'] });
    expect(s.webhooks).toEqual([{ url: 'https://hooks.example.com/studyflow', events: ['target-group-updated', 'com.svc.session.updated'], compression: 'gzip' }]);
  });

  it('recontact wave: the recontact list is checked and referenced by absolute path', async () => {
    const { study } = await loadStudyFile(path.join(examples, 'recontact-wave/study.yaml'), { env: {} });
    const tg = study!.study.target_groups.wave2_recontact;
    expect(tg.study_type).toBe('recontact');
    expect(tg.live_url).toContain('[%RECONTACT_RSID%]');
    expect(tg.profiles).toEqual([]);
    const file = path.join(examples, 'recontact-wave/ids/wave1-completes.txt');
    expect(tg.recontact).toEqual({ file });
    const distinct = new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean));
    expect(study!.idLists).toEqual([{ targetGroup: 'wave2_recontact', kind: 'recontact', file, count: distinct.size, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
  });

  it('every exclusion: ID lists, exclusion groups from both sides, and activity items', async () => {
    const { study } = await loadStudyFile(path.join(examples, 'every-exclusion/study.yaml'), { env: {} });
    const s = study!.study;
    const main = s.target_groups.us_main;
    expect(study!.idLists.map((l) => [l.kind, path.basename(l.file)])).toEqual([
      ['respondent_ids', 'past-completes.txt'],
      ['respondent_guids', 'access-guids.txt'],
    ]);
    expect(main.exclusions.exclusion_groups).toEqual(['acme_pricing_waves']);
    expect(s.target_groups.us_boost.exclusions.exclusion_groups).toEqual(['acme_pricing_waves']);
    expect(s.exclusion_groups.acme_pricing_waves.target_groups.sort()).toEqual(['us_boost', 'us_main']);
    const items = main.exclusions.activity!.items;
    expect(items.map((i) => i.target_group ?? i.target_group_id ?? i.project)).toEqual(['us_boost', 'us_boost', 'self', '5001', '7001']);
    expect(items[2].respondent_statuses).toEqual(['Complete']);
    expect(main.exclusions.activity!.duration).toBe('P60D');
  });
});
