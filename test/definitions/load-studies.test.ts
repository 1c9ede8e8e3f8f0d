// A directory of studies validates as a whole: shared.yaml, duplicate ids, ${ENV} references.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDiagnostic, loadStudies, loadStudyFile } from '../../definitions';
import { MINIMAL_TARGET_GROUP_FIELDS } from '../helpers/study-yaml';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'studyflow-dir-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function study(id: string, targetGroupExtra = '', extra = ''): string {
  return `format: studyflow/v1
study: ${id}
account: "1001"
business_unit: "2001"
project:
  name: ${id}
target_groups:
  us:
${MINIMAL_TARGET_GROUP_FIELDS}${targetGroupExtra}${extra}`;
}

const SHARED = `format: studyflow/v1
exclusion_groups:
  all_waves:
    name: All waves
profile_templates:
  gender:
    profiles:
      - object: regular
        name: gender
        quotas_enabled: true
        targets:
          - conditions: [{object: selection, question_id: 43, option: "1"}]
            quota: {name: men, completes_goal_percentage: 50}
          - conditions: [{object: selection, question_id: 43, option: "2"}]
            quota: {name: women, completes_goal_percentage: 50}
`;

async function tree(name: string, files: Record<string, string>): Promise<string> {
  const root = path.join(dir, name);
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  return root;
}

const codesOf = (diagnostics: { code: string; file: string; line: number }[], root: string) =>
  diagnostics.map((d) => `${d.code} ${path.relative(root, d.file)}:${d.line}`);

describe('loadStudies', () => {
  it('lets studies of a directory use shared templates and exclusion groups by name', async () => {
    const root = await tree('shared-ok', {
      'shared.yaml': SHARED,
      'wave1.yaml': study('acme-wave1', '    profile_templates: [gender]\n    exclusions: {exclusion_groups: [all_waves]}\n'),
      'wave2.yml': study('acme-wave2', '    exclusions: {exclusion_groups: [all_waves]}\n'),
      'notes.txt': 'not a study',
    });
    const { studies, diagnostics } = await loadStudies([root], { env: {} });
    expect(diagnostics).toEqual([]);
    expect(studies.map((s) => s.study.study)).toEqual(['acme-wave1', 'acme-wave2']);
    const [wave1, wave2] = studies.map((s) => s.study);
    expect(wave1.target_groups.us.profiles.map((p) => p.name)).toEqual(['gender']);
    expect(wave1.exclusion_groups).toEqual({ all_waves: { name: 'All waves', shared: true, target_groups: ['us'] } });
    expect(wave2.exclusion_groups.all_waves.target_groups).toEqual(['us']);
  });

  it('checks quota goals of a shared template against each target group that uses it', async () => {
    const root = await tree('shared-goals', {
      'shared.yaml': SHARED.replace('completes_goal_percentage: 50', 'completes_goal: 30').replace('completes_goal_percentage: 50', 'completes_goal: 50'),
      'a.yaml': study('acme-goals', '    profile_templates: [gender]\n'),
    });
    const { diagnostics } = await loadStudies([root], { env: {} });
    // 30 + 50 = 80 < filling_goal 100: reported where the template is applied.
    expect(codesOf(diagnostics, root)).toEqual(['SF4108 a.yaml:16']);
  });

  it('reports a shared file problem once, and no study of its directory is returned', async () => {
    const root = await tree('shared-broken', {
      'shared.yaml': SHARED.replace('name: All waves', 'name: All waves\n    target_groups: [us]'),
      'a.yaml': study('acme-a'),
      'b.yaml': study('acme-b'),
    });
    const { studies, diagnostics } = await loadStudies([root], { env: {} });
    expect(codesOf(diagnostics, root)).toEqual(['SF2002 shared.yaml:5']);
    expect(diagnostics[0].hint).toBe("a study's target groups join a shared group through their own exclusions.exclusion_groups");
    expect(studies).toEqual([]);
  });

  it('explains what a shared file may hold', async () => {
    const root = await tree('shared-with-study', { 'shared.yaml': SHARED + 'study: acme-x\n', 'a.yaml': study('acme-a') });
    const { diagnostics } = await loadStudies([root], { env: {} });
    expect(codesOf(diagnostics, root)).toEqual(['SF2002 shared.yaml:16']);
    expect(diagnostics[0].hint).toBe('shared.yaml holds only `format`, `exclusion_groups` and `profile_templates`');
  });

  it('refuses a name a study declares that shared.yaml declares too', async () => {
    const root = await tree('shared-clash', {
      'shared.yaml': SHARED,
      'a.yaml': study('acme-clash', '', 'exclusion_groups:\n  all_waves:\n    target_groups: [us]\n'),
    });
    const { diagnostics } = await loadStudies([root], { env: {} });
    expect(codesOf(diagnostics, root)).toEqual(['SF5005 a.yaml:17']);
  });

  it('refuses a study id used by two files, in the later file', async () => {
    const root = await tree('duplicates', {
      'a/first.yaml': study('acme-same'),
      'b/second.yaml': study('acme-same'),
      'b/third.yaml': study('acme-other'),
    });
    const { studies, diagnostics } = await loadStudies([root], { env: {} });
    expect(codesOf(diagnostics, root)).toEqual(['SF5004 b/second.yaml:2']);
    expect(diagnostics[0].message).toContain(path.join(root, 'a/first.yaml'));
    expect(studies.map((s) => path.relative(root, s.file))).toEqual(['a/first.yaml', 'b/third.yaml']);
  });

  it('reads each file once when it is named twice, and reports missing paths', async () => {
    const root = await tree('twice', { 'a.yaml': study('acme-twice') });
    const { studies, diagnostics } = await loadStudies([root, path.join(root, 'a.yaml'), path.join(root, 'missing.yaml')], { env: {} });
    expect(studies).toHaveLength(1);
    expect(codesOf(diagnostics, root)).toEqual(['SF1001 missing.yaml:1']);
  });

  it('skips other YAML found in a directory, but checks it when named', async () => {
    const root = await tree('other-yaml', {
      'a.yaml': study('acme-a'),
      'ci/workflow.yml': 'name: CI\non: [push]\njobs:\n  test: {runs-on: ubuntu-latest}\n',
      'broken.yaml': 'study: [unclosed\n',
    });
    const walked = await loadStudies([root], { env: {} });
    expect(walked.studies).toHaveLength(1);
    expect(codesOf(walked.diagnostics, root)).toEqual(['SF1002 broken.yaml:2']);
    const named = await loadStudies([path.join(root, 'ci/workflow.yml')], { env: {} });
    expect(named.diagnostics.map((d) => d.code)).toContain('SF2002');
  });

  it('ignores hidden directories and node_modules', async () => {
    const root = await tree('hidden', {
      'a.yaml': study('acme-visible'),
      '.git/b.yaml': 'not: [valid',
      'node_modules/pkg/c.yaml': 'not: [valid',
    });
    const { studies, diagnostics } = await loadStudies([root], { env: {} });
    expect(diagnostics).toEqual([]);
    expect(studies).toHaveLength(1);
  });
});

describe('${ENV} references', () => {
  it('are resolved from the given environment', async () => {
    const root = await tree('env-ok', { 'a.yaml': study('acme-env').replace('account: "1001"', 'account: ${ACME_ACCOUNT}').replace('survey.example.com', '${SURVEY_HOST}') });
    const { study: loaded, diagnostics } = await loadStudyFile(path.join(root, 'a.yaml'), { env: { ACME_ACCOUNT: '1001', SURVEY_HOST: 'surveys.acme.test' } });
    expect(diagnostics).toEqual([]);
    expect(loaded!.study.account).toBe('1001');
    expect(loaded!.study.target_groups.us.live_url).toBe('https://surveys.acme.test/s?rid=[%RID%]');
  });

  it('never echo the value of a variable in a message', async () => {
    const root = await tree('env-bad', { 'a.yaml': study('acme-env-bad').replace('project_manager_id: "6f1c2a4e-3001-4c8e-9d2b-000000003001"', 'project_manager_id: ${PM_ID}') });
    const secret = 'x y top-secret-value';
    const { diagnostics } = await loadStudyFile(path.join(root, 'a.yaml'), { env: { PM_ID: secret } });
    expect(diagnostics.map((d) => d.code)).toEqual(['SF2005']);
    expect(diagnostics[0].message).toContain('the value of ${PM_ID}');
    for (const d of diagnostics) expect(`${formatDiagnostic(d, 'human')} ${formatDiagnostic(d, 'github')}`).not.toContain('top-secret');
  });

  it('take $${ as a literal ${', async () => {
    const root = await tree('env-escape', { 'a.yaml': study('acme-env-escape', '    name: "costs $${budget} each"\n') });
    const { study: loaded, diagnostics } = await loadStudyFile(path.join(root, 'a.yaml'), { env: {} });
    expect(diagnostics).toEqual([]);
    expect(loaded!.study.target_groups.us.name).toBe('costs ${budget} each');
  });
});
