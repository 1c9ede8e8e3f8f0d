// `studyflow report` of a live study on the sandbox's fielding simulation: the figures come from the
// study workflow's `report` query (completes over time from the children's performance reads, the
// latest reading of TargetGroupPerformance, changes since launch), in human, JSON and a self-contained HTML page that headless
// Chromium renders with the same numbers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHART } from '../../cli/report-html';
import type { ReportView } from '../../client/report-model';
import { reportQuery, studyWorkflowId } from '../../workflows/messages';
import { CHROMIUM_ARGS, chromiumExecutablePath } from '../../scripts/chromium.mjs';
import { rsidPrefix } from '../../sandbox/model/synthetic-respondents';
import { eventually, REPO_ROOT, startTestStack, writeStudy, type TestStack } from './harness';
import { CONNECTION_PROFILES } from '../../api/http/api-config';
import { testProfile } from '../helpers/test-profile';

function studyYaml(webhookUrl: string): string {
  return `format: studyflow/v1
study: report-live
account: "1001"
business_unit: "2001"
project:
  name: Report of a live study
defaults:
  expected_length_of_interview_minutes: 10
  project_manager_id: "6f1c2a4e-3001-4c8e-9d2b-000000003001"
  collects_pii: false
  launch: { mode: auto }
  timing: { job_poll_initial: 100ms, job_poll_max: 300ms }
target_groups:
  us_gen_pop:
    locale: en_US
    live_url: https://survey.example.com/s/us?rid=[%RID%]
    expected_incidence_rate: 0.5
    filling_goal: 400
    profiles:
      - object: regular
        name: gender
        quotas_enabled: true
        targets:
          - text: Men
            conditions: [{ object: selection, question_id: 43, option: "1" }]
            quota: { name: men, completes_goal_percentage: 50 }
          - text: Women
            conditions: [{ object: selection, question_id: 43, option: "2" }]
            quota: { name: women, completes_goal_percentage: 50 }
  uk_gen_pop:
    locale: en_GB
    live_url: https://survey.example.com/s/uk?rid=[%RID%]
    expected_incidence_rate: 0.4
    filling_goal: 300
webhooks:
  - url: ${webhookUrl}
    events: [target-group-updated, ${CONNECTION_PROFILES[testProfile()].sessionEvent}]
`;
}

let t: TestStack;
let file: string;

async function sandboxAdmin(method: string, route: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${t.stack.sandbox.baseUrl}/_sandbox${route}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, `${method} ${route}`).toBe(200);
  return res.json();
}

async function reportJson(): Promise<ReportView> {
  const result = await t.cli(['report', file, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as ReportView;
}

const tgOf = (view: ReportView, key: string) => view.targetGroups.find((g) => g.key === key)!;
const remoteTargetGroup = (key: string) => Object.values(t.stack.sandbox.state().target_groups).find((g) => g.target_group_customer_reference_number === `report-live_${key}`)!;

beforeAll(async () => {
  t = await startTestStack('report-live');
  // The simulation is off by default: slow enough that the goals are not reached while the test reads.
  await sandboxAdmin('PUT', '/fielding/settings', { speed: 6, auto_advance: false });
  file = writeStudy(t.dir, 'live.yaml', studyYaml(t.stack.webhooks!.url));
});
afterAll(async () => t?.stop());

describe('report of a live study with simulated sessions', () => {
  let view: ReportView;

  it('follows the fielding: completes over time, the funnel, respondents by status, cost and rates, from the workflow query', async () => {
    const applied = await t.cli(['apply', file, '--require-live'], { STUDYFLOW_WATCH_INTERVAL_MS: '1000' });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);

    // Before any session: the report answers already, with zero completes once the first reading is in.
    const first = await eventually(async () => {
      const v = await reportJson();
      return tgOf(v, 'us_gen_pop').series.length > 0 ? v : undefined;
    });
    expect(tgOf(first, 'us_gen_pop').state).toBe('live');

    // Three bursts of simulated time, each read by the workflows before the next.
    for (let burst = 1; burst <= 3; burst += 1) {
      const before = tgOf(await reportJson(), 'us_gen_pop').series.at(-1)?.t;
      await sandboxAdmin('POST', '/fielding/advance', { minutes: 2 });
      await eventually(async () => (tgOf(await reportJson(), 'us_gen_pop').series.at(-1)?.t !== before ? true : undefined), 30_000);
    }
    // Almost no new entrants from here; wait for a report whose reading matches what the sandbox holds
    // (sessions still in the survey finish on later reads, so compare with one snapshot of the state).
    await sandboxAdmin('PUT', '/fielding/settings', { speed: 0.001 });
    let remote = remoteTargetGroup('us_gen_pop');
    view = await eventually(async () => {
      const v = await reportJson();
      const snapshot = { us: remoteTargetGroup('us_gen_pop'), uk: remoteTargetGroup('uk_gen_pop') };
      if (tgOf(v, 'us_gen_pop').completes !== snapshot.us.metrics.completes || tgOf(v, 'uk_gen_pop').completes !== snapshot.uk.metrics.completes) return undefined;
      remote = snapshot.us;
      return v;
    }, 60_000, 500);

    const us = tgOf(view, 'us_gen_pop');
    expect(us.completes).toBeGreaterThan(0);
    expect(us.completes).toBeLessThan(400);
    expect(us.completes).toBe(remote.metrics.completes);
    // The goal is the study file's; remaining is derived from it (performance carries neither).
    expect(us.fillingGoal).toBe(400);
    expect(us.fillPercent).toBe(Math.round((us.completes! / 400) * 1000) / 10);
    expect(us.remaining).toEqual({ value: 400 - us.completes!, basis: `derived: the study's filling_goal 400 less ${us.completes} completes` });
    // The funnel and the live respondents by status of one reading: every session status, adding up to the entrants.
    const count = (status: string) => us.respondents.find((r) => r.status === status)!.count;
    expect(us.respondents.map((r) => r.status)).toEqual(['Complete', 'Terminate', 'OverQuota', 'SecurityFailure', 'FinancialTerm', 'PreClientSurveyProcess', 'In Survey']);
    expect(us.respondents.reduce((n, r) => n + r.count, 0)).toBe(us.entrants);
    expect(count('Complete')).toBe(us.completes);
    expect(count('Terminate')).toBeGreaterThan(0);
    expect(us.prescreens).toBe(us.entrants! - count('PreClientSurveyProcess'));
    expect(us.entrants).toBeGreaterThan(us.completes!);
    expect(us.firstComplete! <= us.lastComplete!).toBe(true);
    // Quota fill: the watch's own read of list_profiles (docs/report.md), each quota's completes against its goal.
    expect(us.quotas?.cells.map((c) => [c.profile, c.quota, c.goal])).toEqual([['gender', 'men', 200], ['gender', 'women', 200]]);
    expect(us.quotas!.cells.reduce((n, c) => n + c.completes, 0)).toBeLessThanOrEqual(remote.metrics.completes);
    // Cost, incidence observed (the API's incidence_rate) against expected, conversion and drop-off.
    expect(us.completesCost?.currency_code).toBe('USD');
    expect(Number(us.completesCost?.value)).toBeCloseTo(us.completes! * 2.65, 2);
    expect(us.costPerComplete).toEqual({ value: '2.65', currency_code: 'USD' });
    const round4 = (n: number) => Math.round(n * 10_000) / 10_000;
    expect(us.incidence).toEqual({ expected: 0.5, observed: round4(us.completes! / (us.completes! + count('Terminate'))), basis: 'incidence_rate of the performance reading' });
    expect(us.conversionRate).toBe(round4(us.completes! / us.entrants!));
    expect(us.dropOffRate).toBe(round4(count('In Survey') / us.entrants!));
    expect(us.lengthOfInterview).toMatchObject({ expected: 10, observed: null });
    // Completes over time: rising readings, the last one the current figure.
    expect(us.series.length).toBeGreaterThanOrEqual(3);
    expect(us.series.at(-1)?.completes).toBe(us.completes);
    for (let i = 1; i < us.series.length; i += 1) expect(us.series[i].completes).toBeGreaterThanOrEqual(us.series[i - 1].completes);
    // Its profiles travel in its draft, so the draft batch launches it: the first change is the draft going live.
    expect(us.changes[0]).toMatchObject({ kind: 'phase', detail: 'draft -> live' });
    // The watch read each launched group's state every interval (GET TG's 301, overview, details) and compared
    // only the fields the details carry: no drift invented for what they lack (allocations, fielding window, …).
    for (const key of ['us_gen_pop', 'uk_gen_pop']) {
      expect(tgOf(view, key).drift ?? []).toEqual([]);
      expect(tgOf(view, key).changes.filter((c) => c.kind === 'drift')).toEqual([]);
    }
    expect(t.stack.sandbox.requests().filter((r) => r.method === 'GET' && /\/target-groups\/[^/]+\/details$/.test(r.path)).length).toBeGreaterThan(0);
    expect(tgOf(view, 'uk_gen_pop').completes).toBeGreaterThan(0);
  });

  it('keeps respondent IDs out of the query and the histories, and the report signals small', async () => {
    const handle = t.client.workflow.getHandle(studyWorkflowId('1001', 'report-live'));
    const raw = await handle.query(reportQuery);
    expect(JSON.stringify(raw)).not.toMatch(/[0-9a-f]{8}-5b00-4000-8000-\d{12}/);
    // The panel's respondent IDs are UUIDs with a prefix per locale (sandbox/model/synthetic-respondents.ts): none in any history of this study.
    await t.scanHistories([rsidPrefix('en_US'), rsidPrefix('en_GB'), t.env.STUDYFLOW_CLIENT_SECRET]);
    const history = await handle.fetchHistory();
    const reports = (history.events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'targetGroupReport');
    expect(reports.length).toBeGreaterThanOrEqual(6);
    const sizes = reports.map((event) => (event.workflowExecutionSignaledEventAttributes?.input?.payloads ?? []).reduce((n, p) => n + (p.data?.length ?? 0), 0));
    expect(Math.max(...sizes)).toBeLessThan(4096);
  });

  it('shows what changed since launch: an allocation change arrives as a webhook event', async () => {
    const id = remoteTargetGroup('us_gen_pop').id;
    await sandboxAdmin('PUT', `/target-groups/${id}/exchange-allocations`, {
      open_exchange: { enabled: true, percentage: 100, groups: [{ allocation_group_id: 'grp-a', percentage: 100, supplier_ids: [101, 102] }] },
      private_exchange: { enabled: false, percentage: 0, groups: [], supplier_cpis: [] },
    });
    view = await eventually(async () => {
      const v = await reportJson();
      return tgOf(v, 'us_gen_pop').changes.some((c) => c.kind === 'event' && c.detail.includes('allocations_open_exchange_group_added')) ? v : undefined;
    }, 60_000, 500);
    const us = tgOf(view, 'us_gen_pop');
    const events = us.changes.filter((c) => c.kind === 'event').map((c) => c.detail);
    expect(events).toContainEqual(expect.stringMatching(/^target-group-updated: (.+, )?allocations_open_exchange_group_added group grp-a(, |$)/));
    // The launch itself is the first change: the phase, before any event.
    // Its profiles travel in its draft, so the draft batch launches it: the first change is the draft going live.
    expect(us.changes[0]).toMatchObject({ kind: 'phase', detail: 'draft -> live' });
    // The watch read each launched group's state every interval (GET TG's 301, overview, details) and compared
    // only the fields the details carry: no drift invented for what they lack (allocations, fielding window, …).
    for (const key of ['us_gen_pop', 'uk_gen_pop']) {
      expect(tgOf(view, key).drift ?? []).toEqual([]);
      expect(tgOf(view, key).changes.filter((c) => c.kind === 'drift')).toEqual([]);
    }
    expect(t.stack.sandbox.requests().filter((r) => r.method === 'GET' && /\/target-groups\/[^/]+\/details$/.test(r.path)).length).toBeGreaterThan(0);
    expect(us.events.received).toBeGreaterThan(0);
  });

  it('prints a human table and a section per target group', async () => {
    // The UI link is the one STUDYFLOW_TEMPORAL_UI_URL names (without it, and without a dev stack here, none is printed).
    const result = await t.cli(['report', file], { STUDYFLOW_TEMPORAL_UI_URL: 'http://127.0.0.1:18233' });
    expect(result.code, result.stderr).toBe(0);
    const us = tgOf(view, 'us_gen_pop');
    expect(result.stdout).toMatch(/^study report-live \(account 1001\): converged, revision [0-9a-f]{16} \(applied\), project [0-9A-Z]{26}/m);
    expect(result.stdout).toMatch(/^TARGET GROUP\s+STATE\s+COMPLETES\s+GOAL\s+FILL\s+COMPLETES COST\s+IR OBS\/EXP\s+LOI OBS\/EXP$/m);
    expect(result.stdout).toMatch(new RegExp(`^us_gen_pop\\s+live\\s+\\d+\\s+400\\s+\\d+\\.\\d%\\s+[\\d.]+ USD\\s+[\\d.]+ / 0\\.5\\s+- / 10$`, 'm'));
    expect(result.stdout).toMatch(/^ {2}completes \d+ of 400 \(\d+\.\d%\); remaining \d+ \(derived: the study's filling_goal 400 less \d+ completes\)$/m);
    expect(result.stdout).toMatch(/^ {2}entrants \d+, prescreens \d+; conversion \d+\.\d%, drop-off \d+\.\d%$/m);
    expect(result.stdout).toMatch(/^ {2}respondents by status: Complete \d+, Terminate \d+, OverQuota \d+, SecurityFailure \d+, FinancialTerm \d+, PreClientSurveyProcess \d+, In Survey \d+$/m);
    expect(result.stdout).not.toMatch(/in progress/);
    expect(result.stdout).toMatch(/^quotas:$/m);
    expect(result.stdout).toMatch(/^ {2}us_gen_pop: 2 quota\(s\) read /m);
    expect(result.stdout).toContain('draft -> live');
    expect(result.stdout).toMatch(/event {2}target-group-updated: /);
    expect(us.completes).toBeGreaterThan(0);
    expect(result.stderr).toContain('http://127.0.0.1:18233/namespaces/');
    expect(result.stderr).toContain('/workflows/study%2F1001%2Freport-live');
  });

  it('writes one self-contained HTML page whose charts Chromium renders with the JSON figures', async () => {
    const htmlFile = path.join(t.dir, 'out', 'report.html');
    const result = await t.cli(['report', file, '--json', '--html', htmlFile]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^report written to /m);
    const json = JSON.parse(result.stdout) as ReportView;
    const html = fs.readFileSync(htmlFile, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    // Self-contained: no scripts, no external stylesheets, fonts or images.
    expect(html).not.toMatch(/<script|<link|@import|@font-face|url\(|src=/i);
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);

    // The browser npm test unpacked (scripts/install-chromium.mjs), or an error naming the command that does.
    const executablePath = chromiumExecutablePath();
    const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-chromium-'));
    let context: BrowserContext | undefined;
    try {
      context = await chromium.launchPersistentContext(userDataDir, { executablePath, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1100, height: 900 } });
      const requested: string[] = [];
      await context.route('**/*', async (route) => {
        const url = route.request().url();
        if (url.startsWith('file:')) return route.continue();
        requested.push(url);
        return route.abort();
      });
      const page = await context.newPage();
      await page.goto(`file://${htmlFile}`);
      expect(requested).toEqual([]);
      expect(await page.title()).toBe('studyflow report: report-live');

      for (const tg of json.targetGroups) {
        const section = page.locator(`section.tg[data-key="${tg.key}"]`);
        // The goal bar, the funnel and the respondents by status: drawn width over track width is the share, the label the counts.
        const share = (n: number, whole: number) => Math.round((n / whole) * 1000) / 10;
        const entrants = tg.entrants!;
        const bars = [
          { selector: 'svg.goal-bar g.bar', value: tg.completes!, whole: tg.fillingGoal!, fill: tg.fillPercent!, text: `${tg.completes} / ${tg.fillingGoal} (${tg.fillPercent!.toFixed(1)}%)` },
          ...(['entrants', 'prescreens', 'completes'] as const).map((step) => ({ selector: `svg.funnel-bars g.bar[data-label="${step}"]`, value: tg[step]!, whole: entrants, fill: share(tg[step]!, entrants), text: `${tg[step]} (${share(tg[step]!, entrants).toFixed(1)}% of entrants)` })),
          ...tg.respondents.map((r) => ({ selector: `svg.status-bars g.bar[data-label="${r.status}"]`, value: r.count, whole: entrants, fill: r.percentOfEntrants!, text: `${r.count} (${r.percentOfEntrants!.toFixed(1)}%)${r.label !== r.status ? ` · ${r.label}` : ''}` })),
        ];
        for (const bar of bars) {
          const g = section.locator(bar.selector);
          await expect.poll(() => g.count()).toBe(1);
          expect(Number(await g.getAttribute('data-fill'))).toBe(bar.fill);
          const track = await g.locator('rect.track').boundingBox();
          const fill = await g.locator('rect.fill').boundingBox();
          expect(track!.width).toBeGreaterThan(100);
          // A bar of 0 draws no box (null): its share is 0.
          expect((fill?.width ?? 0) / track!.width).toBeCloseTo(Math.min(1, bar.value / bar.whole), 2);
          expect(await g.locator('text.bar-value').textContent()).toBe(bar.text);
        }
        expect(await page.locator(`table.summary tr[data-key="${tg.key}"] td.completes`).textContent()).toBe(String(tg.completes));
        // The line of completes over time: one vertex per reading, the last at the current completes.
        const chart = page.locator('#completes-chart');
        const yMax = Number(await chart.getAttribute('data-y-max'));
        expect(yMax).toBeGreaterThanOrEqual(Math.max(...json.targetGroups.map((g) => g.completes ?? 0)));
        const line = chart.locator(`polyline[data-key="${tg.key}"]`);
        const points = (await line.getAttribute('points'))!.trim().split(/\s+/).map((p) => p.split(',').map(Number));
        expect(points).toHaveLength(tg.series.length);
        const plotH = CHART.height - CHART.top - CHART.bottom;
        tg.series.forEach((reading, i) => expect(points[i][1]).toBeCloseTo(CHART.top + plotH * (1 - reading.completes / yMax), 1));
        const dot = await chart.locator(`circle.last[data-key="${tg.key}"]`).boundingBox();
        const box = await chart.boundingBox();
        expect(dot!.y + dot!.height / 2 - box!.y).toBeCloseTo(CHART.top + plotH * (1 - tg.completes! / yMax), 0);
        expect(await page.locator(`section.tg[data-key="${tg.key}"] td.ir-observed`).textContent()).toBe(String(tg.incidence.observed));
      }
      const shot = process.env.UPDATE_REPORT_SCREENSHOT === '1' ? path.join(REPO_ROOT, 'docs/report-screenshot.png') : path.join(t.dir, 'report.png');
      await page.screenshot({ path: shot, fullPage: true });
      expect(fs.readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
    } finally {
      await context?.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    }
  });

  it('exits 1 for a study that was never applied and 2 for an id without an account', async () => {
    const never = await t.cli(['report', 'never-applied', '--account', '1001']);
    expect(never.code).toBe(1);
    expect(never.stderr).toBe('error: no study workflow study/1001/never-applied: apply the study first\n');
    const noAccount = await t.cli(['report', 'never-applied']);
    expect(noAccount.code).toBe(2);
  });
});
