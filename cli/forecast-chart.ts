// The report's forecast (`studyflow report --html`): per target group a chart of its completes over time with the
// forecast band, and the study's totals in a table. The chart draws the watch's readings (one point each), from
// the point the forecast projects from (the launch while fielding has under an hour of readings, else the latest
// reading) a band to the goal (upper edge: the high rate, reaching the goal at the earliest finish; lower
// edge: the low rate, at the latest finish), the expected line to the expected finish, and markers at the
// expected finish and at end_fielding_at. Every mark carries its figures as data attributes (data-t,
// data-completes, data-finish, ...), and the chart its scale (data-t0, data-t1, data-y-max), so a browser test
// can compare what is drawn with the JSON report.
import type { ReportView, TargetGroupReportView } from '../client/report-model';
import type { TargetGroupForecast } from '../plan/forecast';
import { costText, finishText, forecastTime, targetGroupForecastParts } from './forecast-view';

export const FORECAST_CHART = { width: 760, height: 280, left: 56, right: 16, top: 16, bottom: 40 };

const esc = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
const fixed = (n: number) => String(Math.round(n * 100) / 100);
const ms = (iso: string | undefined) => (iso === undefined ? undefined : Date.parse(iso));

/** The smallest 1, 2, 2.5 or 5 × 10^k at or above `value`. */
function niceCeil(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * power >= value) return m * power;
  return 10 * power;
}

/**
 * How far right the chart reaches: past the last reading, the expected finish and end_fielding_at; the latest
 * finish too, unless it lies more than twice as far out (then the band is cut at the edge, and says so).
 */
function chartEnd(tLast: number, forecast: TargetGroupForecast | null, end: number | undefined): number {
  const expected = ms(forecast?.finish.expected);
  const near = Math.max(tLast, expected ?? tLast, end ?? tLast, ms(forecast?.finish.earliest) ?? tLast);
  const latest = ms(forecast?.finish.latest);
  if (latest !== undefined && latest - tLast <= 2 * Math.max(1, near - tLast)) return Math.max(near, latest);
  return near === tLast ? tLast + 3_600_000 : near + (near - tLast) * 0.15;
}

/** Completes on a straight line from (t0, c0) that reaches `goal` at `tGoal`, at time t (capped at the goal). */
function along(t: number, t0: number, c0: number, goal: number, tGoal: number | undefined): number {
  if (tGoal === undefined) return c0;
  if (tGoal <= t0) return goal;
  return Math.min(goal, c0 + ((goal - c0) * (t - t0)) / (tGoal - t0));
}

/** One target group's chart, or a line saying why there is none. */
export function forecastChart(tg: TargetGroupReportView, color: string): string {
  if (!tg.series.length) return '<p class="empty">No readings yet: the forecast chart appears once the target group is live and read.</p>';
  const f = tg.forecast;
  const goal = f?.goal ?? tg.fillingGoal ?? 0;
  const tFirst = Date.parse(tg.series[0].t);
  const tLast = Date.parse(tg.series[tg.series.length - 1].t);
  const end = ms(tg.endFieldingAt ?? undefined);
  // A band to draw: a forecast with a finish, projected from a point (the launch before an hour of readings, else the latest reading).
  const projected = f && f.from && f.finish.expected !== undefined && f.basis !== 'completed' ? { ...f, from: f.from, expectedAt: Date.parse(f.finish.expected) } : undefined;
  const tFrom = projected ? Date.parse(projected.from.t) : tLast;
  const t0 = Math.min(tFirst, tFrom, end ?? tFirst);
  const t1 = Math.max(projected ? chartEnd(Math.max(tLast, tFrom), f, end) : tLast, end ?? tLast, t0 + 60_000);
  const yMax = niceCeil(Math.max(goal, ...tg.series.map((p) => p.completes), 1) * 1.05);
  const { width, height, left, right, top, bottom } = FORECAST_CHART;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const x = (t: number) => left + ((Math.min(t, t1) - t0) / (t1 - t0)) * plotW;
  const y = (n: number) => top + plotH * (1 - n / yMax);
  const marks: string[] = [];
  for (const v of [0, 0.25, 0.5, 0.75, 1].map((k) => k * yMax)) {
    marks.push(`<line class="grid" x1="${left}" x2="${left + plotW}" y1="${fixed(y(v))}" y2="${fixed(y(v))}"/><text class="tick y-tick" x="${left - 6}" y="${fixed(y(v) + 4)}" text-anchor="end">${fixed(v)}</text>`);
  }
  for (const [t, anchor] of [[t0, 'start'], [t1, 'end']] as const) {
    marks.push(`<text class="tick x-tick" x="${fixed(x(t))}" y="${top + plotH + 18}" text-anchor="${anchor}">${esc(forecastTime(new Date(t).toISOString()))}</text>`);
  }
  if (goal > 0) marks.push(`<line class="goal" data-goal="${goal}" x1="${left}" x2="${left + plotW}" y1="${fixed(y(goal))}" y2="${fixed(y(goal))}" stroke="${color}"><title>goal ${goal}</title></line>`);
  if (projected) {
    const c0 = projected.from.completes;
    const earliest = ms(projected.finish.earliest);
    const latest = ms(projected.finish.latest);
    const expected = projected.expectedAt;
    // The band: the high-rate line over the low-rate line, sampled where either bends (at the goal) and at the edge.
    // It ends at the latest finish, or at the chart's edge when there is none or it lies beyond.
    const bandEnd = latest !== undefined && latest <= t1 ? latest : t1;
    const times = [...new Set([tFrom, earliest, bandEnd])].filter((t): t is number => t !== undefined && t >= tFrom && t <= bandEnd).sort((a, b) => a - b);
    const upper = times.map((t) => `${fixed(x(t))},${fixed(y(along(t, tFrom, c0, goal, earliest)))}`);
    const lower = [...times].reverse().map((t) => `${fixed(x(t))},${fixed(y(along(t, tFrom, c0, goal, latest)))}`);
    const cut = latest === undefined || latest > t1;
    const title = `forecast band (${projected.basis}): the goal${projected.finish.earliest ? ` at the earliest ${forecastTime(projected.finish.earliest)}` : ''}${projected.finish.latest ? `, at the latest ${forecastTime(projected.finish.latest)}` : ', no latest finish'}`;
    marks.push(`<polygon class="band" data-from="${esc(projected.from.t)}" data-from-completes="${c0}" data-earliest="${esc(projected.finish.earliest ?? '')}" data-latest="${esc(projected.finish.latest ?? '')}" data-cut="${cut}" points="${[...upper, ...lower].join(' ')}" fill="${color}"><title>${esc(title)}</title></polygon>`);
    const tEnd = Math.min(expected, t1);
    marks.push(`<line class="expected" data-finish="${esc(projected.finish.expected as string)}" x1="${fixed(x(tFrom))}" y1="${fixed(y(c0))}" x2="${fixed(x(tEnd))}" y2="${fixed(y(along(tEnd, tFrom, c0, goal, expected)))}" stroke="${color}"/>`);
    if (expected <= t1) {
      marks.push(`<line class="finish-marker" data-t="${esc(projected.finish.expected as string)}" x1="${fixed(x(expected))}" x2="${fixed(x(expected))}" y1="${top}" y2="${top + plotH}"><title>${esc(`expected finish ${forecastTime(projected.finish.expected as string)}`)}</title></line>`);
      marks.push(`<text class="marker-label finish-label" x="${fixed(x(expected) - 4)}" y="${top + 12}" text-anchor="end">finish</text>`);
    }
  }
  if (end !== undefined && tg.endFieldingAt) {
    marks.push(`<line class="end-marker" data-t="${esc(tg.endFieldingAt)}" x1="${fixed(x(end))}" x2="${fixed(x(end))}" y1="${top}" y2="${top + plotH}"><title>${esc(`end_fielding_at ${forecastTime(tg.endFieldingAt)}`)}</title></line>`);
    marks.push(`<text class="marker-label end-label" x="${fixed(x(end) - 4)}" y="${top + 26}" text-anchor="end">end_fielding_at</text>`);
  }
  const points = tg.series.map((p) => `${fixed(x(Date.parse(p.t)))},${fixed(y(p.completes))}`).join(' ');
  marks.push(`<polyline class="line" data-points="${tg.series.length}" points="${points}" stroke="${color}"/>`);
  for (const p of tg.series) marks.push(`<circle class="point" data-t="${esc(p.t)}" data-completes="${p.completes}" cx="${fixed(x(Date.parse(p.t)))}" cy="${fixed(y(p.completes))}" r="2.5" fill="${color}"><title>${esc(`${p.completes} completes at ${forecastTime(p.t)}`)}</title></circle>`);
  return `<svg class="forecast-chart" data-key="${esc(tg.key)}" role="img" aria-label="${esc(`Completes of ${tg.key} over time with the forecast band`)}" data-t0="${new Date(t0).toISOString()}" data-t1="${new Date(t1).toISOString()}" data-y-max="${yMax}" data-basis="${esc(f?.basis ?? 'none')}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg">
<rect class="plot" x="${left}" y="${top}" width="${plotW}" height="${plotH}"/>
${marks.join('\n')}
</svg>`;
}

/** The forecast lines under a target group's chart: finish, completes by the end, cost, and the method. */
export function forecastCaption(tg: TargetGroupReportView): string {
  const f = tg.forecast;
  if (!f) return '<p class="empty forecast-text">No forecast yet: it comes from the launch gate\'s feasibility, then from the readings.</p>';
  const parts = targetGroupForecastParts(f).join(' · ');
  return `<p class="forecast-text" data-basis="${esc(f.basis)}">${esc(parts)}</p>\n<p class="muted forecast-method">${esc(f.method)}</p>`;
}

/** The study's forecast table: a row per target group and the study's totals. */
export function forecastTable(view: ReportView): string {
  const rows = view.targetGroups.map((tg) => {
    const f = tg.forecast;
    return `<tr data-key="${esc(tg.key)}"><td>${esc(tg.key)}</td><td>${esc(f ? finishText(f.finish, f.endFieldingAt) : 'no forecast yet')}</td><td>${esc((f && costText(f.cost)) ?? '–')}</td><td>${esc(f?.basis ?? '–')}</td></tr>`;
  });
  const study = view.forecast;
  const total = study
    ? `<tr class="study-total"><th>study</th><th>${esc(finishText(study.finish))}${study.finish.expected === undefined ? ` (${esc(study.method)})` : ''}</th><th>${esc(costText(study.cost) ?? '–')}</th><th>${study.finishesBeforeEnd === false ? 'some target group finishes after its end' : ''}</th></tr>`
    : '';
  return `<table class="forecast">
<tr><th>target group</th><th>finish (expected, range)</th><th>cost (expected, range)</th><th>basis</th></tr>
${rows.join('\n')}
${total}
</table>`;
}
