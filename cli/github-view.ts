// What `--format github` adds for GitHub Actions: workflow-command annotations on stdout (the runner turns
// them into annotations on the run and the diff) and a markdown section appended to the job's step summary
// (the file GITHUB_STEP_SUMMARY names). `plan` has its own in plan-view.ts.
import fs from 'node:fs';
import { githubCommand, type Diagnostic } from '../definitions';
import type { StudyStatus } from '../workflows/messages';
import { studyPhaseText } from './status-view';

/** Appends a markdown section to the step summary when the runner gave one (GITHUB_STEP_SUMMARY). */
export function appendStepSummary(env: NodeJS.ProcessEnv, markdown: string): void {
  const file = env.GITHUB_STEP_SUMMARY;
  if (file) fs.appendFileSync(file, `${markdown.trimEnd()}\n\n`);
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');

/** The step summary of `validate`: the counts, then every diagnostic with its place. */
export function validateSummaryMarkdown(summary: string, diagnostics: Diagnostic[]): string {
  const lines = ['### studyflow validate', '', `${diagnostics.some((d) => d.severity === 'error') ? '❌' : '✅'} ${summary}`];
  if (diagnostics.length) {
    lines.push('', '| place | severity | code | message |', '|---|---|---|---|');
    for (const d of diagnostics) lines.push(`| \`${cell(`${d.file}:${d.line}:${d.column}`)}\` | ${d.severity} | ${d.code} | ${cell(d.message)} |`);
  }
  return lines.join('\n');
}

/** One followed study of `apply`, as the GitHub view needs it. */
export interface AppliedStudy {
  file: string;
  workflowId: string;
  outcome: string;
  status?: StudyStatus;
  /** The study's Temporal UI page, when the UI is known. */
  ui?: string;
}

const SETTLED_GOOD = new Set(['live', 'completed']);

/** Annotations of `apply`: a notice per study with its outcome, an error per failure, a warning per target group left short of live. */
export function applyAnnotations(studies: AppliedStudy[], requireLive: boolean): string[] {
  const lines: string[] = [];
  for (const s of studies) {
    const groups = Object.values(s.status?.targetGroups ?? {});
    const live = groups.filter((t) => SETTLED_GOOD.has(t.phase)).length;
    const headline = `${s.status ? studyPhaseText(s.status) : s.outcome}: ${live} of ${groups.length} target group(s) live, ${s.status?.writes ?? 0} write(s) (${s.outcome})`;
    lines.push(githubCommand('notice', { file: s.file, title: `studyflow apply ${s.status?.studyId ?? s.workflowId}` }, s.ui ? `${headline}\n${s.ui}` : headline));
    if (s.status?.error) lines.push(githubCommand('error', { file: s.file, title: `study ${s.status.studyId} failed` }, s.status.error));
    if (s.outcome === 'timeout') lines.push(githubCommand('error', { file: s.file, title: 'timed out' }, 'studyflow stopped following before the study settled; the study goes on'));
    for (const c of s.status?.unapplied ?? []) {
      lines.push(githubCommand('error', { file: s.file, title: `not applied: ${c.targetGroup} ${c.field}` }, `${c.reason.replace(/_/g, ' ')}: ${c.detail}`));
    }
    for (const t of groups) {
      if (t.phase === 'failed') {
        lines.push(githubCommand('error', { file: s.file, title: `target group ${t.key} failed` }, t.failure?.message ?? t.message ?? 'failed'));
      } else if (t.phase === 'gate_blocked' && s.outcome === 'settled') {
        // Apply exits 4 over it (client/follow.ts applyExitCode): an error, as a change not applied is.
        lines.push(githubCommand('error', { file: s.file, title: `target group ${t.key} is gate_blocked` }, t.message ?? 'its launch gate holds'));
      } else if (!SETTLED_GOOD.has(t.phase) && (requireLive || t.message)) {
        lines.push(githubCommand(requireLive ? 'error' : 'warning', { file: s.file, title: `target group ${t.key} is ${t.phase}` }, t.message ?? `not live (${t.phase})`));
      }
    }
  }
  return lines;
}

/** The step summary of `apply`: a table of target groups per study. */
export function applySummaryMarkdown(studies: AppliedStudy[]): string {
  const lines = ['### studyflow apply'];
  for (const s of studies) {
    lines.push('', `**${cell(s.file)}**: study \`${s.status?.studyId ?? '?'}\` ${s.status ? studyPhaseText(s.status) : s.outcome} (${s.outcome}), ${s.status?.writes ?? 0} write(s).${s.ui ? ` [Temporal UI](${s.ui})` : ''}`);
    const unapplied = s.status?.unapplied ?? [];
    if (unapplied.length) {
      lines.push('', `❌ **${unapplied.length} change(s) not applied**`, '', '| target group | field | reason | why |', '|---|---|---|---|');
      for (const c of unapplied) lines.push(`| ${cell(c.targetGroup)} | \`${cell(c.field)}\` | ${c.reason.replace(/_/g, ' ')} | ${cell(c.detail)} |`);
    }
    const groups = Object.values(s.status?.targetGroups ?? {});
    if (!groups.length) continue;
    lines.push('', '| target group | phase | id | note |', '|---|---|---|---|');
    for (const t of groups) lines.push(`| ${cell(t.key)} | ${t.phase} | ${t.targetGroupId ?? ''} | ${cell(t.failure?.message ?? t.message ?? '')} |`);
  }
  return lines.join('\n');
}
