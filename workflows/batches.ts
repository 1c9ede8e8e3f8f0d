// How the study workflow groups work on many target groups into batch activities. Type imports only:
// the activities that take a batch check its size against the same constant.
import type { DesiredTargetGroup, PlannedAction } from '../plan/types';
export { BATCH_SIZE, inBatches } from '../plan/batches';

/** Target groups per batch activity in revisions that began before {@link BATCH_SIZE_PATCH}. */
export const LEGACY_BATCH_SIZE = 25;

/** Patch of the batch size: {@link BATCH_SIZE} instead of {@link LEGACY_BATCH_SIZE}. */
export const BATCH_SIZE_PATCH = 'batch-size-50';

/**
 * Patch of draft creation: the study workflow creates the drafts of an apply in batches of
 * {@link BATCH_SIZE} (one activity each, run side by side) instead of one activity per draft;
 * a draft whose batch could not make it is tried again in an activity of its own.
 */
export const DRAFT_BATCH_PATCH = 'draft-batch-v1';

/**
 * Patch of the launch of new target groups: one that launches automatically and has nothing to do
 * before (no profiles, no lists) has its gate read and is launched by the study workflow, in batches
 * of {@link BATCH_SIZE}, before its own workflow starts; the target-group workflow then watches it.
 * One whose gate holds it, whose batch failed or whose launch job did not succeed is left to its own
 * workflow, which runs the whole way as before.
 */
export const LAUNCH_BATCH_PATCH = 'launch-batch-v1';

/**
 * Patch of the gate reads of {@link LAUNCH_BATCH_PATCH}: the study workflow reads the gates of the new
 * target groups it may launch right after planning, side by side with the project and the drafts (the
 * feasibility and price calls need neither), instead of after the drafts.
 */
export const EARLY_GATES_PATCH = 'early-gates-v1';

/**
 * Patch of the launch of new target groups whose gate passed in the early read: the draft batch
 * launches each as soon as its draft exists ({@link launchesWithDraft}), and the study waits for their
 * launch jobs in batch activities (`awaitJobsBatch`), instead of launching them in a batch of their
 * own after every draft.
 */
export const DRAFT_LAUNCH_PATCH = 'draft-launch-v1';

/** Resources the study workflow writes itself before any target-group workflow runs. */
const STUDY_WRITES: ReadonlySet<PlannedAction['resource']> = new Set(['target_group', 'activity_exclusions', 'exclusion_group']);
const STUDY_WRITE_KINDS: ReadonlySet<PlannedAction['kind']> = new Set(['create', 'update', 'add_to_group', 'remove_from_group']);

/**
 * True when a target group launches automatically and nothing but the study's own writes comes
 * before its launch (no profiles, lists or recontacts, nothing blocked): the study may launch it.
 */
export function launchesAtOnce(tg: DesiredTargetGroup, actions: readonly PlannedAction[]): boolean {
  if (tg.launch.mode !== 'auto' || !actions.some((a) => a.kind === 'launch' && a.resource === 'fielding')) return false;
  return actions.every(
    (a) => a.kind === 'none' || (a.kind === 'launch' && a.resource === 'fielding') || (STUDY_WRITE_KINDS.has(a.kind) && STUDY_WRITES.has(a.resource)),
  );
}

/**
 * True when a new target group may be launched by its draft batch: it {@link launchesAtOnce} and the
 * study writes nothing for it between its draft and its launch (no exclusion-group membership, no
 * update of the draft).
 */
export function launchesWithDraft(tg: DesiredTargetGroup, actions: readonly PlannedAction[]): boolean {
  return (
    launchesAtOnce(tg, actions) &&
    actions.every((a) => a.kind === 'none' || (a.kind === 'launch' && a.resource === 'fielding') || (a.kind === 'create' && (a.resource === 'target_group' || a.resource === 'activity_exclusions')))
  );
}
