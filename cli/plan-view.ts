import { githubCommand } from '../definitions';
import type { ServerCheck, ServerCheckOutcome, TargetGroupChecks } from '../plan/server-checks';
import type { StudyProgram, TargetGroupStep } from '../plan/program';
import type { Launcher, StudySchedule } from '../plan/schedule';
import type { PlannedAction, StudyPlan } from '../plan/types';
import type { StudyForecast } from '../plan/forecast';
import { studyForecastText } from './forecast-view';
import type { Output } from './output';

/** The server-side dry run of a study: per target group checks, or a note saying why none ran. */
export interface ServerChecksView {
  checks: TargetGroupChecks[];
  /** Why no (or not every) server check ran, e.g. offline. */
  note?: string;
  /** The study's forecast before launch from the checks' (each target group's is its `forecast` check). */
  forecast?: StudyForecast;
}

const SYMBOL: Record<PlannedAction['kind'], string> = {
  create: '+',
  update: '~',
  upload: '↑',
  replace_list: '↻',
  add_to_group: '+',
  remove_from_group: '-',
  launch: '▶',
  check: '?',
  pause: '‖',
  resume: '▶',
  complete: '■',
  relaunch: '↺',
  blocked: '!',
  none: '=',
};

function describe(action: PlannedAction): string {
  const subject = action.resource === 'project' ? 'project' : `${action.resource.replace(/_/g, ' ')} ${action.key}`;
  const group = action.group ? ` -> ${action.group}` : '';
  // An in-place change names its operation in its reason ("in place via update_fielding_run: end_fielding_at … -> …").
  const kind = action.kind === 'update' && action.resource === 'live_target_group' ? 'update' : action.kind.replace(/_/g, ' ');
  return `${kind} ${subject}${group}: ${action.reason}${action.drift ? ' [drift]' : ''}`;
}

function changeLines(action: PlannedAction): string[] {
  // In-place changes spell their fields in the reason already.
  if (action.kind === 'create' || !action.changes || (action.resource === 'live_target_group' && action.kind !== 'blocked')) return [];
  return action.changes.map((c) => `      ${c.field}: ${JSON.stringify(c.from)} -> ${JSON.stringify(c.to)}`);
}

export function planCounts(plan: StudyPlan): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const action of plan.actions) counts[action.kind] = (counts[action.kind] ?? 0) + 1;
  return counts;
}

function summaryLine(plan: StudyPlan): string {
  const c = planCounts(plan);
  const part = (n: number | undefined, label: string) => (n ? `${n} ${label}` : undefined);
  const parts = [
    part(c.create, 'to create'),
    part(c.update, 'to update'),
    part((c.upload ?? 0) + (c.replace_list ?? 0), 'list upload(s)'),
    part((c.add_to_group ?? 0) + (c.remove_from_group ?? 0), 'membership change(s)'),
    part(c.launch, 'to launch'),
    part(c.check, 'feasibility check(s)'),
    part(c.pause, 'to pause'),
    part(c.resume, 'to resume'),
    part(c.complete, 'to complete'),
    part(c.relaunch, 'to relaunch'),
    part(c.blocked, 'blocked (cannot be applied)'),
  ].filter(Boolean);
  return plan.hasChanges || c.blocked ? `Plan: ${parts.join(', ')}.` : 'No changes: the API holds what the study file says.';
}

const LAUNCHED_BY: Record<Launcher, string> = {
  draft_batch: 'its draft batch',
  study: 'the study',
  target_group: 'its own workflow',
  none: 'no one',
};

/** Who launches each target group, and what the study writes before: how apply will carry the plan out. */
export function launchLabel(by: Launcher): string {
  return by === 'none' ? 'no launch' : `launched by ${LAUNCHED_BY[by]}`;
}

/** The study-level writes of a schedule, in the order apply makes them, as one line. */
export function studyStepsLine(schedule: StudySchedule): string {
  const count = (n: number, one: string, many = `${one}s`) => (n === 1 ? `1 ${one}` : `${n} ${many}`);
  const drafts = schedule.draftBatches.flat().length;
  const steps = [
    schedule.project !== 'none' ? `${schedule.project} project` : undefined,
    ...schedule.exclusionGroups.map((g) => `create exclusion group ${g}`),
    schedule.webhooks.create.length + schedule.webhooks.update.length > 0 ? count(schedule.webhooks.create.length + schedule.webhooks.update.length, 'webhook write') : undefined,
  ].filter(Boolean);
  const gates = schedule.gateReads.length > 0 ? `${count(schedule.gateReads.length, 'launch gate')} read` : undefined;
  const first = steps.length > 0 ? `${steps.join(', then ')}${gates ? ` (beside it: ${gates})` : ''}` : gates;
  const rest = [
    drafts > 0 ? `${count(drafts, 'draft')} in ${count(schedule.draftBatches.length, 'batch', 'batches')}` : undefined,
    schedule.draftUpdates.length > 0 ? count(schedule.draftUpdates.length, 'draft update') : undefined,
    schedule.secondPass.length > 0 ? `second pass for ${schedule.secondPass.join(', ')}` : undefined,
    schedule.memberships.length > 0 ? count(schedule.memberships.reduce((n, m) => n + (m.add.length ? 1 : 0) + (m.remove.length ? 1 : 0), 0), 'membership call') : undefined,
  ].filter(Boolean);
  return [first, ...rest].filter(Boolean).join(', then ') || 'nothing';
}

/** One step of a target group's program as the plan prints it (what apply runs, with its payload). */
export function describeStep(step: TargetGroupStep): string {
  switch (step.kind) {
    case 'read_gate':
      return `read gate (${step.by === 'study' ? 'by the study' : 'by its workflow'})`;
    case 'draft':
      return step.mode === 'update' ? 'update draft' : `create draft in batch ${step.batch + 1} (key ${step.idempotencyKey})${step.launch ? `, launched with it (key ${step.launch.idempotencyKey})` : ''}`;
    case 'second_pass':
      return 'update draft again (activity exclusions)';
    case 'membership':
      return `${step.change === 'add' ? 'join' : 'leave'} exclusion group ${step.group}`;
    case 'launch':
      return `launch (${step.by === 'study' ? 'by the study, in a launch batch' : 'by its workflow'}; key ${step.idempotencyKey})`;
    case 'await_job':
      return 'await the launch job';
    case 'hand_over':
      return step.when === 'now' ? 'hand over to its workflow' : 'hand over to its workflow once the revision settled (it watches)';
    case 'profiles':
      return 'replace profiles';
    case 'upload':
      return `${step.replace ? 'replace' : 'upload'} ${step.list === 'recontact_list' ? 'recontact list' : `${step.entityType ?? 'ID'} list`} (${step.ref.count} IDs, sha256 ${step.ref.sha256.slice(0, 12)})`;
    case 'approve':
      return 'wait for `studyflow approve`';
    case 'read_state':
      return 'read its state';
    case 'wait_for_completes':
      return `wait until ${step.targetGroup} has ${step.completes} completes`;
    case 'wait_until':
      return `wait until ${step.at} (a durable timer)`;
    case 'schedule_launch':
      return `schedule the launch for ${step.at} in the exchange (key ${step.idempotencyKey}); live at that moment`;
    case 'check_live':
      return `check feasibility of the live target group (${step.gate.because.join(' and ')})`;
    case 'update_live':
      return `update in place via ${step.request.operation} (${step.changes.map(liveChangeText).join(', ')})${(step.unwritable ?? []).map((u) => `; ${u.field} not written: ${u.detail}`).join('')}`;
    case 'fielding':
      return `${step.action} the fielding run`;
  }
}

/** One change of an in-place update: `filling_goal 200 -> 300` (the value the exchange held, when known, then the file's). */
function liveChangeText(change: { field: string; from?: unknown; to: unknown }): string {
  const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  return `${change.field} ${change.from === undefined ? '' : `${text(change.from)} `}-> ${text(change.to)}`;
}

/** A target group's steps on one line, in the order apply runs them. */
export function stepsLine(steps: readonly TargetGroupStep[]): string {
  return steps.length ? steps.map(describeStep).join(' → ') : 'nothing: its workflow runs and its part is unchanged';
}

function scheduleHuman(out: Output, schedule: StudySchedule, program?: StudyProgram): string[] {
  if (schedule.targetGroups.length === 0) return [];
  const width = Math.max(...schedule.targetGroups.map((t) => t.key.length));
  const lines = [out.bold('How apply runs it:'), `  study: ${studyStepsLine(schedule)}`];
  for (const t of schedule.targetGroups) {
    const text = `  ${t.launch.by === 'none' ? '=' : '▶'} ${t.key.padEnd(width)}  ${launchLabel(t.launch.by)}: ${t.launch.reason}`;
    lines.push(t.launch.by === 'none' ? out.dim(text) : text);
    const steps = program?.targetGroups.find((p) => p.key === t.key)?.steps;
    if (steps) lines.push(out.dim(`      steps: ${stepsLine(steps)}`));
  }
  return lines;
}

/** The human plan: one line per action with its symbol and reason, field changes indented, who launches what, then the server checks. */
export function renderPlanHuman(out: Output, title: string, plan: StudyPlan, note?: string, server?: ServerChecksView, schedule?: StudySchedule, program?: StudyProgram): string {
  const lines = [out.bold(`${title}  (revision ${plan.revision})`)];
  if (note) lines.push(out.dim(note));
  for (const action of plan.actions) {
    const text = `  ${SYMBOL[action.kind]} ${describe(action)}`;
    const painted =
      action.kind === 'none'
        ? out.dim(text)
        : action.kind === 'blocked'
          ? out.red(text)
          : action.kind === 'create' || action.kind === 'add_to_group' || action.kind === 'launch'
            ? out.green(text)
            : out.yellow(text);
    lines.push(painted, ...changeLines(action));
  }
  for (const note of plan.notes ?? []) lines.push(out.yellow(`  ${note.severity}: ${note.text}`));
  lines.push(...guardsHuman(out, plan));
  if (plan.budget) lines.push(budgetPaint(out, plan.budget.verdict)(`Budget: ${plan.budget.text}`));
  lines.push(summaryLine(plan));
  if (schedule) lines.push(...scheduleHuman(out, schedule, program));
  if (server) lines.push(...serverChecksHuman(out, server));
  return lines.join('\n');
}

/** The guards in force of every target group that has some: `Guards in force:`, then `  <key>  <guard>` lines. */
function guardsHuman(out: Output, plan: StudyPlan): string[] {
  if (!plan.guards?.length) return [];
  const width = Math.max(...plan.guards.map((g) => g.key.length));
  return [out.bold('Guards in force:'), ...plan.guards.flatMap((g) => g.guards.map((line, i) => `  ${(i === 0 ? g.key : '').padEnd(width)}  ${line}`))];
}

function budgetPaint(out: Output, verdict: NonNullable<StudyPlan['budget']>['verdict']): (text: string) => string {
  return verdict === 'over' ? out.red : verdict === 'incomplete' ? out.yellow : out.green;
}

const CHECK_SYMBOL: Record<ServerCheckOutcome, string> = { pass: '✓', warning: '~', blocking: '✗', unavailable: '?', skipped: '-' };

export function checkLabel(name: ServerCheck['name']): string {
  return name.replace(/_/g, ' ');
}

/** `BLOCKING: <reason>` for a blocking check, else its summary. */
function checkHeadline(check: ServerCheck): string {
  return check.outcome === 'blocking' ? `BLOCKING: ${check.reason ?? check.summary}` : check.outcome === 'skipped' ? `skipped: ${check.summary}` : check.summary;
}

/** One line per target group and check; details indented below. A target group with every check skipped is one line. */
function serverChecksHuman(out: Output, server: ServerChecksView): string[] {
  const lines: string[] = [];
  if (server.note) lines.push(out.dim(`Server checks: ${server.note}`));
  if (!server.checks.length) return lines;
  lines.push(serverChecksSummary(server.checks));
  for (const group of server.checks) {
    const skipped = group.checks.every((c) => c.outcome === 'skipped');
    const same = skipped && new Set(group.checks.map((c) => c.summary)).size === 1;
    if (same) {
      lines.push(out.dim(`  ${group.key}: skipped: ${group.checks[0]?.summary ?? ''}`));
      continue;
    }
    lines.push(`  ${group.key}${group.blocking ? out.red(' (BLOCKING)') : ''}`);
    for (const check of group.checks) {
      const text = `    ${CHECK_SYMBOL[check.outcome]} ${checkLabel(check.name)}: ${checkHeadline(check)}`;
      const painted = { pass: out.green, warning: out.yellow, blocking: out.red, unavailable: out.yellow, skipped: out.dim }[check.outcome](text);
      lines.push(painted);
      if (check.outcome === 'blocking' && check.reason) lines.push(`        ${check.summary}`);
      for (const detail of check.details ?? []) lines.push(`        ${detail}`);
    }
  }
  if (server.forecast) lines.push(`Forecast of the study: ${studyForecastLine(server.forecast)}`);
  return lines;
}

/** The study's forecast in one line, or why it has none. */
function studyForecastLine(forecast: StudyForecast): string {
  return forecast.finish.expected === undefined ? `no finish (${forecast.method})` : studyForecastText(forecast);
}

/** `Server checks: 1 blocking, 1 unavailable, 6 passed.` */
export function serverChecksSummary(groups: TargetGroupChecks[]): string {
  const counts: Record<ServerCheckOutcome, number> = { pass: 0, warning: 0, blocking: 0, unavailable: 0, skipped: 0 };
  for (const group of groups) for (const check of group.checks) counts[check.outcome] += 1;
  const parts = [
    counts.blocking ? `${counts.blocking} blocking` : undefined,
    counts.unavailable ? `${counts.unavailable} unavailable` : undefined,
    counts.warning ? `${counts.warning} warning(s)` : undefined,
    counts.pass ? `${counts.pass} passed` : undefined,
    counts.skipped ? `${counts.skipped} skipped` : undefined,
  ].filter(Boolean);
  return `Server checks: ${parts.join(', ')}.`;
}

const CHECK_BADGE: Record<ServerCheckOutcome, string> = { pass: '✅ pass', warning: '⚠️ warning', blocking: '⛔ **BLOCKING**', unavailable: '❔ unavailable', skipped: 'skipped' };

function serverChecksMarkdown(server: ServerChecksView): string[] {
  const parts: string[] = [];
  if (server.note) parts.push(`> Server checks: ${server.note}`, '');
  if (!server.checks.length) return parts;
  parts.push(`#### ${serverChecksSummary(server.checks).replace(/\.$/, '')}`, '', '| target group | check | result | details |', '|---|---|---|---|');
  for (const group of server.checks) {
    for (const check of group.checks) {
      const details = [check.outcome === 'blocking' ? check.summary : undefined, ...(check.details ?? [])].filter((d): d is string => Boolean(d));
      parts.push(`| ${escapeCell(group.key)} | ${checkLabel(check.name)} | ${CHECK_BADGE[check.outcome]} | ${escapeCell(check.outcome === 'blocking' ? (check.reason ?? check.summary) : check.summary)}${details.length ? `<br>${details.map(escapeCell).join('<br>')}` : ''} |`);
    }
  }
  if (server.forecast) parts.push('', `> **forecast of the study**: ${escapeCell(studyForecastLine(server.forecast))}`);
  parts.push('');
  return parts;
}

/** A pull-request comment: one table per study, then its server checks. */
export function renderPlanMarkdown(studies: { title: string; plan: StudyPlan; note?: string; server?: ServerChecksView; schedule?: StudySchedule; program?: StudyProgram }[]): string {
  const parts = ['## studyflow plan', ''];
  for (const { title, plan, note, server, schedule, program } of studies) {
    parts.push(`### ${title}`, '');
    if (note) parts.push(`> ${note}`, '');
    parts.push('| | action | resource | key | reason |', '|---|---|---|---|---|');
    for (const a of plan.actions) {
      const changes = a.kind !== 'create' && a.changes?.length ? `<br>${a.changes.map((c) => `\`${c.field}\`: ${escapeCell(JSON.stringify(c.from))} → ${escapeCell(JSON.stringify(c.to))}`).join('<br>')}` : '';
      parts.push(`| ${SYMBOL[a.kind]} | ${a.kind} | ${a.resource} | ${escapeCell(a.group ? `${a.key} → ${a.group}` : a.key)} | ${escapeCell(a.reason)}${changes} |`);
    }
    for (const note of plan.notes ?? []) parts.push('', `> **${note.severity}**: ${escapeCell(note.text)}`);
    if (plan.guards?.length) {
      parts.push('', '| target group | guard in force |', '|---|---|');
      for (const g of plan.guards) for (const line of g.guards) parts.push(`| ${escapeCell(g.key)} | ${escapeCell(line)} |`);
    }
    if (plan.budget) parts.push('', `> **budget${plan.budget.verdict === 'over' ? ' (BLOCKING)' : ''}**: ${escapeCell(plan.budget.text)}`);
    const blocked = plan.actions.filter((a) => a.kind === 'blocked');
    if (blocked.length) {
      parts.push('', `❌ **${blocked.length} change(s) cannot be applied** (apply exits 4 and names them):`, '');
      for (const a of blocked) parts.push(`- \`${escapeCell(a.key)}\` ${(a.changes?.map((c) => c.field) ?? [a.resource]).map((f) => `\`${escapeCell(f)}\``).join(', ')}: ${escapeCell(a.reason)}`);
    }
    parts.push('', `**${summaryLine(plan)}**`, '');
    if (schedule && schedule.targetGroups.length > 0) {
      parts.push(`How apply runs it: ${escapeCell(studyStepsLine(schedule))}`, '', '| target group | launch | why | steps |', '|---|---|---|---|');
      for (const t of schedule.targetGroups) {
        const steps = program?.targetGroups.find((p) => p.key === t.key)?.steps;
        parts.push(`| ${escapeCell(t.key)} | ${launchLabel(t.launch.by)} | ${escapeCell(t.launch.reason)} | ${steps ? escapeCell(stepsLine(steps)) : ''} |`);
      }
      parts.push('');
    }
    if (server) parts.push(...serverChecksMarkdown(server));
  }
  return parts.join('\n');
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** GitHub workflow commands: a notice per study, a warning per blocked action and per blocking check, a notice per unavailable check. */
export function renderPlanGithub(studies: { file: string; title: string; plan: StudyPlan; server?: ServerChecksView }[]): string {
  const lines: string[] = [];
  for (const { file, title, plan, server } of studies) {
    lines.push(githubCommand('notice', { file, title: `studyflow plan ${title}` }, summaryLine(plan)));
    for (const a of plan.actions.filter((x) => x.kind === 'blocked')) {
      lines.push(githubCommand('warning', { file, title: `blocked ${a.key}` }, a.reason));
    }
    for (const note of plan.notes ?? []) {
      lines.push(githubCommand(note.severity === 'warning' ? 'warning' : 'notice', { file, title: `studyflow plan${note.key ? ` ${note.key}` : ''}` }, note.text));
    }
    // Over budget is a blocked action, annotated above; an incomplete prediction is worth a notice.
    if (plan.budget?.verdict === 'incomplete') lines.push(githubCommand('notice', { file, title: `budget ${title}` }, plan.budget.text));
    for (const group of server?.checks ?? []) {
      for (const check of group.checks) {
        if (check.outcome === 'blocking') {
          lines.push(githubCommand('warning', { file, title: `BLOCKING ${checkLabel(check.name)} ${group.key}` }, check.reason ?? check.summary));
        } else if (check.outcome === 'unavailable') {
          lines.push(githubCommand('notice', { file, title: `unavailable ${checkLabel(check.name)} ${group.key}` }, check.summary));
        }
      }
    }
  }
  return lines.join('\n');
}
