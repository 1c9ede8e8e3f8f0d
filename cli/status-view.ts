import { gateBlockedOf, softLaunchStatusText } from '../client/study-outcome';
import type { StudyStatus, TargetGroupStatus, UnappliedChange } from '../workflows/messages';
import { devStackFor } from './dev-stack-file';
import { table, type Output } from './output';

const GOOD = new Set(['live', 'completed']);
const WAITING = new Set(['awaiting_approval', 'awaiting_completes', 'scheduled', 'gate_blocked', 'draft', 'paused']);

export function phaseLabel(out: Output, phase: string): string {
  if (GOOD.has(phase)) return out.green(phase);
  if (phase === 'failed') return out.red(phase);
  if (WAITING.has(phase)) return out.yellow(phase);
  return phase;
}

function feasibilityText(tg: TargetGroupStatus): string {
  if (!tg.feasibility) return '-';
  const f = tg.feasibility;
  return `${f.feasible ? 'yes' : 'no'}${f.feasibleCompletes !== undefined ? ` (${f.feasibleCompletes}/${f.fillingGoal ?? '?'})` : ''}`;
}

/** When a timed or staged launch goes live: "launches at …", "launches after X has N completes (it has M)". */
export function launchNote(tg: TargetGroupStatus): string | undefined {
  if (tg.phase === 'scheduled' && tg.launchAt) return `launches at ${tg.launchAt}`;
  const after = tg.launchAfter;
  if (tg.phase === 'awaiting_completes' && after) return `launches after ${after.targetGroup} has ${after.completes} completes${after.has !== undefined ? ` (it has ${after.has})` : ''}`;
  return undefined;
}

/** One row per target group: key, phase, remote id, feasibility, price, and what it waits for or why it failed. */
export function statusTable(out: Output, status: StudyStatus): string {
  const rows = Object.values(status.targetGroups)
    .sort((a, b) => a.key.localeCompare(b.key))
    .map((tg) => [
      tg.key,
      phaseLabel(out, tg.phase),
      tg.targetGroupId ?? '-',
      feasibilityText(tg),
      tg.price ? `${tg.price.value} ${tg.price.currency_code}` : '-',
      tg.guards?.hold
        ? `held by guard ${tg.guards.hold.guards.map((h) => h.guard).join(', ')}`
        : tg.softLaunch && tg.softLaunch.state !== 'promoted' && tg.softLaunch.state !== 'analysed'
          ? `soft launch ${tg.softLaunch.state.replace('_', ' ')}${tg.softLaunch.decision ? ` (${tg.softLaunch.decision.outcome})` : ''}`
          : tg.drift?.length ? `drift: ${tg.drift.map((d) => d.field).join(', ')}` : (launchNote(tg) ?? tg.message ?? ''),
    ]);
  return table(['TARGET GROUP', 'STATE', 'ID', 'FEASIBLE', 'CPI', 'NOTE'], rows);
}

/**
 * The guards' lines under the table: each trip in force with its evidence (the reading against the threshold, and
 * when), what resumes a held one, and the last resume with who made it.
 */
export function guardLines(out: Output, status: StudyStatus): string[] {
  const lines: string[] = [];
  for (const tg of Object.values(status.targetGroups).sort((a, b) => a.key.localeCompare(b.key))) {
    const guards = tg.guards;
    if (!guards) continue;
    const held = new Set(guards.hold?.guards.map((h) => h.guard) ?? []);
    for (const trip of guards.active) {
      const what = held.has(trip.guard) ? 'paused it; `studyflow approve --resume` resumes it' : trip.action === 'pause' ? 'tripped' : 'notified';
      lines.push(out.yellow(`  ${tg.key} guard ${trip.guard} (${trip.kind}) tripped at ${trip.at}: ${trip.text}; ${what}`));
    }
    if (guards.resumed) lines.push(`  ${tg.key} resumed by ${guards.resumed.by} at ${guards.resumed.at} (guard ${guards.resumed.guards.join(', ')} acknowledged)`);
  }
  return lines;
}

/**
 * The soft launches' lines under the table: where each stands (running with its completes, or its outcome and what
 * was done), the evidence of a judged one (value, thresholds, sample size per metric), and who decided it.
 */
export function softLaunchLines(out: Output, status: StudyStatus): string[] {
  const lines: string[] = [];
  for (const tg of Object.values(status.targetGroups).sort((a, b) => a.key.localeCompare(b.key))) {
    const soft = tg.softLaunch;
    if (!soft) continue;
    const waits = soft.state === 'awaiting_decision' || soft.state === 'paused';
    const line = `  ${tg.key} ${softLaunchStatusText(soft)}${soft.message ? ` (${soft.message})` : ''}`;
    lines.push(waits ? out.yellow(line) : line);
    if (soft.decision && (soft.state !== 'promoted' || soft.decision.outcome !== 'pass' || soft.decidedBy)) {
      for (const e of soft.decision.evidence) lines.push(`    ${e.text}`);
    } else if (soft.decision) {
      lines.push(`    ${soft.decision.evidence.map((e) => e.text).join('; ') || soft.decision.text}`);
    }
  }
  return lines;
}

const UNAPPLIED_REASON: Record<UnappliedChange['reason'], string> = {
  blocked: 'blocked',
  gate_refused: 'gate refused',
  operation_failed: 'operation failed',
  left_out: 'pending',
};

/**
 * One line per change the study did not make (target group, field, reason and why), then one per target group its
 * launch gate holds (with why it holds).
 */
export function unappliedLines(out: Output, status: StudyStatus): string[] {
  const changes = status.unapplied ?? [];
  const held = gateBlockedOf(status);
  const lines: string[] = [];
  if (changes.length) {
    lines.push(out.red(`${changes.length} change(s) not applied:`), ...changes.map((c) => `  ${c.targetGroup} ${c.field}: ${UNAPPLIED_REASON[c.reason]}: ${c.detail}`));
  }
  if (held.length) {
    lines.push(out.red(`${held.length} launch(es) held by the launch gate:`), ...held.map((t) => `  ${t.key} launch: gate blocked: ${t.message ?? 'the gate holds'}`));
  }
  return lines;
}

/**
 * The study's phase as apply and status say it: `converged` only when every change was made and no target group is
 * held by its launch gate, else `not converged: 2 change(s) not applied, 1 target group gate-blocked (us)`.
 */
export function studyPhaseText(status: StudyStatus): string {
  const n = status.unapplied?.length ?? 0;
  const held = gateBlockedOf(status).map((t) => t.key);
  if (status.phase !== 'converged' || (n === 0 && held.length === 0)) return status.phase;
  const parts = [n > 0 ? `${n} change(s) not applied` : undefined, held.length > 0 ? `${held.length} target group(s) gate-blocked (${held.join(', ')})` : undefined];
  return `not converged: ${parts.filter(Boolean).join(', ')}`;
}

/** What a target group is doing beyond its phase: job progress, feasibility, price, message. */
export function progressDetails(tg: TargetGroupStatus): string[] {
  const parts: string[] = [];
  if (tg.job) parts.push(`${tg.job.kind} job ${tg.job.status} (poll ${tg.job.polls})`);
  if (tg.price && (tg.phase === 'launching' || tg.phase === 'gate_blocked')) parts.push(`cpi=${tg.price.value} ${tg.price.currency_code}`);
  const note = launchNote(tg);
  if (note) parts.push(note);
  else if (tg.message) parts.push(tg.message);
  return parts;
}

/** A one-line progress message for a target group, for non-TTY logs. */
export function progressLine(tg: TargetGroupStatus): string {
  return [`${tg.key}: ${tg.phase}`, ...progressDetails(tg)].join(' · ');
}

/**
 * The Temporal UI page of a workflow, or undefined when the UI is not known (no link rather than a wrong one):
 * STUDYFLOW_TEMPORAL_UI_URL when set; else, against `studyflow dev` run from `cwd` (the same Temporal address),
 * the UI it runs, whatever its --ui-port.
 */
export function temporalUiLink(env: NodeJS.ProcessEnv, temporal: { address: string; namespace: string }, workflowId: string, cwd: string): string | undefined {
  const base = env.STUDYFLOW_TEMPORAL_UI_URL?.trim() || devStackFor(cwd, temporal.address)?.ui_url;
  if (!base) return undefined;
  return `${base.replace(/\/$/, '')}/namespaces/${encodeURIComponent(temporal.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

/** The study's budget in one line (absent without a budget): the spend (or the prediction), the refusal or the hold. */
export function budgetLine(out: Output, status: StudyStatus): string | undefined {
  const b = status.budget;
  if (!b) return undefined;
  const parts = [(b.refused ? b.prediction : b.spend) ?? b.prediction ?? `${b.budget.value} ${b.budget.currency_code}`];
  if (b.refused) parts.push(`${b.refused}: nothing launched`);
  if (b.reached) parts.push(`budget reached at ${b.reached.at}: paused ${b.reached.paused.join(', ') || 'none'} (resumed by a revision raising the budget)`);
  const text = `budget: ${parts.join('; ')}`;
  return b.refused || b.reached ? out.red(text) : text;
}
