// Staged launches: a target group whose launch waits for another's completes (`wait_for_completes`) is passed
// that one's completes by the study, which receives them from the other's watch (targetGroupReportSignal). No
// extra read of the API: the watch's readings are the only source.
import { getExternalWorkflowHandle, isCancellation, log } from '@temporalio/workflow';
import type { DesiredTargetGroup, ObservedStudy } from '../../plan/types';
import { upstreamCompletesSignal } from '../child-protocol';
import type { StudyState } from './state';

/** The completes the study knows of a target group: its watch's last reading, or what observing the API found. */
export function knownCompletes(state: StudyState, key: string, observed?: ObservedStudy): number | undefined {
  const known = [state.reports[key]?.series.at(-1)?.completes, observed?.targetGroups[key]?.completes].filter((n): n is number => n !== undefined);
  return known.length ? Math.max(...known) : undefined;
}

/** What a staged target group's revision carries of the target group it waits for (absent: not staged, or nothing known). */
export function upstreamAtHandOver(state: StudyState, tg: DesiredTargetGroup, observed: ObservedStudy): { upstreamCompletes?: number } {
  const after = tg.launch.after;
  const known = after ? knownCompletes(state, after.targetGroup, observed) : undefined;
  return known === undefined ? {} : { upstreamCompletes: known };
}

/**
 * Passes the completes the study knows on to every target group waiting for them whose status shows fewer:
 * called when a target group reports (it may be waited for) and when one reports progress (it may have just
 * started to wait), so no reading falls between a hand-over and the wait.
 */
export function passUpstreamCompletes(state: StudyState): void {
  for (const [key, tg] of Object.entries(state.status.targetGroups)) {
    const after = tg.launchAfter;
    if (tg.phase !== 'awaiting_completes' || !after || !state.children.has(key)) continue;
    const known = knownCompletes(state, after.targetGroup);
    if (known === undefined || known <= (after.has ?? -1) || known <= (state.passedUpstream.get(key) ?? -1)) continue;
    state.passedUpstream.set(key, known);
    getExternalWorkflowHandle(state.childId(key))
      .signal(upstreamCompletesSignal, { targetGroup: after.targetGroup, completes: known })
      .catch((error: unknown) => {
        if (isCancellation(error)) return;
        state.passedUpstream.delete(key);
        log.warn('a waiting target group did not take the completes passed on', { key, upstream: after.targetGroup });
      });
  }
}
