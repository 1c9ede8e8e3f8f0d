// `studyflow report` for people: a summary table, then per target group its funnel, respondents by
// status, cost and rates, and what changed since launch.
import { table, type Output } from './output';
import { moneyText, orderedStatuses, percentText, rateText, type ObservedAgainstExpected, type ReportView, type TargetGroupReportView } from '../client/report-model';
import { forecastLines, quotaLines } from './forecast-view';
import { phaseLabel } from './status-view';
import { softLaunchStatusText } from '../client/study-outcome';

function figure(value: number | null): string {
  return value === null ? '-' : String(value);
}

function againstExpected(f: ObservedAgainstExpected): string {
  return `${figure(f.observed)} / ${figure(f.expected)}`;
}

function statusesText(byStatus: Record<string, number>): string {
  const entries = orderedStatuses(byStatus);
  return entries.length ? entries.map(([s, n]) => `${s} ${n}`).join(', ') : 'none';
}

function targetGroupSection(out: Output, tg: TargetGroupReportView): string[] {
  const lines = [out.bold(tg.key)];
  if (tg.note) lines.push(`  ${out.yellow(tg.note)}`);
  if (tg.readAt) lines.push(`  read at ${tg.readAt}${tg.launchedAt ? `, launched ${tg.launchedAt}` : ''}`);
  if (tg.completes !== null) {
    const goal = tg.fillingGoal !== null ? ` of ${tg.fillingGoal} (${percentText(tg.fillPercent)})` : '';
    lines.push(`  completes ${tg.completes}${goal}; remaining ${figure(tg.remaining.value)} (${tg.remaining.basis})`);
    lines.push(`  entrants ${figure(tg.entrants)}, prescreens ${figure(tg.prescreens)}; conversion ${rateText(tg.conversionRate)}, drop-off ${rateText(tg.dropOffRate)}`);
    if (tg.firstComplete) lines.push(`  first complete ${tg.firstComplete}, last complete ${tg.lastComplete ?? '-'}`);
    lines.push(`  respondents by status: ${tg.respondents.length ? tg.respondents.map((r) => `${r.status} ${r.count}`).join(', ') : 'none'}`);
    lines.push(`  cost: ${moneyText(tg.completesCost)} for ${tg.completes} completes (${moneyText(tg.costPerComplete)} each; predicted CPI ${moneyText(tg.predictedCpi)})`);
    lines.push(`  incidence observed / expected: ${againstExpected(tg.incidence)} (${tg.incidence.basis})`);
    lines.push(`  length of interview observed / expected: ${againstExpected(tg.lengthOfInterview)} min (${tg.lengthOfInterview.basis})`);
  }
  if (tg.softLaunch) {
    const soft = tg.softLaunch;
    lines.push(`  ${softLaunchStatusText(soft)}${soft.message ? ` (${soft.message})` : ''}`);
    for (const ev of soft.decision?.evidence ?? []) lines.push(`    ${ev.text}`);
  }
  if (tg.series.length) {
    const first = tg.series[0];
    const last = tg.series[tg.series.length - 1];
    lines.push(`  completes over time: ${tg.series.length} reading(s), ${first.completes} at ${first.t} to ${last.completes} at ${last.t}`);
  }
  const since = tg.launchedAt ? `since launch (${tg.launchedAt})` : 'changes';
  if (tg.changes.length) {
    lines.push(`  ${since}:`, ...tg.changes.map((c) => `    ${c.time}  ${c.kind.padEnd(5)}  ${c.detail}`));
  } else if (tg.launchedAt) {
    lines.push(`  ${since}: nothing changed`);
  }
  if (tg.drift.length) lines.push(`  ${out.yellow(`drift now: ${tg.drift.map((d) => `${d.field} (API ${JSON.stringify(d.actual)}, file ${JSON.stringify(d.expected)})`).join('; ')}`)}`);
  if (tg.events.received) {
    const reconciled = Object.keys(tg.events.reconciled).length ? `; reconciled: ${statusesText(tg.events.reconciled)}` : '';
    lines.push(`  webhook events: ${tg.events.received} received (last ${tg.events.lastType ?? '-'}); sessions: ${statusesText(tg.events.sessionsByStatus)}${reconciled}`);
  }
  return lines;
}

/** The whole human report. */
export function renderReportHuman(out: Output, view: ReportView): string {
  const applied = view.appliedRevision && view.appliedRevision === view.revision ? ' (applied)' : '';
  const lines = [
    `study ${view.studyId} (account ${view.accountId}): ${view.phase}, revision ${view.revision ?? '-'}${applied}${view.projectId ? `, project ${view.projectId}` : ''}`,
    '',
  ];
  const rows = view.targetGroups.map((tg) => [
    tg.key,
    phaseLabel(out, tg.state),
    figure(tg.completes),
    figure(tg.fillingGoal),
    percentText(tg.fillPercent),
    moneyText(tg.completesCost),
    againstExpected(tg.incidence),
    againstExpected(tg.lengthOfInterview),
  ]);
  lines.push(table(['TARGET GROUP', 'STATE', 'COMPLETES', 'GOAL', 'FILL', 'COMPLETES COST', 'IR OBS/EXP', 'LOI OBS/EXP'], rows));
  const forecast = forecastLines(view.targetGroups, view.forecast);
  if (forecast.length) lines.push('', ...forecast);
  const quotas = quotaLines(out, view.targetGroups);
  if (quotas.length) lines.push('', ...quotas);
  for (const tg of view.targetGroups) lines.push('', ...targetGroupSection(out, tg));
  return lines.join('\n');
}
