// A target group's soft launch, from its launch to its decision (docs/workflows.md, "Soft launch"). The lifecycle
// is a small table over status.softLaunch.state:
//
//   starting          -> running             the fielding assistant's soft_launch module is assigned (If-Match)
//   running           -> running             a reading below its completes and before its end: wait
//   running           -> promoted            judged pass (or inconclusive with `on.inconclusive: promote`): module removed, resumed if paused
//   running           -> paused              judged fail: paused with its evidence
//   running           -> awaiting_decision   judged inconclusive: paused, waits for `studyflow approve --promote | --abort`
//   (went live)       -> running             `analysis_only`: no module, nothing changes in the exchange
//   running           -> analysed            `analysis_only`: judged on its first completes and told, nothing done
//   awaiting_decision, paused -> promoted    `approve --promote`
//   awaiting_decision, paused -> aborted     `approve --abort`: the module removed, the target group held paused
//   aborted           -> promoted            `approve --promote` (the operator changed their mind)
//
// The judgement is the pure plan/soft-launch.ts judgeSoftLaunch over the overview's figures (read at the watch's
// pace while it runs, and once more when its time is up). Every decision goes to status, the report's changes,
// the console (workflows/target-group/console.ts) and `notify:` (soft_launch_decided).
import { isCancellation } from '@temporalio/workflow';
import { judgeSoftLaunch, softLaunchDecides, softLaunchLaunch, SOFT_LAUNCH_DECIDABLE, type DesiredSoftLaunch, type SoftLaunchJudgement, type SoftLaunchStatus } from '../../plan/soft-launch';
import type { Api } from '../activity-proxies';
import { failureOf } from '../failures';
import { applyControl } from './controls';
import type { TargetGroupState } from './state';

/** An operator's decision of a waiting soft launch, as the study passed it on. */
export interface SoftLaunchDecision {
  decision: 'promote' | 'abort';
  by: string;
}

/**
 * The target group went live (this workflow launched it, or the study did): a soft launch in the revision starts
 * now, counting from `liveAt`. A target group launched before (its status has a soft launch, or none was declared
 * at its launch) starts none.
 */
export function beginSoftLaunch(state: TargetGroupState, liveAt: string): void {
  const spec = state.revision.desired.softLaunch;
  if (!spec || state.status.softLaunch) return;
  const endsAt = new Date(Date.parse(liveAt) + spec.maxDurationMs).toISOString();
  // Analysis only changes nothing in the exchange: no module, it fields as without a soft launch and is judged on its first completes.
  const starts = spec.analysisOnly ? { state: 'running' as const, analysisOnly: true } : { state: 'starting' as const };
  state.status.softLaunch = { via: 'fielding_assistant', startedAt: liveAt, endsAt, completes: spec.completes, ...starts };
}

/** The watch should not sleep past this moment (workflow time): a module to assign now, or a soft launch's end. */
export function softLaunchWakeAt(state: TargetGroupState): number | undefined {
  const sl = state.status.softLaunch;
  if (!sl) return undefined;
  if (SOFT_LAUNCH_DECIDABLE.has(sl.state) && state.softLaunchDecisions.length > 0) return Date.now();
  // A write or read that failed is tried again a watch interval later, not in a loop.
  if (sl.state === 'starting') return Math.max(Date.now(), state.softLaunchRetryAt);
  return sl.state === 'running' ? Math.max(Date.parse(sl.endsAt), state.softLaunchRetryAt) : undefined;
}

/** A write or read of the soft launch failed: the next try waits a watch interval (softLaunchWakeAt). */
function retryLater(state: TargetGroupState, sl: SoftLaunchStatus, message: string): void {
  sl.message = message;
  state.softLaunchRetryAt = Date.now() + state.revision.desired.timing.watchIntervalMs;
  state.publish();
}

/** The fielding assistant's modules a live change writes, with the soft launch's module while it starts or runs. */
export function withRunningSoftLaunch<M extends object>(state: TargetGroupState, modules: M): M {
  const sl = state.status.softLaunch;
  const spec = state.revision.desired.softLaunch;
  if (!sl || !spec || sl.analysisOnly || (sl.state !== 'starting' && sl.state !== 'running')) return modules;
  const launch = softLaunchLaunch({ softLaunch: spec }, sl.startedAt, true);
  return launch?.via === 'fielding_assistant' ? { ...modules, soft_launch: launch.module } : modules;
}

/**
 * One turn of the soft launch, called by the watch after its readings (`read`: it read performance this turn).
 * Assigns the module, judges a reading when one is due, and takes an operator's decision.
 */
export async function softLaunchTurn(state: TargetGroupState, api: Api, read: boolean): Promise<void> {
  const sl = state.status.softLaunch;
  if (!sl) return;
  if (sl.state === 'starting' && Date.now() >= state.softLaunchRetryAt) await assignModule(state, api, sl);
  const due = Date.now() >= state.softLaunchRetryAt;
  if (sl.state === 'running' && due) {
    const spec = state.revision.desired.softLaunch;
    if (!spec && sl.analysisOnly) {
      sl.state = 'analysed';
      sl.message = 'the study file no longer has a soft launch: not judged';
      return state.publish();
    }
    if (!spec) {
      await promote(state, api, sl, 'the study file no longer has a soft launch');
      return;
    }
    // A reading is due with each performance reading, once its time is up, and when the exchange paused it (the module's end).
    if (read || Date.now() >= Date.parse(sl.endsAt) || state.status.phase === 'paused') await judge(state, api, sl, spec);
  }
  while (SOFT_LAUNCH_DECIDABLE.has(sl.state) && state.softLaunchDecisions.length > 0) {
    const { decision, by } = state.softLaunchDecisions.shift() as SoftLaunchDecision;
    if (!softLaunchDecides(sl.state, decision)) continue;
    const taken = decision === 'promote' ? await promote(state, api, sl, `promoted by ${by}`) : await abort(state, api, sl, by);
    sl.decidedBy = { by, at: new Date().toISOString(), decision, ...(taken ? {} : { refused: sl.message ?? 'the write did not go through' }) };
    state.publish();
    // Not taken (a write that did not go through): it still waits, with why; the operator may try again.
    if (!taken) continue;
    tell(state, sl, decision === 'promote' ? `promoted by ${by}` : `aborted by ${by}: paused`);
  }
  state.softLaunchDecisions.length = 0; // a decision that found nothing to decide is spent
}

/** Assigns the soft_launch module (the other modules kept); a refusal is recorded and tried again next turn. */
async function assignModule(state: TargetGroupState, api: Api, sl: SoftLaunchStatus): Promise<void> {
  const spec = state.revision.desired.softLaunch;
  if (!spec) {
    sl.state = 'promoted';
    sl.message = 'the study file no longer has a soft launch: it never started';
    state.publish();
    return;
  }
  const launch = softLaunchLaunch({ softLaunch: spec }, sl.startedAt, true);
  if (launch?.via !== 'fielding_assistant') return;
  try {
    const { outcome } = await api(`soft launch ${state.status.key}`).setSoftLaunchModule({ ...state.base, module: launch.module });
    if (outcome === 'applied') state.writes += 1;
    if (outcome === 'applied' || outcome === 'already_in_state') {
      sl.state = 'running';
      delete sl.message;
      state.addChange('event', `soft launch started: ${sl.completes} completes (${launch.module.filling_goal_percentage}% of the goal) until ${sl.endsAt} at the latest`);
    } else {
      return retryLater(state, sl, 'the fielding assistant assignment kept changing (412 three times): tried again after a watch interval');
    }
  } catch (error) {
    if (isCancellation(error)) throw error;
    return retryLater(state, sl, `the soft launch module was not assigned (tried again after a watch interval): ${failureOf(error).message}`);
  }
  state.publish();
}

/** Reads the overview (best effort: a failed read waits for the next turn) and judges the soft launch on it. */
async function judge(state: TargetGroupState, api: Api, sl: SoftLaunchStatus, spec: DesiredSoftLaunch): Promise<void> {
  let figures;
  try {
    figures = await api(`soft launch reading ${state.status.key}`, 'best_effort').readOverviewFigures(state.base);
  } catch (error) {
    if (isCancellation(error)) throw error;
    return retryLater(state, sl, `the overview was not read (tried again after a watch interval): ${failureOf(error).message}`);
  }
  const at = new Date().toISOString();
  const { completes, incidenceRate, dropOffRate, medianLengthOfInterviewSeconds } = figures;
  const before = sl.reading?.completes;
  sl.reading = { at, completes, ...defined({ incidenceRate, dropOffRate, medianLengthOfInterviewSeconds }) };
  delete sl.message;
  const judgement = judgeSoftLaunch(spec, { startedAt: sl.startedAt, ...sl.reading }, at);
  if (judgement.outcome === 'running') {
    if (before !== completes) state.publish();
    return;
  }
  await decide(state, api, sl, judgement);
}

/** Records the judgement and does what its outcome says. */
async function decide(state: TargetGroupState, api: Api, sl: SoftLaunchStatus, judgement: SoftLaunchJudgement): Promise<void> {
  const outcome = judgement.outcome as Exclude<SoftLaunchJudgement['outcome'], 'running'>;
  const action = judgement.action === 'wait' ? 'none' : judgement.action;
  sl.decision = { outcome, action, ...(judgement.endedBy ? { endedBy: judgement.endedBy } : {}), at: new Date().toISOString(), text: judgement.text, evidence: judgement.evidence };
  state.addChange('event', judgement.text);
  if (action === 'none') {
    sl.state = 'analysed';
    tell(state, sl, 'analysis only: nothing done');
    state.publish();
    return;
  }
  if (action === 'promote') {
    if (await promote(state, api, sl, `${outcome}: promoted to the full goal`)) return tell(state, sl, 'promoted to the full goal');
    // The module could not be removed: it waits for an operator rather than being judged again.
    sl.state = 'awaiting_decision';
    state.publish();
    return tell(state, sl, 'not promoted (the module could not be removed): waits for `studyflow approve --promote`');
  }
  sl.state = outcome === 'fail' ? 'paused' : 'awaiting_decision';
  await pauseFor(state, api, sl);
  tell(state, sl, outcome === 'fail' ? 'paused with its evidence' : 'paused: waits for `studyflow approve --promote` or `--abort`');
}

/** Pauses a live target group for its soft launch (the module may have paused it already at its end). */
async function pauseFor(state: TargetGroupState, api: Api, sl: SoftLaunchStatus): Promise<void> {
  if (state.status.phase !== 'live') return state.publish();
  const refused = await applyControl(state, api, 'pause');
  if (refused) sl.message = `could not pause: ${refused}`;
  state.publish();
}

/** The module removed and fielding resumed where the module's end paused it: the full goal from here. False: the module stays. */
async function promote(state: TargetGroupState, api: Api, sl: SoftLaunchStatus, why: string): Promise<boolean> {
  if (!(await removeModule(state, api, sl))) return false;
  sl.state = 'promoted';
  state.addChange('event', `soft launch ${why}`);
  if (state.status.phase === 'paused') {
    const refused = await applyControl(state, api, 'resume');
    if (refused) sl.message = `promoted, but could not resume: ${refused}`;
  }
  state.publish();
  return true;
}

/** `approve --abort`: the module removed, the target group paused and held (a later promote still promotes it). False: the module stays. */
async function abort(state: TargetGroupState, api: Api, sl: SoftLaunchStatus, by: string): Promise<boolean> {
  if (!(await removeModule(state, api, sl))) return false;
  sl.state = 'aborted';
  state.addChange('event', `soft launch aborted by ${by}`);
  await pauseFor(state, api, sl);
  return true;
}

/** Removes the soft_launch module (other modules kept); false, with the reason in status, when it did not go through. */
async function removeModule(state: TargetGroupState, api: Api, sl: SoftLaunchStatus): Promise<boolean> {
  try {
    const { outcome } = await api(`soft launch end ${state.status.key}`).setSoftLaunchModule({ ...state.base, module: null });
    if (outcome === 'applied') state.writes += 1;
    if (outcome === 'applied' || outcome === 'already_in_state') {
      delete sl.message;
      return true;
    }
    retryLater(state, sl, 'the fielding assistant assignment kept changing (412 three times): the soft launch module is still assigned');
  } catch (error) {
    if (isCancellation(error)) throw error;
    retryLater(state, sl, `the soft launch module was not removed: ${failureOf(error).message}`);
  }
  return false;
}

/** soft_launch_decided to the `notify:` targets: the outcome, what was done, the evidence as lines. */
function tell(state: TargetGroupState, sl: SoftLaunchStatus, action: string): void {
  const decision = sl.decision;
  if (!decision) return;
  state.notices.raise(
    state,
    {
      kind: 'soft_launch_decided',
      studyId: state.input.studyId,
      targetGroup: state.status.key,
      at: new Date().toISOString(),
      outcome: decision.outcome,
      action,
      completes: sl.reading?.completes ?? 0,
      evidence: decision.evidence.map((e) => e.text),
    },
    'soft_launch',
  );
}

function defined<T extends Record<string, number | undefined>>(figures: T): Partial<Record<keyof T, number>> {
  return Object.fromEntries(Object.entries(figures).filter(([, v]) => v !== undefined)) as Partial<Record<keyof T, number>>;
}
