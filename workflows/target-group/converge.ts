import type { Api } from '../activity-proxies';
import { runSteps } from '../steps';
import { TARGET_GROUP_STEPS } from './handlers';
import { wentLive } from './launch';
import type { TargetGroupState } from './state';
import { PASSING_PHASES } from '../phases';

/** The steps of a launched target group's changes (plan/live-steps.ts). */
const LIVE_STEPS: ReadonlySet<string> = new Set(['check_live', 'update_live', 'fielding']);

/**
 * Runs this revision's steps, the remaining steps the study handed over (plan/program.ts), through the
 * one interpreter (workflows/steps.ts): profiles, uploads, then gate, approval and launch, or a read of
 * where it is. Returns when the revision has settled; a gate that holds or an approval not given waits
 * for a new revision. A target group the study took live has no steps left: it settles live.
 */
export async function converge(state: TargetGroupState, api: Api): Promise<void> {
  const { revision } = state;
  state.status.targetGroupId = revision.targetGroupId;
  const ran: NonNullable<typeof state.status.steps> = (state.status.steps = []);
  delete state.status.unapplied;
  // A launched target group's live steps settle the revision once all ran (a resume does not settle it halfway).
  state.holdSettle = revision.steps.some((s) => LIVE_STEPS.has(s.kind));
  try {
    await runSteps(TARGET_GROUP_STEPS, { state, api }, revision.steps, (step) => ran.push(step));
  } finally {
    state.holdSettle = false;
  }
  if (revision.steps.some((s) => LIVE_STEPS.has(s.kind))) {
    if (!PASSING_PHASES.has(state.status.phase)) state.status.settledRevision = revision.revision;
    state.publish();
  }
  const live = revision.launch?.live;
  if (live && revision.steps.length === 0) {
    // The study launched it: take its figures and settle live.
    state.status.feasibility = revision.launch?.gate?.feasibility;
    state.status.price = revision.launch?.gate?.price;
    if (revision.launch?.gate?.forecast) state.status.launchForecast = revision.launch.gate.forecast;
    wentLive(state, live.fieldingRunId, live.launchedAt);
  }
}
