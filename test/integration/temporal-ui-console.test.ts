// The operator's console in the Temporal UI (docs/operations.md, "The operator's console"): a live study on
// the sandbox's fielding simulation, on a Temporal dev server of this file's own with its UI. The saved
// views' list queries find the target group's workflow by its typed search attributes (fill, spend,
// currency, end date, phase, reason), through the client's list and count; then the UI's workflow list,
// opened with the same query in headless Chromium, shows that workflow and, as columns, its figures. With STUDYFLOW_UPDATE_SCREENSHOTS=1
// the page's screenshot is written to docs/images/temporal-ui-console.png (which operations.md embeds).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedStack, type EmbeddedStack } from '../../dev/embedded-stack';
import { findFreePort } from '../../dev/free-port';
import { startTemporalDevServer, type RunningDevServer } from '../../dev/temporal-dev-server';
import { CHROMIUM_ARGS, chromiumExecutablePath } from '../../scripts/chromium.mjs';
import { connectClient } from '../../temporal/temporal-connection';
import { targetGroupReportQuery, targetGroupWorkflowId } from '../../workflows/messages';
import { CURRENCY, END_FIELDING_AT, FILL_PERCENT, PHASE, REASON, SPEND } from '../../workflows/search-attributes';
import { testProfile } from '../helpers/test-profile';
import { sampleFields } from '../helpers/study-yaml';
import { eventually, REPO_ROOT, runCli, tearDownPrivateStack, writeStudy } from './harness';

const DAY_MS = 86_400_000;
const GOAL = 400;
/** Two days from now, to the second: the "under half full with three days left" view finds it. */
const END = new Date(Math.floor((Date.now() + 2 * DAY_MS) / 1000) * 1000).toISOString().replace('.000Z', 'Z');

const STUDY = `format: studyflow/v1
study: ui-console
account: "1001"
business_unit: "2001"
project:
  name: Operator's console
defaults:
${sampleFields('  ', { incidenceRate: 0.5, lengthOfInterviewMinutes: 10 })}
  launch: { mode: auto, require_feasible: false }
  timing: { job_poll_initial: 100ms, job_poll_max: 300ms }
target_groups:
  us_gen_pop:
    locale: en_US
    live_url: https://survey.example.com/s/us?rid=[%RID%]
    filling_goal: ${GOAL}
    end_fielding_at: ${END}
`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-ui-console-'));
const taskQueue = `test-ui-console-${Math.random().toString(36).slice(2, 8)}`;
let temporal: RunningDevServer;
let stack: EmbeddedStack;
let client: Client;
let connection: Connection;
let env: Record<string, string>;
/** The fill and spend the first test saw the workflow hold (the UI's columns show them). */
let fill: number;
let spend: number;

async function sandboxAdmin(method: string, route: string, body: unknown): Promise<void> {
  const res = await fetch(`${stack.sandbox.baseUrl}/_sandbox${route}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, `${method} ${route}`).toBe(200);
}

beforeAll(async () => {
  temporal = await startTemporalDevServer({ dbFile: path.join(dir, 'temporal', 'temporal.sqlite'), uiPort: await findFreePort(), stopWithParent: true });
  stack = await startEmbeddedStack({ stateDir: dir, temporalAddress: temporal.address, taskQueue, sandboxPort: 0, apiProfile: testProfile() });
  env = { ...stack.env, STUDYFLOW_WATCH_INTERVAL_MS: '1000', NO_COLOR: '1' };
  ({ client, connection } = await connectClient({ address: temporal.address, namespace: 'default', connectionOptions: {} }, env));
  // Slow enough that the goal is not reached while the test reads.
  await sandboxAdmin('PUT', '/fielding/settings', { speed: 6, auto_advance: false });
});
afterAll(async () => {
  await connection?.close();
  await tearDownPrivateStack({ temporal, taskQueue, stack, dir });
});

describe("the operator's console", () => {
  const workflowId = targetGroupWorkflowId('1001', 'ui-console', 'us_gen_pop');
  /** The saved view "under half full with three days left", with its date filled in as docs/operations.md says. */
  const underHalfFull = () => `StudyflowFillPercent < 50 AND StudyflowEndFieldingAt < '${new Date(Date.now() + 3 * DAY_MS).toISOString()}' AND ExecutionStatus = 'Running'`;

  it('finds a live target group by its typed search attributes, with the figures of its latest reading', async () => {
    const file = writeStudy(dir, 'study.yaml', STUDY);
    const applied = await runCli(env, ['apply', file, '--require-live']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    await sandboxAdmin('POST', '/fielding/advance', { minutes: 2 });
    await sandboxAdmin('PUT', '/fielding/settings', { speed: 0.001 });

    // The attributes of one reading: the fill and spend the workflow's own report holds.
    const handle = client.workflow.getHandle(workflowId);
    const shown = await eventually(async () => {
      const report = await handle.query(targetGroupReportQuery);
      const sa = (await handle.describe()).typedSearchAttributes;
      const completes = report.performance?.completes ?? 0;
      if (completes === 0 || sa.get(FILL_PERCENT) !== Math.round((completes / GOAL) * 1000) / 10) return undefined;
      return { report, sa };
    }, 60_000, 500);
    const cost = shown.report.performance!.completesCost!;
    expect(shown.sa.get(SPEND)).toBe(Number(cost.value));
    expect(shown.sa.get(CURRENCY)).toBe(cost.currency_code);
    expect(shown.sa.get(PHASE)).toBe('live');
    expect(shown.sa.get(REASON)).toBeUndefined();
    expect(shown.sa.get(END_FIELDING_AT)?.toISOString()).toBe(new Date(END).toISOString());
    expect(shown.sa.get(FILL_PERCENT)).toBeLessThan(50);
    fill = shown.sa.get(FILL_PERCENT)!;
    spend = shown.sa.get(SPEND)!;
    // Current details (what the UI shows on the workflow's page) say the same in words.
    const details = await eventually(async () => {
      const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      return metadata.currentDetails?.includes(`(${shown.report.performance!.completes}/${GOAL})`) ? metadata.currentDetails : undefined;
    }, 30_000, 500);
    // Minutes of readings: the forecast is the launch gate's (from feasibility), with its range.
    expect(details).toMatch(new RegExp(`^\\*\\*us_gen_pop\\*\\*: live\n\nfill ${shown.sa.get(FILL_PERCENT)!.toFixed(1)}% \\(${shown.report.performance!.completes}/${GOAL}\\) · spend ${Number(cost.value).toFixed(2)} ${cost.currency_code} · forecast end \\S+Z, \\S+Z to \\S+Z$`));

    // The saved views' list queries, through visibility (which follows the workflow within a second or so).
    const views = [
      "StudyflowPhase = 'live' AND StudyflowFillPercent >= 0",
      `StudyflowStudy = 'ui-console' AND StudyflowSpend > 0 AND StudyflowCurrency = '${cost.currency_code}'`,
      underHalfFull(),
      "StudyflowStudy = 'ui-console' AND StudyflowTargetGroup IS NOT NULL AND StudyflowReason IS NULL",
      // Minutes of readings: the launch gate's forecast, before the end.
      `StudyflowPhase = 'live' AND StudyflowForecastEnd IS NOT NULL AND StudyflowForecastEnd < '${new Date(END).toISOString()}'`,
    ];
    for (const query of views) {
      const ids = await eventually(async () => {
        const found: string[] = [];
        for await (const wf of client.workflow.list({ query })) found.push(wf.workflowId);
        return found.includes(workflowId) ? found : undefined;
      }, 30_000, 500);
      expect(ids, query).toEqual([workflowId]);
      expect((await client.workflow.count(query)).count, query).toBe(1);
    }
    // And the views it is not in (each accepted by the server): blocked, guarded, drifting, failed, half full, spend over a sum it cannot reach, late.
    const views0 = [
      "StudyflowPhase = 'gate_blocked' AND ExecutionStatus = 'Running'",
      "StudyflowReason STARTS_WITH 'gate_blocked:'",
      "StudyflowReason STARTS_WITH 'guard:'",
      "StudyflowReason STARTS_WITH 'drift:' AND ExecutionStatus = 'Running'",
      "StudyflowReason STARTS_WITH 'failed:'",
      'StudyflowFillPercent >= 50',
      // More than the whole goal could cost at a thousand a complete (sessions still in the survey may add a few completes meanwhile).
      `StudyflowSpend > ${GOAL * 1000}`,
      `StudyflowForecastEnd > '${END}' AND ExecutionStatus = 'Running'`,
    ];
    for (const query of views0) {
      expect((await client.workflow.count(query)).count, query).toBe(0);
    }
  });

  it("the Temporal UI's workflow list, opened with a saved view's query, shows the target group", async () => {
    const query = `StudyflowStudy = 'ui-console' AND StudyflowPhase = 'live' AND StudyflowFillPercent >= 0 AND StudyflowFillPercent < 50`;
    const url = `${temporal.uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(query)}`;
    const executablePath = chromiumExecutablePath();
    const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studyflow-chromium-'));
    let context: BrowserContext | undefined;
    try {
      context = await chromium.launchPersistentContext(userDataDir, { executablePath, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1920, height: 640 } });
      const page = await context.newPage();
      await page.goto(url);
      // The row links to the workflow; the study's own workflow does not match the query.
      const row = page.locator(`a[href*="${encodeURIComponent(workflowId)}"]`).first();
      await row.waitFor({ state: 'visible', timeout: 60_000 });
      expect(await row.textContent()).toContain(workflowId);
      // The UI counts what the query matches: this one workflow, not the study's own (it has no fill).
      await expect.poll(async () => /(^|\n)1\s+Workflow\n/.test(await page.locator('body').innerText()), { timeout: 30_000 }).toBe(true);
      const lines = (await page.locator('body').innerText()).split(/[\n\t]/).map((cell) => cell.trim());
      expect(lines).toContain(workflowId);
      expect(lines).not.toContain('study/1001/ui-console');
      // The console's attributes as columns (the table's configuration drawer), with the figures the workflow holds.
      await page.getByTestId('workflows-summary-table-configuration-button').click();
      for (const name of ['StudyflowPhase', 'StudyflowReason', 'StudyflowFillPercent', 'StudyflowSpend', 'StudyflowCurrency', 'StudyflowEndFieldingAt']) {
        await page.getByTestId(`orderable-list-item-${name}-add-button`).click();
      }
      for (const name of ['Run ID', 'Type', 'Start', 'End']) await page.getByTestId(`orderable-list-item-${name}-remove-button`).click();
      await page.getByTestId('drawer-close-button').click();
      await page.getByTestId('drawer-close-button').waitFor({ state: 'hidden' });
      // The row by column: the figures are those of a reading (sessions still in the survey may add a complete
      // between the first test's reading and this page's load, so between that and the workflow's latest).
      const rowByColumn = async () => {
        const headers = (await page.locator('table thead th').allInnerTexts()).map((t) => t.trim());
        const cells = (await page.locator('table tbody tr').first().locator('td').allInnerTexts()).map((t) => t.trim());
        return Object.fromEntries(headers.map((h, i) => [h, cells[i]]));
      };
      const shownRow = await eventually(async () => {
        const r = await rowByColumn();
        return r.StudyflowFillPercent ? r : undefined;
      }, 30_000, 250);
      const latest = (await client.workflow.getHandle(workflowId).describe()).typedSearchAttributes;
      expect(shownRow).toMatchObject({ 'Workflow ID': workflowId, StudyflowPhase: 'live', StudyflowReason: '', StudyflowCurrency: 'USD' });
      for (const [column, first, last] of [['StudyflowFillPercent', fill, latest.get(FILL_PERCENT)!], ['StudyflowSpend', spend, latest.get(SPEND)!]] as const) {
        expect(Number(shownRow[column]), column).toBeGreaterThanOrEqual(first);
        expect(Number(shownRow[column]), column).toBeLessThanOrEqual(last);
      }
      expect(shownRow.StudyflowEndFieldingAt).toMatch(/^\d{4}-\d{2}-\d{2}/);
      await expect.poll(() => page.getByText('Configure Workflows Table').isVisible()).toBe(false);
      const shot = process.env.STUDYFLOW_UPDATE_SCREENSHOTS === '1' ? path.join(REPO_ROOT, 'docs/images/temporal-ui-console.png') : path.join(dir, 'temporal-ui-console.png');
      fs.mkdirSync(path.dirname(shot), { recursive: true });
      await page.screenshot({ path: shot });
      expect(fs.readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
    } finally {
      await context?.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    }
  });
});
