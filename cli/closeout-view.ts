// The close-out as the CLI shows it (plan, apply, status, approve --closeout): counts per target group and code,
// the money they reverse, the days left before each window closes, what blocks it or waits for approval, and what
// the exchange did. Rendering only; every figure comes from plan/closeout.ts or the workflow's status.
import type { CloseoutPlan } from '../plan/closeout-types';
import type { CloseoutStatus, StudyStatus } from '../workflows/messages';

type PerTargetGroup = CloseoutPlan['perTargetGroup'][number];

function codes(tg: PerTargetGroup): string {
  return Object.entries(tg.byCode)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([code, c]) => `code ${code}: ${c.toSubmit} to reverse${c.submitted ? `, ${c.submitted} submitted` : ''}`)
    .join('; ');
}

function window(tg: PerTargetGroup): string {
  if (!tg.windowClosesAt) return '';
  const left = tg.daysLeft < 0 ? 'closed' : tg.daysLeft === 0 ? 'last day' : `${tg.daysLeft} day(s) left`;
  return `; window closes ${tg.windowClosesAt} (${left})`;
}

/** One line per target group: `  <key>  code 11: 3 to reverse; reverses 4.50 USD; window closes … (12 day(s) left)`. */
export function perTargetGroupLines(perTargetGroup: readonly PerTargetGroup[]): string[] {
  return perTargetGroup.map((tg) => `  ${tg.key}  ${codes(tg)}${tg.reverses ? `; reverses ${tg.reverses.value} ${tg.reverses.currency_code}` : ''}${window(tg)}`);
}

/** The close-out of `studyflow plan`: what apply would submit, and why it would not. */
export function closeoutPlanLines(plan: CloseoutPlan, blockTexts: readonly string[]): string[] {
  const submits = plan.steps.filter((s) => s.kind !== 'archive_report');
  const head = plan.blocks.length
    ? 'Close-out: BLOCKED, nothing is submitted'
    : submits.length
      ? `Close-out: ${submits.length} submission(s), IRREVERSIBLE: apply submits them only once approved (studyflow approve --closeout, or apply --approve-closeout)`
      : 'Close-out: nothing to submit';
  const lines = [head, ...perTargetGroupLines(plan.perTargetGroup)];
  if (plan.notEligible) lines.push(`  ${plan.notEligible} RID(s) are not completes of this study's project the exchange lets reconcile: never submitted`);
  for (const text of blockTexts) lines.push(`  ✗ ${text}`);
  for (const step of plan.steps) {
    if (step.kind === 'submit_reversals') lines.push(`  + submit ${step.name}: ${step.rows} row(s)`);
    else if (step.kind === 'submit_approved_completes') lines.push(`  + submit ${step.name}: keep the listed completes, terminate ${step.terminates}`);
    else lines.push(`  + archive report ${step.report}`);
  }
  if (plan.reportsWaiting.length) lines.push(`  reports after the reversals: ${plan.reportsWaiting.join(', ')}`);
  return lines;
}

function statusHead(closeout: CloseoutStatus): string {
  switch (closeout.phase) {
    case 'awaiting_approval':
      return 'Close-out: awaiting approval (irreversible): studyflow approve <study> --closeout';
    case 'blocked':
      return 'Close-out: blocked, nothing submitted';
    case 'submitting':
      return 'Close-out: submitting';
    case 'planned':
      return 'Close-out: planned (reports wait for fielding to end)';
    case 'closed':
      return 'Close-out: closed';
  }
}

/** The close-out of a study's status (apply's table, `status`, `approve --closeout`); none when the study has none. */
export function closeoutLines(status: StudyStatus): string[] {
  const closeout = status.closeout;
  if (!closeout) return [];
  const lines = [statusHead(closeout), ...perTargetGroupLines(closeout.perTargetGroup)];
  for (const block of closeout.blocks ?? []) lines.push(`  ✗ ${block}`);
  for (const s of closeout.submissions) {
    lines.push(`  ${s.name}: ${s.status}${s.counts ? ` (reversed ${s.counts.reversed}, expired ${s.counts.expired}, invalid ${s.counts.invalid})` : ''}`);
  }
  for (const [key, r] of Object.entries(closeout.results ?? {})) lines.push(`  ${key}: reversed ${r.reversed}, expired ${r.expired}, invalid ${r.invalid}`);
  const archives = Object.entries(closeout.archives);
  if (archives.length) lines.push(`  archived: ${archives.map(([what, name]) => `${what} -> ${name}`).join(', ')}`);
  return lines;
}
