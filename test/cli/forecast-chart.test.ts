// The report's forecast chart (cli/forecast-chart.ts) for a fielding forecast, which a test on real time cannot
// reach (it needs an hour of readings): the band from the latest reading to the goal between the earliest and
// the latest finish, cut at the chart's edge when the low rate is zero; the markers; the forecast table.
// test/integration/forecast.test.ts renders a live study's chart in Chromium.
import { describe, expect, it } from 'vitest';
import { FORECAST_CHART, forecastCaption, forecastChart, forecastTable } from '../../cli/forecast-chart';
import type { ReportView, TargetGroupReportView } from '../../client/report-model';
import { forecastDuringFielding, forecastStudy } from '../../plan/forecast';

const H = 3_600_000;
const T0 = Date.parse('2026-11-20T00:00:00.000Z');
const at = (h: number) => new Date(T0 + h * H).toISOString();
const END = at(96);

function view(series: { t: string; completes: number }[]): TargetGroupReportView {
  const forecast = forecastDuringFielding({ key: 'us', goal: 400, end: END, now: series.at(-1)!.t, series, spend: { value: String(series.at(-1)!.completes * 2), currency_code: 'USD' } });
  return { key: 'us', fillingGoal: 400, series, endFieldingAt: END, forecast } as unknown as TargetGroupReportView;
}

/** The chart's scale, read back from its attributes, and its marks. */
function read(svg: string) {
  const attr = (name: string) => svg.match(new RegExp(`<svg [^>]*${name}="([^"]+)"`))![1];
  const t0 = Date.parse(attr('data-t0'));
  const t1 = Date.parse(attr('data-t1'));
  const yMax = Number(attr('data-y-max'));
  const { width, left, right, top, height, bottom } = FORECAST_CHART;
  const x = (t: string) => left + ((Date.parse(t) - t0) / (t1 - t0)) * (width - left - right);
  const y = (n: number) => top + (height - top - bottom) * (1 - n / yMax);
  const band = svg.match(/<polygon class="band"[^>]* points="([^"]+)"/)![1].split(' ').map((p) => p.split(',').map(Number));
  return { t0, t1, yMax, x, y, band };
}

describe('the forecast chart of a fielding target group', () => {
  it('draws each reading, the band from the latest reading to the goal, and the markers', () => {
    // 100 completes a day for two days.
    const tg = view(Array.from({ length: 9 }, (_, i) => ({ t: at(i * 6), completes: i * 25 })));
    const f = tg.forecast!;
    expect(f.basis).toBe('fielding');
    const svg = forecastChart(tg, '#2563eb');
    const { x, y, band } = read(svg);
    const points = [...svg.matchAll(/<circle class="point" data-t="([^"]+)" data-completes="(\d+)" cx="([\d.]+)" cy="([\d.]+)"/g)];
    expect(points.map((p) => [p[1], Number(p[2])])).toEqual(tg.series.map((p) => [p.t, p.completes]));
    for (const p of points) {
      expect(Number(p[3])).toBeCloseTo(x(p[1]), 1);
      expect(Number(p[4])).toBeCloseTo(y(Number(p[2])), 1);
    }
    // From the latest reading (200 at 48 h) up to the goal at the earliest finish (upper edge), then back down from
    // the goal at the latest finish (lower edge).
    expect(band[0]).toEqual([Number(x(at(48)).toFixed(2)), Number(y(200).toFixed(2))]);
    const atGoal = band.filter(([, py]) => Math.abs(py - y(400)) < 0.01).map(([px]) => px);
    expect(Math.min(...atGoal)).toBeCloseTo(x(f.finish.earliest!), 1);
    expect(Math.max(...atGoal)).toBeCloseTo(x(f.finish.latest!), 1);
    expect(band.at(-1)).toEqual(band[0]);
    expect(svg).toContain(`<line class="finish-marker" data-t="${f.finish.expected}"`);
    expect(svg).toMatch(new RegExp(`<line class="end-marker" data-t="${END}" x1="${x(END).toFixed(2).replace(/\.?0+$/, '')}"`));
    expect(forecastCaption(tg)).toContain(`finishes 2026-11-24 00:00 UTC`);
  });

  it('cuts the band at the edge when the low rate is zero (no latest finish)', () => {
    // Two completes in the last two days: the low end of the band is zero.
    const tg = view([{ t: at(0), completes: 0 }, { t: at(48), completes: 2 }]);
    expect(tg.forecast!.finish.latest).toBeUndefined();
    const svg = forecastChart(tg, '#2563eb');
    expect(svg).toContain('data-cut="true"');
    const { t1, x, y, band } = read(svg);
    // The lower edge stays at the completes so far, to the chart's right edge.
    expect(band).toContainEqual([Number(x(new Date(t1).toISOString()).toFixed(2)), Number(y(2).toFixed(2))]);
    expect(svg).toContain('no latest finish');
  });

  it('says why there is no chart or no forecast, and totals the study', () => {
    const empty = { key: 'uk', fillingGoal: 100, series: [], endFieldingAt: null, forecast: null } as unknown as TargetGroupReportView;
    expect(forecastChart(empty, '#000')).toContain('No readings yet');
    expect(forecastCaption(empty)).toContain('No forecast yet');
    const us = view(Array.from({ length: 9 }, (_, i) => ({ t: at(i * 6), completes: i * 25 })));
    const table = forecastTable({ targetGroups: [us, empty], forecast: forecastStudy([us.forecast!]) } as unknown as ReportView);
    expect(table).toContain('<tr data-key="uk"><td>uk</td><td>no forecast yet</td>');
    expect(table).toMatch(/<tr class="study-total"><th>study<\/th><th>finishes 2026-11-24 00:00 UTC/);
  });
});
