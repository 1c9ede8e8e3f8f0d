// The close-out on the embedded stack (real Temporal, the sandbox): a study fields in the simulation, then a
// committed file of reversals is planned (counts, money, window), applied without approval (nothing submitted,
// exit 4), approved (`approve --closeout`: exactly one submission, the sessions reversed in the exchange, the
// result files archived), applied again (0 requests of the close-out), and changed (only the new RID submitted).
// No RID enters a workflow history.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { statusQuery, studyWorkflowId } from '../../workflows/messages';
import { useTestStack } from '../fixtures/stack';
import { quickLaunchFields } from '../helpers/study-yaml';
import { startLocalWebhook, type LocalWebhook } from '../notify/local-webhook';
import { eventually, writeStudy } from './harness';

const ACCOUNT = '1001';
const STUDY = 'closeout-e2e';
const HOOK_VAR = 'STUDYFLOW_TEST_CLOSEOUT_HOOK';

function studyYaml(reversals: boolean): string {
  return `format: studyflow/v1
study: ${STUDY}
account: "${ACCOUNT}"
business_unit: "2001"
project:
  name: Close-out ${STUDY}
defaults:
${quickLaunchFields('  ', 40)}
target_groups:
  us:
    locale: en_US
    live_url: https://survey.example.com/s/${STUDY}-us?rid=[%RID%]
notify:
  - url: \${${HOOK_VAR}}
    events: [closeout_deadline]
${reversals ? 'closeout:\n  reversals:\n    - file: closeout/speeders.csv\n      reason: "11"\n  deadline_warning: P90D\n' : ''}`;
}

describe('close-out from a committed file', () => {
  const t = useTestStack('closeout');
  const hooks: LocalWebhook[] = [];
  afterAll(async () => Promise.all(hooks.map((h) => h.close())));

  const admin = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${t.stack.sandbox.baseUrl}/_sandbox${route}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
    expect(res.status, `${method} ${route}`).toBe(200);
    return (await res.json()) as { data: { rid: string; status: string }[] };
  };
  const remote = () => Object.values(t.stack.sandbox.state().target_groups).find((g) => g.target_group_customer_reference_number === `${STUDY}_us`);
  const completes = async () => (await admin('GET', `/fielding/target-groups/${remote()!.id}/rids?status=Complete`)).data.map((s) => s.rid);
  const statusOf = async (rid: string) => (await admin('GET', `/fielding/target-groups/${remote()!.id}/rids`)).data.find((s) => s.rid === rid)?.status;
  const reconciliationPosts = () => t.stack.sandbox.requests().filter((r) => r.method === 'POST' && /\/reconciliations(\/completes)?$/.test(r.path.split('?')[0]));
  const workflowStatus = () => t.client.workflow.getHandle(studyWorkflowId(ACCOUNT, STUDY)).query(statusQuery);

  it('plans, waits for approval, submits exactly once when approved, reverses in the exchange, re-applies with no request, submits only a delta', async () => {
    // The worker resolves the notify target's variable when it sends (the embedded worker's own environment).
    const hook = await startLocalWebhook([200]);
    hooks.push(hook);
    const workerEnv = t.stack.worker?.env;
    if (!workerEnv) throw new Error('the test stack runs no in-process worker');
    workerEnv[HOOK_VAR] = hook.url;
    const env = { [HOOK_VAR]: hook.url };
    const file = writeStudy(t.dir, `${STUDY}.yaml`, studyYaml(false));
    const launched = await t.cli(['apply', file, '--require-live', '--timeout', '120'], env);
    expect(launched.code, launched.stdout + launched.stderr).toBe(0);
    // Field until a few completes exist.
    const rids = await eventually(async () => {
      await admin('POST', '/fielding/advance', { minutes: 10 });
      const found = await completes();
      return found.length >= 3 ? found : undefined;
    }, 90_000, 500);
    const [first, second, third] = rids;
    fs.mkdirSync(path.join(t.dir, 'closeout'), { recursive: true });
    // Upper case in the file, as the reference's examples write RIDs: studyflow compares them case-blind.
    fs.writeFileSync(path.join(t.dir, 'closeout', 'speeders.csv'), `${first.toUpperCase()}\n${second}\n`);
    writeStudy(t.dir, `${STUDY}.yaml`, studyYaml(true));

    // The plan: two RIDs under code 11 for us, irreversible, pending (2).
    const planned = await t.cli(['plan', file, '--detailed-exitcode'], env);
    expect(planned.code, planned.stdout + planned.stderr).toBe(2);
    expect(planned.stdout).toContain('IRREVERSIBLE');
    expect(planned.stdout).toMatch(/ {2}us {2}code 11: 2 to reverse; reverses \d+\.\d+ USD; window closes \S+ \(\d+ day\(s\) left\)/);
    expect(planned.stdout).toMatch(new RegExp(`\\+ submit ${STUDY}-[0-9a-f]{12}-1: 2 row\\(s\\)`));
    const planJson = JSON.parse((await t.cli(['plan', file, '--json'], env)).stdout) as { studies: { closeout: { plan: { needsApproval: boolean; perTargetGroup: { byCode: Record<string, { toSubmit: number }> }[] } } }[] };
    expect(planJson.studies[0].closeout.plan.needsApproval).toBe(true);
    expect(planJson.studies[0].closeout.plan.perTargetGroup[0].byCode['11'].toSubmit).toBe(2);

    // Apply without approval: nothing submitted, the close-out waits, exit 4 naming it.
    const unapproved = await t.cli(['apply', file, '--timeout', '120'], env);
    expect(unapproved.code, unapproved.stdout + unapproved.stderr).toBe(4);
    expect(unapproved.stdout).toContain('closeout: blocked: reversals cannot be undone: awaiting approval');
    expect(reconciliationPosts()).toEqual([]);
    expect((await workflowStatus()).closeout?.phase).toBe('awaiting_approval');
    // Its window closes within deadline_warning (P90D): the study warns once, closeout_deadline, to its notify target.
    const warned = await eventually(async () => hook.received.find((r) => JSON.stringify(r.body).includes('closeout_deadline')), 30_000);
    expect(JSON.stringify(warned.body)).toContain('Close-out deadline');
    expect(JSON.stringify(warned.body)).toContain('RIDs to reverse');
    // It counts the days left as plan does.
    const left = /\((\d+) day\(s\) left\)/.exec(planned.stdout)?.[1];
    expect(JSON.stringify(warned.body)).toContain(`(${left} day(s) left)`);
    expect(Object.keys((await workflowStatus()).closeout?.deadlineNotified ?? {})).toEqual(['us']);

    // Approved: exactly one submission, the two sessions reversed (Terminate), the third untouched.
    const approved = await t.cli(['approve', file, '--closeout', '--timeout', '120'], env);
    expect(approved.code, approved.stdout + approved.stderr).toBe(0);
    expect(approved.stdout).toContain('Close-out: closed');
    expect(reconciliationPosts()).toHaveLength(1);
    expect(await statusOf(first)).toBe('Terminate');
    expect(await statusOf(second)).toBe('Terminate');
    expect(await statusOf(third)).toBe('Complete');
    const closed = await workflowStatus();
    expect(closed.closeout?.results?.us).toEqual({ reversed: 2, expired: 0, invalid: 0 });
    // The result files are archived in the blob store, by content hash.
    const archives = Object.values(closed.closeout?.archives ?? {});
    expect(archives.length).toBe(3);
    for (const name of archives) expect(name).toMatch(/^closeout\/closeout-e2e\/(submitted|expired|invalid)-rids-[0-9a-f]{64}\.csv$/);

    // A re-apply: settled, nothing of the close-out asked again; plan says nothing to do.
    const before = t.stack.sandbox.requests().length;
    const reapplied = await t.cli(['apply', file, '--timeout', '120'], env);
    expect(reapplied.code, reapplied.stdout + reapplied.stderr).toBe(0);
    expect(t.stack.sandbox.requests().slice(before).filter((r) => r.path.includes('reconciliations') || r.path.includes('/reports'))).toEqual([]);
    const replanned = await t.cli(['plan', file, '--detailed-exitcode'], env);
    expect(replanned.code, replanned.stdout + replanned.stderr).toBe(0);

    // A changed file: only the new RID goes in, approved on the command line (CI's reviewed merge).
    fs.writeFileSync(path.join(t.dir, 'closeout', 'speeders.csv'), `${first}\n${second}\n${third}\n`);
    const delta = await t.cli(['apply', file, '--approve-closeout', '--timeout', '120'], env);
    // One warning in all: the window was warned of once.
    expect(hook.received.filter((r) => JSON.stringify(r.body).includes('closeout_deadline'))).toHaveLength(1);
    expect(delta.code, delta.stdout + delta.stderr).toBe(0);
    const posts = reconciliationPosts();
    expect(posts).toHaveLength(2);
    expect(await statusOf(third)).toBe('Terminate');
    expect((await workflowStatus()).closeout?.results?.us).toEqual({ reversed: 3, expired: 0, invalid: 0 });

    // A RID that is no complete of the project (a typo): never submitted, said so (exit 4), and said again by a
    // re-apply that reads nothing.
    const typo = '0e8b5c1a-1234-4abc-8def-000000000042';
    fs.writeFileSync(path.join(t.dir, 'closeout', 'speeders.csv'), `${first}\n${second}\n${third}\n${typo}\n`);
    const withTypo = await t.cli(['apply', file, '--approve-closeout', '--timeout', '120'], env);
    expect(withTypo.code, withTypo.stdout + withTypo.stderr).toBe(4);
    expect(withTypo.stdout).toContain('1 RID(s) of the reversal files are not completes');
    expect(reconciliationPosts()).toHaveLength(2);
    const quiet = t.stack.sandbox.requests().length;
    const again = await t.cli(['apply', file, '--timeout', '120'], env);
    expect(again.code, again.stdout + again.stderr).toBe(4);
    expect(again.stdout).toContain('1 RID(s) of the reversal files are not completes');
    expect(t.stack.sandbox.requests().slice(quiet).filter((r) => r.path.includes('reconciliations') || r.path.includes('/reports'))).toEqual([]);

    // The HTML report shows the close-out: what each target group had reversed, the submissions, the archives.
    const html = path.join(t.dir, 'closeout-report.html');
    const reported = await t.cli(['report', file, '--html', html], env);
    expect(reported.code, reported.stderr).toBe(0);
    const page = fs.readFileSync(html, 'utf8');
    expect(page).toContain('<h2>Close-out: closed</h2>');
    // Nothing left to reverse; the exchange reversed 3 (the RIDs reversed earlier are no completes any more, so the
    // submitted column counts those of this apply's plan).
    const row = /<tr><td>us<\/td>.*?<\/tr>/.exec(page)?.[0] ?? '';
    expect(row).toMatch(/^<tr><td>us<\/td><td class="num">0<\/td><td class="num">(\d+|–)<\/td><td class="num">3 \/ 0 \/ 0<\/td>/);
    expect(page).toContain('1 RID(s) of the files are not completes');
    expect(page).toContain('Archived in the blob store');
    for (const r of [first, second, third]) expect(page.toLowerCase()).not.toContain(r.toLowerCase());

    // No RID in any history of this file's workflows.
    await t.scanHistories([first, second, third, first.toUpperCase()]);
  });
});
