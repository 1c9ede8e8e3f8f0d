// What the API holds for a study (project, target groups with their lists, exclusion groups, webhooks), in the
// planner's terms (plan/types.ts ObservedStudy, which these types fit): the one observe mapping, which the
// observeStudy activity (activities/observe-study.ts) and `studyflow plan` (client/plan-api.ts) both run over their
// own caller. Only reads; ID lists come back as {count, sha256} (the digest the caller passes in: the blob store's
// canonical form), never the IDs.
import type { IdListEntityType } from '../../shared/id-list';
import type { Money } from '../../shared/money';
import type { ApiCaller } from './caller';
import { inParallel } from './concurrency';
import { getActivityExclusions } from './activity-exclusions';
import { listExclusionGroups, listExclusionGroupTargetGroups } from './exclusion-groups';
import { excludedIdsDigest } from './id-lists';
import { readLiveTargetGroup, type FieldingRunState, type LiveTargetGroup } from './live-target-groups';
import { findProject } from './projects';
import { findTargetGroupState } from './target-groups';
import { listWebhooks } from './webhooks';

/** The study as observing reads it: its natural keys and what it declares (plan/types.ts DesiredStudy fits). */
export interface ObserveStudyRequest {
  project: { project_customer_reference_number: string };
  targetGroups: readonly {
    key: string;
    movedFrom?: string;
    draft: Record<string, unknown>;
    idLists: Partial<Record<IdListEntityType, unknown>>;
    activityExclusions?: unknown;
  }[];
  exclusionGroups: readonly { name: string; title: string }[];
  webhooks: readonly { url: string }[];
}

/** IDs the study workflow remembers; natural keys (customer reference numbers, names) are the fallback. */
export interface KnownStudyIds {
  projectId?: string;
  targetGroupIds: Record<string, string>;
  exclusionGroupIds: Record<string, string>;
  /** Recontact lists uploaded earlier, by target-group key (the API cannot list them back). */
  recontactLists?: Record<string, ListDigest>;
}

export interface ListDigest {
  count: number;
  sha256: string;
}

export interface ObserveOptions {
  /** The count and digest of a remote list's unique IDs, in the blob store's canonical form (blobs/id-list-digest.ts listDigest). */
  digest: (uniqueIds: string[]) => ListDigest;
  /** Page size of resource lists (default the operations'). */
  pageSize?: number;
  /** Page size of excluded-ID lists (default the operation's). */
  idListPageSize?: number;
}

/** The live state of a launched target group, in the planner's terms (plan/types.ts ObservedTargetGroup's live part). */
export interface ObservedLive {
  fieldingRun?: { id: string; status: FieldingRunState['status']; startFieldingAt?: string; endFieldingAt?: string; etag?: string };
  fillingGoal: { completesGoal: number; quotas: { profileId: string; profileName: string; quotaId: string; quotaName: string; completesGoal: number }[] };
  details: {
    name: string;
    project_manager_id: string;
    expected_length_of_interview_minutes: number;
    expected_incidence_rate: number;
    live_url: string | null;
    test_url: string | null;
    target_group_customer_reference_number: string | null;
    client_cost_per_interview_note: Money | null;
    industry_lockout_code: string | null;
  };
  costPerInterview: Money;
  allocations: Record<string, unknown>;
  fieldingAssistant: { assignment: Record<string, unknown>; etag?: string };
  completes: number;
}

/** One target group as observed (plan/types.ts ObservedTargetGroup). */
export interface ObservedTargetGroupRead extends Partial<ObservedLive> {
  id: string;
  status: string;
  fields: Record<string, unknown>;
  fieldsRead?: string[];
  activityExclusions?: { duration?: string; items: unknown[] };
  idLists: Partial<Record<IdListEntityType, ListDigest>>;
  recontact?: ListDigest;
  fieldingRunId?: string | null;
}

/** The study as observed (plan/types.ts ObservedStudy). */
export interface ObservedStudyRead {
  project?: { id: string; fields: Record<string, unknown> };
  targetGroups: Record<string, ObservedTargetGroupRead>;
  exclusionGroups: Record<string, { id: string; targetGroupIds: string[] }>;
  webhooks?: Record<string, { id: string; events: string[]; compression: 'gzip' | null }>;
}

/** Target groups read at the same time while observing a study. */
const OBSERVE_CONCURRENCY = 8;

/** The file's names of the allocation specification read back (SupplierIds under `suppliers`, as study files write them). */
function allocationsInFileNames(spec: LiveTargetGroup['allocations']): Record<string, unknown> {
  const open = spec.open_exchange_allocations;
  const priv = spec.private_exchange_allocations;
  return {
    open_exchange_allocations: {
      exchange_min_percentage: open.exchange_min_percentage,
      exchange_max_percentage: open.exchange_max_percentage,
      blocked_supplier_ids: open.blocked_supplier_ids,
      groups: open.groups.map((g) => ({ group_name: g.group_name, min_percentage: g.min_percentage, max_percentage: g.max_percentage, suppliers: g.supplier_ids })),
    },
    private_exchange_allocations: {
      blocked_supplier_ids: priv.blocked_supplier_ids,
      groups: priv.groups.map((g) => ({ group_name: g.group_name, min_percentage: g.min_percentage, max_percentage: g.max_percentage, supplier_id: g.supplier_id })),
    },
  };
}

/**
 * The live state of a launched target group (readLiveTargetGroup: details, overview, the run and its ETag, the
 * goals, allocations and fielding assistant: 7 calls) in the planner's terms. Undefined when it is a draft after all.
 * Quota goals are read with their profile's and quota's names, which is how the file names them.
 */
export async function observeLive(caller: ApiCaller, target: { projectId: string; targetGroupId: string }): Promise<ObservedLive | undefined> {
  const live = await readLiveTargetGroup(caller, target);
  if (!live) return undefined;
  const { details: d, fieldingRun: run } = live;
  return {
    ...(run ? { fieldingRun: { id: run.id, status: run.status, ...(run.startFieldingAt ? { startFieldingAt: run.startFieldingAt } : {}), ...(run.endFieldingAt ? { endFieldingAt: run.endFieldingAt } : {}), etag: run.etag } } : {}),
    fillingGoal: {
      completesGoal: live.completesGoal,
      quotas: live.quotaGoals.flatMap((q) =>
        q.profileName && q.quotaName ? [{ profileId: q.profileId, profileName: q.profileName, quotaId: q.targetId, quotaName: q.quotaName, completesGoal: q.completesGoal }] : [],
      ),
    },
    details: {
      name: d.name,
      project_manager_id: d.projectManagerId,
      expected_length_of_interview_minutes: d.lengthOfInterviewMinutes,
      expected_incidence_rate: d.incidenceRate,
      live_url: d.liveUrl || null,
      test_url: d.testUrl || null,
      target_group_customer_reference_number: d.customerReferenceNumber,
      client_cost_per_interview_note: d.cpiNote ? { value: d.cpiNote.value, currency_code: d.cpiNote.currency_code } : null,
      industry_lockout_code: d.industryLockoutCode,
    },
    costPerInterview: { value: live.costPerInterview.value, currency_code: live.costPerInterview.currency_code },
    allocations: allocationsInFileNames(live.allocations),
    fieldingAssistant: { assignment: live.fieldingAssistant.modules as Record<string, unknown>, etag: live.fieldingAssistant.etag },
    completes: live.currentCompletes,
  };
}

/**
 * What the API holds for the study's project, target groups (with lists and groups), exclusion groups and
 * webhooks. Progress (target groups read so far) goes to `caller.progress` (an activity heartbeats it).
 */
export async function observeStudy(caller: ApiCaller, input: { desired: ObserveStudyRequest; known: KnownStudyIds }, options: ObserveOptions): Promise<ObservedStudyRead> {
  const { desired, known } = input;
  const { pageSize } = options;
  const observed: ObservedStudyRead = { targetGroups: {}, exclusionGroups: {} };

  const project = await findProject(caller, { knownId: known.projectId, reference: desired.project.project_customer_reference_number, pageSize });
  if (project) observed.project = { id: project.id, fields: project };

  if (project) {
    let observedCount = 0;
    // Target groups are read side by side, a few at a time (the request pacer keeps to the API's rate).
    await inParallel(desired.targetGroups, OBSERVE_CONCURRENCY, async (tg) => {
      const reference = String(tg.draft.target_group_customer_reference_number ?? '');
      // `<study>_<key>` (plan/desired.ts targetGroupReference): the same study with the key it had before.
      const movedReference = tg.movedFrom && reference.endsWith(`_${tg.key}`) ? `${reference.slice(0, -tg.key.length)}${tg.movedFrom}` : undefined;
      const knownId = known.targetGroupIds[tg.key] ?? (tg.movedFrom ? known.targetGroupIds[tg.movedFrom] : undefined);
      const references = [reference, movedReference].filter((r): r is string => Boolean(r));
      const remote = await findTargetGroupState(caller, { projectId: project.id, knownId, references, pageSize });
      caller.progress?.({ observedTargetGroups: (observedCount += 1), of: desired.targetGroups.length });
      if (!remote) return;
      const target = { projectId: project.id, targetGroupId: remote.id };
      const lists: ObservedTargetGroupRead['idLists'] = {};
      for (const entityType of ['RSID', 'ACCESS_RESPONDENT_GUID'] as const) {
        if (!tg.idLists[entityType]) continue;
        lists[entityType] = await excludedIdsDigest(caller, { ...target, entityType, pageSize: options.idListPageSize }, options.digest);
      }
      // Exclusion-group membership is read once per declared group below (its members), not per target group.
      // A draft's read carries its activity exclusions; TG/details does not, so a launched group's are read
      // on their own, and only when the study declares some.
      const exclusions = remote.fields.respondent_activity_exclusions;
      const activity: ObservedTargetGroupRead['activityExclusions'] = Array.isArray(exclusions)
        ? { items: exclusions }
        : remote.status !== 'draft' && tg.activityExclusions
          ? await getActivityExclusions(caller, target)
          : undefined;
      observed.targetGroups[tg.key] = {
        id: remote.id,
        status: remote.status,
        fields: remote.fields,
        fieldsRead: remote.fieldsRead,
        activityExclusions: activity,
        idLists: lists,
        recontact: known.recontactLists?.[tg.key],
        fieldingRunId: remote.fieldingRunId,
        // A launched group's live state, which its in-place changes are planned from (not a draft's: none).
        ...(remote.status === 'draft' ? {} : await observeLive(caller, target)),
      };
    });
    // Target groups the study manages (it remembers their ids) that the file no longer declares: their
    // status and run, so the plan names them and removed_target_groups can complete them.
    const declared = new Set(desired.targetGroups.flatMap((tg) => [tg.key, ...(tg.movedFrom ? [tg.movedFrom] : [])]));
    const removed = Object.keys(known.targetGroupIds).filter((key) => !declared.has(key)).sort();
    await inParallel(removed, OBSERVE_CONCURRENCY, async (key) => {
      const remote = await findTargetGroupState(caller, { projectId: project.id, knownId: known.targetGroupIds[key], references: [], pageSize });
      if (remote) observed.targetGroups[key] = { id: remote.id, status: remote.status, fields: remote.fields, fieldsRead: remote.fieldsRead, idLists: {}, fieldingRunId: remote.fieldingRunId };
    });
    // The same key order however the reads interleaved.
    observed.targetGroups = Object.fromEntries(
      [...desired.targetGroups.map((tg) => tg.key), ...removed].filter((key) => observed.targetGroups[key]).map((key) => [key, observed.targetGroups[key]]),
    );
  }

  if (desired.exclusionGroups.length) {
    const all = await listExclusionGroups(caller, pageSize);
    for (const group of desired.exclusionGroups) {
      const knownId = known.exclusionGroupIds[group.name];
      const match = all.find((g) => g.id === knownId) ?? all.find((g) => g.name === group.title);
      if (!match) continue;
      const members = await listExclusionGroupTargetGroups(caller, match.id, pageSize);
      observed.exclusionGroups[group.name] = { id: match.id, targetGroupIds: members };
    }
  }
  if (desired.webhooks.length) {
    const declared = new Set(desired.webhooks.map((w) => w.url));
    observed.webhooks = {};
    for (const hook of await listWebhooks(caller, pageSize)) {
      if (typeof hook.url !== 'string' || !declared.has(hook.url)) continue;
      observed.webhooks[hook.url] = {
        id: hook.id,
        events: Array.isArray(hook.events) ? hook.events.map(String) : [],
        compression: hook.compression === 'gzip' ? 'gzip' : null,
      };
    }
  }
  return observed;
}
