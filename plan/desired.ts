import { createHash } from 'node:crypto';
import type { Study, TargetGroupSpec } from '../definitions';
import { canonicalJson } from './compare';
import { DEFAULT_FIELDING_DAYS } from './launch-gates';
import { profilingOf } from './profiling';
import { guardDurationMs } from '../definitions/periods';
import { DEFAULT_GUARD_MIN_ENTRANTS, DEFAULT_QUOTA_MIN_COMPLETES } from '../definitions/study-schema';
import { percentValue } from '../definitions/rules/guard-rules';
import { softLaunchCompletes, softLaunchMinCompletes } from '../definitions/rules/soft-launch-rules';
import type { DesiredSoftLaunch } from './soft-launch-types';
import type { NotifyEventKind, NotifyTarget } from '../shared/notify-events';
import type { DesiredActivityItem, DesiredGuard, DesiredStudy, DesiredTargetGroup, IdListEntityType, ListRef, Timing } from './types';
import { deadlineWarningMs, toleranceInCompletes } from '../definitions/closeout-files';
import type { DesiredApprovedCompletes, DesiredCloseout, ReversalsRef } from './closeout-types';

/** The ID lists of a study, already in the blob store, by target-group key. */
export type StudyListRefs = Record<string, { RSID?: ListRef; ACCESS_RESPONDENT_GUID?: ListRef; recontact?: ListRef }>;

/** The close-out's files, already in the blob store: the normalized reversals list and the approved-completes list. */
export interface CloseoutListRefs {
  reversals?: ReversalsRef;
  approvedCompletes?: DesiredApprovedCompletes['list'];
}

export const DEFAULT_WATCH_INTERVAL_MS = 5 * 60_000;

const UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "500ms", "1s", "30m", "2h" -> milliseconds (the study format's timing durations). */
export function durationMs(text: string): number {
  const match = /^(\d+)(ms|s|m|h)$/.exec(text);
  if (!match) throw new Error(`not a duration: ${text}`);
  return Number(match[1]) * UNITS_MS[match[2]];
}

/**
 * The allocations template a recontact target group must use. The spec names it only as
 * `<template_id>` ("the recontact global allocations template"); `recontact-global` is the id
 * docs/sandbox.md pins.
 */
export const RECONTACT_ALLOCATIONS_TEMPLATE_ID = 'recontact-global';

/**
 * The natural key studyflow gives a target group in the API, so a lost response never makes a duplicate:
 * `<study>_<key>`. It fits the reference's TargetGroupCustomerReferenceNumber (`^[a-zA-Z0-9\-_ ]*$`,
 * 3 to 128 characters): a study id has no `_`, so the first `_` separates it from the key.
 */
export function targetGroupReference(studyId: string, key: string): string {
  return `${studyId}_${key}`;
}

/**
 * A target group's name when the study gives none: `<study> <key>`, which always has the 5 to 128
 * characters the reference's TargetGroupName needs (a study id has at least 3, a key at least 1).
 */
export function defaultTargetGroupName(studyId: string, key: string): string {
  return `${studyId} ${key}`.slice(0, 128);
}

function timingOf(tg: TargetGroupSpec, watchIntervalMs: number): Timing {
  return {
    jobPollInitialMs: durationMs(tg.timing.job_poll_initial),
    jobPollMaxMs: durationMs(tg.timing.job_poll_max),
    jobTimeoutMs: durationMs(tg.timing.job_timeout),
    launchRetries: Math.max(1, tg.timing.launch_retries),
    watchIntervalMs,
  };
}

/**
 * The activity-exclusion items in the API's terms. The request-level `duration` is folded into every
 * item without its own: the draft body that carries the items inline has no request-level duration
 * field, and item-level-then-request-level precedence gives each item the same window either way.
 */
function activityItems(tg: TargetGroupSpec): DesiredActivityItem[] {
  const requestDuration = tg.exclusions.activity?.duration;
  return (tg.exclusions.activity?.items ?? []).map((item) => {
    const ref: DesiredActivityItem['ref'] = item.target_group
      ? { type: 'target_group', key: item.target_group }
      : item.target_group_id
        ? { type: 'target_group', id: item.target_group_id }
        : item.project === 'self'
          ? { type: 'project', self: true }
          : { type: 'project', id: item.project as string };
    return { ref, respondent_statuses: item.respondent_statuses, duration: item.duration ?? requestDuration };
  });
}

/**
 * When fielding ends: the study's `end_fielding_at`; with only `start_fielding_at`, the default fielding days
 * after it; with neither, undefined (the workflow takes its default from the time of the launch).
 */
function fieldingEndOf(tg: TargetGroupSpec): string | undefined {
  if (tg.end_fielding_at) return tg.end_fielding_at;
  return tg.start_fielding_at ? new Date(Date.parse(tg.start_fielding_at) + DEFAULT_FIELDING_DAYS * 86_400_000).toISOString() : undefined;
}

/**
 * Draft body in the API's 2025-12-18 names; undefined fields are left out. The study's business unit goes
 * on every draft as `business_unit_id`; the fielding window as `fielding_specification {start_at, end_at}`
 * from the study's start_fielding_at (without one, the workflow starts it when it writes the draft; end_fielding_at
 * also goes with the launch). A recontact study carries the recontact allocations template. The profiles travel
 * in the draft's own `profiling` (reference: ProfilingRequest), so a draft with profiles is one create call.
 */
function draftOf(studyId: string, businessUnitId: string, key: string, tg: TargetGroupSpec, apiVersion: string): Record<string, unknown> {
  const draft: Record<string, unknown> = {
    name: tg.name ?? defaultTargetGroupName(studyId, key),
    business_unit_id: businessUnitId,
    fielding_specification: tg.start_fielding_at ? { start_at: tg.start_fielding_at, end_at: fieldingEndOf(tg) } : undefined,
    locale: tg.locale,
    live_url: tg.live_url,
    test_url: tg.test_url,
    expected_incidence_rate: tg.expected_incidence_rate,
    expected_length_of_interview_minutes: tg.expected_length_of_interview_minutes,
    filling_goal: tg.filling_goal,
    project_manager_id: tg.project_manager_id,
    collects_pii: tg.collects_pii,
    study_type_code: tg.study_type,
    client_cost_per_interview_note: tg.client_cost_per_interview_note,
    target_group_customer_reference_number: targetGroupReference(studyId, key),
    fielding_assistant_assignment: tg.fielding_assistant_assignment,
    // The reference's allocations; a recontact study adds the spec's recontact allocations template.
    allocations: tg.study_type === 'recontact' ? { ...tg.allocations, template_id: RECONTACT_ALLOCATIONS_TEMPLATE_ID } : tg.allocations,
    // None declared: `null` ("no profiling"), so a draft whose profiles the study dropped loses them on update.
    // The profiling field is 2025-12-18's; older versions' drafts leave it out.
    profiling: profilingOf(tg.profiles, tg.remote_profile_template_ids) ?? (apiVersion === '2025-12-18' ? null : undefined),
  } satisfies Record<DraftField, unknown>;
  for (const k of Object.keys(draft)) if (draft[k] === undefined) delete draft[k];
  return draft;
}

/**
 * Every field a draft body may carry. plan/live-changes.ts maps each to the operation that changes it after
 * the launch: a field added to the draft without a row there does not compile.
 */
export const DRAFT_FIELDS = [
  'name',
  'business_unit_id',
  'fielding_specification',
  'locale',
  'live_url',
  'test_url',
  'expected_incidence_rate',
  'expected_length_of_interview_minutes',
  'filling_goal',
  'project_manager_id',
  'collects_pii',
  'study_type_code',
  'client_cost_per_interview_note',
  'target_group_customer_reference_number',
  'fielding_assistant_assignment',
  'allocations',
  'profiling',
] as const;
export type DraftField = (typeof DRAFT_FIELDS)[number];

/** The launch rules in the planner's terms; a timed or staged launch only when the file gives one (equal revisions otherwise). */
function launchOf(tg: TargetGroupSpec): DesiredTargetGroup['launch'] {
  const launch: DesiredTargetGroup['launch'] = {
    mode: tg.launch.mode,
    requireFeasible: tg.launch.require_feasible,
    maxCpi: tg.launch.max_cpi,
    endFieldingAt: fieldingEndOf(tg),
  };
  if (tg.launch.at) launch.at = tg.launch.at;
  if (tg.launch.after) launch.after = { targetGroup: tg.launch.after.target_group, completes: tg.launch.after.completes };
  if (tg.launch.require_forecast_before_end) launch.requireForecastBeforeEnd = true;
  return launch;
}

/**
 * The guards in force of a target group (the loader merged the three levels), sorted by name, each with what it
 * needs to be judged alone: an incidence guard carries the expected incidence rate its fraction is of.
 */
function desiredGuardsOf(tg: TargetGroupSpec): DesiredGuard[] {
  return Object.keys(tg.guards)
    .sort()
    .map((name): DesiredGuard => {
      const g = tg.guards[name];
      const base = { name, action: g.action };
      const minEntrants = g.min_entrants ?? DEFAULT_GUARD_MIN_ENTRANTS;
      if (g.incidence_below !== undefined) return { ...base, kind: 'incidence_below', fraction: g.incidence_below, expectedIncidenceRate: tg.expected_incidence_rate, minEntrants };
      if (g.cost_per_complete_above) return { ...base, kind: 'cost_per_complete_above', threshold: { ...g.cost_per_complete_above } };
      if (g.spend_above) return { ...base, kind: 'spend_above', threshold: { ...g.spend_above } };
      if (g.no_completes_for !== undefined) {
        const durationMs = guardDurationMs(g.no_completes_for);
        if (durationMs === undefined) throw new Error(`guard ${name}: not a guard duration: ${g.no_completes_for}`);
        return { ...base, kind: 'no_completes_for', duration: g.no_completes_for, durationMs };
      }
      if (g.drop_off_above !== undefined) return { ...base, kind: 'drop_off_above', rate: g.drop_off_above, minEntrants };
      if (g.quota_behind) {
        const percent = percentValue(g.quota_behind.shortfall_above);
        if (percent === undefined) throw new Error(`guard ${name}: not a percentage: ${g.quota_behind.shortfall_above}`);
        return { ...base, kind: 'quota_behind', shortfallAbove: Math.round(percent * 1e6) / 1e8, minCompletes: g.quota_behind.min_completes ?? DEFAULT_QUOTA_MIN_COMPLETES };
      }
      throw new Error(`guard ${name} names no kind`); // the loader refuses it (SF4501)
    });
}

/**
 * The soft launch in force, resolved: its completes as a number of the filling goal, its time limit in milliseconds,
 * its thresholds with what they are multiples of, and the outcome actions with their defaults.
 */
export function desiredSoftLaunchOf(tg: TargetGroupSpec): DesiredSoftLaunch | undefined {
  const soft = tg.soft_launch;
  if (!soft) return undefined;
  const completes = softLaunchCompletes(soft.completes, tg.filling_goal);
  const maxDurationMs = guardDurationMs(soft.max_duration);
  if (completes === undefined || maxDurationMs === undefined) throw new Error(`soft_launch: completes ${soft.completes} or max_duration ${soft.max_duration} is not one (the loader refuses it)`);
  const { incidence, length_of_interview: loi, drop_off: dropOff } = soft.analysis;
  const analysis: DesiredSoftLaunch['analysis'] = { minCompletes: softLaunchMinCompletes(soft, completes) };
  const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
  if (incidence && (incidence.fail_below !== undefined || incidence.pass_above !== undefined)) {
    analysis.incidence = defined({ expected: tg.expected_incidence_rate, failBelow: incidence.fail_below, passAbove: incidence.pass_above });
  }
  if (loi && (loi.fail_above !== undefined || loi.fail_below !== undefined)) {
    analysis.lengthOfInterview = defined({ expectedMinutes: tg.expected_length_of_interview_minutes, failAbove: loi.fail_above, failBelow: loi.fail_below });
  }
  if (dropOff && (dropOff.fail_above !== undefined || dropOff.pass_below !== undefined)) analysis.dropOff = defined({ failAbove: dropOff.fail_above, passBelow: dropOff.pass_below });
  return {
    completes,
    completesWritten: soft.completes,
    fillingGoal: tg.filling_goal,
    maxDuration: soft.max_duration,
    maxDurationMs,
    demographicsStrictnessPercentage: soft.demographics_strictness_percentage,
    analysis,
    on: { ...soft.on },
    analysisOnly: soft.analysis_only,
  };
}

/** The study file's profiles (labels included; plan/profiling.ts makes the wire shape); undefined when none are declared. */
function profilesOf(tg: TargetGroupSpec): unknown[] | undefined {
  if (!tg.profiles.length && !tg.remote_profile_template_ids.length) return undefined;
  return JSON.parse(JSON.stringify(tg.profiles)) as unknown[];
}

/** The events about one target group, which its own workflow raises (budget_reached is the study's). */
const TARGET_GROUP_EVENTS: readonly NotifyEventKind[] = ['gate_blocked', 'guard_tripped', 'launch_failed', 'drift_found', 'target_group_completed', 'soft_launch_decided'];

/** The `notify:` targets a target group's workflow sends to: those taking one of its events, with only those. */
function targetGroupNotifyTargets(targets: Study['notify']): NotifyTarget[] {
  return targets
    .map((t) => ({ envName: t.envName, events: t.events.filter((e) => TARGET_GROUP_EVENTS.includes(e)) }))
    .filter((t) => t.events.length > 0);
}

/**
 * The study file's model -> the planner's desired state. Pure: the ID lists come in as blob
 * references (the caller stored them), and the revision is a hash of everything else.
 */
/** The close-out in the planner's terms; the files come in as blob references (`refs`), stored by the caller. */
export function desiredCloseoutOf(closeout: NonNullable<Study['closeout']>, refs: CloseoutListRefs = {}): DesiredCloseout {
  const desired: DesiredCloseout = { reports: [...closeout.reports], deadlineWarningMs: deadlineWarningMs(closeout) };
  if (closeout.reversals?.length) {
    if (!refs.reversals) throw new Error('the study declares reversal files: store them and pass their reference (closeout.reversals)');
    desired.reversals = { ...refs.reversals, byCode: { ...refs.reversals.byCode }, files: [...refs.reversals.files] };
  }
  if (closeout.approved_completes) {
    if (!refs.approvedCompletes) throw new Error('the study declares approved completes: store the list and pass its reference (closeout.approvedCompletes)');
    const expectTerminated = closeout.approved_completes.expect_terminated;
    desired.approvedCompletes = {
      list: { ...refs.approvedCompletes },
      expectTerminated,
      tolerance: toleranceInCompletes(closeout.approved_completes.tolerance, expectTerminated),
    };
  }
  return desired;
}

export function desiredStudyOf(study: Study, lists: StudyListRefs, options: { watchIntervalMs?: number; closeout?: CloseoutListRefs } = {}): DesiredStudy {
  const watch = options.watchIntervalMs ?? DEFAULT_WATCH_INTERVAL_MS;
  const keys = Object.keys(study.target_groups).sort();
  const groupsOf = (key: string) => study.target_groups[key].exclusions.exclusion_groups;
  const notify = targetGroupNotifyTargets(study.notify);
  const targetGroups: DesiredTargetGroup[] = keys.map((key) => {
    const tg = study.target_groups[key];
    const refs = lists[key] ?? {};
    const idLists: Partial<Record<IdListEntityType, ListRef>> = {};
    if (refs.RSID) idLists.RSID = refs.RSID;
    if (refs.ACCESS_RESPONDENT_GUID) idLists.ACCESS_RESPONDENT_GUID = refs.ACCESS_RESPONDENT_GUID;
    const items = activityItems(tg);
    const desired: DesiredTargetGroup = {
      key,
      draft: draftOf(study.study, study.business_unit, key, tg, study.api_version),
      idLists,
      exclusionGroups: [...groupsOf(key)].sort(),
      launch: launchOf(tg),
      timing: timingOf(tg, watch),
    };
    if (tg.moved_from) desired.movedFrom = tg.moved_from;
    const expected = Object.fromEntries(Object.entries({ pricing_model: tg.pricing_model, type: tg.type }).filter(([, v]) => v !== undefined));
    if (Object.keys(expected).length) desired.expected = expected;
    const profiles = profilesOf(tg);
    if (profiles) desired.profiles = profiles;
    if (tg.remote_profile_template_ids.length) desired.profileTemplateIds = [...tg.remote_profile_template_ids];
    if (items.length) desired.activityExclusions = { items };
    if (refs.recontact) desired.recontact = refs.recontact;
    if (tg.fielding) desired.fielding = tg.fielding;
    if (tg.cost_per_interview) desired.costPerInterview = tg.cost_per_interview;
    const guards = desiredGuardsOf(tg);
    if (guards.length) desired.guards = guards;
    const softLaunch = desiredSoftLaunchOf(tg);
    if (softLaunch) desired.softLaunch = softLaunch;
    if (notify.length) desired.notify = notify.map((t) => ({ envName: t.envName, events: [...t.events] }));
    return desired;
  });
  const exclusionGroups = Object.entries(study.exclusion_groups)
    .map(([name, group]) => ({ name, title: group.name, targetGroups: [...group.target_groups].sort() }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const withoutRevision: Omit<DesiredStudy, 'revision'> = {
    studyId: study.study,
    accountId: study.account,
    businessUnitId: study.business_unit,
    apiVersion: study.api_version,
    project: {
      name: study.project.name,
      project_manager_id: study.project.project_manager_id,
      project_customer_reference_number: study.project.project_customer_reference_number,
    },
    targetGroups,
    exclusionGroups,
    webhooks: study.webhooks.map((w) => ({ url: w.url, events: [...w.events], compression: w.compression ?? null })),
    ...(study.removed_target_groups ? { removedTargetGroups: study.removed_target_groups } : {}),
    ...(study.budget ? { budget: { ...study.budget } } : {}),
    ...(study.notify.length ? { notify: study.notify.map((t) => ({ envName: t.envName, events: [...t.events] })) } : {}),
    ...(study.closeout ? { closeout: desiredCloseoutOf(study.closeout, options.closeout) } : {}),
  };
  return { ...withoutRevision, revision: revisionOf(withoutRevision) };
}

/** A short content hash: equal desired states have equal revisions. */
export function revisionOf(desired: Omit<DesiredStudy, 'revision'>): string {
  return createHash('sha256').update(canonicalJson(desired)).digest('hex').slice(0, 16);
}
