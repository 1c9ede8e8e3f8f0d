// Reads what the API holds for a study (project, target groups, their lists and groups), for the planner.
// Only reads; lists come back as {count, sha256}, never the IDs.
import type { DesiredStudy, ObservedList, ObservedStudy, ObservedTargetGroup } from '../plan/types';
import { heartbeatProgress } from './activity-context';
import { projectPath, readResourceOrMissing } from './api-call';
import { activityExclusionActivities } from './activity-exclusions';
import { ambiguousNaturalKeyFailure } from '../api/http/errors';
import { findProjectsByReference } from './projects';
import type { ActivityDeps } from './activity-deps';
import { checkCtx } from './activity-input';
import { inParallel } from './concurrency';
import { exclusionGroupActivities } from './exclusion-groups';
import { idListExclusionActivities } from './id-list-exclusions';
import { targetGroupStateReader, type TargetGroupState } from './target-group-state';
import { targetGroupActivities } from './target-groups';
import { webhookActivities } from './webhooks';
import type { ActivityCtx, ApiObject } from './types';

export interface ObserveStudyInput {
  ctx: ActivityCtx;
  desired: DesiredStudy;
  /** IDs the study workflow remembers; natural keys (customer reference numbers, names) are the fallback. */
  known: {
    projectId?: string;
    targetGroupIds: Record<string, string>;
    exclusionGroupIds: Record<string, string>;
    /** Recontact lists uploaded earlier, by target-group key (the API cannot list them back). */
    recontactLists?: Record<string, ObservedList>;
  };
}

/** Target groups read at the same time while observing a study. */
const OBSERVE_CONCURRENCY = 8;

export function observeStudyActivities(deps: ActivityDeps) {
  const targetGroups = targetGroupActivities(deps);
  const idLists = idListExclusionActivities(deps);
  const groups = exclusionGroupActivities(deps);
  const webhooks = webhookActivities(deps);
  const activityExclusions = activityExclusionActivities(deps);
  const { readTargetGroupState } = targetGroupStateReader(deps);

  async function findProject(input: ObserveStudyInput): Promise<ApiObject | undefined> {
    const { ctx, known, desired } = input;
    if (known.projectId) {
      const byId = await readResourceOrMissing(deps.api, ctx, projectPath(ctx, known.projectId));
      if (byId) return byId;
    }
    const found = await findProjectsByReference(deps, ctx, desired.project.project_customer_reference_number);
    if (found.length > 1) throw ambiguousNaturalKeyFailure(`project with project_customer_reference_number ${desired.project.project_customer_reference_number}`, found.map((p) => p.id));
    return found[0] ? await readResourceOrMissing(deps.api, ctx, projectPath(ctx, found[0].id)) : undefined;
  }

  /** The planner compares fields and needs the status and the run: a draft is one read, a launched group four. */
  const readState = (ctx: ActivityCtx, projectId: string, id: string) => readTargetGroupState(ctx, projectId, id, ['status', 'fieldingRun', 'fields'], { missingOk: true });

  async function findTargetGroup(ctx: ActivityCtx, projectId: string, known: string | undefined, references: string[]): Promise<TargetGroupState | undefined> {
    if (known) {
      const byId = await readState(ctx, projectId, known);
      if (byId) return byId;
    }
    for (const reference of references) {
      const { targetGroups: found } = await targetGroups.listTargetGroups({ ctx, projectId, targetGroupCustomerReferenceNumber: reference });
      const match = found.find((t) => t.target_group_customer_reference_number === reference);
      if (match) return await readState(ctx, projectId, match.id);
    }
    return undefined;
  }

  return {
    /** What the API holds for the study's project, target groups (with lists and groups) and exclusion groups. */
    async observeStudy(input: ObserveStudyInput): Promise<ObservedStudy> {
      const ctx = checkCtx('observeStudy', input.ctx);
      const { desired, known } = input;
      const observed: ObservedStudy = { targetGroups: {}, exclusionGroups: {} };

      const project = await findProject(input);
      if (project) observed.project = { id: project.id, fields: project };

      if (project) {
        let observedCount = 0;
        // Target groups are read side by side, a few at a time (the request pacer keeps to the API's rate).
        await inParallel(desired.targetGroups, OBSERVE_CONCURRENCY, async (tg) => {
          const reference = String(tg.draft.target_group_customer_reference_number ?? '');
          // `<study>_<key>` (plan/desired.ts targetGroupReference): the same study with the key it had before.
          const movedReference = tg.movedFrom && reference.endsWith(`_${tg.key}`) ? `${reference.slice(0, -tg.key.length)}${tg.movedFrom}` : undefined;
          const knownId = known.targetGroupIds[tg.key] ?? (tg.movedFrom ? known.targetGroupIds[tg.movedFrom] : undefined);
          const remote = await findTargetGroup(ctx, project.id, knownId, [reference, movedReference].filter((r): r is string => Boolean(r)));
          heartbeatProgress({ observedTargetGroups: (observedCount += 1), of: desired.targetGroups.length });
          if (!remote) return;
          const lists: ObservedTargetGroup['idLists'] = {};
          for (const entityType of ['RSID', 'ACCESS_RESPONDENT_GUID'] as const) {
            if (!tg.idLists[entityType]) continue;
            lists[entityType] = await idLists.listExcludedIds({ ctx, projectId: project.id, targetGroupId: remote.id, entityType });
          }
          // Exclusion-group membership is read once per declared group below (its members), not per target group.
          // A draft's read carries its activity exclusions; TG/details does not, so a launched group's are read
          // on their own, and only when the study declares some.
          const exclusions = remote.fields.respondent_activity_exclusions;
          const activity: ObservedTargetGroup['activityExclusions'] = Array.isArray(exclusions)
            ? { items: exclusions }
            : remote.status !== 'draft' && tg.activityExclusions
              ? await activityExclusions.getActivityExclusions({ ctx, projectId: project.id, targetGroupId: remote.id })
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
          };
        });
        // The same key order however the reads interleaved.
        observed.targetGroups = Object.fromEntries(
          desired.targetGroups.filter((tg) => observed.targetGroups[tg.key]).map((tg) => [tg.key, observed.targetGroups[tg.key]]),
        );
      }

      if (desired.exclusionGroups.length) {
        const all = (await groups.listExclusionGroups({ ctx })).exclusionGroups;
        for (const group of desired.exclusionGroups) {
          const knownId = known.exclusionGroupIds[group.name];
          const match = all.find((g) => g.id === knownId) ?? all.find((g) => g.name === group.title);
          if (!match) continue;
          const members = (await groups.listExclusionGroupTargetGroups({ ctx, exclusionGroupId: match.id })).targetGroupIds;
          observed.exclusionGroups[group.name] = { id: match.id, targetGroupIds: members };
        }
      }
      if (desired.webhooks.length) {
        const declared = new Set(desired.webhooks.map((w) => w.url));
        observed.webhooks = {};
        for (const hook of (await webhooks.listWebhooks({ ctx })).webhooks) {
          if (typeof hook.url !== 'string' || !declared.has(hook.url)) continue;
          observed.webhooks[hook.url] = {
            id: hook.id,
            events: Array.isArray(hook.events) ? hook.events.map(String) : [],
            compression: hook.compression === 'gzip' ? 'gzip' : null,
          };
        }
      }
      return observed;
    },
  };
}
