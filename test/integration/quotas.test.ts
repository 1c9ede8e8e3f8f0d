// Quotas in view (issue 38) on the embedded stack (real Temporal, the sandbox's fielding simulation): a live target
// group with two age quotas and a `quota_behind` guard; the sandbox's admin `quota_fill` makes respondents of the
// 45+ quota enter rarely, and the simulation fields. The watch reads the quotas (list_profiles, at most once per
// watch interval), so `studyflow status` and the client's status JSON show the 45+ quota behind with its shortfall,
// the HTML report shows it marked, the current details name the worst cell, and the guard trips: the notify receiver
// gets guard_tripped for quota_behind with its evidence, and the status's guards view holds the trip. A re-apply of
// the unchanged file writes nothing. No wall-clock time is asserted. Run `node scripts/build.mjs` first.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestStack } from '../fixtures/stack';
import { quickLaunchFields } from '../helpers/study-yaml';
import { startLocalWebhook, type LocalWebhook } from '../notify/local-webhook';
import { targetGroupWorkflowId } from '../../workflows/messages';
import { eventually, writeStudy } from './harness';

const STUDY = 'quota-flow';
const HOOK_ENV = 'QUOTA_FLOW_HOOK_URL';
const END = new Date(Date.now() + 2 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

const studyYaml = () => `format: studyflow/v1
study: ${STUDY}
account: "1001"
business_unit: "2001"
project:
  name: Quota flow
  project_customer_reference_number: PO-QUOTA-FLOW
notify:
  - url: \${${HOOK_ENV}}
    events: [guard_tripped]
defaults:
${quickLaunchFields('  ')}
target_groups:
  us:
    locale: en_US
    live_url: https://survey.example.com/s/quota-flow?rid=[%RID%]
    filling_goal: 400
    end_fielding_at: ${END}
    guards:
      quotas_on_track: { quota_behind: { shortfall_above: 10%, min_completes: 20 }, action: notify }
    profiles:
      - object: regular
        name: Age
        quotas_enabled: true
        targets:
          - text: 18-44
            conditions: [{ object: range, question_id: 42, min: 18, max: 44 }]
            quota: { name: age 18-44, completes_goal: 200 }
          - text: 45-99
            conditions: [{ object: range, question_id: 42, min: 45, max: 99 }]
            quota: { name: age 45+, completes_goal: 200 }
`;

describe('a quota driven behind shows in status and the report, and trips quota_behind', () => {
  const t = useTestStack('quotas', { inProcessWorker: false });
  let hook: LocalWebhook;
  let file = '';
  const cliEnv = () => ({ [HOOK_ENV]: hook.url, STUDYFLOW_WATCH_INTERVAL_MS: '1500' });
  const tg = () => Object.values(t.stack.sandbox.state().target_groups).find((x) => x.target_group_customer_reference_number === `${STUDY}_us`)!;
  const admin = async (method: string, route: string, body: unknown) => {
    const res = await fetch(`${t.stack.sandbox.baseUrl}/_sandbox${route}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status, `${method} ${route}: ${await res.clone().text()}`).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  };
  const writesSince = (from: number) => t.stack.sandbox.requests().slice(from).filter((r) => r.method !== 'GET' && !r.path.startsWith('/_sandbox'));
  const quotaTrips = () => hook.received.filter((r) => JSON.stringify(r.body).includes('quota_behind'));

  beforeAll(async () => {
    hook = await startLocalWebhook([200]);
    t.spawnWorker({ env: { [HOOK_ENV]: hook.url } });
  });
  afterAll(async () => hook?.close());

  it('launches the target group with its quotas and the quota_behind guard', async () => {
    file = writeStudy(t.dir, 'study.yaml', studyYaml());
    const applied = await t.cli(['apply', file, '--require-live'], cliEnv());
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  });

  it('one quota driven behind: status shows it behind with its shortfall, and the guard trips with its evidence', async () => {
    // No respondent of the 45+ quota enters (quota_fill 0); the rest of the group fills as usual, so the 45+ quota has
    // no share of the group's pace and is forecast to miss its whole goal.
    const profiles = (tg() as unknown as { profiles: { id: string; targets: { id: string; quota?: { name?: string } }[] }[] }).profiles;
    const old = profiles[0].targets.find((target) => target.quota?.name === 'age 45+')!;
    await admin('PUT', '/fielding/settings', { speed: 1, auto_advance: false });
    expect(await admin('PUT', `/fielding/target-groups/${tg().id}/settings`, { quota_fill: { [`${profiles[0].id}/${old.id}`]: 0 } })).toMatchObject({ quota_fill: { [`${profiles[0].id}/${old.id}`]: 0 } });
    await admin('POST', '/fielding/advance', { minutes: 3 * 60 });

    // The client's status JSON: the quotas read, the 45+ one forecast short of its goal, the guard tripped on it.
    const status = await eventually(async () => {
      const s = await t.status('1001', STUDY);
      const us = s.targetGroups.us;
      return us?.quotas?.cells.length === 2 && us.guards?.active.some((trip) => trip.kind === 'quota_behind') ? s : undefined;
    }, 90_000, 500);
    const us = status.targetGroups.us;
    const quotas = us.quotas!;
    const [young, older] = quotas.cells;
    expect([young.profile, young.quota, young.goal, older.profile, older.quota, older.goal]).toEqual(['Age', 'age 18-44', 200, 'Age', 'age 45+', 200]);
    expect(young.completes).toBeGreaterThanOrEqual(20);
    expect(older.completes).toBe(0);
    expect(older.basis).toBe('forecast');
    expect(older.completesByEnd?.expected).toBe(0);
    expect([older.shortfall, older.shortfallFraction]).toEqual([200, 1]);
    expect(quotas.worst).toMatchObject({ profile: 'Age', quota: 'age 45+', goal: 200, completes: older.completes });
    expect(quotas.pace?.end).toBe(new Date(END).toISOString());
    expect(quotas.error).toBeUndefined();

    const trip = us.guards!.active.find((x) => x.kind === 'quota_behind')!;
    expect(trip).toMatchObject({ guard: 'quotas_on_track', action: 'notify', unit: 'rate', threshold: 0.1, source: 'quotas' });
    expect(trip.value).toBe(1);
    expect(trip.figures.quota).toMatchObject({ profile: 'Age', quota: 'age 45+', goal: 200 });
    expect(trip.text).toMatch(/^quota Age \/ age 45\+ is forecast at \d+ of 200 completes by .*: short by [\d.]+%, more than 10%$/);
    // A notify guard leaves the target group fielding.
    expect(us.phase).toBe('live');

    // `studyflow status`: the quota table with the 45+ quota behind and its shortfall, and the guard's trip.
    const shown = await eventually(async () => {
      const r = await t.cli(['status', file], cliEnv());
      return /Age \/ age 45\+\s+0\s+200\s+0\.0%\s+behind: short by 200 \(100%\) by \d{4}-\d{2}-\d{2}/.test(r.stdout) ? r : undefined;
    }, 30_000, 500);
    expect(shown.code, shown.stdout + shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^quotas:$/m);
    expect(shown.stdout).toMatch(/us: 2 quota\(s\) read .*; 1 behind/);
    expect(shown.stdout).toMatch(/us guard quotas_on_track \(quota_behind\) tripped at .*: quota Age \/ age 45\+ is forecast at \d+ of 200 completes/);

    // The notify receiver got guard_tripped for quota_behind, with the evidence.
    await eventually(async () => (quotaTrips().length >= 1 ? true : undefined), 30_000, 250);
    const sent = JSON.stringify(quotaTrips()[0].body);
    expect(sent).toContain('quotas_on_track');
    expect(sent).toContain('age 45+');

    // The current details of the target group's workflow name the worst cell.
    const handle = t.client.workflow.getHandle(targetGroupWorkflowId('1001', STUDY, 'us'));
    const details = await eventually(async () => {
      const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      return metadata.currentDetails?.includes('worst quota: Age / age 45+') ? metadata.currentDetails : undefined;
    }, 30_000, 500);
    expect(details).toMatch(/worst quota: Age \/ age 45\+ 0 of 200 \(0\.0%\), forecast short by 200 \(100\.0%\) by \d{4}-\d{2}-\d{2}/);
  });

  it('the HTML report shows the quota table with the 45+ quota marked behind', async () => {
    const out = path.join(t.dir, 'report.html');
    const report = await t.cli(['report', file, '--html', out], cliEnv());
    expect(report.code, report.stdout + report.stderr).toBe(0);
    const html = fs.readFileSync(out, 'utf8');
    const table = /<table class="figures quotas" data-key="us">[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    expect(table).toMatch(/<tr data-quota="Age \/ age 45\+" class="behind"><th>Age \/ age 45\+<\/th><td class="num">\d+<\/td><td class="num">200<\/td><td class="num">[\d.]+%<\/td><td class="quota-forecast">behind: short by \d+ \([\d.]+%\) by /);
    expect(table).toMatch(/<tr data-quota="Age \/ age 18-44"/);
    expect(report.stdout).toMatch(/Age \/ age 45\+\s+\d+\s+200\s+[\d.]+%\s+behind: short by/);
  });

  it('a re-apply of the unchanged file writes nothing', async () => {
    const before = t.stack.sandbox.requests().length;
    const again = await t.cli(['apply', file], cliEnv());
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(writesSince(before)).toEqual([]);
    // The trip was sent once (the guard stays tripped; a notify trip is not sent again on each reading).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(quotaTrips()).toHaveLength(1);
    await t.scanHistories([hook.url, t.env.STUDYFLOW_CLIENT_SECRET]);
  });
});
