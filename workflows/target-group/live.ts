// The live steps of a launched target group (plan/live-steps.ts): the feasibility check of a change, the
// in-place updates (one activity per operation; each reads first and answers already_in_state without writing)
// and the declared fielding state. A change that is not made is recorded as unapplied, never dropped.
import { isCancellation } from '@temporalio/workflow';
import type { TargetGroupStep } from '../../plan/program';
import { judgeLiveGate } from '../../plan/live-gates';
import type { Api, WorkflowActivities } from '../activity-proxies';
import { failureOf } from '../failures';
import { eventOfRemote, IllegalTransition } from '../phases';
import type { StepOutcome } from '../steps';
import { applyControl } from './controls';
import { noticeGateBlocked } from './notifications';
import type { TargetGroupState } from './state';

type Step<K extends TargetGroupStep['kind']> = Extract<TargetGroupStep, { kind: K }>;
type Json = Record<string, unknown>;
type AssistantModules = Parameters<WorkflowActivities['updateLiveFieldingAssistant']>[0]['modules'];
type ExclusionItems = Parameters<WorkflowActivities['putActivityExclusions']>[0]['items'];
/** What an in-place write answered (api/operations/live-target-groups.ts LiveWriteOutcome). */
type WriteOutcome = { outcome: 'applied' | 'already_in_state' | 'precondition_failed' | 'invalid_state'; detail?: string };

/** A write guarded by If-Match answered 412 this many times in a row: the change is recorded as failed. */
const PRECONDITION_ATTEMPTS = 3;

const record = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
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
  const held = judged.failures.length ? judged.failures.join('; ') : gate.approval && !state.approved ? 'waits for `studyflow approve` (launch.mode manual), then apply again' : undefined;
  if (!held) return undefined;
  for (const next of remaining) {
    const fields = next.kind === 'update_live' ? next.changes.map((c) => c.field) : next.kind === 'fielding' ? ['fielding'] : [];
    for (const field of fields) state.recordUnapplied({ field, reason: 'gate_refused', detail: `${judged.line.replace(/; (held: .*|waits for approval|may be written)$/, '')}: ${held}` });
  }
  state.status.message = `change held: ${held}`;
  // A refusal is told; a change waiting for `studyflow approve` is not a refusal.
  if (judged.failures.length) noticeGateBlocked(state, 'live change', held);
  return 'stop';
}

/** The phases of a launched target group's workflow that knows where it is. */
const LAUNCHED = new Set(['live', 'paused', 'completed']);

/**
 * The fielding run's id. A workflow started on a launched target group (the study's first apply of it, or a
 * relaunch after its workflow ended) does not know its phase or run yet: it reads them (status and run) first.
 */
async function fieldingRunIdOf(state: TargetGroupState, api: Api): Promise<string | undefined> {
  if (state.status.fieldingRunId && LAUNCHED.has(state.status.phase)) return state.status.fieldingRunId;
  const { state: remote } = await api().readTargetGroupState({ ...state.base, reads: ['status', 'fieldingRun'] });
  state.enter(eventOfRemote(remote.status), remote.fieldingRunId ? { fieldingRunId: remote.fieldingRunId } : {});
  return state.status.fieldingRunId;
}

/** The reference's allocation request from the file's allocations (supplier ids under `supplier_ids`; the recontact template is the draft's only). */
export function allocationRequest(allocations: unknown) {
  const open = record(record(allocations).open_exchange_allocations);
  const priv = record(record(allocations).private_exchange_allocations);
  const list = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);
  const groups = (value: unknown) => (Array.isArray(value) ? value.map(record) : []);
  return {
    open_exchange_allocations: {
      blocked_supplier_ids: list(open.blocked_supplier_ids),
      exchange_min_percentage: typeof open.exchange_min_percentage === 'number' ? open.exchange_min_percentage : 0,
      exchange_max_percentage: typeof open.exchange_max_percentage === 'number' ? open.exchange_max_percentage : 100,
      groups: groups(open.groups).map((g) => ({ group_name: String(g.group_name), min_percentage: Number(g.min_percentage), max_percentage: Number(g.max_percentage), supplier_ids: list(g.suppliers) })),
    },
    private_exchange_allocations: {
      blocked_supplier_ids: list(priv.blocked_supplier_ids),
      groups: groups(priv.groups).map((g) => ({ group_name: String(g.group_name), min_percentage: Number(g.min_percentage), max_percentage: Number(g.max_percentage), supplier_id: String(g.supplier_id) })),
    },
  };
}

/** The details the file changes, in the operation's names (update_launched_target_group_details merges them into the current ones). */
const DETAIL_NAMES: Record<string, string> = {
  name: 'name',
  project_manager_id: 'projectManagerId',
  expected_length_of_interview_minutes: 'lengthOfInterviewMinutes',
  expected_incidence_rate: 'incidenceRate',
  live_url: 'liveUrl',
  test_url: 'testUrl',
  target_group_customer_reference_number: 'customerReferenceNumber',
  client_cost_per_interview_note: 'cpiNote',
};

/** One write of the step's operation, or why it cannot be made here (a field the operation cannot carry). */
async function write(state: TargetGroupState, api: Api, step: Step<'update_live'>): Promise<WriteOutcome | string> {
  const calls = api(`${step.operation} ${state.status.key}: ${fieldsOf(step)}`);
  const to = (field: string) => step.changes.find((c) => c.field === field)?.to;
  const base = state.base;
  switch (step.operation) {
    case 'update_profile_filling_goal': {
      const quotas = step.quotaGoals ?? [];
      const unknown = step.changes.filter((c) => c.field !== 'filling_goal' && !quotas.some((q) => q.field === c.field));
      if (unknown.length) return `the exchange shows no quota named as ${unknown.map((c) => c.field).join(', ')} (a new quota is a change of the profiles)`;
      const total = to('filling_goal');
      return calls.updateLiveFillingGoal({
        ...base,
        ...(total === undefined ? {} : { completesGoal: Number(total) }),
        ...(quotas.length ? { quotaGoals: quotas.map(({ profileId, targetId, completesGoal }) => ({ profileId, targetId, completesGoal })) } : {}),
      });
    }
    case 'update_fielding_run': {
      const fieldingRunId = await fieldingRunIdOf(state, api);
      if (!fieldingRunId) return 'the target group has no fielding run';
      const start = to('start_fielding_at');
      const end = to('end_fielding_at');
      if (typeof end !== 'string') return 'update_fielding_run takes the end with the start: the file gives no end_fielding_at';
      return calls.updateLiveFieldingWindow({ ...base, fieldingRunId, endFieldingAt: end, ...(typeof start === 'string' ? { startFieldingAt: start } : {}) });
    }
    case 'update_launched_target_group_details': {
      const desired: Json = {};
      for (const { field, to: value } of step.changes) {
        const name = DETAIL_NAMES[field];
        if (!name) return `update_launched_target_group_details does not carry ${field}`;
        desired[name] = name === 'cpiNote' ? (value ? { value: String(record(value).value), currency_code: String(record(value).currency_code) } : null) : value;
      }
      return calls.updateLiveDetails({ ...base, desired });
    }
    case 'update_cost_per_interview': {
      const money = record(to('cost_per_interview'));
      return calls.updateLiveCostPerInterview({ ...base, costPerInterview: { value: String(money.value), currency_code: String(money.currency_code) } });
    }
    case 'update_target_group_allocation_specification':
      return calls.updateLiveAllocations({ ...base, allocations: allocationRequest(to('allocations')) });
    case 'create_or_update_fielding_assistant_assignment':
      return calls.updateLiveFieldingAssistant({ ...base, modules: record(to('fielding_assistant_assignment')) as AssistantModules });
    case 'set_target_group_respondent_activity_exclusions': {
      const value = record(to('activity_exclusions'));
      await calls.putActivityExclusions({ ...base, items: (Array.isArray(value.items) ? value.items : []) as ExclusionItems, ...(typeof value.duration === 'string' ? { duration: value.duration } : {}) });
      return { outcome: 'applied' };
    }
  }
}

/**
 * One in-place update (update_live): the operation's activity with the values the file wants. Applied counts
 * one write; already_in_state none (a re-apply writes nothing); a 412 is tried again on the fresh state; a
 * refusal of the exchange (invalid state, a 4xx, retries used up) is recorded as unapplied and the next step runs.
 */
export async function updateLive(state: TargetGroupState, api: Api, step: Step<'update_live'>): Promise<void> {
  const failed = (detail: string) => {
    for (const { field } of step.changes) state.recordUnapplied({ field, reason: 'operation_failed', detail: `${step.operation}: ${detail}` });
  };
  for (let attempt = 1; ; attempt += 1) {
    let result: WriteOutcome | string;
    try {
      result = await write(state, api, step);
    } catch (error) {
      if (isCancellation(error)) throw error;
      return failed(failureOf(error).message);
    }
    if (typeof result === 'string') return failed(result);
    if (result.outcome === 'applied') {
      state.writes += 1;
      state.addChange('event', `updated in place via ${step.operation}: ${fieldsOf(step)}`);
      state.publish();
      return;
    }
    if (result.outcome === 'already_in_state') return;
    if (result.outcome === 'invalid_state') return failed(result.detail ?? 'the exchange refused the change in the target group\'s state');
    if (attempt >= PRECONDITION_ATTEMPTS) return failed(`the resource kept changing (412 ${PRECONDITION_ATTEMPTS} times)`);
  }
}

/** The declared fielding state (fielding): pause, resume or complete through the controls, relaunch through relaunch_fielding_run. */
export async function moveFielding(state: TargetGroupState, api: Api, step: Step<'fielding'>): Promise<void> {
  const failed = (detail: string) => state.recordUnapplied({ field: 'fielding', reason: 'operation_failed', detail: `${step.action}: ${detail}` });
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
    if (isCancellation(error) || error instanceof IllegalTransition) throw error;
    failed(failureOf(error).message);
  }
}
