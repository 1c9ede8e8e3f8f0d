// `studyflow report --html FILE`: one self-contained page (inline CSS, inline SVG drawn here; no
// scripts, fonts or network) that opens offline. The charts carry their figures as data attributes
// (data-fill, data-completes, data-y-max), which the browser test compares with the JSON report.
import { forecastCaption, forecastChart, forecastTable } from './forecast-chart';
import { endDateText, quotaBehind, quotaForecastText } from './forecast-view';
import type { TargetGroupQuotas } from '../workflows/messages';
import { moneyText, orderedStatuses, percentText, rateText, type GuardHoldView, type GuardTripView, type ReportView, type TargetGroupReportView } from '../client/report-model';
import { softLaunchStatusText } from '../client/study-outcome';

const PALETTE = ['#2563eb', '#d97706', '#059669', '#dc2626', '#7c3aed', '#0891b2', '#be185d', '#4d7c0f'];

/** Text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const e = escapeHtml;

function fixed(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/** The smallest "nice" number (1, 2, 2.5, 5 × 10^k) at or above `value`. */
export function niceCeil(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * power >= value) return m * power;
  return 10 * power;
}

function timeLabel(iso: string): string {
  return iso.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, ' UTC');
}

/** A chart tick: seconds shown when the whole span is under an hour. */
function tickLabel(iso: string, spanMs: number): string {
  return spanMs < 3_600_000 ? iso.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC') : timeLabel(iso);
}

// ---------------------------------------------------------------------------------------------
// Bars: one row per item, a track and a fill whose width is the share (capped at the track).

export interface BarRow {
  label: string;
  value: number;
  /** The whole the value is a share of; null draws an empty track. */
  whole: number | null;
  /** Text right of the bar. */
  text: string;
}

export const BAR_TRACK_WIDTH = 320;
const BAR_LABEL_WIDTH = 190;
const BAR_ROW_HEIGHT = 26;

export function barChart(rows: BarRow[], options: { title: string; cls: string; color?: string }): string {
  const width = BAR_LABEL_WIDTH + BAR_TRACK_WIDTH + 260;
  const height = Math.max(1, rows.length) * BAR_ROW_HEIGHT;
  const bars = rows.map((row, i) => {
    const share = row.whole && row.whole > 0 ? row.value / row.whole : 0;
    const fillWidth = Math.min(1, Math.max(0, share)) * BAR_TRACK_WIDTH;
    const pct = row.whole && row.whole > 0 ? Math.round(share * 1000) / 10 : null;
    const over = share > 1 ? ' over' : '';
    return `<g class="bar${over}" data-label="${e(row.label)}" data-value="${row.value}" data-whole="${row.whole ?? ''}" data-fill="${pct ?? ''}" transform="translate(0,${i * BAR_ROW_HEIGHT})">
<title>${e(`${row.label}: ${row.text}`)}</title>
<text class="bar-label" x="0" y="17">${e(row.label.length > 28 ? `${row.label.slice(0, 27)}…` : row.label)}</text>
<rect class="track" x="${BAR_LABEL_WIDTH}" y="4" width="${BAR_TRACK_WIDTH}" height="16" rx="3"/>
<rect class="fill" x="${BAR_LABEL_WIDTH}" y="4" width="${fixed(fillWidth)}" height="16" rx="3"${options.color && share <= 1 ? ` style="fill:${options.color}"` : ''}/>
<text class="bar-value" x="${BAR_LABEL_WIDTH + BAR_TRACK_WIDTH + 8}" y="17">${e(row.text)}</text>
</g>`;
  });
  return `<svg class="bars ${options.cls}" role="img" aria-label="${e(options.title)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg">
${bars.join('\n')}
</svg>`;
}

// ---------------------------------------------------------------------------------------------
// Completes over time: one line per target group, the goals as dashed lines when they fit.

export const CHART = { width: 760, height: 320, left: 56, right: 16, top: 16, bottom: 40 };

export function completesChart(groups: TargetGroupReportView[]): string {
  const plotW = CHART.width - CHART.left - CHART.right;
  const plotH = CHART.height - CHART.top - CHART.bottom;
  const withData = groups.filter((g) => g.series.length > 0);
  if (withData.length === 0) return '<p class="empty">No performance readings yet: the chart appears once a target group is live and read.</p>';
  const times = withData.flatMap((g) => g.series.map((p) => Date.parse(p.t)));
  const t0 = Math.min(...times);
  const t1 = Math.max(...times);
  const span = Math.max(1, t1 - t0);
  const maxCompletes = Math.max(1, ...withData.flatMap((g) => g.series.map((p) => p.completes)));
  const yMax = niceCeil(maxCompletes * 1.05);
  const x = (t: number) => CHART.left + (t1 === t0 ? plotW / 2 : ((t - t0) / span) * plotW);
  const y = (n: number) => CHART.top + plotH * (1 - n / yMax);
  const ticks = Array.from({ length: 5 }, (_, i) => (yMax * i) / 4);
  const grid = ticks
    .map((v) => `<line class="grid" x1="${CHART.left}" x2="${CHART.left + plotW}" y1="${fixed(y(v))}" y2="${fixed(y(v))}"/><text class="tick y-tick" x="${CHART.left - 6}" y="${fixed(y(v) + 4)}" text-anchor="end">${fixed(v)}</text>`)
    .join('\n');
  const xTicks = (t1 === t0 ? [t0] : [t0, t0 + span / 2, t1])
    .map((t, i, all) => `<text class="tick x-tick" x="${fixed(x(t))}" y="${CHART.top + plotH + 18}" text-anchor="${all.length === 1 ? 'middle' : i === 0 ? 'start' : i === all.length - 1 ? 'end' : 'middle'}">${e(tickLabel(new Date(t).toISOString(), t1 - t0))}</text>`)
    .join('\n');
  const lines = groups.map((g, i) => {
    if (!g.series.length) return '';
    const color = PALETTE[i % PALETTE.length];
    const points = g.series.map((p) => `${fixed(x(Date.parse(p.t)))},${fixed(y(p.completes))}`).join(' ');
    const last = g.series[g.series.length - 1];
    const goal = g.fillingGoal !== null && g.fillingGoal <= yMax
      ? `<line class="goal" data-key="${e(g.key)}" data-goal="${g.fillingGoal}" x1="${CHART.left}" x2="${CHART.left + plotW}" y1="${fixed(y(g.fillingGoal))}" y2="${fixed(y(g.fillingGoal))}" stroke="${color}"/>`
      : '';
    return `<g class="series" data-key="${e(g.key)}">
${goal}<polyline class="line" data-key="${e(g.key)}" data-points="${g.series.length}" data-last="${last.completes}" points="${points}" stroke="${color}"/>
<circle class="last" data-key="${e(g.key)}" data-completes="${last.completes}" cx="${fixed(x(Date.parse(last.t)))}" cy="${fixed(y(last.completes))}" r="3.5" fill="${color}"><title>${e(`${g.key}: ${last.completes} completes at ${last.t}`)}</title></circle>
</g>`;
  });
  const legend = groups
    .map((g, i) => (g.series.length ? `<li><span class="swatch" style="background:${PALETTE[i % PALETTE.length]}"></span>${e(g.key)}: ${g.completes ?? '-'} of ${g.fillingGoal ?? '?'}</li>` : ''))
    .join('');
  return `<svg id="completes-chart" class="line-chart" role="img" aria-label="Completes over time per target group" data-y-max="${yMax}" data-t0="${new Date(t0).toISOString()}" data-t1="${new Date(t1).toISOString()}" width="${CHART.width}" height="${CHART.height}" viewBox="0 0 ${CHART.width} ${CHART.height}" xmlns="http://www.w3.org/2000/svg">
<rect class="plot" x="${CHART.left}" y="${CHART.top}" width="${plotW}" height="${plotH}"/>
${grid}
${xTicks}
${lines.join('\n')}
</svg>
<ul class="legend">${legend}</ul>`;
}

// ---------------------------------------------------------------------------------------------

function stateBadge(state: string): string {
  const tone = state === 'live' || state === 'completed' ? 'good' : state === 'failed' ? 'bad' : 'wait';
  return `<span class="badge ${tone}">${e(state)}</span>`;
}

function figure(value: number | null): string {
  return value === null ? '–' : String(value);
}

function percentOf(part: number, whole: number): number | null {
  return whole > 0 ? Math.round((part / whole) * 1000) / 10 : null;
}

/** A figure of a guard's evidence in its unit: a rate as is, money with its currency, a silence in hours. */
function guardFigure(value: number | null, trip: GuardTripView): string {
  if (value === null) return '–';
  if (trip.unit === 'money') return `${value} ${trip.currency ?? ''}`.trim();
  if (trip.unit === 'duration_ms') return `${Math.round((value / 3_600_000) * 10) / 10} h`;
  return String(value);
}

/** The guards that hold a target group paused: each with its evidence (the reading against the threshold, when), and what resumes it. */
/** The close-out: per target group what is reversed by code, money and window; the submissions; the archives. */
function closeoutSection(view: ReportView): string {
  const c = view.closeout;
  if (!c) return '';
  // Target groups the last plan no longer lists (their RIDs reversed earlier are no completes any more) keep their results.
  const resultOnly = Object.keys(c.results ?? {})
    .filter((key) => !c.perTargetGroup.some((tg) => tg.key === key))
    .map((key) => {
      const r = c.results![key];
      return `<tr><td>${e(key)}</td><td class="num">0</td><td class="num">–</td><td class="num">${r.reversed} / ${r.expired} / ${r.invalid}</td><td class="num">–</td><td>–</td></tr>`;
    });
  const rows = c.perTargetGroup
    .map((tg) => {
      const toReverse = Object.values(tg.byCode).reduce((n, x) => n + x.toSubmit, 0);
      const submitted = Object.values(tg.byCode).reduce((n, x) => n + x.submitted, 0);
      const result = c.results?.[tg.key];
      return `<tr><td>${e(tg.key)}</td><td class="num">${toReverse}</td><td class="num">${submitted}</td><td class="num">${result ? `${result.reversed} / ${result.expired} / ${result.invalid}` : '–'}</td><td class="num">${tg.reverses ? e(`${tg.reverses.value} ${tg.reverses.currency_code}`) : '–'}</td><td>${e(timeLabel(tg.windowClosesAt))} (${tg.daysLeft < 0 ? 'closed' : `${tg.daysLeft} day(s) left`})</td></tr>`;
    })
    .concat(resultOnly)
    .join('\n');
  const blocks = (c.blocks ?? []).map((b) => `<li>${e(b)}</li>`).join('');
  const submissions = c.submissions.map((s) => `<li>${e(s.name)}: ${e(s.status)}${s.counts ? ` (reversed ${s.counts.reversed}, expired ${s.counts.expired}, invalid ${s.counts.invalid})` : ''}</li>`).join('');
  const archives = Object.entries(c.archives).map(([what, name]) => `<li>${e(what)}: <code>${e(name)}</code></li>`).join('');
  return `<h2>Close-out: ${e(c.phase.replace(/_/g, ' '))}</h2>
${c.phase === 'awaiting_approval' ? '<p class="hold">Reversals cannot be undone: they are submitted once approved (<code>studyflow approve &lt;study&gt; --closeout</code>, or <code>apply --approve-closeout</code>).</p>' : ''}
<table class="summary"><tr><th>target group</th><th class="num">to reverse</th><th class="num">submitted</th><th class="num">reversed / expired / invalid</th><th class="num">reverses</th><th>window closes</th></tr>
${rows}
</table>
${c.notEligible ? `<p>${c.notEligible} RID(s) of the files are not completes of this project the exchange lets reconcile: never submitted.</p>` : ''}
${blocks ? `<ul class="blocks">${blocks}</ul>` : ''}${submissions ? `<h3>Submissions</h3><ul>${submissions}</ul>` : ''}${archives ? `<h3>Archived in the blob store</h3><ul>${archives}</ul>` : ''}`;
}

function guardHoldSection(key: string, hold: GuardHoldView): string {
  const rows = hold.trips.map(
    (t) =>
      `<tr data-guard="${e(t.guard)}"><th>${e(t.guard)}</th><td>${e(t.kind)}</td><td class="guard-value">${e(guardFigure(t.value, t))}</td><td class="guard-threshold">${e(guardFigure(t.threshold, t))}</td><td><time>${e(timeLabel(t.at))}</time></td><td>${e(t.text)}</td></tr>`,
  );
  return [
    `<div class="note guard-hold" data-key="${e(key)}">`,
    `<h3>Paused by a guard</h3>`,
    '<table class="figures guard-trips">',
    '<tr><th>guard</th><th>kind</th><th>value</th><th>threshold</th><th>tripped</th><th>evidence</th></tr>',
    ...rows,
    '</table>',
    `<p class="resume">It stays paused until resumed: <code>${e(hold.resume)}</code> (add <code>--by &lt;who&gt;</code>), or a revision that changes the guard.</p>`,
    '</div>',
  ].join('\n');
}

/** Each quota's completes against its goal, its fill and its forecast at the end date; a quota behind is marked. */
function quotaSection(key: string, quotas: TargetGroupQuotas): string {
  const end = quotas.pace?.end;
  const behind = quotas.cells.filter(quotaBehind).length;
  const meta = [`read ${timeLabel(quotas.readAt)}`, end ? `forecast to ${endDateText(end)}` : undefined, behind ? `${behind} behind` : undefined].filter(Boolean).join(' · ');
  const rows = quotas.cells.map((c) => {
    const cell = `${c.profile} / ${c.quota}`;
    const fill = c.fill === undefined ? '–' : `${(Math.round(c.fill * 1000) / 10).toFixed(1)}%`;
    return `<tr data-quota="${e(cell)}"${quotaBehind(c) ? ' class="behind"' : ''}><th>${e(cell)}</th><td class="num">${c.completes}</td><td class="num">${c.goal}</td><td class="num">${e(fill)}</td><td class="quota-forecast">${e(quotaForecastText(c, end))}</td></tr>`;
  });
  const notes = [
    quotas.error ? `the last read failed: ${quotas.error}${quotas.cells.length ? ' (the figures are the read before)' : ''}` : undefined,
    quotas.omitted ? `${quotas.omitted} more quota(s) not shown (the ${quotas.cells.length} most behind are)` : undefined,
    quotas.notReported ? `${quotas.notReported} quota(s) without completes in the exchange's answer` : undefined,
  ].filter((n): n is string => n !== undefined);
  return [
    '<h3>Quotas</h3>',
    `<p class="meta">${e(meta)}</p>`,
    ...(rows.length ? [`<table class="figures quotas" data-key="${e(key)}">`, '<tr><th>quota</th><th class="num">completes</th><th class="num">goal</th><th class="num">fill</th><th>forecast at the end date</th></tr>', ...rows, '</table>'] : []),
    ...notes.map((n) => `<p class="note">${e(n)}</p>`),
  ].join('\n');
}

/** The soft launch: where it stands, and once judged its evidence per metric (value, thresholds, sample size, verdict). */
function softLaunchSection(key: string, soft: NonNullable<TargetGroupReportView['softLaunch']>): string {
  const seconds = (x: number | undefined) => (x === undefined ? '–' : `${x} s`);
  const shown = (x: number | undefined, unit: 'rate' | 'seconds') => (unit === 'seconds' ? seconds(x) : x === undefined ? '–' : String(x));
  const thresholds = (t: Record<string, number | undefined>, unit: 'rate' | 'seconds') =>
    [
      t.failBelow !== undefined ? `fails below ${shown(t.failBelow, unit)}` : '',
      t.failAbove !== undefined ? `fails above ${shown(t.failAbove, unit)}` : '',
      t.passAbove !== undefined ? `passes at ${shown(t.passAbove, unit)}` : '',
      t.passBelow !== undefined ? `passes at ${shown(t.passBelow, unit)} or less` : '',
    ]
      .filter(Boolean)
      .join(', ');
  const rows = (soft.decision?.evidence ?? []).map(
    (ev) =>
      `<tr data-metric="${e(ev.metric)}" class="${e(ev.verdict)}"><th>${e(ev.metric.replaceAll('_', ' '))}</th><td class="num">${e(shown(ev.value, ev.unit))}</td><td>${e(thresholds(ev.threshold, ev.unit))}</td><td class="num">${ev.sampleSize}</td><td>${e(ev.verdict)}</td></tr>`,
  );
  const waits = soft.state === 'awaiting_decision' || soft.state === 'paused' || soft.state === 'aborted';
  return [
    `<div class="note soft-launch" data-key="${e(key)}" data-state="${e(soft.state)}">`,
    '<h3>Soft launch</h3>',
    `<p>${e(softLaunchStatusText(soft))}${soft.message ? ` (${e(soft.message)})` : ''}</p>`,
    `<p class="meta">${e(`${soft.completes} completes from ${timeLabel(soft.startedAt)}, until ${timeLabel(soft.endsAt)} at the latest${soft.reading ? ` · last read ${timeLabel(soft.reading.at)}: ${soft.reading.completes} completes` : ''}`)}</p>`,
    ...(rows.length
      ? ['<table class="figures soft-launch-evidence">', '<tr><th>metric</th><th class="num">value</th><th>thresholds</th><th class="num">completes</th><th>verdict</th></tr>', ...rows, '</table>']
      : []),
    ...(waits ? [`<p class="resume">Decide it: <code>studyflow approve --promote</code> or <code>--abort</code> with <code>--target-group ${e(key)}</code>.</p>`] : []),
    '</div>',
  ].join('\n');
}

function targetGroupSection(tg: TargetGroupReportView, color: string): string {
  const parts = [`<section class="tg" id="tg-${e(tg.key)}" data-key="${e(tg.key)}">`, `<h2><span class="swatch" style="background:${color}"></span>${e(tg.key)} ${stateBadge(tg.state)}</h2>`];
  const meta = [tg.targetGroupId ? `target group ${tg.targetGroupId}` : undefined, tg.launchedAt ? `launched ${timeLabel(tg.launchedAt)}` : undefined, tg.readAt ? `figures read ${timeLabel(tg.readAt)}` : undefined].filter(Boolean);
  if (meta.length) parts.push(`<p class="meta">${e(meta.join(' · '))}</p>`);
  if (tg.note) parts.push(`<p class="note">${e(tg.note)}</p>`);
  if (tg.guardHold) parts.push(guardHoldSection(tg.key, tg.guardHold));
  if (tg.softLaunch) parts.push(softLaunchSection(tg.key, tg.softLaunch));
  parts.push('<h3>Forecast</h3>', `<div class="forecast" data-key="${e(tg.key)}">`, forecastChart(tg, color), forecastCaption(tg), '</div>');
  if (tg.quotas) parts.push(quotaSection(tg.key, tg.quotas));
  if (tg.completes !== null) {
    parts.push('<h3>Completes against goal</h3>');
    parts.push(barChart([{ label: 'completes', value: tg.completes, whole: tg.fillingGoal, text: `${tg.completes} / ${tg.fillingGoal ?? '?'} (${percentText(tg.fillPercent)})` }], { title: `Completes of ${tg.key} against the filling goal`, cls: 'goal-bar', color }));
    const dates = tg.firstComplete ? ` · first complete ${timeLabel(tg.firstComplete)}, last ${tg.lastComplete ? timeLabel(tg.lastComplete) : '–'}` : '';
    parts.push(`<p class="muted remaining">remaining ${figure(tg.remaining.value)} (${e(tg.remaining.basis)})${e(dates)}</p>`);
    if (tg.entrants !== null) {
      const entrants = tg.entrants;
      const step = (label: string, value: number | null) => ({ label, value: value ?? 0, whole: entrants, text: value === null ? '–' : `${value} (${percentText(percentOf(value, entrants))} of entrants)` });
      parts.push('<h3>From entrants to completes</h3>');
      parts.push(barChart([step('entrants', entrants), step('prescreens', tg.prescreens), step('completes', tg.completes)], { title: `Entrants, prescreens and completes of ${tg.key}`, cls: 'funnel-bars', color }));
    }
    if (tg.respondents.length) {
      const whole = tg.entrants ?? tg.respondents.reduce((n, r) => n + r.count, 0);
      parts.push('<h3>Respondents by status</h3>');
      parts.push(barChart(tg.respondents.map((r) => ({ label: r.status, value: r.count, whole, text: `${r.count} (${percentText(percentOf(r.count, whole))})${r.label !== r.status ? ` · ${r.label}` : ''}` })), { title: `Live respondents of ${tg.key} by status`, cls: 'status-bars' }));
    }
    parts.push(`<h3>Cost and rates</h3>
<table class="figures">
<tr><th></th><th>observed</th><th>expected</th><th>basis</th></tr>
<tr><th>cost per complete</th><td>${e(moneyText(tg.costPerComplete))}</td><td>${e(moneyText(tg.predictedCpi))}</td><td>completes_cost ${e(moneyText(tg.completesCost))} / ${tg.completes} completes; expected: the CPI the launch gate judged</td></tr>
<tr><th>incidence</th><td class="ir-observed">${figure(tg.incidence.observed)}</td><td>${figure(tg.incidence.expected)}</td><td>${e(tg.incidence.basis)}; expected: the study's expected_incidence_rate</td></tr>
<tr><th>conversion</th><td class="conversion">${e(rateText(tg.conversionRate))}</td><td>–</td><td>conversion_rate of the performance reading</td></tr>
<tr><th>drop-off</th><td class="drop-off">${e(rateText(tg.dropOffRate))}</td><td>–</td><td>drop_off_rate of the performance reading</td></tr>
<tr><th>length of interview (min)</th><td>${figure(tg.lengthOfInterview.observed)}</td><td>${figure(tg.lengthOfInterview.expected)}</td><td>${e(tg.lengthOfInterview.basis)}</td></tr>
</table>`);
  }
  parts.push('<h3>What changed since launch</h3>');
  const changes = tg.changes.map((c) => `<li><time>${e(timeLabel(c.time))}</time> <span class="kind ${e(c.kind)}">${e(c.kind)}</span> ${e(c.detail)}</li>`);
  if (tg.drift.length) changes.push(`<li class="drift">drift now: ${e(tg.drift.map((d) => `${d.field} (API ${JSON.stringify(d.actual)}, study file ${JSON.stringify(d.expected)})`).join('; '))}</li>`);
  if (tg.events.received) {
    const sessions = orderedStatuses(tg.events.sessionsByStatus).map(([s, n]) => `${s} ${n}`).join(', ') || 'none';
    changes.push(`<li>webhook events: ${tg.events.received} received (last ${e(tg.events.lastType ?? '–')}); sessions: ${e(sessions)}</li>`);
  }
  parts.push(changes.length ? `<ul class="changes">${changes.join('')}</ul>` : '<p class="empty">Nothing changed.</p>');
  parts.push('</section>');
  return parts.join('\n');
}

const CSS = `
:root{color-scheme:light;--ink:#1f2937;--muted:#6b7280;--line:#e5e7eb;--track:#eef2f7}
*{box-sizing:border-box}
body{margin:0;padding:24px 32px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:var(--ink);background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 6px;display:flex;align-items:center;gap:8px}h3{font-size:14px;margin:16px 0 6px;color:#374151}
.meta,.muted{color:var(--muted);margin:0 0 8px}.note{color:#92400e;background:#fffbeb;border:1px solid #fde68a;padding:6px 10px;border-radius:6px}
table{border-collapse:collapse;margin:8px 0}th,td{border-bottom:1px solid var(--line);padding:5px 10px;text-align:left;vertical-align:top}
table.summary td.num,table.summary th.num{text-align:right}
.badge{font-size:12px;padding:1px 8px;border-radius:10px;border:1px solid}.badge.good{color:#047857;border-color:#6ee7b7;background:#ecfdf5}.badge.bad{color:#b91c1c;border-color:#fca5a5;background:#fef2f2}.badge.wait{color:#92400e;border-color:#fcd34d;background:#fffbeb}
.swatch{display:inline-block;width:12px;height:12px;border-radius:3px}
svg text{font:12px system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;fill:var(--ink)}
svg .track{fill:var(--track)}svg .fill{fill:#2563eb}svg.status-bars .fill{fill:#64748b}svg .bar.over .fill{fill:#dc2626}
svg .plot{fill:#fafafa;stroke:var(--line)}svg .grid{stroke:var(--line)}svg .tick{fill:var(--muted)}
svg .line{fill:none;stroke-width:2.25;stroke-linejoin:round}svg .goal{stroke-dasharray:5 4;stroke-width:1.25;opacity:.7}
.legend{list-style:none;padding:0;margin:6px 0 0 56px;display:flex;gap:18px;flex-wrap:wrap}.legend li{display:flex;align-items:center;gap:6px}
.changes{padding-left:18px;margin:4px 0}.changes time{color:var(--muted);font-variant-numeric:tabular-nums}.kind{font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:#4b5563;background:#f3f4f6;padding:0 5px;border-radius:4px}
svg .band{opacity:.18;stroke:none}svg .expected{stroke-width:1.5;stroke-dasharray:2 3}svg .point{stroke:#fff;stroke-width:.75}
svg .finish-marker{stroke:#047857;stroke-width:1.25}svg .end-marker{stroke:#b91c1c;stroke-width:1.25;stroke-dasharray:6 3}svg .marker-label{font-size:11px}svg .finish-label{fill:#047857}svg .end-label{fill:#b91c1c}
table.forecast tr.study-total th{border-top:2px solid var(--line)}.forecast-text{margin:4px 0}
table.quotas td.num,table.quotas th.num{text-align:right}table.quotas tr.behind td.quota-forecast{color:#b91c1c;font-weight:600}
.empty{color:var(--muted)}footer{margin-top:32px;color:var(--muted);font-size:12px}
`;

/** The whole report as one HTML document. */
export function renderReportHtml(view: ReportView): string {
  const applied = view.appliedRevision && view.appliedRevision === view.revision ? ' (applied)' : '';
  const rows = view.targetGroups
    .map((tg, i) => `<tr data-key="${e(tg.key)}"><td><span class="swatch" style="background:${PALETTE[i % PALETTE.length]}"></span> <a href="#tg-${e(tg.key)}">${e(tg.key)}</a></td><td>${stateBadge(tg.state)}</td><td class="num completes">${figure(tg.completes)}</td><td class="num">${figure(tg.fillingGoal)}</td><td class="num fill">${e(percentText(tg.fillPercent))}</td><td class="num">${e(moneyText(tg.completesCost))}</td><td class="num">${figure(tg.incidence.observed)} / ${figure(tg.incidence.expected)}</td><td class="num">${figure(tg.lengthOfInterview.observed)} / ${figure(tg.lengthOfInterview.expected)}</td></tr>`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(`studyflow report: ${view.studyId}`)}</title>
<style>${CSS}</style>
</head>
<body>
<header>
<h1>Study ${e(view.studyId)}</h1>
<p class="meta">account ${e(view.accountId)} · ${e(view.phase)} · revision ${e(view.revision ?? '–')}${applied}${view.projectId ? ` · project ${e(view.projectId)}` : ''} · workflow ${e(view.workflowId)}</p>
<p class="meta">figures of the study workflow as of ${e(timeLabel(view.updatedAt))}; report generated ${e(timeLabel(view.generatedAt))}</p>
</header>
<table class="summary">
<tr><th>target group</th><th>state</th><th class="num">completes</th><th class="num">goal</th><th class="num">fill</th><th class="num">completes cost</th><th class="num">IR obs / exp</th><th class="num">LOI obs / exp</th></tr>
${rows}
</table>
<h2>Completes over time</h2>
${completesChart(view.targetGroups)}
<h2>Forecast</h2>
${forecastTable(view)}
${closeoutSection(view)}
${view.targetGroups.map((tg, i) => targetGroupSection(tg, PALETTE[i % PALETTE.length])).join('\n')}
<footer>studyflow report · self-contained: no scripts, fonts or network</footer>
</body>
</html>
`;
}
