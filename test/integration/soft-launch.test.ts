// Issue 38's soft launch on the embedded stack (real Temporal, the sandbox's fielding simulation). One study, three
// target groups, each driven to one outcome with the sandbox's admin settings (PUT /_sandbox/fielding/target-groups/
// {id}/settings) once its soft launch runs:
// - `pass`: incidence 0.8 (expected 0.6): judged pass at its 50 completes, promoted (module removed), fielding;
// - `fail`: interviews of 30 minutes (expected 8): judged fail on the median length, paused with the evidence;
// - `unsure`: incidence 0.39, between the fail and pass thresholds: inconclusive, paused, waits; `studyflow approve
//   --promote` promotes it.
// - `watch`: `analysis_only`, interviews of 30 minutes: judged fail and told, nothing done (it fields on).
// Each decision is recorded once (status, report, one soft_launch_decided each at a local receiver), and a re-apply
// of the unchanged file writes nothing to the exchange while the soft launches run, once judged, after the promotion
// and after `approve --abort` of the failed one (which stays paused).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestStack } from '../fixtures/stack';
import { SEEDED_PROJECT_MANAGER } from '../helpers/study-yaml';
import { startLocalWebhook, type LocalWebhook } from '../notify/local-webhook';
import { targetGroupWorkflowId, type StudyStatus } from '../../workflows/messages';
import { REASON } from '../../workflows/search-attributes';
import { eventually, writeStudy } from './harness';

const STUDY = 'soft-flow';
const HOOK_ENV = 'SOFT_FLOW_HOOK_URL';
const KEYS = ['pass', 'fail', 'unsure', 'watch'] as const;
const LOCALES: Record<(typeof KEYS)[number], string> = { pass: 'en_US', fail: 'en_GB', unsure: 'de_DE', watch: 'fr_FR' };
/** `watch` only analyses: its own soft_launch (a target group's replaces the defaults' whole). */
const WATCH_SOFT_LAUNCH = `    soft_launch:
      completes: 50
      max_duration: P2D
      analysis: { length_of_interview: { fail_above: 1.5 } }
      analysis_only: true
`;

const studyYaml = () => `format: studyflow/v1
study: ${STUDY}
account: "1001"
business_unit: "2001"
project:
  name: Soft flow
  project_customer_reference_number: PO-SOFT-FLOW
notify:
  - url: \${${HOOK_ENV}}
    events: [soft_launch_decided]
defaults:
  expected_incidence_rate: 0.6
  expected_length_of_interview_minutes: 8
  project_manager_id: "${SEEDED_PROJECT_MANAGER}"
  collects_pii: false
  filling_goal: 1000
  end_fielding_at: 2027-06-01T00:00:00Z
  launch: { mode: auto }
  timing: { job_poll_initial: 200ms, job_poll_max: 500ms }
  soft_launch:
    completes: 5%
    max_duration: P2D
    analysis:
      min_completes: 30
      incidence: { fail_below: 0.4, pass_above: 0.9 }
      length_of_interview: { fail_above: 1.5, fail_below: 0.4 }
    on: { pass: promote, fail: pause, inconclusive: pause }
target_groups:
${KEYS.map((key) => `  ${key}:\n    locale: ${LOCALES[key]}\n    live_url: https://survey.example.com/s/soft-flow?tg=${key}&rid=[%RID%]\n${key === 'watch' ? WATCH_SOFT_LAUNCH : ''}`).join('')}`;

describe('a soft launch is judged on its first completes: pass promotes, fail pauses with evidence, inconclusive waits for approve --promote', () => {
  const t = useTestStack('soft-launch', { inProcessWorker: false });
  let hook: LocalWebhook;
  let file = '';
  const cliEnv = () => ({ [HOOK_ENV]: hook.url, STUDYFLOW_WATCH_INTERVAL_MS: '1500' });
  const tg = (key: string) => Object.values(t.stack.sandbox.state().target_groups).find((x) => x.target_group_customer_reference_number === `${STUDY}_${key}`)!;
  const run = (key: string) => Object.values(t.stack.sandbox.state().fielding_runs).find((r) => r.target_group_id === tg(key).id)!;
  const admin = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${t.stack.sandbox.baseUrl}/_sandbox${route}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    expect(res.status, `${method} ${route}: ${await res.clone().text()}`).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  };
  /** The assignment as the exchange holds it (the buyer's API, not the sandbox's state). */
  const assignment = (key: string) => t.stack.sandbox.state().target_groups[tg(key).id]?.fielding_assistant_assignment as Record<string, unknown> | undefined;
  const decided = () => hook.received.filter((r) => JSON.stringify(r.body).includes('soft_launch_decided'));
  const writes = (from: number) => t.stack.sandbox.requests().slice(from).filter((r) => r.method !== 'GET' && !r.path.startsWith('/_sandbox'));
  const status = () => t.status('1001', STUDY) as Promise<StudyStatus>;

  beforeAll(async () => {
    hook = await startLocalWebhook([200]);
    t.spawnWorker({ env: { [HOOK_ENV]: hook.url } });
  });
  afterAll(async () => hook?.close());

  it('plans the soft launch with its thresholds, launches, and assigns the fielding assistant module', async () => {
    await admin('PUT', '/fielding/settings', { speed: 60, auto_advance: false, seed: 'soft-flow' });
    file = writeStudy(t.dir, 'study.yaml', studyYaml());
    const planned = await t.cli(['plan', file], cliEnv());
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(planned.stdout).toContain('soft launch: 50 completes (5% of 1000) within P2D, judged on 30 completes or more (incidence fails below 0.24, passes at 0.54; interview length fails below 192 s, fails above 720 s)');
    const applied = await t.cli(['apply', file, '--require-live'], cliEnv());
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const running = await eventually(async () => {
      const s = await status();
      return KEYS.every((key) => s.targetGroups[key]?.softLaunch?.state === 'running') ? s : undefined;
    }, 60_000, 250);
    for (const key of KEYS) {
      const soft = running.targetGroups[key].softLaunch!;
      expect(soft).toMatchObject({ via: 'fielding_assistant', completes: 50 });
      expect(Date.parse(soft.endsAt) - Date.parse(soft.startedAt)).toBe(2 * 86_400_000);
      if (key === 'watch') continue;
      expect(assignment(key)?.soft_launch).toMatchObject({ filling_goal_percentage: 5, demographics_strictness_percentage: 100 });
      expect(Date.parse((assignment(key)!.soft_launch as { end_at: string }).end_at)).toBe(Date.parse(soft.endsAt));
    }
    // Analysis only changes nothing in the exchange: no module.
    expect(running.targetGroups.watch.softLaunch).toMatchObject({ analysisOnly: true });
    expect(assignment('watch')?.soft_launch ?? null).toBeNull();
    // A re-apply while they run: nothing to write (the module is studyflow's, not drift of the file's assignment).
    const before = t.stack.sandbox.requests().length;
    const again = await t.cli(['apply', file], cliEnv());
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(writes(before)).toEqual([]);
  });

  it('judges each on its first 50 completes: pass promoted and fielding, fail paused with the evidence, inconclusive paused and waiting', async () => {
    expect(await admin('PUT', `/fielding/target-groups/${tg('pass').id}/settings`, { incidence_rate: 0.8 })).toMatchObject({ incidence_rate: 0.8 });
    expect(await admin('PUT', `/fielding/target-groups/${tg('fail').id}/settings`, { length_of_interview_minutes: 30, drop_off_rate: 0 })).toMatchObject({ length_of_interview_minutes: 30 });
    expect(await admin('PUT', `/fielding/target-groups/${tg('unsure').id}/settings`, { incidence_rate: 0.39 })).toMatchObject({ incidence_rate: 0.39 });
    // No module caps it: a low incidence keeps it from its whole goal within the advance.
    expect(await admin('PUT', `/fielding/target-groups/${tg('watch').id}/settings`, { length_of_interview_minutes: 30, drop_off_rate: 0, incidence_rate: 0.1 })).toMatchObject({ length_of_interview_minutes: 30 });
    await admin('POST', '/fielding/advance', { minutes: 180 });

    const judged = await eventually(async () => {
      const s = await status();
      const states = KEYS.map((key) => s.targetGroups[key]?.softLaunch?.state);
      return states.join() === 'promoted,paused,awaiting_decision,analysed' ? s : undefined;
    }, 90_000, 500);

    const pass = judged.targetGroups.pass;
    expect(pass.softLaunch!.decision).toMatchObject({ outcome: 'pass', action: 'promote', endedBy: 'completes' });
    expect(pass.softLaunch!.reading!.completes).toBeGreaterThanOrEqual(50);
    expect(assignment('pass')?.soft_launch ?? null).toBeNull();
    await eventually(async () => ((await status()).targetGroups.pass.phase === 'live' ? true : undefined), 30_000, 250);
    expect(run('pass').status).toBe('live');

    const fail = judged.targetGroups.fail.softLaunch!;
    expect(fail.decision).toMatchObject({ outcome: 'fail', action: 'pause' });
    const loi = fail.decision!.evidence.find((e) => e.metric === 'length_of_interview')!;
    expect(loi).toMatchObject({ verdict: 'fail', unit: 'seconds', threshold: { failAbove: 720, failBelow: 192 } });
    expect(loi.value).toBeGreaterThan(720);
    expect(loi.sampleSize).toBeGreaterThanOrEqual(30);
    expect(loi.text).toMatch(/^length of interview \d+ s after \d+ completes is above 720 s \(of the expected 480 s\): fail$/);
    expect(judged.targetGroups.fail.phase).toBe('paused');
    expect(run('fail').status).toBe('paused');

    const unsure = judged.targetGroups.unsure.softLaunch!;
    expect(unsure.decision).toMatchObject({ outcome: 'inconclusive', action: 'pause' });
    const incidence = unsure.decision!.evidence.find((e) => e.metric === 'incidence')!;
    expect(incidence).toMatchObject({ verdict: 'inconclusive', threshold: { failBelow: 0.24, passAbove: 0.54 } });
    expect(incidence.value).toBeGreaterThanOrEqual(0.24);
    expect(incidence.value).toBeLessThan(0.54);
    expect(run('unsure').status).toBe('paused');

    // Analysis only: judged a failure on its first completes and told, nothing done: nothing capped or paused it (with no
    // module it may have filled its whole goal within the advance, and then it is judged on its last figures).
    const watch = judged.targetGroups.watch.softLaunch!;
    expect(watch.decision).toMatchObject({ outcome: 'fail', action: 'none', endedBy: 'completes' });
    expect(watch.reading!.completes).toBeGreaterThanOrEqual(50);
    expect(['live', 'completed']).toContain(run('watch').status);
    expect(t.stack.sandbox.requests().filter((r) => r.method === 'POST' && r.path.includes(run('watch').id) && r.path.endsWith('/pause'))).toEqual([]);
    expect(assignment('watch')?.soft_launch ?? null).toBeNull();

    // The console: a waiting soft launch is the reason a target group is held.
    const handle = t.client.workflow.getHandle(targetGroupWorkflowId('1001', STUDY, 'unsure'));
    await eventually(async () => ((await handle.describe()).typedSearchAttributes.get(REASON) === 'soft_launch:inconclusive' ? true : undefined), 30_000, 500);
    // Its current details say where the soft launch stands.
    const details = await eventually(async () => {
      const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      return metadata.currentDetails?.includes('soft launch: inconclusive, paused') ? metadata.currentDetails : undefined;
    }, 30_000, 500);
    expect(details).toContain('[soft_launch:inconclusive]');

    const shown = await t.cli(['status', file], cliEnv());
    expect(shown.code, shown.stdout + shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/unsure\s+paused .*soft launch awaiting decision \(inconclusive\)/);
    expect(shown.stdout).toContain('unsure soft launch: inconclusive, paused: waits for `studyflow approve --promote` or `--abort`');
    expect(shown.stdout).toContain(loi.text);
    expect(shown.stdout).toMatch(/pass soft launch: pass, promoted to the full goal/);
  });

  it('a re-apply of the unchanged file writes nothing: the soft launch holds the paused groups', async () => {
    const planned = await t.cli(['plan', file], cliEnv());
    expect(planned.stdout).toMatch(/paused by its soft launch \(awaiting decision\)/);
    expect(planned.stdout).not.toMatch(/resume_fielding_run/);
    const before = t.stack.sandbox.requests().length;
    const applied = await t.cli(['apply', file], cliEnv());
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(writes(before)).toEqual([]);
    expect(run('fail').status).toBe('paused');
    expect(run('unsure').status).toBe('paused');
  });

  it('approve --promote promotes the waiting soft launch, recorded with who; each decision was told once', async () => {
    const promoted = await t.cli(['approve', '--promote', '--target-group', 'unsure', '--by', 'qa-lead', file], cliEnv());
    expect(promoted.code, promoted.stdout + promoted.stderr).toBe(0);
    expect(promoted.stdout).toContain('promote requested by qa-lead:');
    expect(promoted.stdout).toMatch(/unsure: soft launch: inconclusive, promoted to the full goal; promoted by qa-lead at /);
    const s = await eventually(async () => {
      const now = await status();
      return now.targetGroups.unsure.phase === 'live' ? now : undefined;
    }, 30_000, 250);
    expect(s.targetGroups.unsure.softLaunch).toMatchObject({ state: 'promoted', decidedBy: { by: 'qa-lead', decision: 'promote' } });
    expect(run('unsure').status).toBe('live');
    expect(assignment('unsure')?.soft_launch ?? null).toBeNull();
    // The failed one still waits; nothing else is waiting to promote.
    expect(s.targetGroups.fail.softLaunch!.state).toBe('paused');
    expect((await t.cli(['approve', '--promote', '--target-group', 'pass', file], cliEnv())).stdout).toContain('no soft launch was waiting for a decision');

    // Recorded once: the report's changes carry each judgement once.
    const report = await eventually(async () => {
      const r = await t.cli(['report', file], cliEnv());
      return /soft launch promoted by qa-lead/.test(r.stdout) ? r : undefined;
    }, 30_000, 500);
    expect(report.stdout.match(/soft launch reached its 50 completes: fail \(length of interview \d+ s after \d+ completes is above 720 s \(of the expected 480 s\): fail\); pauses/g)).toHaveLength(1);
    expect(report.stdout.match(/soft launch reached its 50 completes: inconclusive/g)).toHaveLength(1);
    expect(report.stdout.match(/soft launch reached its 50 completes: fail .*; analysis only: nothing done/g)).toHaveLength(1);

    // The HTML report's soft launch box: the failed one's evidence per metric and how to decide it.
    const html = `${t.dir}/report.html`;
    expect((await t.cli(['report', file, '--html', html], cliEnv())).code).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(page).toMatch(/<div class="note soft-launch" data-key="fail" data-state="paused">/);
    expect(page).toMatch(/<tr data-metric="length_of_interview" class="fail"><th>length of interview<\/th><td class="num">\d+ s<\/td><td>fails below 192 s, fails above 720 s<\/td>/);
    expect(page).toContain('<div class="note soft-launch" data-key="unsure" data-state="promoted">');

    // One soft_launch_decided per decision: pass, fail, inconclusive, the analysis, and the promotion.
    await eventually(async () => (decided().length >= 5 ? true : undefined), 30_000, 250);
    await new Promise((r) => setTimeout(r, 3_000)); // a few more watch ticks: nothing else is sent
    const bodies = decided().map((r) => JSON.stringify(r.body));
    expect(bodies).toHaveLength(5);
    expect(bodies.filter((b) => b.includes('Soft launch decided: fail'))).toHaveLength(2);
    expect(bodies.filter((b) => b.includes('analysis only: nothing done'))).toHaveLength(1);
    expect(bodies.filter((b) => b.includes('promoted by qa-lead'))).toHaveLength(1);

    // And a re-apply after the promotion still writes nothing.
    const before = t.stack.sandbox.requests().length;
    const applied = await t.cli(['apply', file], cliEnv());
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(writes(before)).toEqual([]);
  });

  it('approve --abort stops the failed soft launch: the module removed, the group held paused, a re-apply writes nothing', async () => {
    const aborted = await t.cli(['approve', '--abort', '--target-group', 'fail', '--by', 'qa-lead', file], cliEnv());
    expect(aborted.code, aborted.stdout + aborted.stderr).toBe(0);
    expect(aborted.stdout).toMatch(/fail: soft launch: fail, aborted: paused; aborted by qa-lead at /);
    const s = await status();
    expect(s.targetGroups.fail.softLaunch).toMatchObject({ state: 'aborted', decidedBy: { by: 'qa-lead', decision: 'abort' } });
    expect(s.targetGroups.fail.phase).toBe('paused');
    expect(run('fail').status).toBe('paused');
    expect(assignment('fail')?.soft_launch ?? null).toBeNull();
    // A second abort finds nothing to abort.
    expect((await t.cli(['approve', '--abort', '--target-group', 'fail', file], cliEnv())).stdout).toContain('no soft launch was waiting for a decision');
    const planned = await t.cli(['plan', file], cliEnv());
    expect(planned.stdout).toMatch(/paused by its soft launch \(aborted\)/);
    const before = t.stack.sandbox.requests().length;
    const applied = await t.cli(['apply', file], cliEnv());
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(writes(before)).toEqual([]);
    expect(run('fail').status).toBe('paused');
    await t.scanHistories([hook.url, t.env.STUDYFLOW_CLIENT_SECRET]);
  });
});
