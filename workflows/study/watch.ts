// The study's watch of its live target groups: once per watch interval it reads the project's list of target
// groups (get_list_target_groups: one call per page of 100, whatever the number of live target groups) and wakes
// only the target groups whose figures or status changed since its last read (targetGroupFiguresSignal). A woken
// target group's workflow reads its own performance and checks its state (workflows/target-group/watch.ts); a quiet
// one makes no call at all until its slow fallback timer.
import { getExternalWorkflowHandle, isCancellation, log } from '@temporalio/workflow';
import type { DesiredStudy } from '../../plan/types';
import type { Api } from '../activity-proxies';
import { failureOf } from '../failures';
import { targetGroupFiguresSignal, type TargetGroupFigures } from '../messages';
import { PERFORMANCE_PACE_INTERVALS } from '../target-group/watch';
import type { StudyState, StudyWatch } from './state';

/** Phases in which a target group's workflow watches it (workflows/target-group/state.ts `watching`). */
const WATCHED_PHASES = new Set(['live', 'paused', 'scheduled']);

/** The study's watch after a revision is applied: the shortest watch interval of its target groups, the figures seen kept. */
export function watchOf(state: StudyState, desired: DesiredStudy): StudyWatch | undefined {
  const intervals = desired.targetGroups.map((tg) => tg.timing.watchIntervalMs);
  if (intervals.length === 0) return undefined;
  const intervalMs = Math.min(...intervals);
  const prior = state.watch;
  return { intervalMs, apiVersion: desired.apiVersion, seen: prior?.seen ?? {}, signaledAt: prior?.signaledAt ?? {}, ...(prior?.nextAt !== undefined && prior.intervalMs === intervalMs ? { nextAt: prior.nextAt } : {}) };
}

/** The keys of the target groups the study watches now: a running workflow in a watched phase. */
export function watchedKeys(state: StudyState): string[] {
  return Object.keys(state.status.targetGroups)
    .filter((key) => state.children.has(key) && state.targetGroupIds[key] && WATCHED_PHASES.has(state.status.targetGroups[key].phase))
    .sort();
}

/** Whether the study has something to watch: a watch from an applied revision, its project, a watched target group. */
export function hasWatched(state: StudyState): boolean {
  return state.watch !== undefined && Boolean(state.projectId) && watchedKeys(state).length > 0;
}

/** Milliseconds until the next read of the list, or undefined while there is nothing to watch. */
export function watchDueIn(state: StudyState): number | undefined {
  const watch = state.watch;
  if (!watch || !hasWatched(state)) {
    if (watch) delete watch.nextAt;
    return undefined;
  }
  watch.nextAt ??= Date.now() + watch.intervalMs;
  return Math.max(0, watch.nextAt - Date.now());
}

/** What, of a target group's figures, wakes its workflow when it changes. */
export function figuresDigest(figures: TargetGroupFigures): string {
  return [figures.status, figures.completes, figures.prescreens, figures.lastCompleteDate ?? '', figures.updatedAt ?? ''].join('|');
}

/**
 * Whether a change of figures is sent now: always the first figures and a new status (a completion is taken at
 * once); other changes at most once per PERFORMANCE_PACE_INTERVALS watch intervals, the pace at which a target
 * group reads its performance anyway (a change held back is sent at a later read, as it is not remembered).
 */
export function sendsNow(watch: StudyWatch, key: string, figures: TargetGroupFigures, now: number): boolean {
  const seen = watch.seen[key];
  if (seen === undefined || seen.split('|')[0] !== figures.status) return true;
  const last = watch.signaledAt?.[key];
  return last === undefined || now - last >= PERFORMANCE_PACE_INTERVALS * watch.intervalMs;
}

/**
 * One read of the list (best effort: a failed read is logged and the next interval reads again), then a signal
 * to each watched target group whose figures changed and are due (sendsNow). The figures are remembered only
 * once the signal went.
 */
export async function watchTick(state: StudyState, api: Api): Promise<void> {
  const watch = state.watch;
  const projectId = state.projectId;
  if (!watch || !projectId) return;
  watch.nextAt = Date.now() + watch.intervalMs;
  const keys = watchedKeys(state);
  if (keys.length === 0) return;
  let figures: TargetGroupFigures[];
  try {
    ({ figures } = await api(`figures of ${keys.length} live target groups`, 'best_effort').listTargetGroupFigures({
      ctx: { accountId: state.accountId, apiVersion: watch.apiVersion },
      projectId,
    }));
  } catch (error) {
    if (isCancellation(error)) throw error;
    log.warn('the study could not read its target groups\' figures', { message: failureOf(error).message });
    return;
  }
  const byId = new Map(figures.map((f) => [f.id, f]));
  const now = Date.now();
  await Promise.all(
    keys.map(async (key) => {
      const found = byId.get(state.targetGroupIds[key]);
      if (!found) return;
      const digest = figuresDigest(found);
      if (watch.seen[key] === digest || !sendsNow(watch, key, found, now)) return;
      try {
        await getExternalWorkflowHandle(state.childId(key)).signal(targetGroupFiguresSignal, found);
        watch.seen[key] = digest;
        (watch.signaledAt ??= {})[key] = now;
      } catch (error) {
        if (isCancellation(error)) throw error;
        log.warn('a target group did not take its figures', { key });
      }
    }),
  );
}
