// The program of a revision: every step apply runs, in order, with its payload, for the study and for
// each target group. Pure: `studyflow plan` prints it, the study workflow runs it (workflows/steps.ts),
// and a target group's workflow runs the steps handed to it. Nothing in apply decides what to do
// beyond what these steps say; what happens at run time (a gate that holds, a job still running)
// only decides where the study stops and hands the rest to the target group's workflow.
import { fnv1a } from '../shared/fnv1a';
import { studyWorkflowId } from '../shared/workflow-ids';
import { canonicalJson } from './compare';
import { isWrite, planStudy } from './plan-study';
import { actionsOfTargetGroup, scheduleStudy, type Launcher, type StudySchedule } from './schedule';
import { fieldingStatusOf } from './live-fielding';
import { liveSteps, removedToComplete } from './live-steps';
import type { DesiredStudy, DesiredTargetGroup, LaunchAction, ListAction, ObservedStudy, PlannedAction, StudyPlan } from './types';
import type { GuardHold } from './guard-types';
import type { StudyProgram, StudyStep, TargetGroupStep } from './steps';
import type { SoftLaunchState } from './soft-launch';

export type { LaunchRunner, LiveFieldingAction, StudyProgram, StudyStep, StudyStepKind, TargetGroupProgram, TargetGroupStep, TargetGroupStepKind } from './steps';
export type { LiveChange, LiveRequest, LiveUnwritable, LiveUpdateOperation } from './live-requests';

/** A target group whose workflow runs: the digest of the spec it was last given, and its phase in the study's status. */
export interface RunningChild {
  specDigest?: string;
  phase?: string;
  /** The guards' hold on it (its status.guards.hold): plan/pipeline.ts hands it to the plan. */
  guardHold?: GuardHold;
  /** Where its soft launch stands (its status.softLaunch.state): one that holds it keeps `fielding: live` from resuming it. */
  softLaunch?: SoftLaunchState;
}

/** The inputs besides desired and observed: the plan and schedule of them (computed when absent) and the running workflows. */
export interface ProgramInputs {
  plan: StudyPlan;
  schedule: StudySchedule;
  running: ReadonlyMap<string, RunningChild>;
}

/** A short digest of a target group's spec (FNV-1a over its canonical JSON): whether its workflow was given this spec. */
export function specDigest(tg: DesiredTargetGroup): string {
  const text = canonicalJson(tg);
  return `${fnv1a(text).toString(16).padStart(8, '0')}:${text.length}`;
}

/** The workflow id every key of the study is derived from. */
function studyWorkflowKey(desired: DesiredStudy): string {
  return studyWorkflowId(desired.accountId, desired.studyId);
}

/** Placeholders of what only exists at run time: the id of a draft this apply creates, the attempt of a target group's own launch. */
export const TARGET_GROUP_ID = '{target group id}';
export const ATTEMPT = '{attempt}';

/** The Idempotency-Key of the study's (and its draft batch's) launch of a target group: the same key, so a launch sent by both is one. */
export function studyLaunchKey(desired: DesiredStudy, key: string, targetGroupId: string): string {
  return `${studyWorkflowKey(desired)}/launch/${key}/${targetGroupId}`;
}

/** The Idempotency-Key of a target group's own launch (attempt n). */
export function ownLaunchKey(desired: DesiredStudy, key: string, attempt: number | typeof ATTEMPT): string {
  return `${studyWorkflowKey(desired)}/tg/${key}/launch/${attempt}`;
}

/** The Idempotency-Key of a target group's schedule-from-draft job (attempt n). */
export function scheduleLaunchKey(desired: DesiredStudy, key: string, attempt: number | typeof ATTEMPT): string {
  return `${studyWorkflowKey(desired)}/tg/${key}/schedule-launch/${attempt}`;
}

/**
 * The phases of a target group's workflow that say each fielding status the exchange shows. A running workflow whose
 * phase says otherwise (the exchange completed or paused it since its last reading) is handed the revision: it reads
 * where it is, so apply's table and `status` agree with the exchange at once, not after the next watch tick.
 */
const PHASES_OF_EXCHANGE: Readonly<Record<string, readonly string[]>> = {
  scheduled: ['scheduled'],
  live: ['live'],
  paused: ['paused'],
  completed: ['completed'],
};

/** Whether the exchange shows the target group otherwise than its workflow's phase says. */
export function disagreesWithExchange(phase: string | undefined, exchange: string | undefined): boolean {
  const phases = exchange === undefined ? undefined : PHASES_OF_EXCHANGE[exchange];
  return phase !== undefined && phases !== undefined && !phases.includes(phase);
}

/** Whether a running target-group workflow is given this revision: its part changed, the API differs from it or from its phase, or it failed. */
export function revisesChild(tg: DesiredTargetGroup, actions: readonly PlannedAction[], child: RunningChild, exchange?: string): boolean {
  return child.specDigest !== specDigest(tg) || actions.some(isWrite) || child.phase === 'failed' || disagreesWithExchange(child.phase, exchange);
}

/**
 * The steps of a target group's own workflow (after its hand-over): profiles, lists, then the launch or, for a
 * launched one, its in-place changes and fielding state (plan/live-steps.ts) and a read of where it is.
 */
export function ownSteps(desired: DesiredStudy, tg: DesiredTargetGroup, actions: readonly PlannedAction[], observed?: ObservedStudy): TargetGroupStep[] {
  const steps: TargetGroupStep[] = [];
  const live = observed ? liveSteps(tg, actions, observed) : { before: [], after: [] };
  steps.push(...live.before);
  if (actions.some((a) => a.resource === 'profiles' && a.kind === 'update')) steps.push({ kind: 'profiles' });
  for (const a of actions.filter((x): x is ListAction => x.kind === 'upload' || x.kind === 'replace_list')) {
    steps.push({
      kind: 'upload',
      list: a.resource === 'recontact_list' ? 'recontact_list' : 'id_list',
      ...(a.entityType ? { entityType: a.entityType } : {}),
      replace: a.kind === 'replace_list',
      ref: a.list,
      reason: a.reason,
    });
  }
  const launch = actions.find((a): a is LaunchAction => a.kind === 'launch');
  if (!launch) return [...steps, ...live.after, { kind: 'read_state' }];
  // A staged launch waits for the other target group's completes, a timed one the exchange cannot schedule for its
  // moment; the gate is read after the wait, when the launch is near.
  if (launch.launchAfter) steps.push({ kind: 'wait_for_completes', targetGroup: launch.launchAfter.targetGroup, completes: launch.launchAfter.completes });
  // The exchange schedules it: its schedule-from-draft job at `launchAt`.
  const scheduledAt = launch.operation === 'create_schedule_fielding_run_from_draft_job' ? launch.launchAt : undefined;
  if (launch.launchAt && scheduledAt === undefined) steps.push({ kind: 'wait_until', at: launch.launchAt });
  steps.push({ kind: 'read_gate', by: 'target_group' });
  if (tg.launch.mode === 'manual') steps.push({ kind: 'approve' });
  if (scheduledAt !== undefined) steps.push({ kind: 'schedule_launch', at: scheduledAt, idempotencyKey: scheduleLaunchKey(desired, tg.key, ATTEMPT) });
  else steps.push({ kind: 'launch', by: 'target_group', idempotencyKey: ownLaunchKey(desired, tg.key, ATTEMPT) });
  return steps;
}

function targetGroupSteps(desired: DesiredStudy, observed: ObservedStudy, inputs: ProgramInputs, tg: DesiredTargetGroup): TargetGroupStep[] {
  const t = inputs.schedule.targetGroups.find((x) => x.key === tg.key);
  if (!t) return [];
  const actions = actionsOfTargetGroup(inputs.plan, tg.key);
  const by = t.launch.by;
  const steps: TargetGroupStep[] = [];
  if (t.gateReadByStudy) steps.push({ kind: 'read_gate', by: 'study' });
  const knownId = observed.targetGroups[tg.key]?.id ?? (tg.movedFrom ? observed.targetGroups[tg.movedFrom]?.id : undefined);
  const launchKey = studyLaunchKey(desired, tg.key, knownId ?? TARGET_GROUP_ID);
  if (t.draft === 'create') {
    steps.push({
      kind: 'draft',
      mode: 'create',
      batch: t.batch as number,
      idempotencyKey: `${studyWorkflowKey(desired)}/target-group/${tg.key}`,
      ...(by === 'draft_batch' ? { launch: { idempotencyKey: launchKey } } : {}),
    });
  } else if (t.draft === 'update') {
    steps.push({ kind: 'draft', mode: 'update' });
  }
  if (by === 'draft_batch') {
    // Launched with its draft: the study awaits the job, and its workflow starts once the revision settled, to watch.
    return [...steps, { kind: 'await_job', job: 'launch' }, { kind: 'hand_over', when: 'settled' }];
  }
  if (t.secondPass) steps.push({ kind: 'second_pass' });
  for (const m of inputs.schedule.memberships) {
    if (m.add.includes(tg.key)) steps.push({ kind: 'membership', group: m.group, change: 'add' });
    if (m.remove.includes(tg.key)) steps.push({ kind: 'membership', group: m.group, change: 'remove' });
  }
  if (by === 'study') return [...steps, { kind: 'launch', by: 'study', idempotencyKey: launchKey }, { kind: 'hand_over', when: 'now' }];
  const child = inputs.running.get(tg.key);
  // A running workflow whose part is unchanged is not disturbed: it goes on watching.
  const seen = observed.targetGroups[tg.key] ?? (tg.movedFrom ? observed.targetGroups[tg.movedFrom] : undefined);
  if (child && !revisesChild(tg, actions, child, seen ? fieldingStatusOf(seen) : undefined)) return steps;
  return [...steps, { kind: 'hand_over', when: 'now' }, ...ownSteps(desired, tg, actions, observed)];
}

/** The study's steps: its own writes beside the gate reads, the drafts, then the launches and hand-overs side by side. */
function studySteps(desired: DesiredStudy, schedule: StudySchedule, handOver: (by: Launcher) => string[], removed: string[]): StudyStep[] {
  const key = studyWorkflowKey(desired);
  const own: StudyStep[] = [];
  if (schedule.project !== 'none') {
    own.push({ kind: 'project', mode: schedule.project, idempotencyKey: schedule.project === 'create' ? `${key}/project` : `${key}/project/update/${desired.revision}` });
  }
  for (const name of schedule.exclusionGroups) own.push({ kind: 'exclusion_group', name, idempotencyKey: `${key}/exclusion-group/${name}` });
  for (const url of schedule.webhooks.create) own.push({ kind: 'webhook', mode: 'create', url });
  for (const url of schedule.webhooks.update) own.push({ kind: 'webhook', mode: 'update', url });
  const byDraftBatch = handOver('draft_batch');
  const byStudy = handOver('study');
  return [
    { kind: 'together', lanes: [[{ kind: 'read_gates', keys: schedule.gateReads }], own] },
    { kind: 'checkpoint' },
    { kind: 'drafts', batches: schedule.draftBatches, updates: schedule.draftUpdates },
    { kind: 'checkpoint' },
    {
      kind: 'together',
      lanes: [
        [
          { kind: 'await_launches', keys: byDraftBatch },
          { kind: 'hand_over', keys: byDraftBatch, when: 'now' },
        ],
        [
          { kind: 'second_pass', keys: schedule.secondPass },
          { kind: 'memberships', changes: schedule.memberships },
          {
            kind: 'together',
            lanes: [
              [{ kind: 'hand_over', keys: [...handOver('target_group'), ...handOver('none')], when: 'now' }],
              [
                { kind: 'launch_batch', keys: byStudy },
                { kind: 'hand_over', keys: byStudy, when: 'now' },
              ],
            ],
          },
        ],
      ],
    },
    { kind: 'settle' },
    ...(removed.length ? [{ kind: 'complete_removed' as const, keys: removed }] : []),
    { kind: 'checkpoint' },
    { kind: 'conclude' },
    { kind: 'hand_over', keys: byDraftBatch, when: 'settled' },
  ];
}

/**
 * The program of a revision: for every target group the ordered steps apply runs, with their payloads,
 * and the study's steps that carry them out together. `inputs` are the plan and schedule of desired and
 * observed (made here when absent) and the target groups whose workflow runs.
 */
export function programStudy(desired: DesiredStudy, observed: ObservedStudy, inputs: Partial<ProgramInputs> = {}): StudyProgram {
  const running = inputs.running ?? new Map<string, RunningChild>();
  const plan = inputs.plan ?? planStudy(desired, observed);
  const schedule = inputs.schedule ?? scheduleStudy(desired, plan, observed, new Set(running.keys()));
  const all: ProgramInputs = { plan, schedule, running };
  const keysBy = (by: Launcher) => schedule.targetGroups.filter((t) => t.launch.by === by).map((t) => t.key);
  return {
    revision: desired.revision,
    study: studySteps(desired, schedule, keysBy, removedToComplete(desired, plan)),
    targetGroups: desired.targetGroups.map((tg) => {
      const launch = schedule.targetGroups.find((t) => t.key === tg.key)?.launch ?? { by: 'none', reason: 'not scheduled' };
      const byStudy = launch.by === 'study' || launch.by === 'draft_batch';
      return {
        key: tg.key,
        launch,
        steps: targetGroupSteps(desired, observed, all, tg),
        ...(byStudy ? { fallback: ownSteps(desired, tg, actionsOfTargetGroup(plan, tg.key), observed) } : {}),
      };
    }),
  };
}

/** The steps of a target group that its own workflow runs (those after its hand-over). */
export function stepsAfterHandOver(steps: readonly TargetGroupStep[]): TargetGroupStep[] {
  const at = steps.findIndex((s) => s.kind === 'hand_over');
  return at < 0 ? [] : steps.slice(at + 1);
}

/** The running target-group workflows as a study's status shows them (what `studyflow plan` and the study both start from). */
export function runningFromStatus(
  status:
    | {
        managedTargetGroups?: string[];
        childSpecDigests?: Record<string, string>;
        targetGroups?: Record<string, { phase?: string; guards?: { hold?: GuardHold }; softLaunch?: { state: SoftLaunchState; analysisOnly?: boolean } }>;
      }
    | undefined,
): Map<string, RunningChild> {
  return new Map(
    (status?.managedTargetGroups ?? []).map((key) => {
      const hold = status?.targetGroups?.[key]?.guards?.hold;
      // A soft launch that only analyses never holds the target group.
      const analysed = status?.targetGroups?.[key]?.softLaunch;
      const soft = analysed?.analysisOnly ? undefined : analysed?.state;
      return [key, { specDigest: status?.childSpecDigests?.[key], phase: status?.targetGroups?.[key]?.phase, ...(hold ? { guardHold: hold } : {}), ...(soft ? { softLaunch: soft } : {}) }];
    }),
  );
}
