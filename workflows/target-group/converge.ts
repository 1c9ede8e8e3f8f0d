import { condition } from '@temporalio/workflow';
import type { Api } from '../activity-proxies';
import { awaitApproval } from './approval';
import { passGate } from './gate';
import { launch, wentLive } from './launch';
import { eventOfRemote } from '../phases';
import { prepareProfiles } from './prepare';
import type { TargetGroupState } from './state';
import { uploadLists } from './upload';

/**
 * Carries out this revision's actions, step by step: prepare (profiles), upload (lists), then, when
 * the plan launches it, gate, approval and launch. Returns when the revision has settled; a gate that
 * holds or an approval not given waits for a new revision.
 */
export async function converge(state: TargetGroupState, api: Api): Promise<void> {
  const { revision } = state;
  state.status.targetGroupId = revision.targetGroupId;
  await prepareProfiles(state, api);
  await uploadLists(state, api);
  const live = revision.launch?.live;
  if (live) {
    // The study launched it: take its figures and settle live.
    state.status.feasibility = revision.launch?.gate?.feasibility;
    state.status.price = revision.launch?.gate?.price;
    wentLive(state, live.fieldingRunId, live.launchedAt);
    return;
  }
  if (!revision.actions.some((a) => a.kind === 'launch')) {
    // Status and run only: a draft is one read, a launched group three (GET TG's 301, overview, fielding runs).
    const { state: current } = await api().readTargetGroupState({ ...state.base, reads: ['status', 'fieldingRun'] });
    state.enter(eventOfRemote(current.status), { fieldingRunId: current.fieldingRunId ?? state.status.fieldingRunId });
    return;
  }
  const gate = await passGate(state, api);
  if (!gate) {
    await condition(() => state.pendingRevision !== undefined);
    return; // the new revision converges from the top
  }
  if (!(await awaitApproval(state))) return;
  await launch(state, api, gate);
}
