import { fieldChanges, holdsDesired } from './compare';
import { guardText } from './guards';
import { softLaunchText } from './soft-launch';
import { exchangeSchedulesLaunch, heldDraftReason, launchTiming, removedTargetGroupActions } from './live-fielding';
import { planLiveTargetGroup } from './live-plan';
import { profilingHolds, withQuotaGoals } from './profiling';
import type {
  DesiredActivityItem,
  DesiredStudy,
  DesiredTargetGroup,
  IdListEntityType,
  ObservedList,
  ObservedStudy,
  ObservedTargetGroup,
  PlanNote,
  PlannedAction,
  StudyPlan,
} from './types';

const WRITE_KINDS = new Set(['create', 'update', 'upload', 'replace_list', 'add_to_group', 'remove_from_group', 'launch', 'pause', 'resume', 'complete', 'relaunch']);
const ENTITY_TYPES: IdListEntityType[] = ['RSID', 'ACCESS_RESPONDENT_GUID'];

/** The observed target group that a desired one maps to: by key, else by the key it moved from. */
export function observedFor(desired: DesiredTargetGroup, observed: ObservedStudy): { tg?: ObservedTargetGroup; via?: string } {
  const direct = observed.targetGroups[desired.key];
  if (direct) return { tg: direct, via: desired.key };
  if (desired.movedFrom && observed.targetGroups[desired.movedFrom]) {
    return { tg: observed.targetGroups[desired.movedFrom], via: desired.movedFrom };
  }
  return {};
}

/**
 * Resolves activity-exclusion items to the API's {type, id} form. A reference to a target group
 * of this study that does not exist yet resolves to undefined (it is created first).
 */
export function resolveActivityItems(
  items: DesiredActivityItem[],
  idOfTargetGroup: (key: string) => string | undefined,
  projectId: string | undefined,
): { items: Record<string, unknown>[]; unresolved: string[] } {
  const resolved: Record<string, unknown>[] = [];
  const unresolved: string[] = [];
  for (const item of items) {
    let id: string | undefined;
    const ref = item.ref;
    if ('key' in ref) id = idOfTargetGroup(ref.key);
    else if ('self' in ref) id = projectId;
    else id = ref.id;
    if (!id) {
      unresolved.push('key' in ref ? ref.key : 'this project');
      continue;
    }
    const out: Record<string, unknown> = { type: ref.type, id };
    if (item.respondent_statuses) out.respondent_statuses = item.respondent_statuses;
    if (item.duration) out.duration = item.duration;
    resolved.push(out);
  }
  return { items: resolved, unresolved };
}

function listAction(
  resource: 'id_list' | 'recontact_list',
  key: string,
  entityType: IdListEntityType | undefined,
  desired: { ref: string; sha256: string; count: number },
  observed: ObservedList | undefined,
  label: string,
): PlannedAction {
  if (observed && observed.sha256 === desired.sha256 && observed.count === desired.count) {
    return { kind: 'none', resource, key, entityType, reason: `${label} already holds the ${desired.count} IDs of the file` };
  }
  if (!observed || observed.count === 0) {
    return { kind: 'upload', resource, key, entityType, list: desired, reason: `upload ${desired.count} IDs to the ${label}` };
  }
  return {
    kind: 'replace_list',
    resource,
    key,
    entityType,
    list: desired,
    reason: `${label} holds ${observed.count} other IDs: remove all, then upload the file's ${desired.count}`,
  };
}

/** What a new draft's create call carries inline besides its fields. */
function inline(desired: DesiredTargetGroup): string {
  const parts = [desired.draft.profiling ? 'profiles' : '', desired.activityExclusions ? 'activity exclusions' : ''].filter(Boolean);
  return parts.length ? ` with its ${parts.join(' and ')} inline` : '';
}

/**
 * A launched target group's profiles. manage-profiles (the reference's operation for launched target groups)
 * replaces them when the observed state carries the target group's `profiling` and it differs. The spec
 * removes the target group's profile list in 2025-12-18 and the details answer carries none, so a launched
 * target group usually shows no `profiling`: then they are not compared, and the plan says so.
 */
function launchedProfilesAction(key: string, profiling: unknown, tg: ObservedTargetGroup): PlannedAction | undefined {
  const { fields, status } = tg;
  if (!('profiling' in fields)) {
    return profiling ? { kind: 'none', resource: 'profiles', key, reason: `not compared: the profiles of a ${status} target group cannot be read` } : undefined;
  }
  if (profilingHolds(profiling, fields.profiling)) return undefined;
  // Only quota goals differ: update_profile_filling_goal carries them (plan/live-plan.ts), not a replacement of the profiles.
  if (profiling && tg.fillingGoal?.quotas && profilingHolds(withQuotaGoals(profiling, tg.fillingGoal.quotas), fields.profiling)) return undefined;
  if (!profiling) return { kind: 'blocked', resource: 'profiles', key, reason: `the study declares no profiles; the ${status} target group keeps its own` };
  if (status === 'completed') return { kind: 'blocked', resource: 'profiles', key, reason: 'profiles differ but the target group is completed' };
  return { kind: 'update', resource: 'profiles', key, operation: 'manage_target_group_profiles', reason: `replace the profiles of the ${status} target group with manage-profiles` };
}

function planTargetGroup(desired: DesiredTargetGroup, study: DesiredStudy, observed: ObservedStudy, observedAtMs: number | undefined): PlannedAction[] {
  const actions: PlannedAction[] = [];
  const { tg, via } = observedFor(desired, observed);
  const key = desired.key;
  const idOf = (k: string) => observed.targetGroups[k]?.id;

  if (!tg) {
    actions.push({
      kind: 'create',
      resource: 'target_group',
      key,
      reason: `new draft target group${inline(desired)}`,
      // A field sent as null (no profiling) is not a change from nothing.
      changes: Object.entries(desired.draft).filter(([, to]) => to !== null).map(([field, to]) => ({ field, from: null, to })),
    });
    for (const entityType of ENTITY_TYPES) {
      const list = desired.idLists[entityType];
      if (list) actions.push(listAction('id_list', key, entityType, list, undefined, `${entityType} exclusion list`));
    }
    if (desired.recontact) actions.push(listAction('recontact_list', key, undefined, desired.recontact, undefined, 'recontact list'));
    for (const group of desired.exclusionGroups) {
      actions.push({ kind: 'add_to_group', resource: 'exclusion_group', key, group, reason: `join exclusion group ${group}` });
    }
    actions.push(launchAction(desired, undefined, observed, observedAtMs, study.apiVersion));
    return actions;
  }

  const moved = via !== key ? ` (renamed from ${via}; updated in place)` : '';
  const isDraft = tg.status === 'draft';
  // A draft's profiles are a field of the draft (`profiling`); a launched target group's are compared below.
  const { profiling, ...draftFields } = desired.draft;
  // A launched target group changes in place, field by field, through the operations of plan/live-changes.ts.
  const live = isDraft ? undefined : planLiveTargetGroup({ desired, tg, draftFields, moved, observedAtMs });
  if (isDraft) {
    const changes = fieldChanges(draftFields, tg.fields, tg.fieldsRead);
    // (`null`: the study declares none, so profiles the draft still holds are removed.)
    if (profiling !== undefined && !profilingHolds(profiling, tg.fields.profiling)) changes.push({ field: 'profiling', from: tg.fields.profiling ?? null, to: profiling });
    actions.push(
      changes.length === 0
        ? { kind: 'none', resource: 'target_group', key, reason: `draft fields match${moved}` }
        : { kind: 'update', resource: 'target_group', key, changes, reason: `update ${changes.map((c) => c.field).join(', ')}${moved}` },
    );
  } else if (live) {
    actions.push(...live.changes);
  }

  // What the API sets itself and the study file states: reported where they differ (studyflow cannot write them).
  const unmet = Object.entries(desired.expected ?? {}).filter(([field, value]) => tg.fields[field] !== undefined && tg.fields[field] !== value);
  if (unmet.length) {
    actions.push({
      kind: 'blocked',
      resource: 'target_group',
      key,
      changes: unmet.map(([field, value]) => ({ field, from: tg.fields[field], to: value })),
      reason: `${unmet.map(([field, value]) => `${field} is ${JSON.stringify(tg.fields[field])} in the API, ${JSON.stringify(value)} in the study file`).join('; ')}: the API sets it (a target group's pricing model comes from its business unit), so studyflow cannot change it`,
    });
  }

  if (desired.activityExclusions) {
    const { items, unresolved } = resolveActivityItems(desired.activityExclusions.items, idOf, observed.project?.id);
    const want = { duration: desired.activityExclusions.duration, items };
    const have = tg.activityExclusions ?? { items: [] };
    if (unresolved.length > 0 || !holdsDesired(want.items, have.items) || (want.duration && want.duration !== have.duration)) {
      const count = `${desired.activityExclusions.items.length} item(s)`;
      actions.push(
        isDraft
          ? { kind: 'update', resource: 'activity_exclusions', key, reason: `replace activity exclusions (${count})` }
          : tg.status === 'completed'
            ? { kind: 'blocked', resource: 'activity_exclusions', key, reason: `activity exclusions differ but the target group is completed` }
            : {
                kind: 'update',
                resource: 'live_target_group',
                key,
                operation: 'set_target_group_respondent_activity_exclusions',
                reason: `in place via set_target_group_respondent_activity_exclusions: replace activity exclusions (${count}); they apply to respondents who enter from now on`,
              },
      );
    }
  }

  if (!isDraft) {
    const action = launchedProfilesAction(key, profiling, tg);
    if (action) actions.push(action);
  }

  for (const entityType of ENTITY_TYPES) {
    const list = desired.idLists[entityType];
    if (list) actions.push(listAction('id_list', key, entityType, list, tg.idLists[entityType], `${entityType} exclusion list`));
  }
  if (desired.recontact) actions.push(listAction('recontact_list', key, undefined, desired.recontact, tg.recontact, 'recontact list'));

  for (const group of desired.exclusionGroups) {
    const remote = observed.exclusionGroups[group];
    if (!remote || !remote.targetGroupIds.includes(tg.id)) {
      actions.push({ kind: 'add_to_group', resource: 'exclusion_group', key, group, reason: `join exclusion group ${group}` });
    }
  }
  for (const [group, remote] of Object.entries(observed.exclusionGroups)) {
    const declared = study.exclusionGroups.some((g) => g.name === group);
    if (declared && remote.targetGroupIds.includes(tg.id) && !desired.exclusionGroups.includes(group)) {
      actions.push({ kind: 'remove_from_group', resource: 'exclusion_group', key, group, reason: `leave exclusion group ${group}` });
    }
  }

  if (isDraft) actions.push(launchAction(desired, tg, observed, observedAtMs, study.apiVersion));
  else if (live) actions.push(...live.fielding);
  return actions;
}

function launchAction(desired: DesiredTargetGroup, tg: ObservedTargetGroup | undefined, observed: ObservedStudy, observedAtMs: number | undefined, apiVersion: string): PlannedAction {
  const key = desired.key;
  if (tg && tg.status !== 'draft') {
    return { kind: 'none', resource: 'fielding', key, reason: `already ${tg.status}` };
  }
  const held = heldDraftReason(desired);
  if (held) return { kind: 'none', resource: 'fielding', key, reason: held };
  const gates = [
    desired.launch.requireFeasible ? 'feasible' : undefined,
    desired.launch.maxCpi ? `price <= ${desired.launch.maxCpi.value} ${desired.launch.maxCpi.currency_code}` : undefined,
  ].filter(Boolean);
  const when = desired.launch.mode === 'manual' ? 'after approval' : 'automatically';
  const { text, ...timing } = launchTiming(desired, (k) => observed.targetGroups[k]?.completes, observedAtMs, exchangeSchedulesLaunch(apiVersion));
  return {
    kind: 'launch',
    resource: 'fielding',
    key,
    ...timing,
    ...(desired.softLaunch ? { softLaunch: desired.softLaunch } : {}),
    reason: `launch ${when}${gates.length ? ` once the gate passes (${gates.join(', ')})` : ''}${text ? `; ${text}` : ''}${desired.softLaunch ? `; ${softLaunchText(desired.softLaunch)}` : ''}`,
  };
}

/** Observed target groups the study manages and the file no longer declares (neither by key nor as a moved_from). */
function removedKeys(desired: DesiredStudy, observed: ObservedStudy): string[] {
  const declared = new Set(desired.targetGroups.flatMap((tg) => [tg.key, ...(tg.movedFrom && !observed.targetGroups[tg.key] ? [tg.movedFrom] : [])]));
  return Object.keys(observed.targetGroups)
    .filter((key) => !declared.has(key))
    .sort();
}

/** Desired study + observed remote state -> ordered actions, each with its reason. Pure and deterministic. */
export function planStudy(desired: DesiredStudy, observed: ObservedStudy): StudyPlan {
  const actions: PlannedAction[] = [];
  if (!observed.project) {
    actions.push({
      kind: 'create',
      resource: 'project',
      key: desired.studyId,
      reason: 'new project',
      changes: Object.entries(desired.project).map(([field, to]) => ({ field, from: null, to })),
    });
  } else {
    const changes = fieldChanges(desired.project, observed.project.fields);
    actions.push(
      changes.length
        ? { kind: 'update', resource: 'project', key: desired.studyId, changes, reason: `update ${changes.map((c) => c.field).join(', ')}` }
        : { kind: 'none', resource: 'project', key: desired.studyId, reason: 'project fields match' },
    );
  }
  for (const group of desired.exclusionGroups) {
    if (!observed.exclusionGroups[group.name]) {
      actions.push({ kind: 'create', resource: 'exclusion_group', key: group.name, reason: `new exclusion group "${group.title}"` });
    }
  }
  const observedAtMs = observed.observedAt ? Date.parse(observed.observedAt) : undefined;
  for (const tg of desired.targetGroups) actions.push(...planTargetGroup(tg, desired, observed, observedAtMs));
  const notes: PlanNote[] = [];
  for (const key of removedKeys(desired, observed)) {
    const removed = removedTargetGroupActions(key, observed.targetGroups[key], desired.removedTargetGroups);
    actions.push(...removed.actions);
    notes.push(...removed.notes);
  }
  for (const hook of desired.webhooks) {
    const remote = observed.webhooks?.[hook.url];
    const events = [...hook.events].sort();
    if (!remote) {
      actions.push({ kind: 'create', resource: 'webhook', key: hook.url, reason: `new webhook for ${events.join(', ')}${hook.compression ? ' (gzip)' : ''}` });
      continue;
    }
    const changes = fieldChanges({ events, compression: hook.compression }, { events: [...remote.events].sort(), compression: remote.compression ?? null });
    actions.push(
      changes.length
        ? { kind: 'update', resource: 'webhook', key: hook.url, changes, reason: `update ${changes.map((c) => c.field).join(', ')} (compression is always sent)` }
        : { kind: 'none', resource: 'webhook', key: hook.url, reason: 'webhook matches' },
    );
  }
  const guards = desired.targetGroups.filter((tg) => tg.guards?.length).map((tg) => ({ key: tg.key, guards: (tg.guards ?? []).map(guardText) }));
  return {
    studyId: desired.studyId,
    revision: desired.revision,
    actions,
    hasChanges: actions.some((a) => WRITE_KINDS.has(a.kind)),
    ...(notes.length ? { notes } : {}),
    ...(guards.length ? { guards } : {}),
  };
}

/** Whether an action writes to the API. */
export function isWrite(action: PlannedAction): boolean {
  return WRITE_KINDS.has(action.kind);
}
