// Fielding simulation: live target groups collect respondent sessions over simulated time.
// Time: the sandbox clock plus an offset that /_sandbox/fielding/advance adds to; `speed` multiplies
// arrival rates and divides session durations (speed 60: an hour of fielding per real minute).
// Arrivals: a Poisson stream per target group at entrants/day = qualifying population * 0.004 * speed
// (qualifying = locale population * targeting share * supplier coverage). Each arrival draws panel
// members (synthetic-respondents.ts) until one qualifies for the profiles, has no session in this
// group and is not in another survey right now; recontact studies draw only from their recontact list.
// Outcome of an entrant (hashes of seed, group and arrival number, so results never depend on how
// time is chunked into ticks):
//   excluded (ID lists, activity exclusions, exclusion groups) -> PreClientSurveyProcess at entry
//   security check fails (2 %)                                 -> SecurityFailure after a minute
//   a quota target they count for is full                      -> OverQuota after a minute
//   screened out (1 - incidence)                                -> Terminate at a quarter of the LOI
//   drops out (1 - LOI completion factor, or the drop-off set)  -> leaves without coming back: the session
//     stays Started (in the survey, the drop-off rate's numerator) until it times out a simulated day after
//     entry, then Terminate
//   financial terminate (1 %)                                   -> FinancialTerm at the LOI
//   otherwise                                                   -> Complete after 0.8-1.2 x LOI, unless
//     the filling goal or a quota filled meanwhile (then OverQuota); 3 % of completes are reconciled
//     to Terminate a day later.
// The LOI is the group's actual one (the admin setting, else the expected LOI). Each session that finished in the
// survey (Complete, screen-out Terminate, OverQuota, FinancialTerm, SecurityFailure) records the length of its
// interview in seconds of respondent time (before `speed`), drawn as above: `length_of_interview_seconds`.
// Arrivals stop once completes reach filling_goal; completes never exceed it.
// A running soft launch (the fielding assistant's soft_launch module) caps completes at its own goal and each
// quota target at its soft share (respondents who entered before its end_at), and no one enters at or after
// end_at: the route then pauses the group. Arrivals stopped by the cap restart when the cap lifts.
// A quota fill (admin) makes a drawn respondent who counts for that quota target enter only with that probability.

import { DAILY_PARTICIPATION_RATE } from './locale-markets';
import type { LocaleMarket } from './locale-markets';
import { lengthOfInterviewCompletionFactor, supplierCoverage } from './feasibility';
import { moneyFromMinorUnits } from './money';
import type { Profile } from './profile-types';
import { exclusionReason, type ActivityExclusionRule, type ParticipationRecord } from './respondent-eligibility';
import { hashString, unitHash } from './seeded-random';
import { changeSessionStatus, startSession, type SessionRecord, type TerminalStatus } from './session-record';
import { accessRespondentGuidOf, panelIndexOfRsid, qualifyRespondent, respondentRsid, type RespondentIdentity } from './synthetic-respondents';
import { targetingShare } from './targeting-share';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
/** How long a session whose respondent dropped out stays open (Started) before the exchange closes it as Terminate. */
export const ABANDONED_SESSION_TIMEOUT_MS = DAY_MS;
const MAX_DRAW_ATTEMPTS = 50;

/** Tunables of the simulation. */
export interface FieldingConfig {
  /** Seed of every random outcome. */
  seed: string;
  /** Panel members per locale the simulation draws from. */
  poolSize: number;
  /** Time acceleration: arrival rates times speed, session durations divided by it. */
  speed: number;
  securityFailureRate: number;
  financialTermRate: number;
  reconciliationRate: number;
}

export const DEFAULT_FIELDING_CONFIG: FieldingConfig = {
  seed: 'studyflow-sandbox',
  poolSize: 20_000,
  speed: 60,
  securityFailureRate: 0.02,
  financialTermRate: 0.01,
  reconciliationRate: 0.03,
};

/** What the simulation needs to know about one target group. */
export interface SimulatedTargetGroup {
  id: string;
  account_id: number;
  project_id: string;
  market: LocaleMarket;
  live: boolean;
  /** Simulated time at which the group last went live (launch or resume); arrivals start there. */
  liveSinceMs: number | null;
  incidenceRate: number;
  lengthOfInterviewMinutes: number;
  fillingGoal: number;
  profiles: readonly Profile[];
  supplierIds: readonly number[];
  cpiMinorUnits: number;
  activityExclusions: readonly ActivityExclusionRule[];
  /** RSIDs and lower-case access respondent GUIDs on the ID exclusion lists. */
  excludedIds: ReadonlySet<string>;
  exclusionGroupPeers: ReadonlySet<string>;
  /** For recontact studies: the rsids / GUIDs allowed in; null otherwise. */
  recontactIds: ReadonlySet<string> | null;
  /** The LOI respondents actually take (admin setting); absent: lengthOfInterviewMinutes. */
  actualLengthOfInterviewMinutes?: number;
  /** Share of screened-in respondents who drop out (admin setting); absent: 1 - the LOI completion factor. */
  dropOffRate?: number;
  /** By `profile_id/target_id`: the probability (0..1) that a drawn respondent counting for it enters (admin setting). */
  quotaFill?: Readonly<Record<string, number>>;
  /** The soft launch running now (fielding assistant), or null. */
  softLaunch?: SoftLaunchRun | null;
}

/** A running soft launch: its completes goal, its end, and the share of each quota goal it may fill. */
export interface SoftLaunchRun {
  goal: number;
  endAtMs: number;
  /** Each quota target's soft cap is ceil(its completes_goal x quotaShare). */
  quotaShare: number;
}

/**
 * The soft launch of a group from the fielding assistant's module: goal = ceil(filling_goal x filling_goal_percentage /
 * 100) (at least 1, at most the goal); a quota target may fill ceil(goal_q x (p + (1 - s) x (1 - p))) with p the
 * percentage and s the demographics strictness as fractions: s = 100 % keeps each quota to its share of the soft goal,
 * s = 0 % lets any distribution through (up to the quota's full goal).
 */
export function softLaunchRun(fillingGoal: number, module: { end_at: string; filling_goal_percentage: number; demographics_strictness_percentage: number }): SoftLaunchRun {
  const p = module.filling_goal_percentage / 100;
  const s = module.demographics_strictness_percentage / 100;
  return { goal: Math.min(fillingGoal, Math.max(1, Math.ceil((fillingGoal * module.filling_goal_percentage) / 100))), endAtMs: Date.parse(module.end_at), quotaShare: p + (1 - s) * (1 - p) };
}

export interface FieldingCursor {
  arrival_index: number;
  next_arrival_ms: number | null;
  goal_reached: boolean;
  /** Arrivals stopped by a soft launch (its cap reached, or its end): they restart where the simulation stands. */
  soft_stopped?: boolean;
  /** The soft launch end that stopped them (they stay stopped while that soft launch runs). */
  soft_stopped_at_end_ms?: number;
}

export interface ScheduledTransition {
  target_group_id: string;
  session_id: string;
  at_ms: number;
  status: TerminalStatus;
  kind: 'finish' | 'reconcile';
  /** The session's length of interview, recorded when it finishes (absent for drop-outs and reconciliations). */
  length_of_interview_seconds?: number;
}

/** Plain-JSON state of the simulation (kept in a store slice). */
export interface FieldingState {
  offset_ms: number;
  last_advanced_ms: number | null;
  cursors: Record<string, FieldingCursor>;
  sessions: Record<string, SessionRecord[]>;
  scheduled: ScheduledTransition[];
}

export const emptyFieldingState = (): FieldingState => ({ offset_ms: 0, last_advanced_ms: null, cursors: {}, sessions: {}, scheduled: [] });

export interface AdvanceResult {
  /** Session snapshots after each change, in the order they happened. */
  updates: SessionRecord[];
  /** Target groups whose completes reached filling_goal during this advance. */
  goalReached: string[];
  /** True when the event budget ran out before `toMs` (the rest follows on the next advance). */
  truncated: boolean;
}

/** Entrants per simulated day (before `speed`). */
export function entrantsPerDay(group: SimulatedTargetGroup): number {
  return group.market.population * targetingShare(group.profiles, group.market) * supplierCoverage(group.supplierIds, group.market.locale) * DAILY_PARTICIPATION_RATE;
}

class Simulation {
  private readonly sessionIndex = new Map<string, Map<string, number>>();
  private readonly history = new Map<string, ParticipationRecord[]>();
  private readonly inSurvey = new Map<string, number>();
  private readonly respondentsByGroup = new Map<string, Set<string>>();
  private readonly completes = new Map<string, number>();
  private readonly quotaCompletes = new Map<string, number>();
  /** Sessions scheduled to finish as Complete, per group and per `group|quota key` (a soft launch counts them). */
  private readonly pendingCompletes = new Map<string, number>();
  private readonly pendingQuotaCompletes = new Map<string, number>();
  private readonly updates: SessionRecord[] = [];
  private readonly goalReached: string[] = [];
  private readonly recontactLists = new Map<string, string[]>();

  constructor(private readonly state: FieldingState, private readonly groups: Map<string, SimulatedTargetGroup>, private readonly config: FieldingConfig) {
    for (const [groupId, sessions] of Object.entries(state.sessions)) {
      const index = new Map<string, number>();
      const respondents = new Set<string>();
      sessions.forEach((session, position) => {
        index.set(session.session_id, position);
        respondents.add(session.respondent_id);
        this.record(session, +1);
      });
      this.sessionIndex.set(groupId, index);
      this.respondentsByGroup.set(groupId, respondents);
    }
    for (const transition of state.scheduled) this.pend(transition, +1);
  }

  /** Counts a scheduled finish as Complete (+1 when scheduled, -1 when it is applied) for the soft launch caps. */
  private pend(transition: ScheduledTransition, sign: 1 | -1): void {
    if (transition.kind !== 'finish' || transition.status !== 'Complete') return;
    const session = this.getSession(transition.target_group_id, transition.session_id);
    if (!session) return;
    const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + sign);
    add(this.pendingCompletes, transition.target_group_id);
    for (const key of session.quota_target_ids) add(this.pendingQuotaCompletes, `${transition.target_group_id}|${key}`);
  }

  private record(session: SessionRecord, sign: 1 | -1): void {
    if (session.status === 'Started') {
      this.inSurvey.set(session.respondent_id, (this.inSurvey.get(session.respondent_id) ?? 0) + sign);
      return;
    }
    // A reconciled session leaves the history with its old status and comes back with the new one.
    const entries = this.history.get(session.respondent_id) ?? [];
    if (sign > 0) {
      entries.push({ project_id: session.project_id, target_group_id: session.target_group_id, status: session.status, at_ms: Date.parse(session.respondent_update_date) });
      this.history.set(session.respondent_id, entries);
    } else {
      const at = entries.findIndex((entry) => entry.target_group_id === session.target_group_id && entry.status === session.status);
      if (at >= 0) entries.splice(at, 1);
    }
    if (session.status === 'Complete') {
      this.completes.set(session.target_group_id, (this.completes.get(session.target_group_id) ?? 0) + sign);
      for (const key of session.quota_target_ids) {
        const quotaKey = `${session.target_group_id}|${key}`;
        this.quotaCompletes.set(quotaKey, (this.quotaCompletes.get(quotaKey) ?? 0) + sign);
      }
    }
  }

  run(toMs: number, maxEvents: number): AdvanceResult {
    const startMs = this.state.last_advanced_ms ?? toMs;
    for (const group of this.groups.values()) this.prepareCursor(group, startMs);
    let processed = 0;
    let truncated = false;
    for (;;) {
      const arrival = this.nextArrival(toMs);
      const transition = this.state.scheduled[0] && this.state.scheduled[0].at_ms <= toMs ? this.state.scheduled[0] : undefined;
      if (!arrival && !transition) break;
      if (processed >= maxEvents) {
        truncated = true;
        break;
      }
      processed++;
      if (transition && (!arrival || transition.at_ms <= arrival.atMs)) {
        this.state.scheduled.shift();
        this.applyTransition(transition);
      } else if (arrival) {
        this.arrive(arrival.group, arrival.atMs);
      }
    }
    this.state.last_advanced_ms = truncated ? this.state.last_advanced_ms : toMs;
    return { updates: this.updates, goalReached: this.goalReached, truncated };
  }

  private prepareCursor(group: SimulatedTargetGroup, startMs: number): void {
    const cursor = (this.state.cursors[group.id] ??= { arrival_index: 0, next_arrival_ms: null, goal_reached: false });
    if (!group.live || cursor.goal_reached) {
      cursor.next_arrival_ms = null;
      return;
    }
    if ((this.completes.get(group.id) ?? 0) >= group.fillingGoal) {
      this.reachGoal(group.id, cursor);
      return;
    }
    if (this.softCapped(group)) {
      cursor.soft_stopped = true;
      cursor.next_arrival_ms = null;
      return;
    }
    if (cursor.next_arrival_ms !== null) {
      cursor.next_arrival_ms = this.cutAtSoftEnd(group, cursor.next_arrival_ms);
      return;
    }
    // Stopped at the end of the soft launch that still runs: stays so (the route pauses the group there).
    if (cursor.soft_stopped_at_end_ms !== undefined && group.softLaunch?.endAtMs === cursor.soft_stopped_at_end_ms) return;
    // Stopped by a soft launch while live: restart where the simulation stands, never in time already simulated.
    const from = cursor.soft_stopped ? Math.max(group.liveSinceMs ?? startMs, startMs) : group.liveSinceMs ?? startMs;
    delete cursor.soft_stopped;
    delete cursor.soft_stopped_at_end_ms;
    cursor.next_arrival_ms = this.cutAtSoftEnd(group, this.nextArrivalTime(group, from, cursor.arrival_index));
  }

  /**
   * Completes, with those of respondents still in the survey who will complete, reached the running soft launch's goal:
   * no one more is let in (so the soft launch ends with no surplus in the survey, and its incidence is not skewed by
   * screen-outs of respondents let in after its goal was in hand).
   */
  private softCapped(group: SimulatedTargetGroup): boolean {
    return !!group.softLaunch && (this.completes.get(group.id) ?? 0) + (this.pendingCompletes.get(group.id) ?? 0) >= group.softLaunch.goal;
  }

  private stopSoftArrivals(group: SimulatedTargetGroup): void {
    const cursor = this.state.cursors[group.id];
    cursor.soft_stopped = true;
    cursor.next_arrival_ms = null;
  }

  /** No one enters at or after a running soft launch's end (the group is paused there). */
  private cutAtSoftEnd(group: SimulatedTargetGroup, at: number | null): number | null {
    if (at !== null && group.softLaunch && at >= group.softLaunch.endAtMs) {
      Object.assign(this.state.cursors[group.id], { soft_stopped: true, soft_stopped_at_end_ms: group.softLaunch.endAtMs });
      return null;
    }
    return at;
  }

  private nextArrivalTime(group: SimulatedTargetGroup, fromMs: number, arrivalIndex: number): number | null {
    const perDay = entrantsPerDay(group) * this.config.speed;
    if (perDay <= 0) return null;
    const u = unitHash(this.config.seed, group.id, 'gap', arrivalIndex);
    return fromMs + Math.max(1, Math.round(-Math.log(1 - u) * (DAY_MS / perDay)));
  }

  private nextArrival(toMs: number): { group: SimulatedTargetGroup; atMs: number } | undefined {
    let best: { group: SimulatedTargetGroup; atMs: number } | undefined;
    for (const group of this.groups.values()) {
      const at = this.state.cursors[group.id]?.next_arrival_ms;
      if (at === null || at === undefined || at > toMs) continue;
      if (!best || at < best.atMs || (at === best.atMs && group.id < best.group.id)) best = { group, atMs: at };
    }
    return best;
  }

  private reachGoal(groupId: string, cursor: FieldingCursor): void {
    if (!cursor.goal_reached) this.goalReached.push(groupId);
    cursor.goal_reached = true;
    cursor.next_arrival_ms = null;
  }

  private arrive(group: SimulatedTargetGroup, atMs: number): void {
    const cursor = this.state.cursors[group.id];
    const arrivalIndex = cursor.arrival_index;
    cursor.arrival_index += 1;
    cursor.next_arrival_ms = this.cutAtSoftEnd(group, this.nextArrivalTime(group, atMs, cursor.arrival_index));
    const drawn = this.draw(group, arrivalIndex);
    if (!drawn) return;
    const { identity, quotaTargetKeys } = drawn;
    const h = (what: string) => unitHash(this.config.seed, group.id, arrivalIndex, what);
    const supplierId = group.supplierIds.length > 0 ? group.supplierIds[Math.floor(h('supplier') * group.supplierIds.length)] : 100 + Math.floor(h('supplier') * 20);
    const session = startSession({
      session_id: sessionRid(this.config.seed, group.id, arrivalIndex),
      account_id: group.account_id,
      project_id: group.project_id,
      target_group_id: group.id,
      supplier_id: supplierId,
      respondent_id: identity.rsid,
      quota_target_ids: quotaTargetKeys,
    }, atMs);
    this.addSession(group.id, session);
    const history = this.history.get(identity.rsid) ?? [];
    const excluded = exclusionReason(identity, history, group, atMs);
    if (excluded) {
      this.transition(group.id, session.session_id, 'PreClientSurveyProcess', atMs);
      return;
    }
    const loiMinutes = group.actualLengthOfInterviewMinutes ?? group.lengthOfInterviewMinutes;
    const dropOffRate = group.dropOffRate ?? 1 - lengthOfInterviewCompletionFactor(loiMinutes);
    // In respondent minutes (before `speed`); null: the respondent drops out and never comes back.
    let outcome: { status: TerminalStatus; minutes: number | null };
    if (h('security') < this.config.securityFailureRate) outcome = { status: 'SecurityFailure', minutes: 1 };
    else if (this.quotaFull(group, quotaTargetKeys, true, true)) outcome = { status: 'OverQuota', minutes: 1 };
    else if (h('incidence') >= group.incidenceRate) outcome = { status: 'Terminate', minutes: loiMinutes * 0.25 };
    else if (h('dropout') >= 1 - dropOffRate) outcome = { status: 'Terminate', minutes: null };
    else if (h('financial') < this.config.financialTermRate) outcome = { status: 'FinancialTerm', minutes: loiMinutes };
    else outcome = { status: 'Complete', minutes: loiMinutes * (0.8 + 0.4 * h('duration')) };
    if (outcome.minutes === null) {
      this.schedule({ target_group_id: group.id, session_id: session.session_id, at_ms: atMs + ABANDONED_SESSION_TIMEOUT_MS, status: 'Terminate', kind: 'finish' });
      return;
    }
    const afterMs = (outcome.minutes * MINUTE_MS) / this.config.speed;
    this.schedule({
      target_group_id: group.id, session_id: session.session_id, at_ms: atMs + Math.max(1, Math.round(afterMs)), status: outcome.status, kind: 'finish',
      length_of_interview_seconds: Math.max(1, Math.round(outcome.minutes * 60)),
    });
    if (outcome.status === 'Complete' && this.softCapped(group)) this.stopSoftArrivals(group);
  }

  private draw(group: SimulatedTargetGroup, arrivalIndex: number): { identity: RespondentIdentity; quotaTargetKeys: string[] } | undefined {
    const inGroup = this.respondentsByGroup.get(group.id) ?? new Set<string>();
    const recontact = group.recontactIds ? this.recontactList(group) : null;
    if (recontact ? inGroup.size >= recontact.length : inGroup.size >= this.config.poolSize) return undefined;
    for (let attempt = 0; attempt < MAX_DRAW_ATTEMPTS; attempt++) {
      const u = unitHash(this.config.seed, group.id, 'who', arrivalIndex, attempt);
      let rsid: string;
      let index: number;
      if (recontact) {
        rsid = recontact[Math.floor(u * recontact.length)];
        index = panelIndexOfRsid(group.market.locale, rsid) ?? hashString(rsid) % this.config.poolSize;
      } else {
        index = Math.floor(u * this.config.poolSize);
        rsid = respondentRsid(group.market.locale, index);
      }
      if (inGroup.has(rsid) || (this.inSurvey.get(rsid) ?? 0) > 0) continue;
      const qualification = qualifyRespondent(group.profiles, group.market.locale, index, group.market);
      if (!qualification.qualifies) continue;
      if (group.quotaFill && !this.passesQuotaFill(group, qualification.quotaTargetKeys, arrivalIndex, attempt)) continue;
      return { identity: { rsid, access_respondent_guid: accessRespondentGuidOf(rsid) }, quotaTargetKeys: qualification.quotaTargetKeys };
    }
    return undefined;
  }

  /** The recontact rsids, sorted (ids outside the locale's panel act as extra respondents). */
  private recontactList(group: SimulatedTargetGroup): string[] {
    let list = this.recontactLists.get(group.id);
    if (!list) {
      list = [...group.recontactIds!].sort();
      this.recontactLists.set(group.id, list);
    }
    return list;
  }

  /** A drawn respondent enters with the product of the fills of the quota targets they count for. */
  private passesQuotaFill(group: SimulatedTargetGroup, quotaTargetKeys: readonly string[], arrivalIndex: number, attempt: number): boolean {
    const fill = quotaTargetKeys.reduce((product, key) => product * (group.quotaFill![key] ?? 1), 1);
    return fill >= 1 || unitHash(this.config.seed, group.id, 'quota-fill', arrivalIndex, attempt) < fill;
  }

  /**
   * A quota target the respondent counts for is full: its goal, or (inSoftLaunch) its soft launch share, counting at
   * entry (withPending) the respondents in the survey who will complete for it.
   */
  private quotaFull(group: SimulatedTargetGroup, quotaTargetKeys: readonly string[], inSoftLaunch: boolean, withPending = false): boolean {
    return quotaTargetKeys.some((key) => {
      const [profileId, targetId] = key.split('/');
      const goal = group.profiles.find((profile) => profile.id === profileId)?.targets.find((target) => target.id === targetId)?.quota.completes_goal;
      if (goal === null || goal === undefined) return false;
      const cap = inSoftLaunch && group.softLaunch ? Math.ceil(goal * group.softLaunch.quotaShare) : goal;
      const pending = withPending && inSoftLaunch && group.softLaunch ? this.pendingQuotaCompletes.get(`${group.id}|${key}`) ?? 0 : 0;
      return (this.quotaCompletes.get(`${group.id}|${key}`) ?? 0) + pending >= cap;
    });
  }

  private applyTransition(transition: ScheduledTransition): void {
    const group = this.groups.get(transition.target_group_id);
    const session = this.getSession(transition.target_group_id, transition.session_id);
    if (!session) return;
    this.pend(transition, -1);
    let status = transition.status;
    if (transition.kind === 'finish' && status === 'Complete') {
      // Respondents who entered during a running soft launch count against its caps.
      const inSoftLaunch = !!group?.softLaunch && Date.parse(session.entry_date) < group.softLaunch.endAtMs;
      const goal = Math.min(group?.fillingGoal ?? Infinity, inSoftLaunch ? group!.softLaunch!.goal : Infinity);
      if ((this.completes.get(transition.target_group_id) ?? 0) >= goal || (group && this.quotaFull(group, session.quota_target_ids, inSoftLaunch))) status = 'OverQuota';
    }
    if (session.status === status) return;
    this.transition(transition.target_group_id, transition.session_id, status, transition.at_ms, transition.length_of_interview_seconds);
    if (transition.kind === 'finish' && transition.status === 'Complete' && status !== 'Complete' && group) this.resumeSoftArrivals(group, transition.at_ms);
    if (status === 'Complete' && transition.kind === 'finish') {
      const u = unitHash(this.config.seed, transition.target_group_id, transition.session_id, 'reconcile');
      if (u < this.config.reconciliationRate) {
        this.schedule({ ...transition, kind: 'reconcile', status: 'Terminate', at_ms: transition.at_ms + Math.max(1, Math.round(DAY_MS / this.config.speed)) });
      }
      if (group && (this.completes.get(group.id) ?? 0) >= group.fillingGoal) this.reachGoal(group.id, this.state.cursors[group.id]);
      else if (group && this.softCapped(group)) this.stopSoftArrivals(group);
    }
  }

  /** A respondent counted to complete did not (OverQuota): arrivals stopped by the soft launch's cap go on from then. */
  private resumeSoftArrivals(group: SimulatedTargetGroup, atMs: number): void {
    const cursor = this.state.cursors[group.id];
    if (!group.live || !group.softLaunch || !cursor?.soft_stopped || cursor.soft_stopped_at_end_ms !== undefined || cursor.goal_reached || this.softCapped(group)) return;
    delete cursor.soft_stopped;
    cursor.next_arrival_ms = this.cutAtSoftEnd(group, this.nextArrivalTime(group, atMs, cursor.arrival_index));
  }

  private transition(groupId: string, sessionId: string, status: TerminalStatus, atMs: number, lengthOfInterviewSeconds?: number): void {
    const position = this.sessionIndex.get(groupId)!.get(sessionId)!;
    const sessions = this.state.sessions[groupId];
    const before = sessions[position];
    const group = this.groups.get(groupId);
    const after = changeSessionStatus(before, status, atMs, status === 'Complete' && group ? moneyFromMinorUnits(group.cpiMinorUnits) : null);
    if (lengthOfInterviewSeconds !== undefined) after.length_of_interview_seconds = lengthOfInterviewSeconds;
    this.record(before, -1);
    this.record(after, +1);
    sessions[position] = after;
    this.updates.push(after);
  }

  private addSession(groupId: string, session: SessionRecord): void {
    const sessions = (this.state.sessions[groupId] ??= []);
    const index = this.sessionIndex.get(groupId) ?? new Map<string, number>();
    this.sessionIndex.set(groupId, index);
    index.set(session.session_id, sessions.length);
    sessions.push(session);
    const respondents = this.respondentsByGroup.get(groupId) ?? new Set<string>();
    respondents.add(session.respondent_id);
    this.respondentsByGroup.set(groupId, respondents);
    this.record(session, +1);
    this.updates.push(session);
  }

  private getSession(groupId: string, sessionId: string): SessionRecord | undefined {
    const position = this.sessionIndex.get(groupId)?.get(sessionId);
    return position === undefined ? undefined : this.state.sessions[groupId][position];
  }

  private schedule(transition: ScheduledTransition): void {
    this.pend(transition, +1);
    const list = this.state.scheduled;
    let low = 0;
    let high = list.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      const other = list[mid];
      if (other.at_ms < transition.at_ms || (other.at_ms === transition.at_ms && other.session_id <= transition.session_id)) low = mid + 1;
      else high = mid;
    }
    list.splice(low, 0, transition);
  }
}

/**
 * Runs the simulation from where it stopped up to `toMs` (simulated time), mutating `state`.
 * Target groups not in `groups` keep their sessions; their scheduled transitions still apply.
 */
export function advanceFielding(state: FieldingState, groups: readonly SimulatedTargetGroup[], toMs: number, config: FieldingConfig = DEFAULT_FIELDING_CONFIG, maxEvents = 200_000): AdvanceResult {
  return new Simulation(state, new Map(groups.map((group) => [group.id, group])), config).run(toMs, maxEvents);
}

/**
 * A session's id, its RID: a UUID as the reference gives RIDs (e.g. the fulfillment transition's `id`), derived from
 * the seed, the target group and the arrival, so a run of the simulation gives the same RIDs again.
 */
export function sessionRid(seed: number | string, targetGroupId: string, arrivalIndex: number): string {
  const hex = [0, 1, 2, 3].map((part) => hashString(`${seed}|${targetGroupId}|${arrivalIndex}|${part}`).toString(16).padStart(8, '0')).join('');
  // Version 8 (custom) and the RFC 9562 variant, so it reads as a well-formed UUID.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
