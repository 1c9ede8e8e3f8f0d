import type { DesiredStudy, DesiredTargetGroup } from '../../plan/types';
import type { Api } from '../activity-proxies';
import { launchTargetGroups, type GateItem, type GateRead, type LaunchItem } from '../launch';
import type { LaunchHandOver } from '../messages';
import type { DraftsWritten } from './drafts';
import type { StudyState } from './state';

/** The gate reads the study makes beside the project: the target groups the plan gives the draft batch or the study. */
export function gateItems(state: StudyState, desired: DesiredStudy, keys: readonly string[]): GateItem[] {
  return desired.targetGroups
    .filter((tg) => keys.includes(tg.key))
    .map((tg) => ({ desired: tg, ctx: state.ctxFor(`tg:${tg.key}`), businessUnitId: desired.businessUnitId }));
}

/**
 * Runs the launch path for the target groups the plan gives the draft batch or the study (`keys`):
 * awaits the jobs the draft batches started, launches the others whose gate passed, and records those
 * that went live. Returns what each target group's workflow takes over: the gate (never read twice in
 * a revision), a launch job still running, or the live launch. One without a gate reading (its read
 * failed) gets nothing: its workflow reads the gate itself.
 */
export async function launchScheduled(
  state: StudyState,
  api: Api,
  desired: DesiredStudy,
  keys: readonly string[],
  gates: Record<string, GateRead>,
  drafts: DraftsWritten,
): Promise<Record<string, LaunchHandOver>> {
  const handOver: Record<string, LaunchHandOver> = {};
  const items: LaunchItem[] = [];
  for (const tg of desired.targetGroups) {
    const read = gates[tg.key];
    if (!keys.includes(tg.key) || drafts.failed.has(tg.key) || !state.targetGroupIds[tg.key] || !read?.ok) continue;
    const sent = drafts.launches[tg.key];
    if (read.gate.held.length > 0 || (sent && !sent.ok)) {
      handOver[tg.key] = { gate: read.gate };
      continue;
    }
    state.setTargetGroup(tg.key, 'launching', { feasibility: read.gate.feasibility, price: read.gate.price });
    items.push(launchItem(state, desired, tg, read, sent?.ok ? { jobId: sent.jobId, fieldingRunId: sent.fieldingRunId } : undefined));
  }
  const outcomes = await launchTargetGroups(api, items);
  for (const [key, outcome] of Object.entries(outcomes)) {
    if (outcome.kind !== 'held' && outcome.kind !== 'failed' && outcome.jobId) state.countWrites();
    if (outcome.kind === 'live') {
      const launchedAt = new Date().toISOString();
      state.setTargetGroup(key, 'went_live', { fieldingRunId: outcome.fieldingRunId, liveAt: launchedAt, settledRevision: desired.revision, message: undefined });
      handOver[key] = { gate: outcome.gate, live: { fieldingRunId: outcome.fieldingRunId, launchedAt } };
    } else if (outcome.kind === 'job_running') {
      handOver[key] = { gate: outcome.gate, jobId: outcome.jobId };
    } else {
      handOver[key] = outcome.gate ? { gate: outcome.gate } : {};
    }
  }
  return handOver;
}

function launchItem(state: StudyState, desired: DesiredStudy, tg: DesiredTargetGroup, read: GateRead & { ok: true }, sent: LaunchItem['sent']): LaunchItem {
  const targetGroupId = state.targetGroupIds[tg.key];
  return {
    desired: tg,
    ctx: state.ctxFor(`tg:${tg.key}`),
    businessUnitId: desired.businessUnitId,
    projectId: state.projectId as string,
    targetGroupId,
    // The same key as the draft batch's launch of this draft: a launch sent twice is one launch.
    idempotencyKey: state.keyFor(`launch/${tg.key}/${targetGroupId}`),
    gate: read.gate,
    ...(sent ? { sent } : {}),
  };
}
