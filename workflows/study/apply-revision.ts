import { planRevision } from '../../plan/pipeline';
import type { Launcher, StudySchedule } from '../../plan/schedule';
import type { DesiredStudy, ObservedStudy } from '../../plan/types';
import type { Api } from '../activity-proxies';
import { readGates } from '../launch';
import type { ApplyRequest, LaunchHandOver } from '../messages';
import { startOrReviseChildren, untilSettled } from './children';
import { writeDrafts, writeSecondPass } from './drafts';
import { writeExclusionGroups } from './exclusion-groups';
import { gateItems, launchScheduled } from './launches';
import { writeMemberships } from './memberships';
import { writeProject } from './project';
import type { StudyState } from './state';
import { writeWebhooks } from './webhooks';

/**
 * Applies one revision: observe the API, plan and schedule (plan/), then carry the schedule out step by
 * step. A newer revision stops it at the next checkpoint.
 */
export async function applyRevision(state: StudyState, api: Api, request: ApplyRequest): Promise<void> {
  const desired = state.begin(request);
  state.setPhase('planning');
  const observed = await api(`observe study ${desired.studyId}`, 'long').observeStudy({ ctx: state.ctx(), desired, known: state.known() });
  const { plan, schedule } = planRevision(desired, observed, state.children);
  state.status.plan = plan.actions;
  state.checkpoint();
  state.setPhase('applying');
  takeObservedIds(state, desired, observed);

  // The study's own resources; beside them, the gates of the target groups the study launches.
  const [gates] = await Promise.all([
    readGates(api, gateItems(state, desired, schedule.gateReads)),
    (async () => {
      await writeProject(state, api, desired, schedule);
      await writeExclusionGroups(state, api, desired, schedule);
      await writeWebhooks(state, api, desired, schedule, observed);
    })(),
  ]);
  state.checkpoint();
  const drafts = await writeDrafts(state, api, desired, schedule, gates);
  state.checkpoint();

  // The launch jobs the draft batches started are awaited while the study writes what comes before the
  // others' launches; each target group's workflow starts as soon as the study is done with it.
  // A target group that went live here needs its workflow only to watch it from now on: that workflow
  // starts once the revision has settled, so the buyer waiting on the revision does not wait on it.
  const by = (launcher: Launcher) => keysLaunchedBy(schedule, launcher);
  const watchOnly: { keys: string[]; handOver: Record<string, LaunchHandOver> } = { keys: [], handOver: {} };
  await Promise.all([
    launchScheduled(state, api, desired, by('draft_batch'), gates, drafts).then((handOver) => {
      watchOnly.handOver = handOver;
      watchOnly.keys = by('draft_batch').filter((k) => handOver[k]?.live);
      return startOrReviseChildren(state, desired, plan, by('draft_batch').filter((k) => !handOver[k]?.live), handOver, drafts.failed);
    }),
    (async () => {
      await writeSecondPass(state, api, desired, schedule, drafts.failed);
      await writeMemberships(state, api, schedule, drafts.failed);
      await Promise.all([
        startOrReviseChildren(state, desired, plan, [...by('target_group'), ...by('none')], {}, drafts.failed),
        launchScheduled(state, api, desired, by('study'), gates, drafts).then((handOver) => startOrReviseChildren(state, desired, plan, by('study'), handOver, drafts.failed)),
      ]);
    })(),
  ]);

  await untilSettled(state, desired, drafts.failed, watchOnly.keys);
  state.checkpoint();
  state.status.appliedRevision = desired.revision;
  const keys = desired.targetGroups.map((t) => t.key);
  const failed = keys.filter((k) => state.status.targetGroups[k]?.phase === 'failed');
  state.setPhase(failed.length === 0 ? 'converged' : failed.length === keys.length ? 'failed' : 'partially_failed');
  await startOrReviseChildren(state, desired, plan, watchOnly.keys, watchOnly.handOver, drafts.failed);
}

function keysLaunchedBy(schedule: StudySchedule, launcher: Launcher): string[] {
  return schedule.targetGroups.filter((t) => t.launch.by === launcher).map((t) => t.key);
}

/** Remembers the remote ids observing found (a renamed target group keeps its remote id under its new key). */
function takeObservedIds(state: StudyState, desired: DesiredStudy, observed: ObservedStudy): void {
  if (observed.project) state.projectId = observed.project.id;
  for (const [key, tg] of Object.entries(observed.targetGroups)) state.targetGroupIds[key] = tg.id;
  for (const [name, group] of Object.entries(observed.exclusionGroups)) state.exclusionGroupIds[name] = group.id;
  for (const tg of desired.targetGroups) {
    if (tg.movedFrom && state.targetGroupIds[tg.movedFrom] && !state.targetGroupIds[tg.key]) {
      state.targetGroupIds[tg.key] = state.targetGroupIds[tg.movedFrom];
      delete state.targetGroupIds[tg.movedFrom];
    }
  }
}
