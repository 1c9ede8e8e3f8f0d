import type { StudyStep } from '../../plan/program';
import type { StepHandlers } from '../steps';
import { handOver, untilSettled } from './children';
import { writeDrafts, writeSecondPass } from './drafts';
import { writeExclusionGroup } from './exclusion-groups';
import { awaitDraftLaunches, launchBatch, readStudyGates } from './launches';
import { writeMemberships } from './memberships';
import { blockedChanges } from '../../plan/exit-code';
import { writeProject } from './project';
import { runCloseout } from './closeout';
import { completeRemoved } from './removed';
import type { ApplyRun } from './run';
import { watchOf } from './watch';
import { writeWebhook } from './webhooks';

/** The study's step kinds and what carries each out (the interpreter is workflows/steps.ts). */
export const STUDY_STEPS: StepHandlers<StudyStep, ApplyRun> = {
  project: writeProject,
  exclusion_group: writeExclusionGroup,
  webhook: writeWebhook,
  read_gates: readStudyGates,
  drafts: writeDrafts,
  await_launches: async (run, step) => {
    await awaitDraftLaunches(run, step);
    for (const key of step.keys) if (run.handOver[key]?.live) run.watchOnly.add(key);
  },
  second_pass: writeSecondPass,
  memberships: writeMemberships,
  launch_batch: launchBatch,
  hand_over: handOver,
  checkpoint: (run) => run.state.checkpoint(),
  settle: untilSettled,
  complete_removed: completeRemoved,
  conclude: async (run) => {
    const { state, desired } = run;
    // The close-out follows the target groups (workflows/study/closeout.ts): what it could not do joins the unapplied.
    await runCloseout(state, run.api, run.request ?? { desired }, run.unapplied);
    state.status.appliedRevision = desired.revision;
    state.atEnd = { removedTargetGroups: desired.removedTargetGroups ?? 'keep', apiVersion: desired.apiVersion };
    state.watch = watchOf(state, desired);
    const keys = desired.targetGroups.map((t) => t.key);
    // Every change of the revision that was not made: blocked in the plan, refused or failed in a workflow, or the study's own.
    const unapplied = [
      ...blockedChanges(state.status.plan ?? []),
      ...keys.flatMap((k) => {
        // Only a workflow handed this revision ran its steps now (one not handed it had nothing to write).
        const handed = state.status.program?.ran[k]?.some((s) => s.kind === 'hand_over');
        return handed ? (state.status.targetGroups[k]?.unapplied ?? []) : [];
      }),
      ...run.unapplied,
    ];
    // A target group the budget paused in this revision (its spend reached a budget the revision cut) while the file
    // says live: the same unapplied change the next plan names as blocked, so this apply and the next exit alike.
    const reached = state.status.budget?.reached;
    for (const key of reached?.paused ?? []) {
      const wantsLive = (desired.targetGroups.find((tg) => tg.key === key)?.fielding ?? 'live') === 'live';
      // Only one still paused: an operator may have resumed it by hand since.
      if (!wantsLive || state.status.targetGroups[key]?.phase !== 'paused') continue;
      if (unapplied.some((u) => u.targetGroup === key && u.field === 'fielding')) continue;
      const spend = state.status.budget?.spend ?? `spent ${reached?.spent.value} ${reached?.spent.currency_code}`;
      unapplied.push({ targetGroup: key, field: 'fielding', reason: 'blocked', detail: `held paused by the study's budget (${spend}); a revision whose budget is above the spend resumes it` });
    }
    if (unapplied.length) state.status.unapplied = unapplied;
    else delete state.status.unapplied;
    const failed = keys.filter((k) => state.status.targetGroups[k]?.phase === 'failed');
    state.setPhase(failed.length === 0 ? 'converged' : failed.length === keys.length ? 'failed' : 'partially_failed');
  },
};
