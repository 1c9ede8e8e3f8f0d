import { studyLaunchKey, TARGET_GROUP_ID, type StudyStep } from '../../plan/program';
import type { DesiredTargetGroup } from '../../plan/types';
import { launchTargetGroups, readGates, type GateRead, type LaunchItem } from '../launch';
import type { ApplyRun } from './run';

/**
 * Reads the gates of the target groups the program gives the draft batch or the study, beside the project; those
 * read already this revision (for the budget's prediction, workflows/study/budget.ts) are not read again.
 */
export async function readStudyGates(run: ApplyRun, step: Extract<StudyStep, { kind: 'read_gates' }>): Promise<void> {
  const { state, desired } = run;
  const unread = desired.targetGroups.filter((tg) => step.keys.includes(tg.key) && !run.gates[tg.key]?.ok);
  const items = unread.map((tg) => ({ desired: tg, ctx: state.ctxFor(`tg:${tg.key}`), businessUnitId: desired.businessUnitId }));
  if (items.length) run.gates = { ...run.gates, ...(await readGates(run.api, items)) };
  for (const key of step.keys) if (run.gates[key]?.ok) run.ran(key, { kind: 'read_gate', by: 'study' });
}

/** Awaits the launch jobs the draft batches started: the step `await_launches`. */
export function awaitDraftLaunches(run: ApplyRun, step: Extract<StudyStep, { kind: 'await_launches' }>): Promise<void> {
  return launchScheduled(run, step.keys);
}

/** Launches, in launch batches, the target groups the program gives the study: the step `launch_batch`. */
export function launchBatch(run: ApplyRun, step: Extract<StudyStep, { kind: 'launch_batch' }>): Promise<void> {
  return launchScheduled(run, step.keys);
}

/**
 * The launch path for `keys`: awaits the jobs their draft batches started, launches the others whose
 * gate passed, and records those that went live. Leaves what each target group's workflow takes over in
 * `run.handOver`: the gate (never read twice in a revision), a launch job still running, or the live
 * launch. One without a gate reading (its read failed) gets nothing: its workflow reads the gate itself.
 */
async function launchScheduled(run: ApplyRun, keys: readonly string[]): Promise<void> {
  const { state, desired, gates, drafts, handOver } = run;
  const items: LaunchItem[] = [];
  for (const tg of desired.targetGroups) {
    const read = gates[tg.key];
    if (!keys.includes(tg.key) || drafts.failed.has(tg.key) || !state.targetGroupIds[tg.key] || !read?.ok) continue;
    const sent = drafts.launches[tg.key];
    if (read.gate.held.length > 0 || (sent && !sent.ok)) {
      handOver[tg.key] = { gate: read.gate };
      continue;
    }
    state.setTargetGroup(tg.key, 'launching', { feasibility: read.gate.feasibility, price: read.gate.price, ...(read.gate.forecast ? { launchForecast: read.gate.forecast } : {}) });
    items.push(launchItem(run, tg, read, sent?.ok ? { jobId: sent.jobId, fieldingRunId: sent.fieldingRunId } : undefined));
  }
  const outcomes = await launchTargetGroups(run.api, items);
  for (const item of items) {
    const key = item.desired.key;
    if (item.sent) run.ran(key, { kind: 'await_job', job: 'launch' });
    else run.ran(key, run.stepOf(key, 'launch') ?? { kind: 'launch', by: 'study', idempotencyKey: item.idempotencyKey });
  }
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
}

function launchItem(run: ApplyRun, tg: DesiredTargetGroup, read: GateRead & { ok: true }, sent: LaunchItem['sent']): LaunchItem {
  const { state, desired } = run;
  const targetGroupId = state.targetGroupIds[tg.key];
  const withDraft = run.stepOf(tg.key, 'draft', (d) => d.mode === 'create' && d.launch !== undefined);
  const key = run.stepOf(tg.key, 'launch')?.idempotencyKey ?? (withDraft?.mode === 'create' ? withDraft.launch?.idempotencyKey : undefined) ?? studyLaunchKey(desired, tg.key, TARGET_GROUP_ID);
  return {
    desired: tg,
    ctx: state.ctxFor(`tg:${tg.key}`),
    businessUnitId: desired.businessUnitId,
    projectId: state.projectId as string,
    targetGroupId,
    // The same key as the draft batch's launch of this draft: a launch sent twice is one launch.
    idempotencyKey: key.replace(TARGET_GROUP_ID, targetGroupId),
    gate: read.gate,
    ...(sent ? { sent } : {}),
  };
}
