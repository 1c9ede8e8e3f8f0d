import { condition } from '@temporalio/workflow';
import type { TargetGroupStep } from '../../plan/program';
import type { Api } from '../activity-proxies';
import type { GateReading } from '../child-protocol';
import type { StepHandlers } from '../steps';
import { awaitApproval } from './approval';
import { passGate } from './gate';
import { launch } from './launch';
import { checkLive, moveFielding, updateLive } from './live';
import { prepareProfiles } from './prepare';
import type { TargetGroupState } from './state';
import { scheduleLaunch, waitForCompletes, waitUntil } from './timing';
import { uploadList } from './upload';

/** What a target group's steps share in one revision: the state, the activities, the gate once it passed. */
export interface TargetGroupRun {
  state: TargetGroupState;
  api: Api;
  gate?: GateReading;
}

/** The step kinds a target group's workflow runs (the steps after its hand-over), and what carries each out. */
export const TARGET_GROUP_STEPS: StepHandlers<TargetGroupStep, TargetGroupRun> = {
  profiles: ({ state, api }) => prepareProfiles(state, api),
  upload: ({ state, api }, step) => uploadList(state, api, step),
  read_gate: async (run) => {
    run.gate = await passGate(run.state, run.api);
    if (run.gate) return;
    await condition(() => run.state.pendingRevision !== undefined);
    return 'stop'; // the new revision converges from the top
  },
  approve: async ({ state }) => ((await awaitApproval(state)) ? undefined : 'stop'),
  launch: (run, step) => launch(run.state, run.api, gateOf(run), step.idempotencyKey),
  wait_for_completes: ({ state }, step) => waitForCompletes(state, step),
  wait_until: ({ state }, step) => waitUntil(state, step),
  schedule_launch: (run, step) => scheduleLaunch(run.state, run.api, gateOf(run), step),
  // A launch job the study handed over running: awaited, and launched again by this workflow if it fails.
  await_job: (run) => {
    const gate = gateOf(run);
    run.state.status.feasibility = gate.feasibility;
    run.state.status.price = gate.price;
    if (gate.forecast) run.state.status.launchForecast = gate.forecast;
    return launch(run.state, run.api, gate);
  },
  read_state: async ({ state, api }) => {
    // Status and run only: a draft is one read, a launched group three (GET TG's 301, overview, fielding runs).
    const { state: current } = await api().readTargetGroupState({ ...state.base, reads: ['status', 'fieldingRun'] });
    state.takeRemote(current);
  },
  // A launched target group: the change's feasibility, the in-place updates, the declared fielding state.
  check_live: ({ state, api }, step) => checkLive(state, api, step, state.revision.steps.slice(state.revision.steps.indexOf(step) + 1)),
  update_live: ({ state, api }, step) => updateLive(state, api, step),
  fielding: ({ state, api }, step) => moveFielding(state, api, step),
  // The study's steps: never handed to a target group's workflow.
  draft: studyOnly,
  second_pass: studyOnly,
  membership: studyOnly,
  hand_over: studyOnly,
};

function studyOnly(_run: TargetGroupRun, step: TargetGroupStep): never {
  throw new Error(`the study's step ${step.kind} was handed to a target group's workflow`);
}

/** The gate this revision: the one that passed here, else the one the study read and handed over. */
function gateOf(run: TargetGroupRun): GateReading {
  const gate = run.gate ?? run.state.revision.launch?.gate;
  if (!gate) throw new Error(`target group ${run.state.status.key}: a launch step without a gate reading before it`);
  return gate;
}
