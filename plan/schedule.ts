// How apply carries out a plan: which study-level writes come first, which drafts go out in which
// batch, who launches each target group and why, which drafts need a second pass, and the exclusion-
// group memberships. Pure: `studyflow plan` prints it and the study workflow only follows it.
import { inBatches } from './batches';
import { resolveActivityItems } from './plan-study';
import type { DesiredStudy, DesiredTargetGroup, LaunchAction, ObservedStudy, PlannedAction, ResourceKind, StudyPlan } from './types';

/**
 * Who launches a target group in this revision:
 * - `draft_batch`: the batch activity that creates its draft launches it the moment the draft exists
 *   (its gate read beside the project passed), and the study awaits the launch job;
 * - `study`: the study launches it in a launch batch after the drafts and memberships;
 * - `target_group`: its own workflow (after its uploads, or its approval, or because it runs already);
 * - `none`: there is no launch in this revision (it is live, paused or completed).
 * A target group the study was to launch whose gate holds it, whose gate read or launch failed, or
 * whose launch job did not end within the wait, is handed to its own workflow with what was found.
 */
export type Launcher = 'draft_batch' | 'study' | 'target_group' | 'none';

export interface TargetGroupSchedule {
  key: string;
  /** What the study writes of the draft: `create` (in draft batch `batch`), `update`, or nothing. */
  draft: 'create' | 'update' | 'none';
  /** The draft batch that creates it (index into `draftBatches`). */
  batch?: number;
  /** Its activity exclusions name target groups created in this apply: the draft is updated again once they exist. */
  secondPass: boolean;
  launch: { by: Launcher; reason: string };
  /** The study reads its launch gate beside the project (it launches it, unless the gate holds). */
  gateReadByStudy: boolean;
}

export interface MembershipChange {
  group: string;
  add: string[];
  remove: string[];
}

export interface StudySchedule {
  project: 'create' | 'update' | 'none';
  /** Exclusion groups to create, by name, one after the other after the project. */
  exclusionGroups: string[];
  /** Webhooks to create or update, by URL. */
  webhooks: { create: string[]; update: string[] };
  /** New drafts by key, in batch activities of at most BATCH_SIZE, side by side. */
  draftBatches: string[][];
  /** Drafts updated one activity each, side by side with the batches. */
  draftUpdates: string[];
  /** Drafts updated again after every draft exists (activity exclusions naming new target groups). */
  secondPass: string[];
  /** Membership changes, one call per group and direction, after the drafts. */
  memberships: MembershipChange[];
  /** Target groups whose gates the study reads beside the project. */
  gateReads: string[];
  targetGroups: TargetGroupSchedule[];
}

/** Resources the study workflow writes itself before any target-group workflow runs. */
const STUDY_RESOURCES: ReadonlySet<ResourceKind> = new Set(['target_group', 'activity_exclusions', 'exclusion_group']);
const STUDY_KINDS: ReadonlySet<PlannedAction['kind']> = new Set(['create', 'update', 'add_to_group', 'remove_from_group']);
const isLaunch = (a: PlannedAction): a is LaunchAction => a.kind === 'launch' && a.resource === 'fielding';

/** The launch's timing, when it waits for a moment (`launchAt`) or another target group's completes (`launchAfter`). */
function timingOf(actions: readonly PlannedAction[]): Pick<LaunchAction, 'launchAt' | 'launchAfter'> | undefined {
  const launch = actions.find(isLaunch);
  return launch?.launchAt || launch?.launchAfter ? { launchAt: launch.launchAt, launchAfter: launch.launchAfter } : undefined;
}

/**
 * True when a target group launches automatically and nothing but the study's own writes comes
 * before its launch (no profiles, lists or recontacts, nothing blocked): the study may launch it.
 */
export function launchesAtOnce(tg: DesiredTargetGroup, actions: readonly PlannedAction[]): boolean {
  if (tg.launch.mode !== 'auto' || !actions.some(isLaunch) || timingOf(actions)) return false;
  return actions.every((a) => a.kind === 'none' || isLaunch(a) || (STUDY_KINDS.has(a.kind) && STUDY_RESOURCES.has(a.resource)));
}

/**
 * True when a new target group may be launched by its draft batch: it {@link launchesAtOnce} and the
 * study writes nothing for it between its draft and its launch (no exclusion-group membership, no
 * update of the draft).
 */
export function launchesWithDraft(tg: DesiredTargetGroup, actions: readonly PlannedAction[]): boolean {
  return (
    launchesAtOnce(tg, actions) &&
    actions.every((a) => a.kind === 'none' || isLaunch(a) || (a.kind === 'create' && (a.resource === 'target_group' || a.resource === 'activity_exclusions')))
  );
}

/** Why a target group's own workflow launches it (the first reason that applies). */
function ownLaunchReason(tg: DesiredTargetGroup, actions: readonly PlannedAction[], running: boolean): string {
  if (running) return 'its workflow runs already and takes the new revision';
  const timing = timingOf(actions);
  if (timing?.launchAt) return `timed launch: its workflow schedules it for ${timing.launchAt}`;
  if (timing?.launchAfter) return `staged launch: its workflow holds it until ${timing.launchAfter.targetGroup} has ${timing.launchAfter.completes} completes`;
  if (tg.launch.mode === 'manual') return 'manual launch: its workflow waits for `studyflow approve`';
  const first = actions.find((a) => a.kind !== 'none' && !isLaunch(a) && !(STUDY_KINDS.has(a.kind) && STUDY_RESOURCES.has(a.resource)));
  if (first?.kind === 'blocked') return `its workflow reports what blocks it: ${first.reason}`;
  return `its workflow first has to ${first?.reason ?? 'do its own work'}`;
}

function launchOf(tg: DesiredTargetGroup, actions: readonly PlannedAction[], running: boolean, secondPass: boolean): { by: Launcher; reason: string } {
  if (!actions.some(isLaunch)) return { by: 'none', reason: actions.find((a) => a.resource === 'fielding')?.reason ?? 'nothing to launch' };
  if (running || !launchesAtOnce(tg, actions)) return { by: 'target_group', reason: ownLaunchReason(tg, actions, running) };
  const isNew = actions.some((a) => a.resource === 'target_group' && a.kind === 'create');
  if (isNew && !secondPass && launchesWithDraft(tg, actions)) {
    return { by: 'draft_batch', reason: 'a new draft with nothing to write before its launch, once its gate (read beside the project) passes' };
  }
  const why = secondPass
    ? 'its activity exclusions wait for drafts of this apply'
    : actions.some((a) => a.kind === 'add_to_group' || a.kind === 'remove_from_group')
      ? 'it joins or leaves an exclusion group first'
      : isNew
        ? 'the study writes its draft first'
        : 'an existing draft';
  return { by: 'study', reason: `${why}; in a launch batch once its gate (read beside the project) passes` };
}

/**
 * The schedule of a plan. `running` are the target groups whose workflow runs already (they take a new
 * revision themselves); `observed` is what the plan was made against (to know which activity-exclusion
 * references exist before the drafts are written).
 */
export function scheduleStudy(desired: DesiredStudy, plan: StudyPlan, observed: ObservedStudy, running: ReadonlySet<string>): StudySchedule {
  const byKey = new Map<string, PlannedAction[]>();
  for (const a of plan.actions) {
    if (a.resource === 'project' || a.resource === 'webhook' || (a.resource === 'exclusion_group' && a.kind === 'create')) continue;
    const list = byKey.get(a.key);
    if (list) list.push(a);
    else byKey.set(a.key, [a]);
  }
  const actionsOf = (key: string) => byKey.get(key) ?? [];
  const has = (key: string, resource: ResourceKind, kind: PlannedAction['kind']) => actionsOf(key).some((a) => a.resource === resource && a.kind === kind);
  const existingId = (key: string) => {
    const tg = desired.targetGroups.find((t) => t.key === key);
    return observed.targetGroups[key]?.id ?? (tg?.movedFrom ? observed.targetGroups[tg.movedFrom]?.id : undefined);
  };

  const creates = desired.targetGroups.filter((tg) => has(tg.key, 'target_group', 'create')).map((tg) => tg.key);
  const draftBatches = inBatches(creates);
  const batchOf = new Map(draftBatches.flatMap((keys, i) => keys.map((k) => [k, i] as const)));
  const targetGroups = desired.targetGroups.map((tg): TargetGroupSchedule => {
    const actions = actionsOf(tg.key);
    const create = batchOf.has(tg.key);
    const update = !create && (has(tg.key, 'target_group', 'update') || has(tg.key, 'activity_exclusions', 'update'));
    // A reference the API cannot resolve yet names a target group this apply creates.
    const secondPass = Boolean(tg.activityExclusions) && (create || update) && resolveActivityItems(tg.activityExclusions?.items ?? [], existingId, observed.project?.id ?? 'new').unresolved.length > 0;
    const launch = launchOf(tg, actions, running.has(tg.key), secondPass);
    return {
      key: tg.key,
      draft: create ? 'create' : update ? 'update' : 'none',
      ...(create ? { batch: batchOf.get(tg.key) } : {}),
      secondPass,
      launch,
      gateReadByStudy: launch.by === 'draft_batch' || launch.by === 'study',
    };
  });

  const memberships = desired.exclusionGroups
    .map((group) => ({
      group: group.name,
      add: plan.actions.filter((a) => a.kind === 'add_to_group' && a.group === group.name).map((a) => a.key),
      remove: plan.actions.filter((a) => a.kind === 'remove_from_group' && a.group === group.name).map((a) => a.key),
    }))
    .filter((m) => m.add.length > 0 || m.remove.length > 0);
  const projectAction = plan.actions.find((a) => a.resource === 'project');
  const project = projectAction?.kind === 'create' || projectAction?.kind === 'update' ? projectAction.kind : 'none';
  return {
    project,
    exclusionGroups: plan.actions.filter((a) => a.resource === 'exclusion_group' && a.kind === 'create').map((a) => a.key),
    webhooks: {
      create: plan.actions.filter((a) => a.resource === 'webhook' && a.kind === 'create').map((a) => a.key),
      update: plan.actions.filter((a) => a.resource === 'webhook' && a.kind === 'update').map((a) => a.key),
    },
    draftBatches,
    draftUpdates: targetGroups.filter((t) => t.draft === 'update').map((t) => t.key),
    secondPass: targetGroups.filter((t) => t.secondPass).map((t) => t.key),
    memberships,
    gateReads: targetGroups.filter((t) => t.gateReadByStudy).map((t) => t.key),
    targetGroups,
  };
}

/** The actions of one target group in a plan (everything keyed by it but the creation of exclusion groups). */
export function actionsOfTargetGroup(plan: StudyPlan, key: string): PlannedAction[] {
  return plan.actions.filter((a) => a.key === key && a.resource !== 'project' && a.resource !== 'webhook' && !(a.resource === 'exclusion_group' && a.kind === 'create'));
}
