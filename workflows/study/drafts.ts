import { ApplicationFailure } from '@temporalio/workflow';
import type { DraftBatchItem, DraftBatchResult, DraftLaunchResult, TargetGroupDesired } from '../../activities';
import { draftFieldingSpecification, endFieldingAt } from '../../plan/launch-gates';
import { resolveActivityItems } from '../../plan/plan-study';
import { TARGET_GROUP_ID, type StudyStep } from '../../plan/program';
import type { DesiredTargetGroup } from '../../plan/types';
import { oneBatch } from '../batch-calls';
import { failureOf, rethrowPassThrough } from '../failures';
import type { ApplyRun } from './run';
import type { StudyState } from './state';

/** What the drafts step leaves for the next ones (in the revision's ApplyRun). */
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
function draftInput(state: StudyState, tg: DesiredTargetGroup, writtenAt: number, idempotencyKey: string): DraftBatchItem {
  return {
    ctx: state.ctxFor(`tg:${tg.key}`),
    projectId: state.projectId as string,
    idempotencyKey,
    knownId: state.targetGroupIds[tg.key],
    desired: draftBody(state, tg, writtenAt),
    observedAbsent: true,
  };
}

/**
 * Writes the drafts of the step: the new ones in their draft batches (side by side; a draft its batch
 * could not make is tried again alone), the changed ones one activity each. A new draft whose program
 * step launches it with its draft, and whose gate (read beside the project) passed, is launched by the
 * batch the moment it exists.
 */
export async function writeDrafts(run: ApplyRun, step: Extract<StudyStep, { kind: 'drafts' }>): Promise<void> {
  const { state, api, desired, gates } = run;
  const written = run.drafts;
  // When the drafts of this step are written (workflow time): where the study names no start, their window starts here.
  const writtenAt = Date.now();
  const tgOf = new Map(desired.targetGroups.map((tg) => [tg.key, tg]));
  const createKey = (key: string) => {
    const s = run.stepOf(key, 'draft', (d) => d.mode === 'create');
    return s?.mode === 'create' ? s : undefined;
  };
  const record = (tg: DesiredTargetGroup, result: { targetGroupId: string; created: boolean; launch?: DraftLaunchResult }) => {
    state.targetGroupIds[tg.key] = result.targetGroupId;
    if (result.created) state.countWrites();
    if (result.launch) written.launches[tg.key] = result.launch;
    state.pin(`tg:${tg.key}`);
    const planned = createKey(tg.key);
    if (planned) {
      const { launch, ...draft } = planned;
      run.ran(tg.key, result.launch && launch ? planned : draft);
    }
  };
  const fail = (tg: DesiredTargetGroup, error: unknown) => {
    rethrowPassThrough(error);
    written.failed.add(tg.key);
    const failure = failureOf(error);
    state.setTargetGroup(tg.key, 'failed', { failure, message: failure.message, settledRevision: desired.revision });
  };
  const input = (tg: DesiredTargetGroup) => draftInput(state, tg, writtenAt, createKey(tg.key)?.idempotencyKey ?? state.keyFor(`target-group/${tg.key}`));
  const createAlone = async (tg: DesiredTargetGroup) => {
    try {
      const r = await api(`create draft ${tg.key}`).ensureDraftTargetGroup(input(tg));
      record(tg, { targetGroupId: r.targetGroup.id, created: r.created });
    } catch (error) {
      fail(tg, error);
    }
  };
  const batchItem = (tg: DesiredTargetGroup): DraftBatchItem => {
    const item = input(tg);
    const gate = gates[tg.key];
    const launch = createKey(tg.key)?.launch;
    if (launch && gate?.ok && gate.gate.held.length === 0) {
      // The activity appends the new draft's id to the prefix: the key the program names.
      item.launch = { endFieldingAt: endFieldingAt(tg), idempotencyKeyPrefix: launch.idempotencyKey.slice(0, -`/${TARGET_GROUP_ID}`.length) };
    }
    return item;
  };
  const retries: DesiredTargetGroup[] = [];
  const take = (tg: DesiredTargetGroup, result: DraftBatchResult) => {
    if (result.ok) record(tg, result);
    else if (!result.retryable) fail(tg, ApplicationFailure.create({ type: result.failure.type, message: result.failure.message, nonRetryable: true }));
    else retries.push(tg);
  };
  for (const key of [...step.batches.flat(), ...step.updates]) state.setTargetGroup(key, 'drafting');
  await Promise.all([
    ...step.batches.map(async (keys) => {
      const tgs = keys.map((k) => tgOf.get(k) as DesiredTargetGroup);
      await oneBatch(tgs, (tg) => tg.key, 'create drafts', (batch, summary) => api(summary, 'long').ensureDraftTargetGroups({ items: batch.map(batchItem) }), take);
      // The drafts its batch could not make, each in an activity of its own with the usual retries.
      await Promise.all(retries.filter((tg) => keys.includes(tg.key)).map(createAlone));
    }),
    ...step.updates.map(async (key) => {
      const tg = tgOf.get(key) as DesiredTargetGroup;
      if (!state.targetGroupIds[key]) return;
      try {
        await api(`update draft ${key}`).updateDraftTargetGroup({ ctx: state.ctxFor(`tg:${key}`), projectId: state.projectId as string, targetGroupId: state.targetGroupIds[key], desired: draftBody(state, tg, writtenAt) });
        state.countWrites();
        state.pin(`tg:${key}`);
        run.ran(key, { kind: 'draft', mode: 'update' });
      } catch (error) {
        fail(tg, error);
      }
    }),
  ]);
}

/** Updates the drafts whose activity exclusions name target groups this apply created, now that they exist. */
export async function writeSecondPass(run: ApplyRun, step: Extract<StudyStep, { kind: 'second_pass' }>): Promise<void> {
  const { state, api, desired } = run;
  const writtenAt = Date.now();
  for (const key of step.keys) {
    const tg = desired.targetGroups.find((t) => t.key === key);
    if (!tg || run.drafts.failed.has(key) || !state.targetGroupIds[key]) continue;
    await api(`update draft ${key} (activity exclusions)`).updateDraftTargetGroup({ ctx: state.ctxFor(`tg:${key}`), projectId: state.projectId as string, targetGroupId: state.targetGroupIds[key], desired: draftBody(state, tg, writtenAt) });
    state.countWrites();
    run.ran(key, { kind: 'second_pass' });
  }
}
