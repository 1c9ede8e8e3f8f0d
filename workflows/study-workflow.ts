import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  ParentClosePolicy,
  patched,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { canonicalJson } from '../plan/compare';
import { isWrite, planStudy, resolveActivityItems } from '../plan/plan-study';
import type { ApiVersion, DesiredStudy, DesiredTargetGroup, ObservedStudy, PlannedAction } from '../plan/types';
import type { ActivityCtx, BatchItemFailure, BatchItemResult, DraftBatchItem, DraftBatchResult, DraftLaunchResult, EnsureDraftTargetGroupInput, TargetGroupDesired } from '../activities';
import { apiActivities } from './activity-proxies';
import { BATCH_SIZE, BATCH_SIZE_PATCH, DRAFT_BATCH_PATCH, DRAFT_LAUNCH_PATCH, EARLY_GATES_PATCH, inBatches, LAUNCH_BATCH_PATCH, LEGACY_BATCH_SIZE, launchesAtOnce, launchesWithDraft } from './batches';
import { endFieldingAt, feasibilityRequest, gateFailures, judgedCpi, priceQuery, readFeasibility } from '../plan/launch-gates';
import { jobWaitOptions } from '../plan/job-timing';
import { failureOf } from './failures';
import {
  applyUpdate,
  approveSignal,
  approveUpdate,
  fieldingControlUpdate,
  knownFromStatus,
  reportQuery,
  statusQuery,
  targetGroupApproveSignal,
  targetGroupControlSignal,
  targetGroupEventSignal,
  targetGroupProgressSignal,
  targetGroupReportSignal,
  targetGroupRevisionSignal,
  targetGroupWorkflowId,
  webhookEventSignal,
  type ApplyRequest,
  type ApproveRequest,
  type StudyReport,
  type StudyStatus,
  type TargetGroupPhase,
  type TargetGroupReportData,
  type LaunchedByStudy,
  type TargetGroupRevision,
} from './messages';
import { ACCOUNT_ID, GIT_REVISION, PHASE, REMOTE_TARGET_GROUP_ID, STUDY_ID, TARGET_GROUP_KEY } from './search-attributes';
import { mergeReportUpdate } from './report-data';
import { targetGroupWorkflow } from './target-group-workflow';

export interface StudyWorkflowInput {
  accountId: string;
  studyId: string;
  /** Carried across continue-as-new. */
  carried?: StudyCarriedState;
}

export interface StudyCarriedState {
  status: StudyStatus;
  projectId?: string;
  targetGroupIds: Record<string, string>;
  exclusionGroupIds: Record<string, string>;
  children: string[];
  /** The revision each child was last given. */
  childRevisions?: Record<string, string>;
  childSpecs?: Record<string, string>;
  pending?: ApplyRequest;
  /** What the children sent for the report, by target-group key. */
  reports?: Record<string, TargetGroupReportData>;
}

class Superseded extends Error {}

/** What the study read of a target group's gate: the figures its own workflow then shows. */
type GateFigures = Pick<LaunchedByStudy, 'feasibility' | 'price'>;

/** Gates read early, beside the project: which target groups, and the figures of those that passed. */
interface EarlyGates {
  keys: Set<string>;
  read: Promise<Record<string, GateFigures>>;
}

const CURRENT_API_VERSION: ApiVersion = '2025-12-18';

/** The later of two dated API versions. */
function newerVersion(a: ApiVersion | undefined, b: ApiVersion): ApiVersion {
  return a && a > b ? a : b;
}

/**
 * The long-lived workflow of one study. It owns the study's state (remote IDs, applied revision,
 * per-target-group status), takes `apply` as a Workflow Update, plans each revision against what
 * the API holds, writes the project, drafts and exclusion groups, and runs one child workflow per
 * target group for uploads, gates, launch and watching.
 */
export async function studyWorkflow(input: StudyWorkflowInput): Promise<StudyStatus> {
  const api = apiActivities();
  const carried = input.carried;
  const status: StudyStatus = carried?.status ?? {
    studyId: input.studyId,
    accountId: input.accountId,
    phase: 'idle',
    writes: 0,
    targetGroups: {},
    exclusionGroups: {},
    updatedAt: new Date().toISOString(),
  };
  let projectId = carried?.projectId;
  const targetGroupIds: Record<string, string> = { ...(carried?.targetGroupIds ?? {}) };
  const exclusionGroupIds: Record<string, string> = { ...(carried?.exclusionGroupIds ?? {}) };
  const children = new Set<string>(carried?.children ?? []);
  const childRevisions: Record<string, string> = { ...(carried?.childRevisions ?? {}) };
  // The desired spec each child was last given: an unchanged target group is not disturbed by a new revision.
  const childSpecs: Record<string, string> = { ...(carried?.childSpecs ?? {}) };
  const childWrites: Record<string, number> = {};
  let studyWrites = status.writes;
  let pending: ApplyRequest | undefined = carried?.pending;
  let applying: string | undefined;
  let current: DesiredStudy | undefined;
  // The report figures of each target group, as its child sends them (queries cannot ask children).
  const reports: Record<string, TargetGroupReportData> = { ...(carried?.reports ?? {}) };

  const childId = (key: string) => targetGroupWorkflowId(input.accountId, input.studyId, key);
  const touch = () => {
    status.writes = studyWrites + Object.values(childWrites).reduce((a, b) => a + b, 0);
    status.updatedAt = new Date().toISOString();
  };

  setHandler(statusQuery, () => status);
  setHandler(reportQuery, (): StudyReport => ({
    studyId: status.studyId,
    accountId: status.accountId,
    phase: status.phase,
    revision: status.revision,
    appliedRevision: status.appliedRevision,
    projectId: status.projectId,
    updatedAt: status.updatedAt,
    targetGroups: Object.fromEntries(Object.entries(status.targetGroups).map(([key, tg]) => [key, reports[key] ? { status: tg, report: reports[key] } : { status: tg }])),
  }));
  setHandler(targetGroupReportSignal, (update) => {
    reports[update.key] = mergeReportUpdate(reports[update.key], update);
  });
  setHandler(
    applyUpdate,
    (request) => {
      const superseded = applying && applying !== request.desired.revision ? applying : undefined;
      pending = request;
      return Promise.resolve({ revision: request.desired.revision, superseded });
    },
    {
      validator: (request) => {
        if (request.desired.studyId !== input.studyId || request.desired.accountId !== input.accountId) {
          throw new Error(`this workflow manages study ${input.studyId} of account ${input.accountId}`);
        }
      },
    },
  );

  function approve(request: ApproveRequest): string[] {
    const keys = Object.keys(status.targetGroups).filter((k) => !request.targetGroup || k === request.targetGroup);
    const approvedKeys: string[] = [];
    for (const key of keys) {
      const phase = status.targetGroups[key]?.phase;
      if (!children.has(key) || phase === 'live' || phase === 'paused' || phase === 'completed' || phase === 'failed') continue;
      approvedKeys.push(key);
      void getExternalWorkflowHandle(childId(key)).signal(targetGroupApproveSignal);
    }
    return approvedKeys;
  }
  setHandler(approveUpdate, (request) => Promise.resolve(approve(request)), {
    validator: (request) => {
      if (request.targetGroup && !status.targetGroups[request.targetGroup]) {
        throw new Error(`no target group "${request.targetGroup}" in study ${input.studyId}`);
      }
    },
  });
  setHandler(approveSignal, (request) => {
    approve(request);
  });
  setHandler(
    fieldingControlUpdate,
    async (request) => {
      await getExternalWorkflowHandle(childId(request.targetGroup)).signal(targetGroupControlSignal, request.action);
      return `${request.action} requested for ${request.targetGroup}`;
    },
    {
      validator: (request) => {
        if (!children.has(request.targetGroup)) throw new Error(`target group "${request.targetGroup}" has no running workflow`);
      },
    },
  );
  setHandler(webhookEventSignal, (event) => {
    const key = Object.keys(targetGroupIds).find((k) => targetGroupIds[k] === event.targetGroupId);
    if (key && children.has(key)) void getExternalWorkflowHandle(childId(key)).signal(targetGroupEventSignal, event);
  });
  setHandler(targetGroupProgressSignal, (progress) => {
    status.targetGroups[progress.status.key] = progress.status;
    childWrites[progress.status.key] = progress.writes;
    touch();
  });

  function checkpoint(): void {
    if (pending) throw new Superseded();
  }

  async function setPhase(phase: StudyStatus['phase']): Promise<void> {
    status.phase = phase;
    touch();
    upsertSearchAttributes([{ key: PHASE, value: phase }]);
    const tgs = Object.values(status.targetGroups);
    const live = tgs.filter((t) => t.phase === 'live').length;
    setCurrentDetails(`**${input.studyId}** ${phase}: revision ${status.revision ?? '-'}, ${live}/${tgs.length} target groups live`);
    await Promise.resolve();
  }

  async function applyRevision(request: ApplyRequest): Promise<void> {
    const desired = request.desired;
    current = desired;
    applying = desired.revision;
    status.revision = desired.revision;
    status.gitRevision = request.gitRevision;
    status.error = undefined;
    if (request.gitRevision) upsertSearchAttributes([{ key: GIT_REVISION, value: request.gitRevision }]);
    await setPhase('planning');
    const ctx = { accountId: desired.accountId, apiVersion: desired.apiVersion };
    const pinned = (status.pinnedApiVersions ??= {});
    /** The version for a resource's calls: forward-only once it was written with the current version. */
    const ctxFor = (resource: string) => ({ ...ctx, apiVersion: newerVersion(pinned[resource], desired.apiVersion) });
    const pin = (resource: string, version: ApiVersion) => {
      if (version === CURRENT_API_VERSION) pinned[resource] = version;
    };

    const observed: ObservedStudy = await apiActivities(`observe study ${desired.studyId}`, 'long').observeStudy({
      ctx,
      desired,
      known: { ...knownFromStatus(status), projectId, targetGroupIds, exclusionGroupIds },
    });
    const plan = planStudy(desired, observed);
    status.plan = plan.actions;
    checkpoint();
    await setPhase('applying');
    if (observed.project) projectId = observed.project.id;
    for (const [key, tg] of Object.entries(observed.targetGroups)) targetGroupIds[key] = tg.id;
    for (const [name, group] of Object.entries(observed.exclusionGroups)) exclusionGroupIds[name] = group.id;
    for (const tg of desired.targetGroups) {
      if (tg.movedFrom && targetGroupIds[tg.movedFrom] && !targetGroupIds[tg.key]) {
        targetGroupIds[tg.key] = targetGroupIds[tg.movedFrom];
        delete targetGroupIds[tg.movedFrom];
      }
    }

    const actionsByKey = new Map<string, PlannedAction[]>();
    for (const a of plan.actions) {
      if (a.resource === 'project') continue;
      const list = actionsByKey.get(a.key);
      if (list) list.push(a);
      else actionsByKey.set(a.key, [a]);
    }
    const actionsFor = (key: string): PlannedAction[] => actionsByKey.get(key) ?? [];

    // Project (its activity goes out first: the drafts wait for it).
    const projectAction = plan.actions.find((a) => a.resource === 'project');
    const projectWrite =
      projectAction?.kind === 'create'
        ? apiActivities(`create project ${desired.project.project_customer_reference_number}`).ensureProject({
            ctx: ctxFor('project'),
            idempotencyKey: `${workflowInfo().workflowId}/project`,
            knownId: projectId,
            desired: desired.project,
          })
        : projectAction?.kind === 'update' && projectId
          ? apiActivities(`update project ${projectId}`).updateProject({ ctx: ctxFor('project'), projectId, desired: desired.project })
          : undefined;

    // The gates of new target groups the study may launch itself need neither the project nor the
    // drafts: they are read side by side with them (EARLY_GATES_PATCH), off the way to the launch.
    const gateCandidates = desired.targetGroups.filter((tg) => !children.has(tg.key) && launchesAtOnce(tg, actionsFor(tg.key)));
    let earlyGates: EarlyGates | undefined;
    if (gateCandidates.length > 0 && patched(EARLY_GATES_PATCH)) {
      earlyGates = { keys: new Set(gateCandidates.map((tg) => tg.key)), read: readGates(desired, gateCandidates, ctxFor) };
      // Awaited before the launch; a revision that supersedes this one first must not leave it unhandled.
      earlyGates.read.catch(() => undefined);
    }

    if (projectWrite) {
      const result = await projectWrite;
      projectId = result.project.id;
      if ('created' in result && result.created) studyWrites += 1;
      if (projectAction?.kind === 'update') studyWrites += 1;
      pin('project', ctxFor('project').apiVersion);
    }
    status.projectId = projectId;
    touch();
    checkpoint();
    const pid = projectId as string;

    // Exclusion groups declared by the study.
    for (const action of plan.actions.filter((a) => a.resource === 'exclusion_group' && a.kind === 'create')) {
      const group = desired.exclusionGroups.find((g) => g.name === action.key);
      if (!group) continue;
      const result = await apiActivities(`create exclusion group ${group.name}`).ensureExclusionGroup({
        ctx,
        idempotencyKey: `${workflowInfo().workflowId}/exclusion-group/${group.name}`,
        knownId: exclusionGroupIds[group.name],
        desired: { name: group.title },
      });
      exclusionGroupIds[group.name] = result.exclusionGroup.id;
      status.exclusionGroups[group.name] = result.exclusionGroup.id;
      if (result.created) studyWrites += 1;
    }

    // Webhooks the study declares (the secret goes to the worker's secret store, never into history).
    for (const action of plan.actions.filter((a) => a.resource === 'webhook' && (a.kind === 'create' || a.kind === 'update'))) {
      const hook = desired.webhooks.find((w) => w.url === action.key);
      if (!hook) continue;
      const wanted = { url: hook.url, events: hook.events, compression: hook.compression };
      if (action.kind === 'create') {
        const result = await apiActivities(`create webhook ${hook.url}`).createWebhook({
          ctx,
          idempotencyKey: `${workflowInfo().workflowId}/webhook/${hook.url}`,
          desired: wanted,
        });
        if (result.created) studyWrites += 1;
      } else {
        const remote = observed.webhooks?.[hook.url];
        if (!remote) continue;
        await apiActivities(`update webhook ${hook.url}`).updateWebhook({ ctx, webhookId: remote.id, desired: wanted });
        studyWrites += 1;
      }
    }
    checkpoint();

    // Drafts: every target group in parallel; a failure marks that one failed, not the study.
    const draftFailed = new Set<string>();
    const draftBody = (tg: DesiredTargetGroup): TargetGroupDesired => {
      const body: Record<string, unknown> = { ...tg.draft };
      if (tg.activityExclusions) {
        const { items } = resolveActivityItems(tg.activityExclusions.items, (k) => targetGroupIds[k], pid);
        body.respondent_activity_exclusions = items;
      }
      return body as TargetGroupDesired;
    };
    const needsSecondPass: DesiredTargetGroup[] = [];
    const isCreate = (tg: DesiredTargetGroup) => actionsFor(tg.key).some((a) => a.resource === 'target_group' && a.kind === 'create');
    const draftInput = (tg: DesiredTargetGroup): EnsureDraftTargetGroupInput => ({
      ctx: ctxFor(`tg:${tg.key}`),
      projectId: pid,
      idempotencyKey: `${workflowInfo().workflowId}/target-group/${tg.key}`,
      knownId: targetGroupIds[tg.key],
      desired: draftBody(tg),
    });
    const startDraft = (tg: DesiredTargetGroup) => {
      setTgPhase(tg.key, 'drafting');
      const unresolved = tg.activityExclusions
        ? resolveActivityItems(tg.activityExclusions.items, (k) => targetGroupIds[k], pid).unresolved
        : [];
      if (unresolved.length) needsSecondPass.push(tg);
    };
    // New drafts go out in batches (one activity per DRAFT_BATCH_SIZE drafts) in revisions that take the patch.
    const toCreate = desired.targetGroups.filter(isCreate);
    const batched = toCreate.length > 0 && patched(DRAFT_BATCH_PATCH);
    let batchResults: Promise<Map<string, DraftBatchResult>> | undefined;
    // A new draft whose gate was read early and passed, and that needs nothing between its draft and
    // its launch, is launched by its draft batch as soon as it exists (DRAFT_LAUNCH_PATCH).
    const launchAsked: Record<string, GateFigures> = {};
    const launchOutcomes: Record<string, DraftLaunchResult> = {};
    if (batched) {
      const gatesRead = earlyGates && patched(DRAFT_LAUNCH_PATCH) ? await earlyGates.read : undefined;
      const items = toCreate.map((tg) => {
        startDraft(tg);
        const input: DraftBatchItem = draftInput(tg);
        const gates = gatesRead?.[tg.key];
        if (gates && launchesWithDraft(tg, actionsFor(tg.key)) && !needsSecondPass.includes(tg)) {
          launchAsked[tg.key] = gates;
          input.launch = { endFieldingAt: endFieldingAt(tg), idempotencyKeyPrefix: `${workflowInfo().workflowId}/launch/${tg.key}` };
        }
        return { key: tg.key, input };
      });
      batchResults = createDraftBatches(items);
    }
    const recordDraft = (tg: DesiredTargetGroup, result: { targetGroupId: string; created: boolean; launch?: DraftLaunchResult }) => {
      targetGroupIds[tg.key] = result.targetGroupId;
      if (result.created) studyWrites += 1;
      if (result.launch) launchOutcomes[tg.key] = result.launch;
      pin(`tg:${tg.key}`, ctxFor(`tg:${tg.key}`).apiVersion);
    };
    const failDraft = (tg: DesiredTargetGroup, error: unknown) => {
      if (isCancellation(error)) throw error;
      draftFailed.add(tg.key);
      const failure = failureOf(error);
      setTgPhase(tg.key, 'failed', { failure, message: failure.message, settledRevision: desired.revision });
    };
    /** A draft in an activity of its own: without the patch, or when its batch could not make it. */
    const createAlone = async (tg: DesiredTargetGroup) => {
      try {
        const r = await apiActivities(`create draft ${tg.key}`).ensureDraftTargetGroup(draftInput(tg));
        recordDraft(tg, { targetGroupId: r.targetGroup.id, created: r.created });
      } catch (error) {
        failDraft(tg, error);
      }
    };
    await Promise.all([
      // The batched drafts are taken in one pass over their results (in target-group order, as the
      // activities a batch leaves to be done alone are scheduled), not one continuation each: with
      // hundreds of target groups that is a workflow task the study does not wait for.
      batchResults?.then((results) =>
        Promise.all(
          toCreate.flatMap((tg) => {
            const fromBatch = results.get(tg.key);
            if (fromBatch?.ok) {
              recordDraft(tg, fromBatch);
              return [];
            }
            if (fromBatch && !fromBatch.retryable) {
              failDraft(tg, ApplicationFailure.create({ type: fromBatch.failure.type, message: fromBatch.failure.message, nonRetryable: true }));
              return [];
            }
            return [createAlone(tg)];
          }),
        ),
      ),
      ...desired.targetGroups
        .filter((tg) => !(batchResults && isCreate(tg)))
        .map(async (tg) => {
          const actions = actionsFor(tg.key);
          if (isCreate(tg)) {
            startDraft(tg);
            await createAlone(tg);
            return;
          }
          const update = actions.some((a) => (a.resource === 'target_group' || a.resource === 'activity_exclusions') && a.kind === 'update');
          if (!update || !targetGroupIds[tg.key]) return;
          try {
            setTgPhase(tg.key, 'drafting');
            await apiActivities(`update draft ${tg.key}`).updateDraftTargetGroup({ ctx: ctxFor(`tg:${tg.key}`), projectId: pid, targetGroupId: targetGroupIds[tg.key], desired: draftBody(tg) });
            studyWrites += 1;
            pin(`tg:${tg.key}`, ctxFor(`tg:${tg.key}`).apiVersion);
          } catch (error) {
            failDraft(tg, error);
          }
        }),
    ]);
    // The launch jobs the draft batches started: awaited while the study goes on.
    const launchedWithDraft = awaitDraftLaunches(desired, pid, launchAsked, launchOutcomes, draftFailed, ctxFor);
    launchedWithDraft.catch(() => undefined);
    // Activity exclusions that name target groups created in this same apply.
    for (const tg of needsSecondPass) {
      if (draftFailed.has(tg.key)) continue;
      await api.updateDraftTargetGroup({ ctx: ctxFor(`tg:${tg.key}`), projectId: pid, targetGroupId: targetGroupIds[tg.key], desired: draftBody(tg) });
      studyWrites += 1;
    }
    touch();
    checkpoint();

    // Exclusion-group membership, batched per group.
    await setMembership(ctx, desired, plan.actions, draftFailed);
    checkpoint();

    // One child per target group: uploads, gates, launch and watching (or only watching, when the
    // study launched it below).
    const startOrRevise = async (tg: DesiredTargetGroup, launched?: LaunchedByStudy): Promise<void> => {
      if (draftFailed.has(tg.key) || !targetGroupIds[tg.key]) return;
      const revision: TargetGroupRevision = {
        revision: desired.revision,
        desired: tg,
        targetGroupId: targetGroupIds[tg.key],
        projectId: pid,
        // A target group the study launched has nothing left of the launch to do.
        actions: launched ? actionsFor(tg.key).filter((a) => a.kind !== 'launch') : actionsFor(tg.key),
        apiVersion: ctxFor(`tg:${tg.key}`).apiVersion,
        ...(launched ? { launched } : {}),
      };
      const existing = status.targetGroups[tg.key];
      if (!children.has(tg.key)) {
        children.add(tg.key);
        childRevisions[tg.key] = desired.revision;
        childSpecs[tg.key] = canonicalJson(tg);
        setTgPhase(tg.key, launched ? 'live' : 'draft', { targetGroupId: revision.targetGroupId });
        await startChild(targetGroupWorkflow, {
          workflowId: childId(tg.key),
          args: [
            {
              studyWorkflowId: workflowInfo().workflowId,
              accountId: desired.accountId,
              studyId: desired.studyId,
              businessUnitId: desired.businessUnitId,
              apiVersion: desired.apiVersion,
              revision,
            },
          ],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          staticSummary: `Target group ${tg.key} of study ${desired.studyId}`,
          typedSearchAttributes: [
            { key: STUDY_ID, value: desired.studyId },
            { key: ACCOUNT_ID, value: desired.accountId },
            { key: TARGET_GROUP_KEY, value: tg.key },
            { key: REMOTE_TARGET_GROUP_ID, value: revision.targetGroupId },
          ],
        });
      } else if (childSpecs[tg.key] !== canonicalJson(tg) || revision.actions.some(isWrite) || existing?.phase === 'failed') {
        // Its part of the study changed, the API differs from it, or a retry of a failed target group.
        childRevisions[tg.key] = desired.revision;
        childSpecs[tg.key] = canonicalJson(tg);
        setTgPhase(tg.key, existing?.phase ?? 'draft', { settledRevision: undefined });
        await getExternalWorkflowHandle(childId(tg.key)).signal(targetGroupRevisionSignal, revision);
      }
    };
    // New target groups that launch automatically with nothing to do first: the study reads their gates
    // and launches them in batches, and starts their workflows once they are live (LAUNCH_BATCH_PATCH).
    // The others start at once and run the whole way in their own workflows.
    const launchable = desired.targetGroups.filter(
      (tg) => !draftFailed.has(tg.key) && targetGroupIds[tg.key] && !children.has(tg.key) && launchesAtOnce(tg, actionsFor(tg.key)),
    );
    if (launchable.length > 0 && patched(LAUNCH_BATCH_PATCH)) {
      const byStudy = new Set(launchable.map((tg) => tg.key));
      // Those their draft batch was asked to launch are not launched again here: a launch that failed
      // there is left to the target group's own workflow.
      const rest = launchable.filter((tg) => launchAsked[tg.key] === undefined);
      await Promise.all([
        ...desired.targetGroups.filter((tg) => !byStudy.has(tg.key)).map((tg) => startOrRevise(tg)),
        Promise.all([launchedWithDraft, launchInBatches(desired, pid, rest, ctxFor, earlyGates)]).then(([withDraft, inBatches]) => {
          const launched = { ...withDraft, ...inBatches };
          return Promise.all(launchable.map((tg) => startOrRevise(tg, launched[tg.key])));
        }),
      ]);
    } else {
      await Promise.all(desired.targetGroups.map((tg) => startOrRevise(tg)));
    }

    // Wait until every target group has settled for this revision (or a newer revision arrives).
    const keys = desired.targetGroups.map((t) => t.key);
    await condition(
      () =>
        pending !== undefined ||
        keys.every((k) => {
          const s = status.targetGroups[k];
          return s !== undefined && (draftFailed.has(k) ? s.settledRevision === desired.revision : s.settledRevision === childRevisions[k]);
        }),
    );
    checkpoint();
    status.appliedRevision = desired.revision;
    const failed = keys.filter((k) => status.targetGroups[k]?.phase === 'failed');
    await setPhase(failed.length === 0 ? 'converged' : failed.length === keys.length ? 'failed' : 'partially_failed');
  }

  function setTgPhase(key: string, phase: TargetGroupPhase, patch: Partial<StudyStatus['targetGroups'][string]> = {}): void {
    const prior = status.targetGroups[key];
    status.targetGroups[key] = {
      ...(prior ?? { key, events: { received: 0, sessionsByStatus: {} } }),
      ...patch,
      key,
      phase,
      revision: current?.revision,
      targetGroupId: targetGroupIds[key] ?? prior?.targetGroupId,
      updatedAt: new Date().toISOString(),
    } as StudyStatus['targetGroups'][string];
    touch();
  }

  /** Creates drafts in batch activities side by side; a batch that fails as a whole leaves each of its drafts to be tried alone. */
  async function createDraftBatches(items: Array<{ key: string; input: DraftBatchItem }>): Promise<Map<string, DraftBatchResult>> {
    const results = new Map<string, DraftBatchResult>();
    await eachInBatches(
      items,
      (b) => b.key,
      'create drafts',
      (batch, summary) => apiActivities(summary, 'long').ensureDraftTargetGroups({ items: batch.map((b) => b.input) }),
      (b, result) => results.set(b.key, result),
    );
    return results;
  }

  /**
   * Reads the gates of `tgs` in batch activities side by side and judges them; returns the figures of
   * those the gate lets through, by key. One whose gate holds it or whose read failed is not in the
   * result.
   */
  async function readGates(desired: DesiredStudy, tgs: DesiredTargetGroup[], ctxFor: (resource: string) => ActivityCtx): Promise<Record<string, GateFigures>> {
    const passed: Record<string, GateFigures> = {};
    await eachInBatches(
      tgs,
      (tg) => tg.key,
      'feasibility and price',
      (batch, summary) =>
        apiActivities(summary, 'long').checkLaunchGatesBatch({
          items: batch.map((tg) => ({ ctx: ctxFor(`tg:${tg.key}`), businessUnitId: desired.businessUnitId, feasibility: feasibilityRequest(tg), priceQuery: priceQuery(tg) })),
        }),
      (tg, read) => {
        if (!read.ok) return;
        const feasibility = readFeasibility(read.feasibility, tg);
        const price = judgedCpi(read.prediction, feasibility);
        if (gateFailures(tg, feasibility, price).length === 0) passed[tg.key] = { feasibility, price };
      },
    );
    return passed;
  }

  /**
   * Launches those of `tgs` the gate lets through, in batch activities side by side, and returns what
   * it launched, by key. The gates come from `early` (read while the project and drafts were made) or
   * are read here. A target group it did not launch (its gate held it, its batch or item failed, its
   * launch job did not succeed in time) is not in the result: its own workflow then reads the gate and
   * launches it, with its own retries.
   */
  async function launchInBatches(
    desired: DesiredStudy,
    projectId: string,
    tgs: DesiredTargetGroup[],
    ctxFor: (resource: string) => ActivityCtx,
    early?: EarlyGates,
  ): Promise<Record<string, LaunchedByStudy>> {
    for (const tg of tgs) setTgPhase(tg.key, 'checking_feasibility');
    const unread = tgs.filter((tg) => !early?.keys.has(tg.key));
    const [readEarly, readNow] = await Promise.all([early?.read ?? {}, unread.length > 0 ? readGates(desired, unread, ctxFor) : {}]);
    const gates: Record<string, GateFigures> = { ...readEarly, ...readNow };
    const passed = tgs.filter((tg) => gates[tg.key] !== undefined);
    for (const tg of passed) setTgPhase(tg.key, 'launching', { ...gates[tg.key] });
    const launched: Record<string, LaunchedByStudy> = {};
    await eachInBatches(
      passed,
      (tg) => tg.key,
      'launch',
      (batch, summary) =>
        apiActivities(summary, 'long').launchAndAwaitBatch({
          items: batch.map((tg) => ({
            ctx: ctxFor(`tg:${tg.key}`),
            projectId,
            targetGroupId: targetGroupIds[tg.key],
            endFieldingAt: endFieldingAt(tg),
            idempotencyKey: `${workflowInfo().workflowId}/launch/${tg.key}/${targetGroupIds[tg.key]}`,
            wait: jobWaitOptions(tg.timing),
          })),
        }),
      (tg, result) => {
        if (!result.ok) return;
        if (result.jobId) studyWrites += 1;
        if (result.jobId && !(result.job?.done && result.job.status !== 'Failed')) return;
        launched[tg.key] = recordLive(desired, tg, gates[tg.key], result.job?.fieldingRunId ?? result.fieldingRunId ?? undefined);
      },
    );
    return launched;
  }

  /**
   * Waits, in batch activities side by side, for the launch jobs the draft batches started, and returns
   * the target groups that went live, by key. One whose launch failed, whose job failed or did not end
   * within the wait is not in the result: its own workflow takes it from there.
   */
  async function awaitDraftLaunches(
    desired: DesiredStudy,
    projectId: string,
    asked: Record<string, GateFigures>,
    outcomes: Record<string, DraftLaunchResult>,
    draftFailed: ReadonlySet<string>,
    ctxFor: (resource: string) => ActivityCtx,
  ): Promise<Record<string, LaunchedByStudy>> {
    const launched: Record<string, LaunchedByStudy> = {};
    const jobs: Array<{ tg: DesiredTargetGroup; jobId: string }> = [];
    for (const tg of desired.targetGroups) {
      const outcome = outcomes[tg.key];
      if (!outcome?.ok || draftFailed.has(tg.key)) continue;
      if (outcome.jobId) {
        studyWrites += 1;
        jobs.push({ tg, jobId: outcome.jobId });
        setTgPhase(tg.key, 'launching', { ...asked[tg.key] });
      } else {
        launched[tg.key] = recordLive(desired, tg, asked[tg.key], outcome.fieldingRunId ?? undefined);
      }
    }
    await eachInBatches(
      jobs,
      (job) => job.tg.key,
      'launch jobs',
      (batch, summary) =>
        apiActivities(summary, 'long').awaitJobsBatch({
          items: batch.map(({ tg, jobId }) => ({ ctx: ctxFor(`tg:${tg.key}`), projectId, targetGroupId: targetGroupIds[tg.key], kind: 'launch' as const, jobId, ...jobWaitOptions(tg.timing) })),
        }),
      ({ tg }, job) => {
        if (job.ok && job.done && job.status !== 'Failed') launched[tg.key] = recordLive(desired, tg, asked[tg.key], job.fieldingRunId);
      },
    );
    return launched;
  }

  /** Records a target group the study launched as live (now, in workflow time) and what its workflow takes over. */
  function recordLive(desired: DesiredStudy, tg: DesiredTargetGroup, gates: GateFigures, fieldingRunId: string | undefined): LaunchedByStudy {
    const liveAt = new Date().toISOString();
    setTgPhase(tg.key, 'live', { ...gates, fieldingRunId, liveAt, settledRevision: desired.revision, message: undefined });
    return { ...gates, fieldingRunId, launchedAt: liveAt };
  }

  async function setMembership(
    ctx: { accountId: string; apiVersion: DesiredStudy['apiVersion'] },
    desired: DesiredStudy,
    actions: PlannedAction[],
    failed: Set<string>,
  ): Promise<void> {
    for (const group of desired.exclusionGroups) {
      const groupId = exclusionGroupIds[group.name];
      if (!groupId) continue;
      const ids = (kind: string) =>
        actions
          .filter((a) => a.kind === kind && a.group === group.name && !failed.has(a.key) && targetGroupIds[a.key])
          .map((a) => targetGroupIds[a.key]);
      const add = ids('add_to_group');
      const remove = ids('remove_from_group');
      if (add.length) {
        await api.addTargetGroupsToExclusionGroup({ ctx, exclusionGroupId: groupId, targetGroupIds: add });
        studyWrites += 1;
      }
      if (remove.length) {
        await api.removeTargetGroupsFromExclusionGroup({ ctx, exclusionGroupId: groupId, targetGroupIds: remove });
        studyWrites += 1;
      }
    }
  }

  // Main loop.
  try {
    for (;;) {
      await condition(() => pending !== undefined || (workflowInfo().continueAsNewSuggested && allHandlersFinished()));
      if (pending) {
        const request = pending;
        pending = undefined;
        try {
          await applyRevision(request);
        } catch (error) {
          if (error instanceof Superseded) {
            log.info('revision superseded', { revision: request.desired.revision });
            continue;
          }
          if (isCancellation(error)) throw error;
          const failure = failureOf(error);
          status.error = `${failure.type}: ${failure.message}`;
          await setPhase('failed');
        } finally {
          applying = undefined;
        }
      }
      if (workflowInfo().continueAsNewSuggested && !pending) {
        await condition(allHandlersFinished);
        await continueAsNew<typeof studyWorkflow>({
          ...input,
          carried: { status, projectId, targetGroupIds, exclusionGroupIds, children: [...children], childRevisions, childSpecs, pending, reports },
        });
      }
    }
  } catch (error) {
    if (isCancellation(error)) {
      // Cancelling a study stops studyflow managing it (and its target-group workflows); nothing is deleted remotely.
      await CancellationScope.nonCancellable(async () => {
        for (const key of children) await getExternalWorkflowHandle(childId(key)).cancel().catch(() => undefined);
      });
    }
    throw error;
  }
}

/**
 * Runs one batch activity per BATCH_SIZE items (LEGACY_BATCH_SIZE in revisions before
 * BATCH_SIZE_PATCH; the patch is only asked when it makes a difference), the batches side by side,
 * and hands every item its result in order. When a batch fails as a whole (after its retries), or leaves an item out, those
 * items get a retryable failure: the caller treats them as any other item the batch could not do.
 */
async function eachInBatches<T, O>(
  items: readonly T[],
  keyOf: (item: T) => string,
  what: string,
  call: (batch: T[], summary: string) => Promise<{ results: Array<BatchItemResult<O>> }>,
  each: (item: T, result: BatchItemResult<O>) => void,
): Promise<void> {
  const size = items.length > LEGACY_BATCH_SIZE && patched(BATCH_SIZE_PATCH) ? BATCH_SIZE : LEGACY_BATCH_SIZE;
  await Promise.all(
    inBatches(items, size).map(async (batch) => {
      const keys = batch.map(keyOf);
      const summary = keys.length === 1 ? `${what} (${keys[0]})` : `${what} (${keys.length} target groups ${keys[0]} … ${keys[keys.length - 1]})`;
      let results: Array<BatchItemResult<O> | undefined>;
      let missing: BatchItemFailure = { ok: false, retryable: true, failure: { type: 'missing_result', message: 'the batch returned no result for this item' } };
      try {
        ({ results } = await call(batch, summary));
      } catch (error) {
        if (isCancellation(error)) throw error;
        results = [];
        missing = { ok: false, retryable: true, failure: failureOf(error) };
      }
      batch.forEach((item, i) => each(item, results[i] ?? missing));
    }),
  );
}
