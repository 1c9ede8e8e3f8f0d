// Drives the fielding simulation (model/fielding-simulation.ts) against the store: each advance runs it
// up to "now" (the sandbox clock plus the admin offset), then writes back each target group's metrics
// and quota counters, completes fielding runs that reached filling_goal or end_fielding_at, and emits
// `fielding.sessions_updated` for the webhook module. It advances when target group performance is
// read, on POST /_sandbox/fielding/advance, and every second while `auto_advance` is on (off by
// default, so a sandbox's state changes only when asked; `studyflow dev` turns it on). Admin surface:
//   GET  /_sandbox/fielding/settings         {seed, pool_size, speed, auto_advance, simulated_now}
//   PUT  /_sandbox/fielding/settings         any of {seed, pool_size, speed, auto_advance}; reset restores the defaults
//   POST /_sandbox/fielding/advance          {minutes}: moves simulated time forward and runs the simulation
//   GET  /_sandbox/fielding/target-groups/{target_group_id}/sessions   the session records (admin only)
//   GET  /_sandbox/fielding/target-groups/{target_group_id}/settings   {incidence_rate}: what the simulation uses for it
//   PUT  /_sandbox/fielding/target-groups/{target_group_id}/settings   any of {incidence_rate, length_of_interview_minutes,
//        drop_off_rate, quota_fill}: arrivals from now on screen in at this rate instead of the group's
//        expected_incidence_rate, take this LOI instead of the expected one, drop out at this rate instead of the LOI's,
//        and enter with this probability when they count for a quota target (null: back to the group's own); for tests
//        of incidence guards and soft launches
// A running soft launch (the fielding assistant's soft_launch module, routes/live-target-groups.ts) caps the simulation
// (model/fielding-simulation.ts softLaunchRun); when the simulated now reaches its end_at the group is paused (its
// fielding run too, target_group.paused), once per end_at.

import { toMinorUnits } from '../model/money';
import { notFound } from '../core/api-error';
import { ObjectReader } from '../core/input-validation';
import { ok, type RouteDefinition, type SandboxServices } from '../core/route-module';
import type { TargetGroupRecord } from '../core/state-records';
import { emitTargetGroupEvent } from '../resources/target-group-events';
import { advanceFielding, DEFAULT_FIELDING_CONFIG, emptyFieldingState, softLaunchRun, type FieldingConfig, type FieldingState, type SimulatedTargetGroup, type SoftLaunchRun } from '../model/fielding-simulation';
import { findLocaleMarket } from '../model/locale-markets';
import { costPerCompleteMinorUnits } from '../model/pricing';
import type { Profile } from '../model/profile-types';
import { changeSessionStatus, type SessionRecord, type TerminalStatus } from '../model/session-record';
import { accessRespondentGuidOf, respondentRsid } from '../model/synthetic-respondents';
import { quotaCounters } from '../model/target-group-performance';
import { allocatedSupplierIds } from './webhooks-exchange-allocations';

const SLICE = 'fielding_simulation';
export const FIELDING_TICK_MS = 1000;
export const SESSIONS_UPDATED_EVENT = 'fielding.sessions_updated';
const SESSIONS_PER_EVENT = 100;
const DEFAULT_LOCALE = 'en_US';

export interface FieldingSettings {
  seed: string;
  pool_size: number;
  speed: number;
  /** Advance on the one-second tick (and on RunningSandbox.runTicks()). */
  auto_advance: boolean;
}

/** What a test set for one target group (PUT /_sandbox/fielding/target-groups/{id}/settings). */
export interface TargetGroupFieldingSettings {
  /** Replaces expected_incidence_rate for the arrivals simulated after it was set. */
  incidence_rate?: number;
  /** The LOI respondents take (minutes), instead of expected_length_of_interview_minutes. */
  length_of_interview_minutes?: number;
  /** Share of screened-in respondents who drop out, instead of the one the LOI gives. */
  drop_off_rate?: number;
  /** By quota target (`profile_id/target_id`, or a target id): the probability (0..1) that a respondent counting for it enters. */
  quota_fill?: Record<string, number>;
}

interface FieldingSlice {
  settings: FieldingSettings;
  state: FieldingState;
  /** By target group id (absent in a slice written before it existed). */
  target_groups?: Record<string, TargetGroupFieldingSettings>;
  /** By target group id: the end_at of the soft launch whose end paused it (that soft launch no longer runs). */
  soft_launch_ended?: Record<string, string>;
}

interface SoftLaunchModule {
  end_at: string;
  filling_goal_percentage: number;
  demographics_strictness_percentage: number;
}

/** The group's soft_launch module when it has one (the fielding assistant assignment). */
function softLaunchModule(tg: TargetGroupRecord): SoftLaunchModule | null {
  const module = tg.fielding_assistant_assignment?.soft_launch as SoftLaunchModule | null | undefined;
  return module && typeof module.end_at === 'string' ? module : null;
}

/** The soft launch running for the group: its module, unless the end of that very module already paused it. */
function runningSoftLaunch(services: Pick<SandboxServices, 'store'>, tg: TargetGroupRecord): SoftLaunchRun | null {
  const module = softLaunchModule(tg);
  if (!module || peekFieldingSlice(services).soft_launch_ended?.[tg.id] === module.end_at) return null;
  return softLaunchRun(tg.filling_goal, module);
}

/** quota_fill keyed as the simulation counts quotas (`profile_id/target_id`); a bare target id names its target. */
function quotaFillKeys(tg: TargetGroupRecord, fill: Record<string, number> | undefined): Record<string, number> | undefined {
  if (!fill) return undefined;
  const out: Record<string, number> = {};
  for (const profile of tg.profiles as Profile[]) {
    for (const target of profile.targets) {
      const value = fill[`${profile.id}/${target.id}`] ?? fill[target.id];
      if (value !== undefined) out[`${profile.id}/${target.id}`] = value;
    }
  }
  return out;
}

export interface SessionsUpdated {
  account_id: number;
  project_id: string;
  target_group_id: string;
  sessions: SessionRecord[];
}

const defaultSettings = (): FieldingSettings => ({ seed: DEFAULT_FIELDING_CONFIG.seed, pool_size: DEFAULT_FIELDING_CONFIG.poolSize, speed: DEFAULT_FIELDING_CONFIG.speed, auto_advance: false });
const fieldingSlice = (services: Pick<SandboxServices, 'store'>) => services.store.slice<FieldingSlice>(SLICE, () => ({ settings: defaultSettings(), state: emptyFieldingState() }));
/** The slice when it exists, else the defaults (reading never creates state). */
const peekFieldingSlice = (services: Pick<SandboxServices, 'store'>): FieldingSlice =>
  (services.store.data.slices[SLICE] as FieldingSlice | undefined) ?? { settings: defaultSettings(), state: emptyFieldingState() };

/** A group that fields again (relaunched): its arrivals restart from when it went live, its goal not reached. */
export function restartArrivals(services: Pick<SandboxServices, 'store'>, targetGroupId: string): void {
  const cursor = peekFieldingSlice(services).state.cursors[targetGroupId];
  if (cursor) Object.assign(cursor, { goal_reached: false, next_arrival_ms: null });
}

export const simulatedNow = (services: SandboxServices): number => services.clock.now() + peekFieldingSlice(services).state.offset_ms;

/** The simulated sessions of a target group (empty when it never fielded). */
export function sessionsOf(services: SandboxServices, targetGroupId: string): SessionRecord[] {
  return peekFieldingSlice(services).state.sessions[targetGroupId] ?? [];
}

const guidIndexes = new Map<string, Map<string, string>>();

/** rsid of a panel member's access respondent GUID (computed over the pool once per locale and size). */
function rsidOfGuid(locale: string, poolSize: number, guid: string): string | undefined {
  const key = `${locale}|${poolSize}`;
  let index = guidIndexes.get(key);
  if (!index) {
    index = new Map();
    for (let i = 0; i < poolSize; i++) {
      const rsid = respondentRsid(locale, i);
      index.set(accessRespondentGuidOf(rsid), rsid);
    }
    guidIndexes.set(key, index);
  }
  return index.get(guid.toLowerCase());
}

function simulatedGroup(services: SandboxServices, tg: TargetGroupRecord, settings: FieldingSettings, offsetMs: number, own: TargetGroupFieldingSettings = {}): SimulatedTargetGroup {
  const market = findLocaleMarket(tg.locale ?? DEFAULT_LOCALE) ?? findLocaleMarket(DEFAULT_LOCALE)!;
  const data = services.store.data;
  const lists = data.id_exclusion_lists[tg.id];
  const excludedIds = new Set<string>([...(lists?.rsid ?? []), ...(lists?.cid ?? []), ...(lists?.access_respondent_guid ?? []).map((guid) => guid.toLowerCase())]);
  const peers = new Set<string>();
  for (const group of Object.values(data.exclusion_groups)) {
    if (group.target_group_ids.includes(tg.id)) group.target_group_ids.forEach((id) => id !== tg.id && peers.add(id));
  }
  let recontactIds: Set<string> | null = null;
  if (tg.study_type === 'recontact') {
    const recontact = data.recontact_respondents[tg.id];
    recontactIds = new Set(recontact?.rsid ?? []);
    for (const guid of recontact?.access_respondent_guid ?? []) {
      const rsid = rsidOfGuid(market.locale, settings.pool_size, guid);
      if (rsid) recontactIds.add(rsid);
    }
  }
  const run = tg.fielding_run_id ? data.fielding_runs[tg.fielding_run_id] : undefined;
  const live = tg.status === 'live';
  return {
    id: tg.id,
    account_id: tg.account_id,
    project_id: tg.project_id,
    market,
    live,
    liveSinceMs: live && run ? Date.parse(run.updated_at) + offsetMs : null,
    // Only the outcome of an arrival reads it; the price stays the one the expected incidence gave.
    incidenceRate: own.incidence_rate ?? tg.expected_incidence_rate,
    lengthOfInterviewMinutes: tg.expected_length_of_interview_minutes,
    ...(own.length_of_interview_minutes !== undefined ? { actualLengthOfInterviewMinutes: own.length_of_interview_minutes } : {}),
    ...(own.drop_off_rate !== undefined ? { dropOffRate: own.drop_off_rate } : {}),
    ...(own.quota_fill ? { quotaFill: quotaFillKeys(tg, own.quota_fill) } : {}),
    softLaunch: live ? runningSoftLaunch(services, tg) : null,
    fillingGoal: tg.filling_goal,
    profiles: tg.profiles as Profile[],
    supplierIds: allocatedSupplierIds(services.store, tg.id),
    // A CPI set on the live group (update_cost_per_interview) prices its sessions from then on.
    cpiMinorUnits: tg.cost_per_interview ? toMinorUnits(Number(tg.cost_per_interview.value)) : costPerCompleteMinorUnits(market, tg.expected_incidence_rate, tg.expected_length_of_interview_minutes),
    activityExclusions: tg.respondent_activity_exclusions.map((item) => ({ type: item.type, id: item.id, statuses: item.respondent_statuses, durationDays: item.duration_days })),
    excludedIds,
    exclusionGroupPeers: peers,
    recontactIds,
  };
}

/** Completes the fielding run and the target group (goal reached or end_fielding_at passed). */
function completeFielding(services: SandboxServices, tg: TargetGroupRecord): void {
  const run = tg.fielding_run_id ? services.store.data.fielding_runs[tg.fielding_run_id] : undefined;
  if (!run || (run.status !== 'live' && run.status !== 'paused')) return;
  const now = services.clock.iso();
  run.status = 'completed';
  run.revision += 1;
  run.updated_at = now;
  run.completed_at = now;
  tg.status = 'completed';
  tg.updated_at = now;
  emitTargetGroupEvent(services, 'completed', tg, ['status']);
}

/**
 * The end of a running soft launch came (simulated now at or past its end_at): the group is paused whatever its fill,
 * its fielding run too, with the target_group.paused event a pause_fielding_run gives; once per end_at.
 */
function endSoftLaunch(services: SandboxServices, tg: TargetGroupRecord, nowMs: number): boolean {
  const module = softLaunchModule(tg);
  const slice = fieldingSlice(services);
  if (!module || slice.soft_launch_ended?.[tg.id] === module.end_at || Date.parse(module.end_at) > nowMs) return false;
  (slice.soft_launch_ended ??= {})[tg.id] = module.end_at;
  const run = tg.fielding_run_id ? services.store.data.fielding_runs[tg.fielding_run_id] : undefined;
  if (!run || run.status !== 'live' || tg.status !== 'live') return true;
  const now = services.clock.iso();
  run.status = 'paused';
  run.revision += 1;
  run.updated_at = now;
  tg.status = 'paused';
  tg.updated_at = now;
  emitTargetGroupEvent(services, 'paused', tg, ['status']);
  return true;
}

/** Writes metrics and quota counters of a target group from its sessions; true when something changed. */
function writeCounters(tg: TargetGroupRecord, sessions: readonly SessionRecord[]): boolean {
  const completes = sessions.filter((session) => session.status === 'Complete').length;
  const prescreens = sessions.filter((session) => session.status !== 'PreClientSurveyProcess').length;
  let changed = tg.metrics.completes !== completes || tg.metrics.prescreens !== prescreens;
  tg.metrics = { completes, prescreens };
  const counters = quotaCounters(sessions);
  for (const profile of tg.profiles as Profile[]) {
    for (const target of profile.targets) {
      const counter = counters.get(`${profile.id}/${target.id}`) ?? { completes: 0, prescreens: 0 };
      if (target.quota.completes !== counter.completes || target.quota.prescreens !== counter.prescreens) changed = true;
      target.quota.completes = counter.completes;
      target.quota.prescreens = counter.prescreens;
    }
  }
  return changed;
}

export interface AdvanceSummary {
  simulated_now: string;
  sessions_updated: number;
  completed_target_groups: string[];
  truncated: boolean;
}

/**
 * How far behind the simulated now a read may answer: a read (performance, overview, the list) within this
 * time of the last run of the simulation answers from that run instead of running it again. Each run walks
 * every launched target group, so at thousands of them (bench/watch-scale.ts) a run per read outgrew the
 * sandbox's one thread; the figures are at most a second old, as a real exchange's are.
 */
export const READ_STALENESS_MS = 1000;

/**
 * Runs the simulation up to the simulated now and applies the results to the store. `withinMs`: skip the run
 * when the simulation ran up to less than that long ago (a read's READ_STALENESS_MS; an explicit advance runs).
 */
export function advanceSimulation(services: SandboxServices, options: { withinMs?: number } = {}): AdvanceSummary {
  const { settings, state, target_groups: own = {} } = fieldingSlice(services);
  const config: FieldingConfig = { ...DEFAULT_FIELDING_CONFIG, seed: settings.seed, poolSize: settings.pool_size, speed: settings.speed };
  const now = simulatedNow(services);
  const last = state.last_advanced_ms;
  if (options.withinMs !== undefined && last !== null && now >= last && now - last < options.withinMs) {
    return { simulated_now: new Date(now).toISOString(), sessions_updated: 0, completed_target_groups: [], truncated: false };
  }
  const targetGroups = Object.values(services.store.data.target_groups).filter((tg) => tg.status !== 'draft');
  const result = advanceFielding(state, targetGroups.map((tg) => simulatedGroup(services, tg, settings, state.offset_ms, own[tg.id])), now, config);
  const byGroup = new Map<string, SessionRecord[]>();
  for (const update of result.updates) byGroup.set(update.target_group_id, [...(byGroup.get(update.target_group_id) ?? []), update]);
  const completed: string[] = [];
  let changed = result.updates.length > 0;
  for (const tg of targetGroups) {
    changed = writeCounters(tg, state.sessions[tg.id] ?? []) || changed;
    const endPassed = tg.end_fielding_at !== null && Date.parse(tg.end_fielding_at) <= now;
    if ((tg.status === 'live' || tg.status === 'paused') && (endPassed || state.cursors[tg.id]?.goal_reached)) {
      completeFielding(services, tg);
      completed.push(tg.id);
      changed = true;
    } else if (tg.status === 'live' || tg.status === 'paused') {
      changed = endSoftLaunch(services, tg, now) || changed;
    }
  }
  for (const [targetGroupId, sessions] of byGroup) {
    const tg = services.store.data.target_groups[targetGroupId];
    if (!tg) continue;
    for (let i = 0; i < sessions.length; i += SESSIONS_PER_EVENT) {
      const payload: SessionsUpdated = { account_id: tg.account_id, project_id: tg.project_id, target_group_id: tg.id, sessions: sessions.slice(i, i + SESSIONS_PER_EVENT) };
      services.events.emit(SESSIONS_UPDATED_EVENT, payload);
    }
  }
  if (changed) services.commit();
  return { simulated_now: new Date(now).toISOString(), sessions_updated: result.updates.length, completed_target_groups: completed, truncated: result.truncated };
}

/**
 * Applies status changes made outside the simulation (reversals of completes: routes/reconciliations.ts) to the sessions,
 * at the simulated now: each target group's metrics and quota counters follow, and `fielding.sessions_updated` is
 * emitted for the changed sessions, as for the simulation's own changes. Returns the changed sessions.
 */
export function changeSessionStatuses(services: SandboxServices, changes: ReadonlyArray<{ target_group_id: string; session_id: string; status: Exclude<TerminalStatus, 'Complete'> }>): SessionRecord[] {
  const { state } = fieldingSlice(services);
  const at = simulatedNow(services);
  const changed: SessionRecord[] = [];
  for (const change of changes) {
    const sessions = state.sessions[change.target_group_id] ?? [];
    const position = sessions.findIndex((session) => session.session_id === change.session_id);
    if (position < 0 || sessions[position].status === change.status) continue;
    sessions[position] = changeSessionStatus(sessions[position], change.status, at);
    changed.push(sessions[position]);
  }
  const byGroup = new Map<string, SessionRecord[]>();
  for (const session of changed) byGroup.set(session.target_group_id, [...(byGroup.get(session.target_group_id) ?? []), session]);
  for (const [targetGroupId, sessions] of byGroup) {
    const tg = services.store.data.target_groups[targetGroupId];
    if (!tg) continue;
    writeCounters(tg, state.sessions[targetGroupId] ?? []);
    for (let i = 0; i < sessions.length; i += SESSIONS_PER_EVENT) {
      const payload: SessionsUpdated = { account_id: tg.account_id, project_id: tg.project_id, target_group_id: tg.id, sessions: sessions.slice(i, i + SESSIONS_PER_EVENT) };
      services.events.emit(SESSIONS_UPDATED_EVENT, payload);
    }
  }
  if (changed.length > 0) services.commit();
  return changed;
}

function readSettings(body: unknown, current: FieldingSettings): FieldingSettings {
  const reader = ObjectReader.body(body);
  reader.rejectUnknown(['seed', 'pool_size', 'speed', 'auto_advance']);
  const seed = reader.string('seed', { maxLength: 100 });
  const poolSize = reader.integer('pool_size', { min: 1, max: 1_000_000 });
  const speed = reader.number('speed', { min: 0.001, max: 1_000_000 });
  const autoAdvance = reader.boolean('auto_advance');
  reader.finish('The fielding settings are invalid.');
  return { seed: seed ?? current.seed, pool_size: poolSize ?? current.pool_size, speed: speed ?? current.speed, auto_advance: autoAdvance ?? current.auto_advance };
}

function readTargetGroupSettings(body: unknown, current: TargetGroupFieldingSettings, tg: TargetGroupRecord): TargetGroupFieldingSettings {
  const reader = ObjectReader.body(body);
  reader.rejectUnknown(['incidence_rate', 'length_of_interview_minutes', 'drop_off_rate', 'quota_fill']);
  const rate = reader.number('incidence_rate', { min: 0, max: 1, nullable: true });
  const loi = reader.number('length_of_interview_minutes', { exclusiveMin: 0, max: 600, nullable: true });
  const dropOff = reader.number('drop_off_rate', { min: 0, max: 1, nullable: true });
  const fillReader = reader.object('quota_fill', { nullable: true });
  let fill: Record<string, number> | undefined;
  if (fillReader) {
    const known = new Set<string>();
    for (const profile of tg.profiles as Profile[]) for (const target of profile.targets) known.add(`${profile.id}/${target.id}`).add(target.id);
    fill = {};
    for (const key of Object.keys(fillReader.value)) {
      const value = fillReader.number(key, { required: true, min: 0, max: 1 });
      if (!known.has(key)) fillReader.fail(key, 'is not a quota target of the target group (profile_id/target_id or a target id)');
      else if (typeof value === 'number') fill[key] = value;
    }
  }
  reader.finish('The target group\'s fielding settings are invalid.');
  const next = { ...current };
  const apply = <K extends keyof TargetGroupFieldingSettings>(key: K, value: TargetGroupFieldingSettings[K] | null | undefined) => {
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  };
  apply('incidence_rate', rate);
  apply('length_of_interview_minutes', loi);
  apply('drop_off_rate', dropOff);
  apply('quota_fill', fillReader === null ? null : fill);
  return next;
}

/** What the simulation uses for the group: incidence_rate always, the other settings when set. */
const targetGroupSettingsAnswer = (tg: TargetGroupRecord, own: TargetGroupFieldingSettings = {}) => ({ ...own, incidence_rate: own.incidence_rate ?? tg.expected_incidence_rate });

const targetGroupOf = (ctx: SandboxServices & { params: Record<string, string> }): TargetGroupRecord => {
  const tg = ctx.store.data.target_groups[ctx.params.target_group_id];
  if (!tg) throw notFound(`Target group ${ctx.params.target_group_id} not found.`);
  return tg;
};

export const fieldingSimulationAdminRoutes: RouteDefinition[] = [
  { method: 'GET', path: '/_sandbox/fielding/settings', handler: (ctx) => ok({ ...peekFieldingSlice(ctx).settings, simulated_now: new Date(simulatedNow(ctx)).toISOString() }) },
  {
    method: 'PUT',
    path: '/_sandbox/fielding/settings',
    handler: (ctx) => {
      const slice = fieldingSlice(ctx);
      slice.settings = readSettings(ctx.body, slice.settings);
      ctx.commit();
      return ok({ ...slice.settings, simulated_now: new Date(simulatedNow(ctx)).toISOString() });
    },
  },
  {
    method: 'POST',
    path: '/_sandbox/fielding/advance',
    handler: (ctx) => {
      const reader = ObjectReader.body(ctx.body);
      reader.rejectUnknown(['minutes']);
      const minutes = reader.number('minutes', { required: true, exclusiveMin: 0, max: 525_600 });
      reader.finish('The advance request is invalid.');
      // Catch up to the present first, so groups live now start their arrivals now, then jump.
      const caughtUp = advanceSimulation(ctx);
      fieldingSlice(ctx).state.offset_ms += Math.round(minutes! * 60_000);
      const jumped = advanceSimulation(ctx);
      return ok({ ...jumped, sessions_updated: caughtUp.sessions_updated + jumped.sessions_updated, completed_target_groups: [...caughtUp.completed_target_groups, ...jumped.completed_target_groups] });
    },
  },
  {
    method: 'GET',
    path: '/_sandbox/fielding/target-groups/{target_group_id}/sessions',
    handler: (ctx) => {
      if (!ctx.store.data.target_groups[ctx.params.target_group_id]) throw notFound(`Target group ${ctx.params.target_group_id} not found.`);
      return ok({ data: sessionsOf(ctx, ctx.params.target_group_id) });
    },
  },
  {
    method: 'GET',
    path: '/_sandbox/fielding/target-groups/{target_group_id}/settings',
    handler: (ctx) => {
      const tg = targetGroupOf(ctx);
      return ok(targetGroupSettingsAnswer(tg, peekFieldingSlice(ctx).target_groups?.[tg.id]));
    },
  },
  {
    method: 'PUT',
    path: '/_sandbox/fielding/target-groups/{target_group_id}/settings',
    handler: (ctx) => {
      const tg = targetGroupOf(ctx);
      const slice = fieldingSlice(ctx);
      const next = readTargetGroupSettings(ctx.body, slice.target_groups?.[tg.id] ?? {}, tg);
      // Arrivals up to now were drawn at the old settings: catch up first, so the new ones apply from now on only.
      advanceSimulation(ctx);
      (slice.target_groups ??= {})[tg.id] = next;
      ctx.commit();
      return ok(targetGroupSettingsAnswer(tg, next));
    },
  },
];

/** Registers the simulation tick; returns the unregister function. */
export function startFieldingSimulation(services: SandboxServices): () => void {
  return services.ticks.register('fielding-simulation', FIELDING_TICK_MS, () => {
    if (peekFieldingSlice(services).settings.auto_advance) advanceSimulation(services);
  });
}
