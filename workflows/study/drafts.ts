import { ApplicationFailure, isCancellation } from '@temporalio/workflow';
import type { DraftBatchItem, DraftBatchResult, DraftLaunchResult, TargetGroupDesired } from '../../activities';
import { draftFieldingSpecification, endFieldingAt } from '../../plan/launch-gates';
import { resolveActivityItems } from '../../plan/plan-study';
import type { StudySchedule } from '../../plan/schedule';
import type { DesiredStudy, DesiredTargetGroup } from '../../plan/types';
import type { Api } from '../activity-proxies';
import { oneBatch } from '../batch-calls';
import { failureOf } from '../failures';
import type { GateRead } from '../launch';
import type { StudyState } from './state';

/** What the drafts step leaves for the next ones. */
export interface DraftsWritten {
  /** Target groups whose draft could not be written: failed for this revision. */
  failed: Set<string>;
  /** The launches the draft batches sent, by key (a launch that failed is there with its failure). */
  launches: Record<string, DraftLaunchResult>;
}

/**
 * The draft body: the draft fields, the fielding window (the study's, else from now: the reference requires
 * one) and the activity exclusions, with references resolved as far as they can be.
 */
function draftBody(state: StudyState, tg: DesiredTargetGroup, writtenAt: number): TargetGroupDesired {
  const body: Record<string, unknown> = { ...tg.draft, fielding_specification: draftFieldingSpecification(tg, writtenAt) };
  if (tg.activityExclusions) body.respondent_activity_exclusions = resolveActivityItems(tg.activityExclusions.items, (k) => state.targetGroupIds[k], state.projectId).items;
  return body as TargetGroupDesired;
}

/**
 * A new draft's input: the plan creates only drafts that observing did not find, so there is no second look.
 * Every try of the same create sends the same body (`writtenAt` is fixed for the step), as its Idempotency-Key
 * requires.
 */
function draftInput(state: StudyState, tg: DesiredTargetGroup, writtenAt: number): DraftBatchItem {
  return {
    ctx: state.ctxFor(`tg:${tg.key}`),
    projectId: state.projectId as string,
    idempotencyKey: state.keyFor(`target-group/${tg.key}`),
    knownId: state.targetGroupIds[tg.key],
    desired: draftBody(state, tg, writtenAt),
    observedAbsent: true,
  };
}

/**
 * Writes the drafts as the schedule says: the new ones in its draft batches (side by side; a draft its
 * batch could not make is tried again alone), the changed ones one activity each. A new draft the plan
 * gives its draft batch to launch, whose gate (read beside the project) passed, is launched by the batch
 * the moment it exists.
 */
export async function writeDrafts(state: StudyState, api: Api, desired: DesiredStudy, schedule: StudySchedule, gates: Record<string, GateRead>): Promise<DraftsWritten> {
  const written: DraftsWritten = { failed: new Set(), launches: {} };
  // When the drafts of this step are written (workflow time): where the study names no start, their window starts here.
  const writtenAt = Date.now();
  const tgOf = new Map(desired.targetGroups.map((tg) => [tg.key, tg]));
  const launcher = new Map(schedule.targetGroups.map((t) => [t.key, t.launch.by]));
  const record = (tg: DesiredTargetGroup, result: { targetGroupId: string; created: boolean; launch?: DraftLaunchResult }) => {
    state.targetGroupIds[tg.key] = result.targetGroupId;
    if (result.created) state.countWrites();
    if (result.launch) written.launches[tg.key] = result.launch;
    state.pin(`tg:${tg.key}`);
  };
  const fail = (tg: DesiredTargetGroup, error: unknown) => {
    if (isCancellation(error)) throw error;
    written.failed.add(tg.key);
    const failure = failureOf(error);
    state.setTargetGroup(tg.key, 'failed', { failure, message: failure.message, settledRevision: desired.revision });
  };
  const createAlone = async (tg: DesiredTargetGroup) => {
    try {
      const r = await api(`create draft ${tg.key}`).ensureDraftTargetGroup(draftInput(state, tg, writtenAt));
      record(tg, { targetGroupId: r.targetGroup.id, created: r.created });
    } catch (error) {
      fail(tg, error);
    }
  };
  const batchItem = (tg: DesiredTargetGroup): DraftBatchItem => {
    const item = draftInput(state, tg, writtenAt);
    const gate = gates[tg.key];
    if (launcher.get(tg.key) === 'draft_batch' && gate?.ok && gate.gate.held.length === 0) {
      item.launch = { endFieldingAt: endFieldingAt(tg), idempotencyKeyPrefix: state.keyFor(`launch/${tg.key}`) };
    }
    return item;
  };
  const retries: DesiredTargetGroup[] = [];
  const take = (tg: DesiredTargetGroup, result: DraftBatchResult) => {
    if (result.ok) record(tg, result);
    else if (!result.retryable) fail(tg, ApplicationFailure.create({ type: result.failure.type, message: result.failure.message, nonRetryable: true }));
    else retries.push(tg);
  };
  for (const key of [...schedule.draftBatches.flat(), ...schedule.draftUpdates]) state.setTargetGroup(key, 'drafting');
  await Promise.all([
    ...schedule.draftBatches.map(async (keys) => {
      const tgs = keys.map((k) => tgOf.get(k) as DesiredTargetGroup);
      await oneBatch(tgs, (tg) => tg.key, 'create drafts', (batch, summary) => api(summary, 'long').ensureDraftTargetGroups({ items: batch.map(batchItem) }), take);
      // The drafts its batch could not make, each in an activity of its own with the usual retries.
      await Promise.all(retries.filter((tg) => keys.includes(tg.key)).map(createAlone));
    }),
    ...schedule.draftUpdates.map(async (key) => {
      const tg = tgOf.get(key) as DesiredTargetGroup;
      if (!state.targetGroupIds[key]) return;
      try {
        await api(`update draft ${key}`).updateDraftTargetGroup({ ctx: state.ctxFor(`tg:${key}`), projectId: state.projectId as string, targetGroupId: state.targetGroupIds[key], desired: draftBody(state, tg, writtenAt) });
        state.countWrites();
        state.pin(`tg:${key}`);
      } catch (error) {
        fail(tg, error);
      }
    }),
  ]);
  return written;
}

/** Updates the drafts whose activity exclusions name target groups this apply created, now that they exist. */
export async function writeSecondPass(state: StudyState, api: Api, desired: DesiredStudy, schedule: StudySchedule, failed: ReadonlySet<string>): Promise<void> {
  const writtenAt = Date.now();
  for (const key of schedule.secondPass) {
    const tg = desired.targetGroups.find((t) => t.key === key);
    if (!tg || failed.has(key) || !state.targetGroupIds[key]) continue;
    await api(`update draft ${key} (activity exclusions)`).updateDraftTargetGroup({ ctx: state.ctxFor(`tg:${key}`), projectId: state.projectId as string, targetGroupId: state.targetGroupIds[key], desired: draftBody(state, tg, writtenAt) });
    state.countWrites();
  }
}
