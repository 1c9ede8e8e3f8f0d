// The `notify:` block: its URL is a ${NAME} reference the loader leaves as written (the study keeps the
// variable's NAME; the worker reads the URL), a literal URL or anything else is refused where it is written,
// a target is listed once across the study and its directory's shared.yaml, and events default to all.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStudies, loadStudyText, type Diagnostic } from '../../definitions';
import { NOTIFY_EVENTS } from '../../shared/notify-events';
import { MINIMAL_TARGET_GROUP_FIELDS as GROUP } from '../helpers/study-yaml';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'studyflow-notify-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const STUDY = `format: studyflow/v1
study: notify-study
account: "1001"
business_unit: "2001"
project:
  name: notify study
target_groups:
  us:
${GROUP}`;

const located = (diagnostics: Diagnostic[]) => diagnostics.map((d) => `${d.code} ${d.line}:${d.column}`);
const load = (text: string, env: Record<string, string> = {}) => loadStudyText(text, path.join(dir, 'study.yaml'), { env });
/** 1-based line:column of the first occurrence of `needle`. */
function positionOf(text: string, needle: string): string {
  const at = text.indexOf(needle);
  expect(at).toBeGreaterThanOrEqual(0);
  const before = text.slice(0, at).split('\n');
  return `${before.length}:${before[before.length - 1].length + 1}`;
}

describe('notify: in a study file', () => {
  it('keeps the variable NAME, not its value, even when the variable is set (and needs it unset nowhere)', async () => {
    const text = `${STUDY}notify:\n  - url: \${SLACK_WEBHOOK_URL}\n    events: [guard_tripped, budget_reached]\n  - url: "\${OPS_HOOK}"\n`;
    const unset = await load(text);
    expect(unset.diagnostics).toEqual([]);
    expect(unset.study?.study.notify).toEqual([
      { envName: 'SLACK_WEBHOOK_URL', events: ['guard_tripped', 'budget_reached'] },
      { envName: 'OPS_HOOK', events: [...NOTIFY_EVENTS] },
    ]);
    const set = await load(text, { SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T0/B0/very-secret' });
    expect(set.diagnostics).toEqual([]);
    expect(JSON.stringify(set.study)).not.toContain('very-secret');
    expect(set.study?.study.notify[0].envName).toBe('SLACK_WEBHOOK_URL');
  });

  it('a study without notify: has no targets', async () => {
    expect((await load(STUDY)).study?.study.notify).toEqual([]);
  });

  it('refuses a URL written in the file, anything but one reference, and a target listed twice, where each is written', async () => {
    const text = `${STUDY}notify:
  - url: https://hooks.slack.com/services/T0/B0/written-token
  - url: http://127.0.0.1:9000/hook
  - url: \${A}/suffix
  - url: \${TEAM_HOOK}
  - url: \${TEAM_HOOK}
    events: [drift_found]
`;
    const { study, diagnostics } = await load(text);
    expect(study).toBeUndefined();
    expect(located(diagnostics)).toEqual([
      `SF4401 ${positionOf(text, 'https://hooks')}`,
      `SF4401 ${positionOf(text, 'http://127')}`,
      `SF4402 ${positionOf(text, '${A}')}`,
      `SF4403 ${positionOf(text, '${TEAM_HOOK}\n    events')}`,
    ]);
    expect(diagnostics[0].message).toContain('carry their token');
    expect(diagnostics[0].hint).toContain('${SLACK_WEBHOOK_URL}');
    expect(diagnostics[3].message).toContain('listed twice (also notify[3])');
    // The token written in the file is not echoed back.
    expect(diagnostics.map((d) => `${d.message} ${d.hint ?? ''}`).join('\n')).not.toContain('written-token');
  });

  it('checks events and fields with the structure codes', async () => {
    const text = `${STUDY}notify:\n  - url: \${HOOK}\n    events: [guard_tripped, guard_tripped, gate_blockd]\n    channel: "#ops"\n  - url: \${HOOK2}\n    events: []\n`;
    const { diagnostics } = await load(text);
    const codes = diagnostics.map((d) => d.code).sort();
    expect(codes).toEqual(expect.arrayContaining(['SF2002', 'SF2004', 'SF2007']));
    const unknownEvent = diagnostics.find((d) => d.code === 'SF2004');
    expect(`${unknownEvent?.line}:${unknownEvent?.column}`).toBe(positionOf(text, 'gate_blockd'));
  });
});

describe('notify: in shared.yaml', () => {
  it('gives every study of the directory its targets, before the study\'s own; a study may not list one again', async () => {
    const root = path.join(dir, 'shared-notify');
    await mkdir(root, { recursive: true });
    await writeFile(path.join(root, 'shared.yaml'), 'format: studyflow/v1\nnotify:\n  - url: ${TEAM_HOOK}\n    events: [budget_reached]\n');
    await writeFile(path.join(root, 'a.yaml'), `${STUDY.replace('notify-study', 'notify-a')}notify:\n  - url: \${OWN_HOOK}\n`);
    await writeFile(path.join(root, 'b.yaml'), STUDY.replace('notify-study', 'notify-b'));
    const { studies, diagnostics } = await loadStudies([root], { env: {} });
    expect(diagnostics).toEqual([]);
    expect(Object.fromEntries(studies.map((s) => [s.study.study, s.study.notify]))).toEqual({
      'notify-a': [
        { envName: 'TEAM_HOOK', events: ['budget_reached'] },
        { envName: 'OWN_HOOK', events: [...NOTIFY_EVENTS] },
      ],
      'notify-b': [{ envName: 'TEAM_HOOK', events: ['budget_reached'] }],
    });

    await writeFile(path.join(root, 'b.yaml'), `${STUDY.replace('notify-study', 'notify-b')}notify:\n  - url: \${TEAM_HOOK}\n`);
    const again = await loadStudies([root], { env: {} });
    expect(again.diagnostics.map((d) => `${d.code} ${path.basename(d.file)} ${d.message}`)).toEqual([
      expect.stringMatching(/^SF4403 b\.yaml notification target \$\{TEAM_HOOK\} is listed twice \(also .*shared\.yaml\)$/),
    ]);
  });

  it('refuses a literal URL in shared.yaml too, located there', async () => {
    const root = path.join(dir, 'shared-literal');
    await mkdir(root, { recursive: true });
    await writeFile(path.join(root, 'shared.yaml'), 'format: studyflow/v1\nnotify:\n  - url: https://hooks.slack.com/services/T/B/x\n');
    await writeFile(path.join(root, 'a.yaml'), STUDY);
    const { diagnostics } = await loadStudies([root], { env: {} });
    expect(diagnostics.map((d) => `${d.code} ${path.basename(d.file)}:${d.line}:${d.column}`)).toEqual(['SF4401 shared.yaml:3:10']);
  });
});
