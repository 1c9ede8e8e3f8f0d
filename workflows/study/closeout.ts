// The close-out of a study (issue 36), after its target groups settled: observe (counts only), plan
// (plan/closeout.ts), and, once approved, submit each chunk once, follow it to its end and archive its files
// and the reports. Reversals cannot be undone: nothing is submitted while the plan blocks or waits for approval.
import { closeoutApprovalKey, closeoutBlockText, daysLeft, nextCloseoutWarning, planCloseout } from '../../plan/closeout';
import { notify } from '../notify';
import type { CloseoutStep, DesiredCloseout } from '../../plan/closeout-types';
import type { DesiredStudy } from '../../plan/types';
import type { Api } from '../activity-proxies';
import type { ApplyRequest, CloseoutStatus, UnappliedChange } from '../messages';
import type { StudyState } from './state';

/** The study-level field a close-out's unapplied change names. */
const FIELD = 'closeout';

/** The close-out is done for these files: closed, and every report it asks for archived. Nothing to read again. */
function settledFor(state: StudyState, closeout: DesiredCloseout): boolean {
  const held = state.status.closeout;
  return held?.phase === 'closed' && held.approvalKey === closeoutApprovalKey(closeout) && closeout.reports.every((r) => held.archives[r] !== undefined);
}

/** Fielding is over when every target group the study manages has completed: then the reports are final. */
function fieldingOver(state: StudyState): boolean {
  const tgs = Object.values(state.status.targetGroups);
  return tgs.length > 0 && tgs.every((tg) => tg.phase === 'completed');
}

/**
 * Runs the close-out of the revision (a no-op without one); what it could not do goes to `unapplied`. A close-out
 * already closed for the same files, with its reports archived, reads nothing: a re-apply makes no request.
 */
export async function runCloseout(state: StudyState, api: Api, request: ApplyRequest, unapplied: UnappliedChange[]): Promise<void> {
  const { desired } = request;
  const closeout = desired.closeout;
  if (request.approveCloseout) state.closeoutApproval.approved = request.approveCloseout;
  if (!closeout) {
    delete state.status.closeout;
    return;
  }
  const notMade = (detail: string) => unapplied.push({ targetGroup: desired.studyId, field: FIELD, reason: 'blocked', detail });
  const notEligible = (n: number) => notMade(`${n} RID(s) of the reversal files are not completes of this study's project the exchange lets reconcile: not submitted`);
  if (settledFor(state, closeout)) {
    // Closed: nothing is read again, and what it could not submit is said again, so every re-apply exits alike.
    if (state.status.closeout?.notEligible) notEligible(state.status.closeout.notEligible);
    return;
  }
  // A partial apply (`--target-group`, `--except`) applies target groups only: the close-out waits for a full one.
  if (request.scope) return;
  const projectId = state.projectId;
  if (!projectId) {
    notMade('the study has no project in the exchange yet: nothing to close out');
    return;
  }
  const targetGroups: Record<string, { key: string; status: string }> = {};
  for (const [key, id] of Object.entries(state.targetGroupIds)) targetGroups[id] = { key, status: state.status.targetGroups[key]?.phase ?? 'unknown' };
  const archived = archivedReports(state, closeout.reports);
  const read = await api('observe close-out', 'long').observeCloseout({ ctx: state.ctx(), studyId: desired.studyId, projectId, targetGroups, closeout, archivedReports: archived });
  const plan = planCloseout(desired.studyId, closeout, read.observed, read.exchangeNow);
  const approvalKey = closeoutApprovalKey(closeout);
  const status: CloseoutStatus = (state.status.closeout = {
    phase: 'planned',
    approvalKey,
    perTargetGroup: plan.perTargetGroup,
    notEligible: plan.notEligible,
    steps: plan.steps,
    submissions: read.observed.submissions.map((s) => ({ name: s.name, status: s.status, ...(s.counts ? { counts: s.counts } : {}) })),
    archives: state.status.closeout?.archives ?? {},
    ...(state.status.closeout?.results ? { results: state.status.closeout.results } : {}),
    ...(state.status.closeout?.deadlineNotified ? { deadlineNotified: state.status.closeout.deadlineNotified } : {}),
  });
  if (plan.blocks.length) {
    status.phase = 'blocked';
    status.blocks = plan.blocks.map(closeoutBlockText);
    for (const text of status.blocks) notMade(text);
    return;
  }
  const approval = state.closeoutApproval;
  const submits = plan.steps.filter((s) => s.kind !== 'archive_report');
  if (submits.length && approval.approved !== approvalKey) {
    status.phase = 'awaiting_approval';
    // `studyflow approve --closeout` applies this revision again, approved.
    approval.waiting = request;
    notMade(`reversals cannot be undone: awaiting approval (studyflow approve ${desired.studyId} --closeout, or apply --approve-closeout)`);
    return;
  }
  status.phase = 'submitting';
  state.checkpoint();
  for (const step of submits) await runStep(state, api, desired, step, read.delta, projectId, status);
  delete approval.waiting;
  // What was to submit is submitted now: the status shows the close-out after this apply, not the plan before it.
  if (submits.length) {
    status.perTargetGroup = status.perTargetGroup.map((tg) => ({
      ...tg,
      byCode: Object.fromEntries(Object.entries(tg.byCode).map(([code, c]) => [code, { toSubmit: 0, submitted: c.submitted + c.toSubmit }])),
    }));
  }
  // RIDs of the files that are no completes of this project in their window: never submitted, and said so.
  if (plan.notEligible > 0) notEligible(plan.notEligible);
  // The reports are final once fielding is over; until then they wait (and the close-out stays open).
  if (!fieldingOver(state)) {
    status.phase = closeout.reports.length ? 'planned' : 'closed';
    delete status.steps;
    return;
  }
  for (const report of closeout.reports) {
    if (!archivedReports(state, [report]).length) await runStep(state, api, desired, { kind: 'archive_report', report }, read.delta, projectId, status);
  }
  status.phase = 'closed';
  delete status.steps;
}

async function runStep(state: StudyState, api: Api, desired: DesiredStudy, step: CloseoutStep, delta: { ref: string } | undefined, projectId: string, status: CloseoutStatus): Promise<void> {
  const ctx = state.ctx();
  switch (step.kind) {
    case 'submit_reversals': {
      if (!delta) return;
      const sent = await api(`submit reversals ${step.name}`, 'long').submitReversals({ ctx, name: step.name, idempotencyKey: step.idempotencyKey, delta, from: step.from, rows: step.rows });
      if (!sent.found) state.countWrites();
      await follow(state, api, desired, step.name, sent.requestId, status);
      return;
    }
    case 'submit_approved_completes': {
      const list = desired.closeout?.approvedCompletes?.list;
      if (!list) return;
      const sent = await api(`submit approved completes ${step.name}`, 'long').submitApprovedCompletesList({ ctx, name: step.name, idempotencyKey: step.idempotencyKey, projectId, list });
      if (!sent.found) state.countWrites();
      await follow(state, api, desired, step.name, sent.requestId, status);
      return;
    }
    case 'archive_report': {
      const done = await api(`archive report ${step.report}`, 'long').archiveCloseoutReport({ ctx, studyId: desired.studyId, projectId, report: step.report });
      status.archives[step.report] = done.archive;
      return;
    }
  }
}

async function follow(state: StudyState, api: Api, desired: DesiredStudy, name: string, requestId: string, status: CloseoutStatus): Promise<void> {
  const done = await api(`await reconciliation ${name}`, 'long').awaitReconciliation({ ctx: state.ctx(), studyId: desired.studyId, requestId });
  const entry = { name, status: done.submission.status, ...(done.submission.counts ? { counts: done.submission.counts } : {}) };
  const at = status.submissions.findIndex((s) => s.name === name);
  if (at >= 0) status.submissions[at] = entry;
  else status.submissions.push(entry);
  for (const [type, archive] of Object.entries(done.archives)) status.archives[`${name}/${type}`] = archive;
  status.results ??= {};
  for (const [id, counts] of Object.entries(done.perTargetGroup)) {
    const key = Object.entries(state.targetGroupIds).find(([, tgId]) => tgId === id)?.[0] ?? id;
    const prev = status.results[key] ?? { reversed: 0, expired: 0, invalid: 0 };
    status.results[key] = { reversed: prev.reversed + counts.reversed, expired: prev.expired + counts.expired, invalid: prev.invalid + counts.invalid };
  }
  state.checkpoint();
}

/** The reports of `wanted` this study archived already. */
function archivedReports<T extends string>(state: StudyState, wanted: readonly T[]): T[] {
  const archives = state.status.closeout?.archives ?? {};
  return wanted.filter((r) => archives[r] !== undefined);
}

/** How long until the study owes a `closeout_deadline` warning (0: now), or undefined when it owes none. */
export function closeoutWarningDueIn(state: StudyState): number | undefined {
  const warning = nextCloseoutWarning(state.status.closeout);
  return warning ? Math.max(0, Date.parse(warning.warnAt) - Date.now()) : undefined;
}

/**
 * Sends the `closeout_deadline` warning that is due, once per target group and window (the notify targets of the
 * last applied revision), and records it.
 */
export async function warnOfCloseoutDeadline(state: StudyState): Promise<void> {
  const closeout = state.status.closeout;
  const warning = nextCloseoutWarning(closeout);
  if (!closeout || !warning || Date.parse(warning.warnAt) > Date.now()) return;
  (closeout.deadlineNotified ??= {})[warning.key] = warning.closesAt;
  // The days left as `plan` and `status` count them (plan/closeout.ts daysLeft: 0 on the window's last day).
  const left = Math.max(0, daysLeft(warning.closesAt, new Date().toISOString()));
  await notify(
    state.notify,
    { kind: 'closeout_deadline', studyId: state.studyId, targetGroup: warning.key, at: new Date().toISOString(), closesAt: warning.closesAt, daysLeft: left, toReverse: warning.toReverse, phase: closeout.phase },
    warning.closesAt,
  );
}
