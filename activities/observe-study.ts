// Reads what the API holds for a study (project, target groups, their lists and groups), for the planner.
// Only reads, each a plain operation of api/operations/; lists come back as {count, sha256}, never the IDs.
import type { DesiredStudy, ObservedList, ObservedStudy, ObservedTargetGroup } from '../plan/types';
import { getActivityExclusions } from '../api/operations/activity-exclusions';
import { listExclusionGroups, listExclusionGroupTargetGroups } from '../api/operations/exclusion-groups';
import { findProject } from '../api/operations/projects';
import { findTargetGroupState } from '../api/operations/target-groups';
import { listWebhooks } from '../api/operations/webhooks';
import { heartbeatProgress } from './activity-context';
import { activityCaller } from './api-call';
import type { ActivityDeps } from './activity-deps';
import { checkCtx } from './activity-input';
import { inParallel } from './concurrency';
import { remoteListDigest } from './id-list-exclusions';
import type { ActivityCtx } from './types';

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
  const pageSize = deps.listPageSize;
  return {
    /** What the API holds for the study's project, target groups (with lists and groups) and exclusion groups. */
    async observeStudy(input: ObserveStudyInput): Promise<ObservedStudy> {
      const ctx = checkCtx('observeStudy', input.ctx);
      const caller = activityCaller(deps, ctx);
      const { desired, known } = input;
      const observed: ObservedStudy = { targetGroups: {}, exclusionGroups: {} };

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
          heartbeatProgress({ observedTargetGroups: (observedCount += 1), of: desired.targetGroups.length });
          if (!remote) return;
          const target = { projectId: project.id, targetGroupId: remote.id };
          const lists: ObservedTargetGroup['idLists'] = {};
          for (const entityType of ['RSID', 'ACCESS_RESPONDENT_GUID'] as const) {
            if (!tg.idLists[entityType]) continue;
            lists[entityType] = await remoteListDigest(caller, { ...target, entityType, pageSize: deps.idListPageSize });
          }
          // Exclusion-group membership is read once per declared group below (its members), not per target group.
          // A draft's read carries its activity exclusions; TG/details does not, so a launched group's are read
          // on their own, and only when the study declares some.
          const exclusions = remote.fields.respondent_activity_exclusions;
          const activity: ObservedTargetGroup['activityExclusions'] = Array.isArray(exclusions)
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
          };
        });
        // The same key order however the reads interleaved.
        observed.targetGroups = Object.fromEntries(
          desired.targetGroups.filter((tg) => observed.targetGroups[tg.key]).map((tg) => [tg.key, observed.targetGroups[tg.key]]),
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
    },
  };
}
