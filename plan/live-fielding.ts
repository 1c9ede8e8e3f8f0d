// The fielding lifecycle the study file declares: the declared state of a launched target group (pause,
// resume, complete, relaunch), the end of life of a target group the file no longer declares, and the
// timing of a launch (at a moment, or after another target group's completes). Pure.
//
// The reference's rules (cint-demand-openapi.yml, Fielding):
// - pause_fielding_run pauses a `live` run; resume_fielding_run resumes a `paused` one, and
//   relaunch_fielding_run a `completed` one, each only while its completes goal and end date are not reached;
// - complete_fielding_run completes a `live` or `scheduled` run;
// - each takes the run's ETag as If-Match.
import { holdingGuards } from './guards';
import { SOFT_LAUNCH_HOLDS } from './soft-launch';
import type { DesiredStudy, DesiredTargetGroup, ObservedTargetGroup, PlanNote, PlannedAction } from './types';

/** The fielding status the exchange shows: the run's, else the target group's. */
export function fieldingStatusOf(tg: ObservedTargetGroup): string {
  return tg.fieldingRun?.status ?? tg.status;
}

/** The completes goal the exchange holds, when read. */
function observedGoal(tg: ObservedTargetGroup): number | undefined {
  const goal = tg.fillingGoal?.completesGoal ?? tg.fields.filling_goal;
  return typeof goal === 'number' ? goal : undefined;
}

/** Why the exchange would refuse to reopen (resume or relaunch) the run, or undefined when it would not: the fact, and what the file can do. */
function reopenRefusal(tg: ObservedTargetGroup, observedAtMs: number | undefined): { fact: string; text: string } | undefined {
  const goal = observedGoal(tg);
  if (goal !== undefined && tg.completes !== undefined && tg.completes >= goal) {
    const fact = `its completes goal is reached (${tg.completes} of ${goal})`;
    return { fact, text: `${fact}: raise filling_goal first` };
  }
  const end = tg.fieldingRun?.endFieldingAt ? Date.parse(tg.fieldingRun.endFieldingAt) : NaN;
  if (observedAtMs !== undefined && Number.isFinite(end) && end <= observedAtMs) {
    const fact = `its fielding window ended at ${tg.fieldingRun?.endFieldingAt}`;
    return { fact, text: fact };
  }
  return undefined;
}

const completesText = (tg: ObservedTargetGroup) => (tg.completes !== undefined ? `, ${tg.completes} completes` : '');

export interface FieldingPlan {
  /** Before the in-place changes: resume or relaunch. */
  before: PlannedAction[];
  /** After them: pause or complete (or the `none` that says the state holds). */
  after: PlannedAction[];
  /** The target group is, or stays, completed: in-place changes are not made. */
  closed?: 'completed' | 'completing';
}

/**
 * The declared fielding state against the exchange's. `fielding` absent is `live`, and a completed target
 * group stays completed (completed is final); written `live` relaunches a completed one where the exchange allows.
 */
export function fieldingPlan(desired: DesiredTargetGroup, tg: ObservedTargetGroup, observedAtMs?: number): FieldingPlan {
  const key = desired.key;
  const want = desired.fielding ?? 'live';
  const have = fieldingStatusOf(tg);
  const base = { resource: 'fielding' as const, key };
  const none = (reason: string): FieldingPlan => ({ before: [], after: [{ kind: 'none', ...base, reason }] });
  const blocked = (reason: string): PlannedAction => ({ kind: 'blocked', ...base, drift: true, reason });
  const disagree = `${have} in the exchange, \`fielding: ${want}\` in the file`;

  if (have === want) return { ...none(`${have}, as the file says${completesText(tg)}`), ...(have === 'completed' ? { closed: 'completed' as const } : {}) };
  switch (have) {
    case 'live':
      if (want === 'paused') return { before: [], after: [{ kind: 'pause', ...base, operation: 'pause_fielding_run', drift: true, reason: `${disagree}: pause the fielding run` }] };
      return { before: [], after: [{ kind: 'complete', ...base, operation: 'complete_fielding_run', drift: true, reason: `${disagree}: complete the fielding run` }], closed: 'completing' };
    case 'paused': {
      if (want === 'live' && tg.softLaunch && SOFT_LAUNCH_HOLDS.has(tg.softLaunch)) {
        // Its soft launch paused it (judged, or the module's end): the soft launch decides, not the file's default.
        return none(`paused by its soft launch (${tg.softLaunch.replace('_', ' ')}); \`fielding: live\` in the file does not resume it: \`studyflow approve --promote\` or \`--abort\``);
      }
      if (want === 'live' && tg.guardHold) {
        // A guard paused it: held until `studyflow approve --resume`, or a revision that changes the guard re-arms it.
        const held = holdingGuards(tg.guardHold, desired.guards);
        if (held.length) {
          const names = held.map((h) => `${h.guard} (tripped at ${h.at}: ${h.text})`).join('; ');
          return none(`paused, held by guard ${names}; \`fielding: live\` in the file does not resume it: \`studyflow approve --resume\`, or change the guard`);
        }
        const changed = tg.guardHold.guards.map((h) => h.guard).join(', ');
        const refusal = reopenRefusal(tg, observedAtMs);
        if (refusal) return { before: [blocked(`guard ${changed} changed: re-armed, but the exchange resumes a run only while its goal and end date are not reached; ${refusal.text}`)], after: [] };
        return { before: [{ kind: 'resume', ...base, operation: 'resume_fielding_run', reason: `guard ${changed} changed in the file: re-armed; resume the fielding run it paused` }], after: [] };
      }
      if (want === 'completed') {
        return { before: [], after: [blocked(`${disagree}: the exchange completes only a live or scheduled run; resume it first (fielding: live), or complete it in the exchange`)] };
      }
      const refusal = reopenRefusal(tg, observedAtMs);
      if (refusal) return { before: [blocked(`${disagree}: the exchange resumes a run only while its goal and end date are not reached; ${refusal.text}`)], after: [] };
      return { before: [{ kind: 'resume', ...base, operation: 'resume_fielding_run', drift: true, reason: `${disagree}: resume the fielding run` }], after: [] };
    }
    case 'scheduled':
      if (want === 'live') return none(`scheduled: goes live at ${tg.fieldingRun?.startFieldingAt ?? 'its start'}`);
      if (want === 'completed') {
        return { before: [], after: [{ kind: 'complete', ...base, operation: 'complete_fielding_run', drift: true, reason: `${disagree}: complete the scheduled run before it starts` }], closed: 'completing' };
      }
      return { before: [], after: [blocked(`${disagree}: the exchange pauses only a live run; this one is scheduled (complete it, or pause it once it is live)`)] };
    case 'completed': {
      if (desired.fielding !== 'live') {
        if (want === 'paused') return { before: [], after: [blocked(`${disagree}: completed is final; write \`fielding: live\` to relaunch it`)], closed: 'completed' };
        return { ...none(`completed${completesText(tg)}: final (write \`fielding: live\` to relaunch it)`), closed: 'completed' };
      }
      // Completed by reaching its goal or its end date: `fielding: live` is met (a routine re-apply restarts no spending);
      // the file makes it fieldable again with a higher goal or a later end. One completed before both is relaunched.
      const refusal = reopenRefusal(tg, observedAtMs);
      if (refusal) return { ...none(`completed${completesText(tg)}: ${refusal.fact}; \`fielding: live\` relaunches it once the file raises filling_goal or moves end_fielding_at later`), closed: 'completed' };
      return { before: [{ kind: 'relaunch', ...base, operation: 'relaunch_fielding_run', drift: true, reason: `${disagree}: relaunch the fielding run` }], after: [] };
    }
    default:
      return none(`${have}: no fielding run to move`);
  }
}

/**
 * What apply does with a target group that the study manages in the exchange and the file no longer declares:
 * it is named with its state; under `removed_target_groups: complete` a live or scheduled one is completed.
 */
export function removedTargetGroupActions(key: string, tg: ObservedTargetGroup, policy: DesiredStudy['removedTargetGroups']): { actions: PlannedAction[]; notes: PlanNote[] } {
  const have = fieldingStatusOf(tg);
  const base = { resource: 'fielding' as const, key };
  const state = `removed from the file; ${have} in the exchange${completesText(tg)}`;
  const open = have === 'live' || have === 'scheduled' || have === 'paused';
  if (!open) {
    const what = have === 'draft' ? 'a draft, never launched: left as it is, no longer managed' : 'nothing to do';
    return { actions: [{ kind: 'none', ...base, reason: `${state}: ${what}` }], notes: [] };
  }
  if (policy === 'complete') {
    if (have === 'paused') {
      return { actions: [{ kind: 'blocked', ...base, reason: `${state}: the exchange completes only a live or scheduled run (removed_target_groups: complete); resume it or complete it in the exchange` }], notes: [] };
    }
    return { actions: [{ kind: 'complete', ...base, operation: 'complete_fielding_run', reason: `${state}: complete it (removed_target_groups: complete)` }], notes: [] };
  }
  const action: PlannedAction = { kind: 'none', ...base, reason: `${state}: kept ${have === 'paused' ? 'paused' : 'fielding'}, no longer managed (removed_target_groups: keep)` };
  const notes: PlanNote[] =
    policy === 'keep'
      ? []
      : [
          {
            severity: 'warning',
            key,
            text: `target group ${key} is ${have} in the exchange but no longer in the file: it keeps ${have === 'paused' ? 'its state' : 'fielding and spending'}, unmanaged. Set removed_target_groups: complete to complete it, or removed_target_groups: keep to keep it without this warning`,
          },
        ];
  return { actions: [action], notes };
}

/**
 * Whether the exchange holds a timed launch: the reference's create_schedule_fielding_run_from_draft_job exists
 * from API version 2025-12-18 on. Then the exchange keeps the intent once it accepted the job (the run goes live
 * at its start even while studyflow is down); before it, the target group's workflow keeps it in a durable timer
 * and launches at the moment.
 */
export function exchangeSchedulesLaunch(apiVersion: string): boolean {
  return apiVersion === '2025-12-18';
}

/** Whether a timed launch's moment is still ahead of `observedAtMs` (unknown: ahead). */
export function launchAtAhead(at: string, observedAtMs?: number): boolean {
  return observedAtMs === undefined || Date.parse(at) > observedAtMs;
}

/**
 * A timed or staged launch: what the launch action carries and how the plan says it. A timed launch whose moment
 * has passed launches at once (it carries no `launchAt`); one ahead is scheduled in the exchange (the action names
 * create_schedule_fielding_run_from_draft_job) when {@link exchangeSchedulesLaunch}, else held by a durable timer.
 */
export function launchTiming(
  desired: DesiredTargetGroup,
  completesOf: (key: string) => number | undefined,
  observedAtMs?: number,
  exchangeSchedules = true,
): Pick<PlannedAction, 'launchAt' | 'launchAfter' | 'operation'> & { text?: string } {
  const { at, after } = desired.launch;
  if (at) {
    if (!launchAtAhead(at, observedAtMs)) return { text: `launches at ${at}: that time has passed, so at once` };
    if (!exchangeSchedules) return { launchAt: at, text: `launches at ${at} (a durable timer in its workflow, then the launch: this api_version has no schedule-from-draft)` };
    return { launchAt: at, operation: 'create_schedule_fielding_run_from_draft_job', text: `launches at ${at} (scheduled in the exchange from the draft)` };
  }
  if (after) {
    const have = completesOf(after.targetGroup);
    const progress = have === undefined ? '' : have >= after.completes ? ` (it has ${have}: launches at once)` : ` (it has ${have})`;
    return { launchAfter: { ...after }, text: `launches after ${after.targetGroup} has ${after.completes} completes${progress}` };
  }
  return {};
}

/** A draft the file declares paused or completed is not launched. */
export function heldDraftReason(desired: DesiredTargetGroup): string | undefined {
  if (desired.fielding === 'paused') return 'not launched: `fielding: paused` in the file (launches once it says live)';
  if (desired.fielding === 'completed') return 'not launched: `fielding: completed` in the file';
  return undefined;
}
