import type { StudyStep } from '../../plan/program';
import type { StepHandlers } from '../steps';
import { handOver, untilSettled } from './children';
import { writeDrafts, writeSecondPass } from './drafts';
import { writeExclusionGroup } from './exclusion-groups';
import { awaitDraftLaunches, launchBatch, readStudyGates } from './launches';
import { writeMemberships } from './memberships';
import { writeProject } from './project';
import type { ApplyRun } from './run';
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
  conclude: (run) => {
    const { state, desired } = run;
    state.status.appliedRevision = desired.revision;
    const keys = desired.targetGroups.map((t) => t.key);
    const failed = keys.filter((k) => state.status.targetGroups[k]?.phase === 'failed');
    state.setPhase(failed.length === 0 ? 'converged' : failed.length === keys.length ? 'failed' : 'partially_failed');
  },
};
