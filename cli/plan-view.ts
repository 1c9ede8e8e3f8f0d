import type { PlannedAction, StudyPlan } from '../plan/types';
import type { Output } from './output';

const SYMBOL: Record<PlannedAction['kind'], string> = {
  create: '+',
  update: '~',
  upload: '↑',
  replace_list: '↻',
  add_to_group: '+',
  remove_from_group: '-',
  launch: '▶',
  blocked: '!',
  none: '=',
};

function describe(action: PlannedAction): string {
  const subject = action.resource === 'project' ? 'project' : `${action.resource.replace(/_/g, ' ')} ${action.key}`;
  const group = action.group ? ` -> ${action.group}` : '';
  return `${action.kind.replace(/_/g, ' ')} ${subject}${group}: ${action.reason}`;
}

function changeLines(action: PlannedAction): string[] {
  if (action.kind === 'create' || !action.changes) return [];
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
    part(c.blocked, 'blocked'),
  ].filter(Boolean);
  return plan.hasChanges || c.blocked ? `Plan: ${parts.join(', ')}.` : 'No changes: the API holds what the study file says.';
}

/** The human plan: one line per action with its symbol and reason, field changes indented. */
export function renderPlanHuman(out: Output, title: string, plan: StudyPlan, note?: string): string {
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
  lines.push(summaryLine(plan));
  return lines.join('\n');
}

/** A pull-request comment: one table per study. */
export function renderPlanMarkdown(studies: { title: string; plan: StudyPlan; note?: string }[]): string {
  const parts = ['## studyflow plan', ''];
  for (const { title, plan, note } of studies) {
    parts.push(`### ${title}`, '');
    if (note) parts.push(`> ${note}`, '');
    parts.push('| | action | resource | key | reason |', '|---|---|---|---|---|');
    for (const a of plan.actions) {
      const changes = a.kind !== 'create' && a.changes?.length ? `<br>${a.changes.map((c) => `\`${c.field}\`: ${escapeCell(JSON.stringify(c.from))} → ${escapeCell(JSON.stringify(c.to))}`).join('<br>')}` : '';
      parts.push(`| ${SYMBOL[a.kind]} | ${a.kind} | ${a.resource} | ${escapeCell(a.group ? `${a.key} → ${a.group}` : a.key)} | ${escapeCell(a.reason)}${changes} |`);
    }
    parts.push('', `**${summaryLine(plan)}**`, '');
  }
  return parts.join('\n');
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** GitHub workflow commands: a notice per study and a warning per blocked action. */
export function renderPlanGithub(studies: { file: string; title: string; plan: StudyPlan }[]): string {
  const lines: string[] = [];
  for (const { file, title, plan } of studies) {
    lines.push(`::notice file=${file},title=studyflow plan ${escapeProperty(title)}::${escapeData(summaryLine(plan))}`);
    for (const a of plan.actions.filter((x) => x.kind === 'blocked')) {
      lines.push(`::warning file=${file},title=blocked ${escapeProperty(a.key)}::${escapeData(a.reason)}`);
    }
  }
  return lines.join('\n');
}

function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
