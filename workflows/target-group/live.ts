// The live steps of a launched target group (plan/live-steps.ts): the feasibility check of a change, the
// in-place updates (one activity per operation, each given the typed request the plan built: plan/live-requests.ts;
// each reads first and answers already_in_state without writing) and the declared fielding state. A change that
// is not made is recorded as unapplied, never dropped. Nothing here reads a rendered line or builds a request.
import type { TargetGroupStep } from '../../plan/program';
import { judgeLiveGate, liveGateHold, liveGateHoldText, liveGateReading } from '../../plan/live-gates';
import { fieldsOfLiveStep, requestOfStep } from '../../plan/live-steps';
import { LAUNCHED_PHASES } from '../../plan/phase-groups';
import type { Api } from '../activity-proxies';
import { failureOf, rethrowPassThrough, type Unapplied } from '../failures';
import { eventOfRemote } from '../phases';
import type { StepOutcome } from '../steps';
import { applyControl } from './controls';
import { noticeGateBlocked } from './notifications';
import type { TargetGroupState } from './state';
import { withRunningSoftLaunch } from './soft-launch';

type Step<K extends TargetGroupStep['kind']> = Extract<TargetGroupStep, { kind: K }>;
/** What an in-place write answered (api/operations/live-target-groups.ts LiveWriteOutcome). */
type WriteOutcome = { outcome: 'applied' | 'already_in_state' | 'precondition_failed' | 'invalid_state'; detail?: string };

/** A write guarded by If-Match answered 412 this many times in a row: the change is recorded as failed. */
const PRECONDITION_ATTEMPTS = 3;

const fieldsOf = (step: Step<'update_live'>) => step.changes.map((c) => c.field).join(', ');

/**
 * Feasibility of the change for the live group (calculate_target_group_feasibility_by_id), judged by the
 * gate's rules. Held (infeasible, over max_cpi, or waiting for approval): every change of the revision's
 * remaining steps is recorded as refused and the steps stop.
 */
export async function checkLive(state: TargetGroupState, api: Api, step: Step<'check_live'>, remaining: readonly TargetGroupStep[]): Promise<StepOutcome> {
  const { gate } = step;
  const answer = await api(`feasibility of the change to ${state.status.key}`).liveFeasibility({ ...state.base, whatIf: gate.request });
  const judged = judgeLiveGate(state.revision.desired, gate, {
    suggested_price: answer.suggestedPrice,
    ...(answer.completesGoalRange ? { suggested_completes_goal_range: answer.completesGoalRange } : {}),
  });
  state.status.feasibility = { feasible: judged.verdict.feasible, feasibleCompletes: judged.verdict.feasibleCompletes, fillingGoal: judged.verdict.fillingGoal };
  if (judged.verdict.suggestedPrice) state.status.price = judged.verdict.suggestedPrice;
  const hold = liveGateHold(judged, state.approved);
  if (!hold) return undefined;
  const why = liveGateHoldText(hold);
  const fields = remaining.flatMap(fieldsOfLiveStep);
  if (fields.length) state.recordUnapplied({ fields, reason: 'gate_refused', detail: `${liveGateReading(judged)}: ${why}` });
  state.status.message = `change held: ${why}`;
  // A refusal is told; a change waiting for `studyflow approve` is not a refusal.
  if (hold.held === 'refused') noticeGateBlocked(state, 'live change', why);
  return 'stop';
}

/**
 * The fielding run's id. A workflow started on a launched target group (the study's first apply of it, or a
 * relaunch after its workflow ended) does not know its phase or run yet: it reads them (status and run) first.
 */
async function fieldingRunIdOf(state: TargetGroupState, api: Api): Promise<string | undefined> {
  if (state.status.fieldingRunId && LAUNCHED_PHASES.has(state.status.phase)) return state.status.fieldingRunId;
  const { state: remote } = await api().readTargetGroupState({ ...state.base, reads: ['status', 'fieldingRun'] });
  state.enter(eventOfRemote(remote.status), remote.fieldingRunId ? { fieldingRunId: remote.fieldingRunId } : {});
  return state.status.fieldingRunId;
}

/**
 * One write: the step's request dispatched to its operation's activity, or why it cannot be made here. The request
 * is the plan's (plan/live-requests.ts); only the fielding run's id is read now, just before the run's write.
 */
async function write(state: TargetGroupState, api: Api, step: Step<'update_live'>): Promise<WriteOutcome | string> {
  const { request } = requestOfStep(step);
  const calls = api(`${request.operation} ${state.status.key}: ${fieldsOf(step)}`);
  const base = state.base;
  switch (request.operation) {
    case 'update_profile_filling_goal': {
      const { operation: _operation, ...goals } = request;
      return calls.updateLiveFillingGoal({ ...base, ...goals });
    }
    case 'update_fielding_run': {
      const fieldingRunId = await fieldingRunIdOf(state, api);
      if (!fieldingRunId) return 'the target group has no fielding run';
      const { operation: _operation, ...window } = request;
      return calls.updateLiveFieldingWindow({ ...base, fieldingRunId, ...window });
    }
    case 'update_launched_target_group_details':
      return calls.updateLiveDetails({ ...base, desired: request.details });
    case 'update_cost_per_interview':
      return calls.updateLiveCostPerInterview({ ...base, costPerInterview: request.costPerInterview });
    case 'update_target_group_allocation_specification':
      return calls.updateLiveAllocations({ ...base, allocations: request.allocations });
    case 'create_or_update_fielding_assistant_assignment':
      // The assignment is replaced whole: a soft launch that runs keeps its module (./soft-launch.ts).
      return calls.updateLiveFieldingAssistant({ ...base, modules: withRunningSoftLaunch(state, request.modules) });
    case 'set_target_group_respondent_activity_exclusions': {
      const { operation: _operation, ...exclusions } = request;
      await calls.putActivityExclusions({ ...base, ...exclusions });
      return { outcome: 'applied' };
    }
  }
}

/**
 * One in-place update (update_live): the operation's activity with the plan's request. Applied counts one write;
 * already_in_state none (a re-apply writes nothing); a 412 is tried again on the fresh state; a refusal of the
 * exchange (invalid state, a 4xx, retries used up) is recorded as unapplied and the next step runs. The changes
 * the request cannot carry (the plan's `unwritable`) are recorded as unapplied first.
 */
export async function updateLive(state: TargetGroupState, api: Api, step: Step<'update_live'>): Promise<void> {
  const { request, unwritable } = requestOfStep(step);
  for (const { field, detail } of unwritable) state.recordUnapplied({ fields: [field], reason: 'operation_failed', detail: `${request.operation}: ${detail}` });
  const skipped = new Set(unwritable.map((u) => u.field));
  const fields = step.changes.map((c) => c.field).filter((field) => !skipped.has(field));
  if (!fields.length) return;
  const failed = (detail: string): Unapplied => ({ fields, reason: 'operation_failed', detail: `${request.operation}: ${detail}` });
  for (let attempt = 1; ; attempt += 1) {
    let result: WriteOutcome | string;
    try {
      result = await write(state, api, step);
    } catch (error) {
      rethrowPassThrough(error);
      return state.recordUnapplied(failed(failureOf(error).message));
    }
    if (typeof result === 'string') return state.recordUnapplied(failed(result));
    if (result.outcome === 'applied') {
      state.writes += 1;
      state.addChange('event', `updated in place via ${request.operation}: ${fieldsOf(step)}`);
      state.publish();
      return;
    }
    if (result.outcome === 'already_in_state') return;
    if (result.outcome === 'invalid_state') return state.recordUnapplied(failed(result.detail ?? 'the exchange refused the change in the target group\'s state'));
    if (attempt >= PRECONDITION_ATTEMPTS) return state.recordUnapplied(failed(`the resource kept changing (412 ${PRECONDITION_ATTEMPTS} times)`));
  }
}

/** The declared fielding state (fielding): pause, resume or complete through the controls, relaunch through relaunch_fielding_run. */
export async function moveFielding(state: TargetGroupState, api: Api, step: Step<'fielding'>): Promise<void> {
  const failed = (detail: string) => state.recordUnapplied({ fields: ['fielding'], reason: 'operation_failed', detail: `${step.action}: ${detail}` });
  try {
    if (!(await fieldingRunIdOf(state, api))) return failed('the target group has no fielding run');
    if (step.action !== 'relaunch') {
      const refused = await applyControl(state, api, step.action);
      if (refused) failed(refused);
      return;
    }
    for (let attempt = 1; attempt <= PRECONDITION_ATTEMPTS; attempt += 1) {
      const result = await api(`relaunch ${state.status.key}`).relaunchFieldingRun({ ...state.base, fieldingRunId: state.status.fieldingRunId as string });
      state.etag = result.state.etag;
      if (result.outcome === 'applied' || result.outcome === 'already_in_state') {
        if (result.outcome === 'applied') state.writes += 1;
        state.enter('relaunched');
        return;
      }
      if (result.outcome === 'invalid_state') return failed(result.detail ?? `the run is ${result.state.status}`);
    }
    failed(`the fielding run kept changing (412 ${PRECONDITION_ATTEMPTS} times)`);
  } catch (error) {
    rethrowPassThrough(error);
    failed(failureOf(error).message);
  }
}
