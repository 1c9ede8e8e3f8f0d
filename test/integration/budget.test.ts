// The study budget on the embedded stack (real Temporal, the sandbox): apply refuses to launch a study whose
// predicted cost (feasibility's suggested price × goal, summed) passes its budget, with StudyOverBudget named and
// nothing launched; a live study whose spend (completes_cost of the watches' readings) reaches a budget cut by a
// revision has its target groups paused by the study, a local receiver gets budget_reached once, and a revision
// raising the budget resumes them.
import { afterAll, describe, expect, it } from 'vitest';
import type { ReportView } from '../../client/report-model';
import type { StudyStatus } from '../../workflows/messages';
import { statusQuery, studyWorkflowId } from '../../workflows/messages';
import { REASON } from '../../workflows/search-attributes';
import { useTestStack } from '../fixtures/stack';
import { startLocalWebhook, type LocalWebhook } from '../notify/local-webhook';
import { quickLaunchFields } from '../helpers/study-yaml';
import { eventually, writeStudy } from './harness';

const ACCOUNT = '1001';
const HOOK_VAR = 'STUDYFLOW_TEST_BUDGET_HOOK';

function studyYaml(study: string, budget: string, goals: { us: number; uk: number }, notify = false): string {
  return `format: studyflow/v1
study: ${study}
account: "${ACCOUNT}"
business_unit: "2001"
project:
  name: Budget ${study}
budget: { value: "${budget}", currency_code: USD }
${notify ? `notify:\n  - url: \${${HOOK_VAR}}\n    events: [budget_reached]\n` : ''}defaults:
${quickLaunchFields('  ')}
target_groups:
  us:
    locale: en_US
    live_url: https://survey.example.com/s/${study}-us?rid=[%RID%]
    filling_goal: ${goals.us}
  uk:
    locale: en_GB
    live_url: https://survey.example.com/s/${study}-uk?rid=[%RID%]
    filling_goal: ${goals.uk}
`;
}

describe('the study budget', () => {
  const t = useTestStack('budget');
  const hooks: LocalWebhook[] = [];
  afterAll(async () => Promise.all(hooks.map((h) => h.close())));

  const remoteOf = (study: string, key: string) => Object.values(t.stack.sandbox.state().target_groups).find((g) => g.target_group_customer_reference_number === `${study}_${key}`);
  const runOf = (study: string, key: string) => Object.values(t.stack.sandbox.state().fielding_runs).find((r) => r.target_group_id === remoteOf(study, key)?.id);
  const statusOf = (study: string) => t.client.workflow.getHandle(studyWorkflowId(ACCOUNT, study)).query(statusQuery);
  async function sandboxAdmin(method: string, route: string, body: unknown): Promise<void> {
    const res = await fetch(`${t.stack.sandbox.baseUrl}/_sandbox${route}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status, `${method} ${route}`).toBe(200);
  }

  it('refuses to launch a study over budget: StudyOverBudget at `budget` with the figures, exit 4, nothing launched', async () => {
    const study = 'budget-refused';
    const file = writeStudy(t.dir, `${study}.yaml`, studyYaml(study, '1.00', { us: 100, uk: 50 }));
    const before = t.stack.sandbox.requests().length;
    const applied = await t.cli(['apply', file, '--timeout', '120']);
    const out = applied.stdout + applied.stderr;
    // Consistent with the other refusals of apply: the study settles with a change not made (exit 4), named with its reason.
    expect(applied.code, out).toBe(4);
    expect(applied.stdout).toContain(`${study}.yaml  study ${study}  not converged: 1 change(s) not applied`);
    expect(applied.stdout).toMatch(new RegExp(`${study} budget: blocked: StudyOverBudget: predicted cost \\d+\\.\\d{2} USD of the budget 1\\.00 USD \\(\\d+%\\): over budget; apply refuses to launch`));
    // The drafts are written (raising the budget launches them); no launch was asked for, no fielding run exists.
    expect(remoteOf(study, 'us')?.status).toBe('draft');
    expect(remoteOf(study, 'uk')?.status).toBe('draft');
    expect(runOf(study, 'us')).toBeUndefined();
    expect(runOf(study, 'uk')).toBeUndefined();
    expect(t.stack.sandbox.requests().slice(before).filter((r) => /launch|fielding-run/.test(r.path))).toEqual([]);
    // The workflow itself reports the refusal: a CI apply fails with it even without the client's plan.
    const status = await statusOf(study);
    expect(status.budget).toMatchObject({ budget: { value: '1.00', currency_code: 'USD' }, refused: 'StudyOverBudget' });
    expect(status.budget?.prediction).toMatch(/^predicted cost \d+\.\d{2} USD of the budget 1\.00 USD/);
    expect(status.unapplied).toEqual([{ targetGroup: study, field: 'budget', reason: 'blocked', detail: expect.stringMatching(/^StudyOverBudget: predicted cost/) }]);
    const shown = await t.cli(['status', file]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/budget: predicted cost \d+\.\d{2} USD of the budget 1\.00 USD .*; StudyOverBudget: nothing launched/);
    // `studyflow plan` says the same before apply: blocked, exit 3.
    const planned = await t.cli(['plan', file, '--detailed-exitcode']);
    expect(planned.code, planned.stdout + planned.stderr).toBe(3);
    expect(planned.stdout).toContain('blocked project: StudyOverBudget: predicted cost');
  });

  it('pauses the live target groups when the spend reaches the budget, notifies once, and resumes on a raised budget', async () => {
    const study = 'budget-watch';
    const hook = await startLocalWebhook([200]);
    hooks.push(hook);
    // The worker resolves the notify target's variable when it sends, from the environment it runs with (the
    // embedded worker's, as `studyflow dev` gives it its own environment).
    const workerEnv = t.stack.worker?.env;
    if (!workerEnv) throw new Error('the test stack runs no in-process worker');
    workerEnv[HOOK_VAR] = hook.url;
    const env = { STUDYFLOW_WATCH_INTERVAL_MS: '1000', [HOOK_VAR]: hook.url };
    await sandboxAdmin('PUT', '/fielding/settings', { speed: 6, auto_advance: false });
    const apply = async (budget: string) => {
      const file = writeStudy(t.dir, `${study}.yaml`, studyYaml(study, budget, { us: 400, uk: 300 }, true));
      return await t.cli(['apply', file, '--timeout', '120'], env);
    };

    const launched = await apply('100000.00');
    expect(launched.code, launched.stdout + launched.stderr).toBe(0);
    expect([runOf(study, 'us')?.status, runOf(study, 'uk')?.status]).toEqual(['live', 'live']);

    // Some spend first, as the watches read it.
    await sandboxAdmin('POST', '/fielding/advance', { minutes: 2 });
    const spent = await eventually(async () => {
      const s = await statusOf(study);
      return Number(s.budget?.spent?.value ?? 0) > 0 ? Number(s.budget?.spent?.value) : undefined;
    });
    expect((await statusOf(study)).budget?.reached).toBeUndefined();

    // A revision cuts the budget to a little above the spend: the next readings pass it.
    const cut = (Math.floor(spent) + 2).toFixed(2);
    const revised = await apply(cut);
    expect(revised.code, revised.stdout + revised.stderr).toBe(0);
    let held: StudyStatus | undefined;
    for (let i = 0; i < 40 && !held?.budget?.reached; i += 1) {
      await sandboxAdmin('POST', '/fielding/advance', { minutes: 2 });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      held = await statusOf(study);
    }
    expect(held?.budget?.reached, JSON.stringify(held?.budget)).toBeDefined();
    expect(Number(held?.budget?.reached?.spent.value)).toBeGreaterThanOrEqual(Number(cut));
    expect([...(held?.budget?.reached?.paused ?? [])].sort()).toEqual(['uk', 'us']);
    expect(held?.budget?.spend).toContain(`of the budget ${cut} USD`);
    // Paused through the fielding path: the exchange's runs, and the children's phases.
    await eventually(async () => (runOf(study, 'us')?.status === 'paused' && runOf(study, 'uk')?.status === 'paused' ? true : undefined), 30_000);
    const paused = await eventually(async () => {
      const s = await statusOf(study);
      return s.targetGroups.us?.phase === 'paused' && s.targetGroups.uk?.phase === 'paused' ? s : undefined;
    }, 30_000);
    expect(paused.budget?.reached).toBeDefined();
    // The study's console attribute and the report's change line.
    const described = await t.client.workflow.getHandle(studyWorkflowId(ACCOUNT, study)).describe();
    expect(described.typedSearchAttributes.get(REASON)).toBe('budget_reached');
    // The saved view of docs/operations.md finds the study (visibility catches up within moments).
    const savedView = `StudyflowReason = 'budget_reached' AND ExecutionStatus = 'Running' AND StudyflowStudy = '${study}'`;
    const found = await eventually(async () => {
      const ids: string[] = [];
      for await (const w of t.client.workflow.list({ query: savedView })) ids.push(w.workflowId);
      return ids.length ? ids : undefined;
    }, 30_000, 500);
    expect(found).toEqual([studyWorkflowId(ACCOUNT, study)]);
    const report = await t.cli(['report', `${t.dir}/${study}.yaml`, '--json'], env);
    expect(report.code, report.stderr).toBe(0);
    const view = JSON.parse(report.stdout) as ReportView;
    for (const key of ['us', 'uk']) {
      expect(view.targetGroups.find((g) => g.key === key)?.changes.map((c) => c.detail)).toContainEqual(expect.stringMatching(/^budget reached: spent \d+\.\d{2} USD of the budget .*; the study paused it$/));
    }

    const shown = await t.cli(['status', `${t.dir}/${study}.yaml`], env);
    expect(shown.stdout).toMatch(/budget: spent \d+\.\d{2} USD of the budget .*: budget reached; budget reached at \S+: paused (us, uk|uk, us)/);

    // budget_reached reached the receiver once, with the figures; more readings send nothing more and resume nothing.
    await eventually(async () => (hook.received.length > 0 ? true : undefined), 30_000);
    for (let i = 0; i < 3; i += 1) await sandboxAdmin('POST', '/fielding/advance', { minutes: 2 });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(hook.received).toHaveLength(1);
    expect(JSON.stringify(hook.received[0].body)).toContain('budget');
    expect(JSON.stringify(hook.received[0].body)).toContain(study);
    expect([runOf(study, 'us')?.status, runOf(study, 'uk')?.status]).toEqual(['paused', 'paused']);

    // Re-applying the file under the same budget keeps the hold: its `fielding: live` (by default) is not made, and named.
    const again = await apply(cut);
    expect(again.code, again.stdout + again.stderr).toBe(4);
    expect(again.stdout).toMatch(/us fielding: blocked: held paused by the study's budget \(spent \d+\.\d{2} USD of the budget .*: budget reached\); a revision whose budget is above the spend resumes it/);
    expect([runOf(study, 'us')?.status, runOf(study, 'uk')?.status]).toEqual(['paused', 'paused']);

    // A revision raising the budget lifts the hold: the study resumes what it paused.
    const raised = await apply('100000.00');
    expect(raised.code, raised.stdout + raised.stderr).toBe(0);
    await eventually(async () => (runOf(study, 'us')?.status === 'live' && runOf(study, 'uk')?.status === 'live' ? true : undefined), 30_000);
    const lifted = await statusOf(study);
    expect(lifted.budget?.reached).toBeUndefined();
    expect(lifted.budget?.budget).toEqual({ value: '100000.00', currency_code: 'USD' });
    expect(hook.received).toHaveLength(1);
  });
});
