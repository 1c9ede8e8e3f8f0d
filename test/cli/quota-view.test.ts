// Quotas in view (issue 38): `studyflow status` and the human report print a table per target group with quotas
// (each quota's completes against its goal, its fill, and its forecast at the end date: a quota behind with its
// shortfall); the report's model carries the status's quotas; the HTML page shows the same table, a quota behind
// marked. The text block is a golden (UPDATE_GOLDEN=1 rewrites it).
import { describe, expect, it } from 'vitest';
import { endDateText, quotaForecastText, quotaLines } from '../../cli/forecast-view';
import { Output } from '../../cli/output';
import { renderReportHtml } from '../../cli/report-html';
import { renderReportHuman } from '../../cli/report-human';
import { buildReportView } from '../../client/report-model';
import type { QuotaPace } from '../../plan/quotas';
import type { StudyReport, TargetGroupStatus } from '../../workflows/messages';
import { quotaView } from '../../workflows/target-group/quotas';
import { expectGolden } from './golden';

const plain = new Output({ stdout: { write: () => true } as never, stderr: { write: () => true } as never }, { NO_COLOR: '1' });
const AT = '2027-04-06T00:00:05.000Z';
const PACE: QuotaPace = { now: '2027-04-06T00:00:00.000Z', end: '2027-04-26T00:00:00.000Z', completes: 200, ratePerDay: { expected: 10, low: 8, high: 12 } };
// 20 days at 10 a day: 18-34 (75% of the completes) fills; 35-54 (20%) reaches 80 of 350; 55+ (5%) 20 of 350.
const QUOTAS = quotaView(
  {
    quotas: [
      { profile: 'Age', quota: 'age 18-34', goal: 300, completes: 150, prescreens: 400 },
      { profile: 'Age', quota: 'age 35-54', goal: 350, completes: 40, prescreens: 90 },
      { profile: 'Age', quota: 'age 55+', goal: 350, completes: 10, prescreens: 30 },
      { profile: 'Region', quota: 'north', goal: 100, completes: 100 },
    ],
    notReported: 0,
  },
  PACE,
  AT,
);

const tg = (key: string, patch: Partial<TargetGroupStatus> = {}): TargetGroupStatus => ({ key, phase: 'live', targetGroupId: `tg_${key}`, events: { received: 0, sessionsByStatus: {} }, updatedAt: AT, ...patch });

describe('a quota\'s forecast in words', () => {
  it('behind with its shortfall and end date, on track, full, or why there is none', () => {
    const [young, middle, old, north] = QUOTAS.cells;
    expect(quotaForecastText(old, PACE.end)).toBe('behind: short by 330 (94.3%) by 2027-04-26, forecast 20 of 350');
    expect(quotaForecastText(middle, PACE.end)).toBe('behind: short by 270 (77.1%) by 2027-04-26, forecast 80 of 350');
    expect(quotaForecastText(young, PACE.end)).toBe('on track: 300 of 300 by 2027-04-26');
    expect(quotaForecastText(north, PACE.end)).toBe('full');
    expect(quotaForecastText({ ...old, basis: 'no_share', completesByEnd: undefined, shortfall: undefined }, PACE.end)).toBe('no forecast yet (no complete in the target group)');
    expect(endDateText('2027-04-26T18:30:00.000Z')).toBe('2027-04-26 18:30 UTC');
  });
});

describe('the quota block of status and the report', () => {
  it('one table per target group with quotas read (golden); nothing for one without', () => {
    const lines = quotaLines(plain, [tg('us', { quotas: QUOTAS }), tg('uk'), tg('de', { quotas: { readAt: AT, cells: [], error: 'list_profiles answered 503', failedAt: AT } })]);
    expectGolden('status-quotas', `${lines.join('\n')}\n`);
    expect(lines.join('\n')).toContain('Age / age 55+');
    expect(lines.join('\n')).not.toMatch(/\buk\b/);
    expect(quotaLines(plain, [tg('uk')])).toEqual([]);
  });

  it('says how many quotas were left out and how many the exchange did not report', () => {
    const lines = quotaLines(plain, [tg('us', { quotas: { ...QUOTAS, omitted: 12, notReported: 2 } })]).join('\n');
    expect(lines).toContain('12 more quota(s) not shown (the 4 most behind are)');
    expect(lines).toContain("2 quota(s) without completes in the exchange's answer");
    expect(lines).toMatch(/us: 16 quota\(s\) read/);
  });
});

const report = (status: TargetGroupStatus): StudyReport => ({ studyId: 'acme', accountId: '1001', phase: 'converged', updatedAt: AT, targetGroups: { [status.key]: { status } } });

describe('quotas in the report', () => {
  const view = buildReportView(report(tg('us', { quotas: QUOTAS })), 'study/1001/acme', AT);
  it('the model carries the status\'s quotas', () => {
    expect(view.targetGroups[0].quotas).toEqual(QUOTAS);
  });
  it('the human report prints the quota block', () => {
    const text = renderReportHuman(plain, view);
    expect(text).toContain('quotas:');
    expect(text).toMatch(/Age \/ age 55\+\s+10\s+350\s+2\.9%\s+behind: short by 330 \(94\.3%\) by 2027-04-26/);
  });
  it('the HTML page has a quota table per target group, a quota behind marked with its shortfall', () => {
    const html = renderReportHtml(view);
    const table = /<table class="figures quotas" data-key="us">[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    expect(table).toContain('<tr data-quota="Age / age 55+" class="behind"><th>Age / age 55+</th><td class="num">10</td><td class="num">350</td><td class="num">2.9%</td><td class="quota-forecast">behind: short by 330 (94.3%) by 2027-04-26, forecast 20 of 350</td></tr>');
    expect(table).toContain('<tr data-quota="Age / age 18-34"><th>');
    expect(html).toContain('forecast to 2027-04-26 · 2 behind');
    expect(renderReportHtml(buildReportView(report(tg('us')), 'study/1001/acme', AT))).not.toContain('class="figures quotas"');
  });
});
