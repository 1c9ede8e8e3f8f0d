import { isCancellation, log } from '@temporalio/workflow';
import type { StudyStep } from '../../plan/program';
import type { Api } from '../activity-proxies';
import type { UnappliedChange } from '../messages';
import type { StudyState } from './state';
import { failureOf } from '../failures';
import type { ApplyRun } from './run';
import { sendControl, untilControlsTaken } from './controls';

/**
 * Completes the target groups the file no longer declares (removed_target_groups: complete). One whose workflow still
 * runs is completed by it (the `complete` control: its run's ETag as If-Match, its phase `completed`, and its
 * workflow ends), and the step waits until its progress shows it, so the revision's table says `completed` at once.
 * One with no workflow is completed here (the run's ETag read, then complete_fielding_run with it) and its entry
 * recorded completed. One that the exchange will not complete is recorded as unapplied, with the reason.
 */
export async function completeRemoved(run: ApplyRun, step: Extract<StudyStep, { kind: 'complete_removed' }>): Promise<void> {
  const { state } = run;
  const unapplied: UnappliedChange[] = [];
  const fail = (key: string, detail: string) => unapplied.push({ targetGroup: key, field: 'fielding', reason: 'operation_failed', detail: `complete (removed_target_groups: complete): ${detail}` });
  const byWorkflow: string[] = [];
  const byStudy: string[] = [];
  for (const key of step.keys) {
    const running = state.children.has(key) && state.status.targetGroups[key]?.phase !== 'completed';
    (running && (await sendControl(state, key, 'complete')) ? byWorkflow : byStudy).push(key);
  }
  await Promise.all(byStudy.map((key) => completeByStudy(run, key, (detail) => fail(key, detail))));
  await untilControlsTaken(state);
  for (const key of byWorkflow) {
    const entry = state.status.targetGroups[key];
    if (entry?.phase !== 'completed') fail(key, entry?.message ?? `its workflow did not complete it (it is ${entry?.phase ?? 'unknown'})`);
  }
  run.unapplied.push(...unapplied.sort((a, b) => a.targetGroup.localeCompare(b.targetGroup)));
}

/** A removed target group no workflow watches: completed by the study with the run's ETag, its entry recorded completed. */
async function completeByStudy(run: ApplyRun, key: string, fail: (detail: string) => void): Promise<void> {
  const { state, api, observed } = run;
  const tg = observed.targetGroups[key];
  if (!tg?.fieldingRunId || !state.projectId) return fail('the target group has no fielding run');
  const base = { ctx: state.ctx(), projectId: state.projectId, targetGroupId: tg.id, fieldingRunId: tg.fieldingRunId };
  try {
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const { etag } = await api().getFieldingRun(base);
      const result = await api(`complete removed target group ${key}`).completeFieldingRun({ ...base, etag });
      if (result.outcome === 'applied') state.countWrites();
      if (result.outcome === 'applied' || result.outcome === 'already_in_state') {
        if (state.status.targetGroups[key]) state.setTargetGroup(key, 'completed');
        return;
      }
      if (result.outcome === 'invalid_state') return fail(result.detail ?? `the run is ${String(result.run.status)}`);
    }
    fail('the fielding run kept changing (412 three times)');
  } catch (error) {
    if (isCancellation(error)) throw error;
    fail(failureOf(error).message);
  }
}

/** Fielding statuses complete_fielding_run takes (the reference: a live or scheduled run). */
const COMPLETABLE = new Set(['live']);

/**
 * The study's end (`studyflow cancel`) under removed_target_groups: complete: every target group it manages that
 * is live is completed (the same call as a removed one); under keep (the default) they go on fielding, unmanaged.
 * Returns the keys completed. Best effort: a target group the exchange will not complete is logged and left.
 */
export async function completeAtEnd(state: StudyState, api: Api): Promise<string[]> {
  const policy = state.atEnd;
  const projectId = state.projectId;
  if (policy?.removedTargetGroups !== 'complete' || !projectId) return [];
  const ctx = { accountId: state.accountId, apiVersion: policy.apiVersion };
  const keys = Object.keys(state.targetGroupIds).filter((key) => COMPLETABLE.has(state.status.targetGroups[key]?.phase ?? '') && state.status.targetGroups[key]?.fieldingRunId);
  const done: string[] = [];
  await Promise.all(
    keys.map(async (key) => {
      const base = { ctx, projectId, targetGroupId: state.targetGroupIds[key], fieldingRunId: state.status.targetGroups[key].fieldingRunId as string };
      try {
        const { etag } = await api().getFieldingRun(base);
        const result = await api(`complete ${key} (the study ends; removed_target_groups: complete)`).completeFieldingRun({ ...base, etag });
        if (result.outcome === 'applied') state.countWrites();
        if (result.outcome === 'applied' || result.outcome === 'already_in_state') done.push(key);
        else log.warn('the study ends but the exchange did not complete the target group', { key, outcome: result.outcome });
      } catch (error) {
        log.warn('the study ends but completing the target group failed', { key, error: failureOf(error).message });
      }
    }),
  );
  return done.sort();
}
