// The study's watch of its live target groups: once per watch interval it reads the project's list of target
// groups (get_list_target_groups: one call per page of 100, whatever the number of live target groups) and wakes
// only the target groups whose figures or status changed since its last read (targetGroupFiguresSignal). A woken
// target group's workflow reads its own performance and checks its state (workflows/target-group/watch.ts); a quiet
// one makes no call at all until its slow fallback timer.
import { getExternalWorkflowHandle, isCancellation, log } from '@temporalio/workflow';
import type { DesiredStudy } from '../../plan/types';
import { WATCHED_PHASES } from '../../plan/phase-groups';
import { nextStudyWatchAction } from '../../plan/watch-timing';
import type { Api } from '../activity-proxies';
import { failureOf } from '../failures';
import { targetGroupFiguresSignal, type TargetGroupFigures } from '../child-protocol';
import type { StudyState, StudyWatch } from './state';

/**
 * The study's watch after a revision is applied: the shortest watch interval of its target groups, the figures
 * seen kept (and the next read's time, when the interval is the same): plan/watch-timing.ts decides.
 */
export function watchOf(state: StudyState, desired: DesiredStudy): StudyWatch | undefined {
  const intervals = desired.targetGroups.map((tg) => tg.timing.watchIntervalMs);
  if (intervals.length === 0) return undefined;
  const intervalMs = Math.min(...intervals);
  const prior: StudyWatch = state.watch ? { ...state.watch, apiVersion: desired.apiVersion } : { intervalMs, apiVersion: desired.apiVersion, seen: {}, signaledAt: {} };
  return nextStudyWatchAction(prior, { kind: 'revision', intervalMs }, Date.now()).watch;
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
  if (!state.watch) return undefined;
  const now = Date.now();
  const { watch, action } = nextStudyWatchAction(state.watch, { kind: 'turn', watching: hasWatched(state) }, now);
  state.watch = watch;
  if (action.kind === 'idle') return undefined;
  return action.kind === 'sleep' ? Math.max(0, action.until - now) : 0;
}

/**
 * One read of the list (best effort: a failed read is logged and the next interval reads again), then a signal
 * to each watched target group whose figures changed and are due (plan/watch-timing.ts). The figures are
 * remembered only once the signal went.
 */
export async function watchTick(state: StudyState, api: Api): Promise<void> {
  const projectId = state.projectId;
  if (!state.watch || !projectId) return;
  state.watch = nextStudyWatchAction(state.watch, { kind: 'tick' }, Date.now()).watch;
  const keys = watchedKeys(state);
  if (keys.length === 0) return;
  let figures: TargetGroupFigures[];
  try {
    ({ figures } = await api(`figures of ${keys.length} live target groups`, 'best_effort').listTargetGroupFigures({
      ctx: { accountId: state.accountId, apiVersion: state.watch.apiVersion },
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
      const watch = state.watch;
      if (!found || !watch || nextStudyWatchAction(watch, { kind: 'figures', key, figures: found }, now).action.kind !== 'send_figures') return;
      try {
        await getExternalWorkflowHandle(state.childId(key)).signal(targetGroupFiguresSignal, found);
        // The watch as it is now (the other signals of this read went meanwhile): this key's figures added.
        if (state.watch) state.watch = nextStudyWatchAction(state.watch, { kind: 'sent', key, figures: found }, now).watch;
      } catch (error) {
        if (isCancellation(error)) throw error;
        log.warn('a target group did not take its figures', { key });
      }
    }),
  );
}
