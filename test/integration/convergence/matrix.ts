// The convergence matrix (issue 35, DESIGN.md "The lifecycle as states, and the convergence rule"): every state a
// target group can be in × every change kind the plan knows and every operator control. Each cell is `tested` by a
// cell of test/integration/convergence-matrix.test.ts (on real Temporal and the sandbox), `n/a` with the reason no
// such change can be made from that state, or `open`: not walked yet, said so. docs/workflows.md holds this table
// (between its `convergence:start/end` markers) and test/workflows/convergence-matrix-doc.test.ts keeps the two
// equal. A new state or change kind adds its row or column here first.

export const STATES = [
  'draft',
  'gate_blocked',
  'awaiting_approval',
  'scheduled (exchange)',
  'scheduled (timer)',
  'awaiting_completes',
  'live',
  'paused (file)',
  'paused (guard)',
  'paused (budget)',
  'completed (file)',
  'completed (exchange)',
  'relaunched',
  'removed, kept',
  'removed, completed',
  'failed',
  'soft launch (running)',
  'soft launch (awaiting decision)',
  'soft launch (failed, paused)',
  'soft launch (aborted)',
  'soft launch (promoted)',
  'soft launch (analysis only)',
  'closing out (awaiting approval)',
  'closed',
] as const;
export type MatrixState = (typeof STATES)[number];

export const CHANGES = [
  're-apply',
  'goal',
  'quota goal',
  'window',
  'launch.at',
  'launch.after',
  'guard',
  'budget',
  'fielding',
  'removal',
  'blocked field',
  'pause',
  'resume',
  'complete',
  'approve',
  'approve --resume',
  'approve --promote/--abort',
  'closeout',
  'partial apply',
  'plan file',
  'new build',
] as const;
export type MatrixChange = (typeof CHANGES)[number];

export type CellMark = { kind: 'tested'; cell: string } | { kind: 'n/a'; why: string } | { kind: 'open' };

/** The cells a test walks: `state|change` -> the id of its cell in convergence-matrix.test.ts. */
export const TESTED: Readonly<Record<string, string>> = {
  'draft|re-apply': 'draft-reapply',
  'draft|fielding': 'draft-fielding-live',
  'gate_blocked|re-apply': 'gate-blocked-reapply',
  'awaiting_approval|re-apply': 'approval-reapply',
  'scheduled (exchange)|re-apply': 'scheduled-reapply',
  'scheduled (exchange)|launch.at': 'scheduled-launch-at',
  'scheduled (timer)|re-apply': 'timer-reapply',
  'awaiting_completes|re-apply': 'awaiting-reapply',
  'awaiting_completes|launch.after': 'awaiting-launch-after',
  'live|re-apply': 'live-reapply',
  'live|goal': 'live-goal',
  'live|window': 'live-window',
  'live|fielding': 'live-fielding-paused',
  'live|removal': 'live-removal-complete',
  'live|blocked field': 'live-blocked-locale',
  'live|pause': 'live-control-pause',
  'paused (file)|re-apply': 'paused-reapply',
  'paused (file)|fielding': 'paused-fielding-live',
  'completed (file)|re-apply': 'completed-reapply',
  'completed (file)|fielding': 'completed-relaunch',
  'relaunched|re-apply': 'completed-relaunch',
  'removed, kept|re-apply': 'removed-kept-reapply',
  'removed, completed|re-apply': 'live-removal-complete',
  'live|budget': 'budget-cut',
  'paused (budget)|re-apply': 'budget-cut',
  'failed|re-apply': 'failed-reapply',
};

/**
 * Cells another integration test walks end to end (the close-out's own file, issue 36): `state|change` -> that test
 * file; test/workflows/convergence-matrix-doc.test.ts checks each file exists and names the state.
 */
export const TESTED_ELSEWHERE: Readonly<Record<string, string>> = {
  'closing out (awaiting approval)|approve': 'test/integration/closeout.test.ts',
  'closed|re-apply': 'test/integration/closeout.test.ts',
  'closed|closeout': 'test/integration/closeout.test.ts',
  'live|closeout': 'test/integration/closeout.test.ts',
  // Trust in production (issue 37): `apply --target-group`, `apply plan.sfplan`, a study moving to a new worker build.
  'live|partial apply': 'test/integration/partial-apply.test.ts',
  'live|plan file': 'test/integration/plan-file.test.ts',
  'live|new build': 'test/integration/worker-versioning.test.ts',
  // Soft launch (issue 38): each outcome driven by the sandbox's settings, re-applied, then decided by an operator.
  'soft launch (running)|re-apply': 'test/integration/soft-launch.test.ts',
  'soft launch (awaiting decision)|re-apply': 'test/integration/soft-launch.test.ts',
  'soft launch (awaiting decision)|approve --promote/--abort': 'test/integration/soft-launch.test.ts',
  'soft launch (failed, paused)|re-apply': 'test/integration/soft-launch.test.ts',
  'soft launch (failed, paused)|approve --promote/--abort': 'test/integration/soft-launch.test.ts',
  'soft launch (aborted)|re-apply': 'test/integration/soft-launch.test.ts',
  'soft launch (aborted)|approve --promote/--abort': 'test/integration/soft-launch.test.ts',
  'soft launch (promoted)|re-apply': 'test/integration/soft-launch.test.ts',
  'soft launch (promoted)|approve --promote/--abort': 'test/integration/soft-launch.test.ts',
  'soft launch (analysis only)|re-apply': 'test/integration/soft-launch.test.ts',
};

const BEFORE_LAUNCH: readonly MatrixState[] = ['draft', 'gate_blocked', 'awaiting_approval', 'scheduled (exchange)', 'scheduled (timer)', 'awaiting_completes'];
const SOFT_LAUNCH_STATES: readonly MatrixState[] = STATES.filter((s) => s.startsWith('soft launch'));
const CLOSED: readonly MatrixState[] = ['completed (file)', 'completed (exchange)', 'removed, kept', 'removed, completed', 'closing out (awaiting approval)', 'closed'];

/** Why a change cannot be made from a state (the cell is not applicable), or undefined. */
function notApplicable(state: MatrixState, change: MatrixChange): string | undefined {
  if (state === 'removed, kept' || state === 'removed, completed') {
    return change === 're-apply' ? undefined : 'the file no longer declares it: nothing of it can change';
  }
  if (change === 'launch.at' || change === 'launch.after') {
    if (!BEFORE_LAUNCH.includes(state) && state !== 'failed') return 'launch rules apply before the launch only';
  }
  if ((change === 'pause' || change === 'resume' || change === 'complete') && BEFORE_LAUNCH.includes(state)) return 'no fielding run to control yet';
  if (change === 'closeout' && BEFORE_LAUNCH.includes(state)) return 'no completes to reverse before the launch';
  if (change === 'approve' && state !== 'awaiting_approval' && state !== 'closing out (awaiting approval)') return 'nothing awaits approval';
  if (change === 'approve --resume' && state !== 'paused (guard)') return 'only a guard hold is resumed by it';
  if (change === 'approve --promote/--abort' && !SOFT_LAUNCH_STATES.includes(state)) return 'only a soft launch is promoted or aborted';
  if (change === 'approve --promote/--abort' && (state === 'soft launch (running)' || state === 'soft launch (analysis only)')) return 'nothing waits for a decision: the analysis decides (or only tells)';
  if (CLOSED.includes(state) && (change === 'pause' || change === 'resume')) return 'completed is final in the exchange';
  return undefined;
}

export function cellMark(state: MatrixState, change: MatrixChange): CellMark {
  const tested = TESTED[`${state}|${change}`] ?? TESTED_ELSEWHERE[`${state}|${change}`];
  if (tested) return { kind: 'tested', cell: tested };
  const why = notApplicable(state, change);
  return why ? { kind: 'n/a', why } : { kind: 'open' };
}

/** The matrix as the Markdown table docs/workflows.md holds: ✓ tested, – not applicable, ○ open. */
export function matrixMarkdown(): string {
  const symbol = (m: CellMark) => (m.kind === 'tested' ? '✓' : m.kind === 'n/a' ? '–' : '○');
  const lines = [`| state | ${CHANGES.join(' | ')} |`, `|---|${CHANGES.map(() => ':-:').join('|')}|`];
  for (const state of STATES) lines.push(`| ${state} | ${CHANGES.map((c) => symbol(cellMark(state, c))).join(' | ')} |`);
  const counts = { tested: 0, 'n/a': 0, open: 0 };
  for (const state of STATES) for (const c of CHANGES) counts[cellMark(state, c).kind] += 1;
  lines.push('', `${counts.tested} cells tested, ${counts['n/a']} not applicable, ${counts.open} open.`);
  return lines.join('\n');
}
