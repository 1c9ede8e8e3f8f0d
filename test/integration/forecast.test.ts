// The forecast on real Temporal and the sandbox (issue 29): a live study's `status` and `report` show when each
// target group will finish and what it will cost, with ranges; the HTML report's forecast chart, rendered in
// headless Chromium, draws the readings where the JSON report says, the band to the goal, the finish and the
// end_fielding_at markers (with STUDYFLOW_UPDATE_SCREENSHOTS=1 its screenshot is written to
// docs/images/report-forecast.png, which docs/report.md embeds); and the launch rule require_forecast_before_end
// holds a target group whose forecast finishes after end_fielding_at, with the reason in its status and its
// StudyflowReason search attribute.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORECAST_CHART } from '../../cli/forecast-chart';
import { renderReportHtml } from '../../cli/report-html';
import { forecastDuringFielding } from '../../plan/forecast';
import type { ReportView } from '../../client/report-model';
import { CHROMIUM_ARGS, chromiumExecutablePath } from '../../scripts/chromium.mjs';
import { targetGroupWorkflowId, type StudyStatus } from '../../workflows/messages';
import { REASON } from '../../workflows/search-attributes';
import { sampleFields } from '../helpers/study-yaml';
import { eventually, REPO_ROOT, startTestStack, writeStudy, type TestStack } from './harness';

const HOUR_MS = 3_600_000;
const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** us fields six hours (its forecast before launch finishes in about 3.4); the window is from the gate's reading. */
const LIVE_END = iso(Date.now() + 6 * HOUR_MS);
const LIVE = `format: studyflow/v1
study: forecast-live
account: "1001"
business_unit: "2001"
project:
  name: Forecast of a live study
defaults:
${sampleFields('  ', { incidenceRate: 0.5, lengthOfInterviewMinutes: 10 })}
  launch: { mode: auto, require_forecast_before_end: true }
  timing: { job_poll_initial: 100ms, job_poll_max: 300ms }
target_groups:
  us_gen_pop:
    locale: en_US
    live_url: https://survey.example.com/s/us?rid=[%RID%]
    filling_goal: 400
    end_fielding_at: ${LIVE_END}
`;

/** gb wants 5,000 completes in a day that feasibility puts at 1,080–1,200: feasible is not required, the forecast is. */
const HELD_END = iso(Date.now() + 24 * HOUR_MS);
const HELD = `format: studyflow/v1
study: forecast-gate
account: "1001"
business_unit: "2001"
project:
  name: Forecast gate
defaults:
${sampleFields('  ', { incidenceRate: 0.5, lengthOfInterviewMinutes: 10 })}
  launch: { mode: auto, require_feasible: false, require_forecast_before_end: true }
  timing: { job_poll_initial: 100ms, job_poll_max: 300ms }
target_groups:
  gb_gen_pop:
    locale: en_GB
    live_url: https://survey.example.com/s/gb?rid=[%RID%]
    filling_goal: 5000
    end_fielding_at: ${HELD_END}
`;

let t: TestStack;

async function sandboxAdmin(method: string, route: string, body: unknown): Promise<void> {
  const res = await fetch(`${t.stack.sandbox.baseUrl}/_sandbox${route}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, `${method} ${route}`).toBe(200);
}

beforeAll(async () => {
  t = await startTestStack('forecast');
  await sandboxAdmin('PUT', '/fielding/settings', { speed: 6, auto_advance: false });
});
afterAll(async () => t?.stop());

describe('the forecast of a live study', () => {
  let file: string;
  let status: StudyStatus;

  it('status shows per target group and for the study when it will finish and what it will cost, with ranges', async () => {
    file = writeStudy(t.dir, 'live.yaml', LIVE);
    const applied = await t.cli(['apply', file, '--require-live'], { STUDYFLOW_WATCH_INTERVAL_MS: '1000' });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    for (let burst = 1; burst <= 3; burst += 1) {
      await sandboxAdmin('POST', '/fielding/advance', { minutes: 2 });
      await new Promise((r) => setTimeout(r, 1500));
    }
    await sandboxAdmin('PUT', '/fielding/settings', { speed: 0.001 });
    status = await eventually(async () => {
      const result = await t.cli(['status', file, '--json']);
      expect(result.code, result.stderr).toBe(0);
      const s = JSON.parse(result.stdout) as StudyStatus;
      return (s.targetGroups.us_gen_pop.forecast?.completes ?? 0) > 0 ? s : undefined;
    }, 60_000, 500);
    const f = status.targetGroups.us_gen_pop.forecast!;
    // Fielding has under an hour of readings: the forecast is the gate's, from feasibility over the window.
    expect(f.basis).toBe('feasibility');
    expect(f.method).toMatch(/^before launch: feasibility's \d+–\d+ completes over the 0\.\d-day window .* \(fielding has under an hour of readings\)$/);
    expect(Date.parse(String(f.endFieldingAt))).toBe(Date.parse(LIVE_END));
    const { expected, earliest, latest } = f.finish;
    expect(Date.parse(earliest!)).toBeLessThanOrEqual(Date.parse(expected!));
    expect(Date.parse(expected!)).toBeLessThanOrEqual(Date.parse(latest!));
    expect(f.finishesBeforeEnd).toBe(true);
    // What it costs: the goal at the gate's suggested price.
    expect(f.cost!.expected.currency_code).toBe('USD');
    expect(Number(f.cost!.expected.value)).toBeCloseTo(400 * Number(status.targetGroups.us_gen_pop.price!.value), 6);
    expect(Number(f.cost!.low.value)).toBeLessThanOrEqual(Number(f.cost!.expected.value));
    // The study: its only target group's finish and cost.
    expect(status.forecast).toMatchObject({ finish: f.finish, cost: f.cost, finishesBeforeEnd: true });

    const human = await t.cli(['status', file]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^forecast:$/m);
    expect(human.stdout).toMatch(/^ {2}us_gen_pop: finishes \d{4}-\d\d-\d\d \d\d:\d\d UTC \(\d{4}-\d\d-\d\d \d\d:\d\d UTC to \d{4}-\d\d-\d\d \d\d:\d\d UTC\), costs [\d.]+ USD \([\d.]+ to [\d.]+ USD\)$/m);
    expect(human.stdout).toMatch(/^ {4}before launch: feasibility's /m);
    expect(human.stdout).toMatch(/^ {2}study: finishes .*, costs [\d.]+ USD/m);
  });

  it('the report charts the completes with the forecast band, checked in headless Chromium', async () => {
    const htmlFile = path.join(t.dir, 'out', 'forecast.html');
    const result = await t.cli(['report', file, '--json', '--html', htmlFile]);
    expect(result.code, result.stderr).toBe(0);
    const view = JSON.parse(result.stdout) as ReportView;
    const tg = view.targetGroups.find((g) => g.key === 'us_gen_pop')!;
    expect(tg.forecast?.finish).toEqual(status.targetGroups.us_gen_pop.forecast?.finish);
    expect(tg.endFieldingAt).toBe(new Date(LIVE_END).toISOString());
    expect(tg.series.length).toBeGreaterThan(0);
    expect(view.forecast?.cost).toBeDefined();

    const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-chromium-'));
    let context: BrowserContext | undefined;
    try {
      context = await chromium.launchPersistentContext(userDataDir, { executablePath: chromiumExecutablePath(), headless: true, args: CHROMIUM_ARGS, viewport: { width: 1100, height: 900 } });
      await context.route('**/*', async (route) => (route.request().url().startsWith('file:') ? route.continue() : route.abort()));
      const page = await context.newPage();
      await page.goto(`file://${htmlFile}`);
      const chart = page.locator('section.tg[data-key="us_gen_pop"] svg.forecast-chart');
      await expect.poll(() => chart.count()).toBe(1);
      const t0 = Date.parse((await chart.getAttribute('data-t0'))!);
      const t1 = Date.parse((await chart.getAttribute('data-t1'))!);
      const yMax = Number(await chart.getAttribute('data-y-max'));
      const { width, height, left, right, top, bottom } = FORECAST_CHART;
      const plotW = width - left - right;
      const plotH = height - top - bottom;
      const x = (at: string) => left + ((Date.parse(at) - t0) / (t1 - t0)) * plotW;
      const y = (n: number) => top + plotH * (1 - n / yMax);
      const box = (await chart.boundingBox())!;
      const centre = async (selector: string) => {
        const b = (await chart.locator(selector).boundingBox())!;
        return { x: b.x + b.width / 2 - box.x, y: b.y + b.height / 2 - box.y, left: b.x - box.x, right: b.x + b.width - box.x, top: b.y - box.y, bottom: b.y + b.height - box.y };
      };
      // The scale reaches from the launch to past the end; the goal fits.
      expect(t0).toBeLessThanOrEqual(Date.parse(tg.series[0].t));
      expect(t1).toBeGreaterThanOrEqual(Date.parse(tg.endFieldingAt!));
      expect(yMax).toBeGreaterThanOrEqual(400);
      // One point per reading, drawn where its time and completes put it.
      await expect.poll(() => chart.locator('circle.point').count()).toBe(tg.series.length);
      for (const [i, reading] of tg.series.entries()) {
        const point = chart.locator('circle.point').nth(i);
        expect(await point.getAttribute('data-completes')).toBe(String(reading.completes));
        const b = (await point.boundingBox())!;
        expect(b.x + b.width / 2 - box.x).toBeCloseTo(x(reading.t), 0);
        expect(b.y + b.height / 2 - box.y).toBeCloseTo(y(reading.completes), 0);
      }
      // The band: from the launch with no completes up to the goal, between the earliest and the latest finish.
      const f = tg.forecast!;
      const band = await centre('polygon.band');
      expect(await chart.locator('polygon.band').getAttribute('data-earliest')).toBe(f.finish.earliest);
      expect(band.left).toBeCloseTo(x(f.from!.t), 0);
      expect(band.top).toBeCloseTo(y(400), 0);
      expect(band.bottom).toBeCloseTo(y(0), 0);
      expect(band.right).toBeCloseTo(x(f.finish.latest!), 0);
      // The finish marker at the expected finish, the end marker at end_fielding_at, finish before end.
      const finish = await centre('line.finish-marker');
      const end = await centre('line.end-marker');
      expect(await chart.locator('line.finish-marker').getAttribute('data-t')).toBe(f.finish.expected);
      expect(finish.x).toBeCloseTo(x(f.finish.expected!), 0);
      expect(end.x).toBeCloseTo(x(tg.endFieldingAt!), 0);
      expect(finish.x).toBeLessThan(end.x);
      // The totals of the study under the summary.
      const total = page.locator('table.forecast tr.study-total');
      expect(await total.textContent()).toContain(`costs ${view.forecast!.cost!.expected.value} USD`);
      expect(await page.locator('section.tg[data-key="us_gen_pop"] p.forecast-text').textContent()).toMatch(/^finishes .* · costs [\d.]+ USD/);

      const shot = process.env.STUDYFLOW_UPDATE_SCREENSHOTS === '1' ? path.join(REPO_ROOT, 'docs/images/report-forecast.png') : path.join(t.dir, 'report-forecast.png');
      await page.locator('section.tg[data-key="us_gen_pop"] div.forecast').screenshot({ path: shot });
      expect(fs.readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');

      // A fielding forecast needs an hour of readings, which this test's real time does not give: the same report
      // with two days of readings (100 completes a day) shows its band from the latest reading, as drawn here.
      const H = 3_600_000;
      const start = Date.parse(tg.series[0].t);
      const series = Array.from({ length: 9 }, (_, i) => ({ t: new Date(start + i * 6 * H).toISOString(), completes: i * 25 }));
      const now = series.at(-1)!;
      const endAt = new Date(start + 96 * H).toISOString();
      const fielding = forecastDuringFielding({ key: tg.key, goal: 400, end: endAt, now: now.t, series, spend: { value: '400.00', currency_code: 'USD' } });
      const longer: ReportView = { ...view, targetGroups: view.targetGroups.map((g) => (g.key === tg.key ? { ...g, series, endFieldingAt: endAt, forecast: fielding } : g)) };
      const longerFile = path.join(t.dir, 'out', 'forecast-fielding.html');
      fs.writeFileSync(longerFile, renderReportHtml(longer));
      await page.goto(`file://${longerFile}`);
      expect(await chart.getAttribute('data-basis')).toBe('fielding');
      const s0 = Date.parse((await chart.getAttribute('data-t0'))!);
      const s1 = Date.parse((await chart.getAttribute('data-t1'))!);
      const sMax = Number(await chart.getAttribute('data-y-max'));
      const sx = (at: string) => left + ((Date.parse(at) - s0) / (s1 - s0)) * plotW;
      const sy = (n: number) => top + plotH * (1 - n / sMax);
      const frame = (await chart.boundingBox())!;
      const b = (await chart.locator('polygon.band').boundingBox())!;
      expect(b.x - frame.x).toBeCloseTo(sx(now.t), 0);
      expect(b.x + b.width - frame.x).toBeCloseTo(sx(fielding.finish.latest!), 0);
      expect(b.y - frame.y).toBeCloseTo(sy(400), 0);
      expect(b.y + b.height - frame.y).toBeCloseTo(sy(now.completes), 0);
      await expect.poll(() => chart.locator('circle.point').count()).toBe(series.length);
      const marker = (await chart.locator('line.finish-marker').boundingBox())!;
      expect(marker.x + marker.width / 2 - frame.x).toBeCloseTo(sx(fielding.finish.expected!), 0);
    } finally {
      await context?.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    }
  });
});

describe('the launch rule require_forecast_before_end', () => {
  it('holds a target group whose forecast finishes after end_fielding_at, with the reason in status and StudyflowReason', async () => {
    const file = writeStudy(t.dir, 'held.yaml', HELD);
    const applied = await t.cli(['apply', file]);
    expect(applied.stdout + applied.stderr).not.toMatch(/\n\s+at /);
    const tg = await eventually(async () => {
      const s = await t.status('1001', 'forecast-gate');
      const g = s.targetGroups.gb_gen_pop;
      return g?.phase === 'gate_blocked' ? g : undefined;
    }, 60_000, 500);
    expect(tg.message).toMatch(new RegExp(`^the forecast finishes \\S+ \\(at the earliest \\S+\\), after end_fielding_at ${HELD_END} \\(require_forecast_before_end\\)$`));
    expect(tg.forecast).toMatchObject({ basis: 'feasibility', goal: 5000, finishesBeforeEnd: false });
    expect(Date.parse(tg.forecast!.finish.expected!)).toBeGreaterThan(Date.parse(HELD_END));
    // Feasible is not required: the forecast alone holds it.
    expect(tg.feasibility?.feasible).toBe(false);
    const handle = t.client.workflow.getHandle(targetGroupWorkflowId('1001', 'forecast-gate', 'gb_gen_pop'));
    await eventually(async () => ((await handle.describe()).typedSearchAttributes.get(REASON) === 'gate_blocked:forecast_after_end' ? true : undefined), 30_000, 500);
    // Nothing was launched.
    const remote = Object.values(t.stack.sandbox.state().target_groups).find((g) => g.target_group_customer_reference_number === 'forecast-gate_gb_gen_pop');
    expect(remote?.status).toBe('draft');
    const human = await t.cli(['status', file]);
    expect(human.stdout).toMatch(/gb_gen_pop\s+gate_blocked .*require_forecast_before_end/);
    expect(human.stdout).toMatch(/^ {2}gb_gen_pop: finishes .*, after end_fielding_at /m);
  });
});
