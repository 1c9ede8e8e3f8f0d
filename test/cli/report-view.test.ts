// The report's figures (client/report-model.ts) and their human and HTML renderings, from a fixed
// `report` query answer.
import { describe, expect, it } from 'vitest';
import { Output } from '../../cli/output';
import { BAR_TRACK_WIDTH, barChart, CHART, completesChart, escapeHtml, niceCeil, renderReportHtml } from '../../cli/report-html';
import { renderReportHuman } from '../../cli/report-human';
import { buildReportView, percent } from '../../client/report-model';
import type { PerformanceSnapshot, StudyReport, TargetGroupStatus } from '../../workflows/messages';

const at = (minute: number) => new Date(Date.UTC(2026, 2, 2, 12, minute)).toISOString();

function status(key: string, patch: Partial<TargetGroupStatus> = {}): TargetGroupStatus {
  return { key, phase: 'live', targetGroupId: `tg_${key}`, events: { received: 0, sessionsByStatus: {} }, updatedAt: at(9), ...patch };
}

const REPORT: StudyReport = {
  studyId: 'acme',
  accountId: '1001',
  phase: 'converged',
  revision: 'abc',
  appliedRevision: 'abc',
  projectId: 'prj_1',
  updatedAt: at(9),
  targetGroups: {
    us: {
      status: status('us', { price: { value: '2.65', currency_code: 'USD' }, drift: [{ field: 'name', expected: 'US', actual: 'USA' }], events: { received: 4, lastType: 'com.svc.session.updated', sessionsByStatus: { Terminate: 2, Complete: 5 }, reconciled: { Terminate: 1 } } }),
      report: {
        key: 'us',
        expected: { incidenceRate: 0.5, lengthOfInterviewMinutes: 10, fillingGoal: 400 },
        launchedAt: at(0),
        series: [{ t: at(1), completes: 0 }, { t: at(5), completes: 30 }, { t: at(9), completes: 60 }],
        performance: {
          readAt: at(9),
          phase: 'live',
          entrants: 200,
          prescreens: 110,
          completes: 60,
          completesCost: { value: '159.00', currency_code: 'USD' },
          firstComplete: at(2),
          lastComplete: at(9),
          incidenceRate: 0.6,
          conversionRate: 0.3,
          dropOffRate: 0.02,
          respondents: [
            { status: 'In Survey', label: 'In survey', count: 4 },
            { status: 'Terminate', count: 40 },
            { status: 'Complete', label: 'Completed <b>', count: 60 },
            { status: 'OverQuota', count: 5 },
            { status: 'Custom', count: 1 },
          ],
        },
        changes: [{ seq: 1, time: at(0), kind: 'phase', detail: 'launching -> live' }],
      },
    },
    de: { status: status('de', { phase: 'gate_blocked', message: 'infeasible' }) },
  },
};

const view = buildReportView(REPORT, 'study/1001/acme', at(10));
const us = view.targetGroups.find((g) => g.key === 'us')!;
const de = view.targetGroups.find((g) => g.key === 'de')!;

describe('report figures', () => {
  it('derives fill, remaining (labelled derived), cost per complete, statuses in the spec order, and reads the API\'s rates', () => {
    expect(view.targetGroups.map((g) => g.key)).toEqual(['de', 'us']);
    expect(us).toMatchObject({
      entrants: 200, prescreens: 110, completes: 60, fillingGoal: 400, fillPercent: 15,
      remaining: { value: 340, basis: "derived: the study's filling_goal 400 less 60 completes" },
      firstComplete: at(2), lastComplete: at(9), conversionRate: 0.3, dropOffRate: 0.02,
      costPerComplete: { value: '2.65', currency_code: 'USD' }, predictedCpi: { value: '2.65', currency_code: 'USD' },
    });
    expect(us.respondents.map((r) => [r.status, r.count, r.percentOfEntrants])).toEqual([['Complete', 60, 30], ['Terminate', 40, 20], ['OverQuota', 5, 2.5], ['In Survey', 4, 2], ['Custom', 1, 0.5]]);
    expect(us.respondents[0].label).toBe('Completed <b>');
    expect(us.respondents[1].label).toBe('Terminate');
    expect(us.incidence).toEqual({ expected: 0.5, observed: 0.6, basis: 'incidence_rate of the performance reading' });
    expect(us.lengthOfInterview).toMatchObject({ expected: 10, observed: null });
    expect(us.note).toBeNull();
    // Nothing the API's performance does not give: no API status or sessions in progress. The quotas come from the
    // watch's list_profiles read (the status's `quotas`), which this status has not.
    for (const gone of ['completesByStatus', 'inProgress', 'status']) expect(us).not.toHaveProperty(gone);
    expect(us.quotas).toBeNull();
  });

  it('says why a target group has no figures', () => {
    expect(de).toMatchObject({ completes: null, fillPercent: null, remaining: { value: null }, note: 'not launched: no fielding figures', series: [] });
    const failing = buildReportView({ ...REPORT, targetGroups: { us: { status: status('us'), report: { ...REPORT.targetGroups.us.report!, performanceError: 'timed out' } } } }, 'w', at(10));
    expect(failing.targetGroups[0].note).toBe('the last performance read failed: timed out');
    expect(percent(1, 0)).toBeNull();
  });

  it('never derives remaining below zero, nor without a goal', () => {
    const over = buildReportView({ ...REPORT, targetGroups: { us: { status: status('us'), report: { ...REPORT.targetGroups.us.report!, expected: { fillingGoal: 50 } } } } }, 'w', at(10));
    expect(over.targetGroups[0].remaining.value).toBe(0);
    const noGoal = buildReportView({ ...REPORT, targetGroups: { us: { status: status('us'), report: { ...REPORT.targetGroups.us.report!, expected: {} } } } }, 'w', at(10));
    expect(noGoal.targetGroups[0].remaining).toEqual({ value: null, basis: 'the study file declares no filling_goal' });
  });

  it('reads a snapshot of the earlier shape (held by a workflow started before) without failing', () => {
    const old = { readAt: at(9), status: 'live', fillingGoal: 400, completes: 60, completesByStatus: { Terminate: 40, Complete: 60 }, inProgress: 4, prescreens: 110, completesCost: { value: '159.00', currency_code: 'USD' }, quotas: [{ profileId: 'p', targetId: 't', completes: 3 }] };
    const report = { ...REPORT.targetGroups.us.report!, performance: old as unknown as PerformanceSnapshot };
    const tg = buildReportView({ ...REPORT, targetGroups: { us: { status: status('us'), report } } }, 'w', at(10)).targetGroups[0];
    expect(tg).toMatchObject({ completes: 60, prescreens: 110, entrants: null, fillingGoal: 400, remaining: { value: 340 }, costPerComplete: { value: '2.65' }, incidence: { observed: null } });
    expect(tg.respondents.map((r) => [r.status, r.count, r.percentOfEntrants])).toEqual([['Complete', 60, null], ['Terminate', 40, null]]);
    const view = { ...buildReportView({ ...REPORT, targetGroups: { us: { status: status('us'), report } } }, 'w', at(10)) };
    expect(renderReportHuman(new Output({ stdout: process.stdout, stderr: process.stderr }, { NO_COLOR: '1' }), view)).toContain('entrants -, prescreens 110');
    expect(renderReportHtml(view)).toContain('Respondents by status');
    // Not a snapshot at all: no figures, no failure.
    const broken = buildReportView({ ...REPORT, targetGroups: { us: { status: status('us'), report: { ...report, performance: 'x' as unknown as PerformanceSnapshot } } } }, 'w', at(10));
    expect(broken.targetGroups[0]).toMatchObject({ completes: null, note: 'no performance read yet (the workflow reads it every watch interval)' });
  });
});

describe('human report', () => {
  const text = renderReportHuman(new Output({ stdout: process.stdout, stderr: process.stderr }, { NO_COLOR: '1' }), view);

  it('has the summary table and a section per target group', () => {
    expect(text.split('\n')[0]).toBe('study acme (account 1001): converged, revision abc (applied), project prj_1');
    expect(text).toMatch(/^us\s+live\s+60\s+400\s+15\.0%\s+159\.00 USD\s+0\.6 \/ 0\.5\s+- \/ 10$/m);
    expect(text).toMatch(/^de\s+gate_blocked\s+-\s+-\s+-\s+-\s+- \/ -\s+- \/ -$/m);
    expect(text).toContain("  completes 60 of 400 (15.0%); remaining 340 (derived: the study's filling_goal 400 less 60 completes)");
    expect(text).toContain('  entrants 200, prescreens 110; conversion 30.0%, drop-off 2.0%');
    expect(text).toContain(`  first complete ${at(2)}, last complete ${at(9)}`);
    expect(text).toContain('  respondents by status: Complete 60, Terminate 40, OverQuota 5, In Survey 4, Custom 1');
    expect(text).toContain('  incidence observed / expected: 0.6 / 0.5 (incidence_rate of the performance reading)');
    expect(text).not.toMatch(/quota fill|in progress/);
    expect(text).toContain(`  completes over time: 3 reading(s), 0 at ${at(1)} to 60 at ${at(9)}`);
    expect(text).toContain(`    ${at(0)}  phase  launching -> live`);
    expect(text).toContain('  drift now: name (API "USA", file "US")');
    expect(text).toContain('  webhook events: 4 received (last com.svc.session.updated); sessions: Complete 5, Terminate 2; reconciled: Terminate 1');
  });
});

describe('HTML report', () => {
  const html = renderReportHtml(view);

  it('is one document without scripts, external resources or unescaped text', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script|<link|@import|@font-face|url\(|src=/i);
    expect(html).toContain('Completed &lt;b&gt;');
    expect(html).not.toContain('Completed <b>');
    expect(escapeHtml(`"'<&>`)).toBe('&quot;&#39;&lt;&amp;&gt;');
  });

  it('draws the funnel and the respondents by status as shares of the entrants, and the rates and remaining as text', () => {
    const section = html.slice(html.indexOf('<section class="tg" id="tg-us"'));
    const fills = (cls: string) => [...new RegExp(`<svg class="bars ${cls}"[\\s\\S]*?</svg>`).exec(section)![0].matchAll(/data-label="([^"]*)" data-value="(\d+)" data-whole="(\d*)" data-fill="([^"]*)"/g)].map((m) => [m[1], Number(m[2]), m[4]]);
    expect(fills('funnel-bars')).toEqual([['entrants', 200, '100'], ['prescreens', 110, '55'], ['completes', 60, '30']]);
    expect(fills('status-bars')).toEqual([['Complete', 60, '30'], ['Terminate', 40, '20'], ['OverQuota', 5, '2.5'], ['In Survey', 4, '2'], ['Custom', 1, '0.5']]);
    expect(section).toContain('<td class="conversion">30.0%</td>');
    expect(section).toContain('<td class="drop-off">2.0%</td>');
    expect(section).toContain('remaining 340 (derived: the study&#39;s filling_goal 400 less 60 completes)');
    expect(section).not.toMatch(/quota-bars|Quota fill/);
  });

  it('draws bars as the share of the track, capped at the track, with the figures as data', () => {
    const svg = barChart([{ label: 'a', value: 25, whole: 200, text: '25 / 200' }, { label: 'b', value: 35, whole: 20, text: 'over' }, { label: 'c', value: 3, whole: null, text: 'no goal' }], { title: 't', cls: 'x' });
    const widths = [...svg.matchAll(/class="fill" [^>]*width="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(widths).toEqual([BAR_TRACK_WIDTH * 0.125, BAR_TRACK_WIDTH, 0]);
    expect([...svg.matchAll(/data-fill="([^"]*)"/g)].map((m) => m[1])).toEqual(['12.5', '175', '']);
    expect(svg).toContain('class="bar over"');
  });

  it('draws one vertex per reading on a nice scale', () => {
    expect([0, 1, 7, 10, 11, 26, 60, 101, 2400].map(niceCeil)).toEqual([1, 1, 10, 10, 20, 50, 100, 200, 2500]);
    const chart = completesChart(view.targetGroups);
    expect(chart).toContain('data-y-max="100"');
    const points = /<polyline class="line" data-key="us" data-points="3" data-last="60" points="([^"]+)"/.exec(chart)![1].split(' ').map((p) => p.split(',').map(Number));
    const plotW = CHART.width - CHART.left - CHART.right;
    const plotH = CHART.height - CHART.top - CHART.bottom;
    const expected = [
      [CHART.left, CHART.top + plotH],
      [CHART.left + plotW / 2, CHART.top + plotH * 0.7],
      [CHART.left + plotW, CHART.top + plotH * 0.4],
    ];
    expect(points).toHaveLength(3);
    points.forEach(([x, y], i) => {
      expect(x).toBeCloseTo(expected[i][0], 2);
      expect(y).toBeCloseTo(expected[i][1], 2);
    });
    expect(chart).not.toContain('data-key="de"');
    expect(completesChart([de])).toContain('No performance readings yet');
  });
});
