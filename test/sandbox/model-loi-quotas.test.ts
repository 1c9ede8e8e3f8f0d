// The fielding simulation's lengths of interview, drop-outs, quota fills and soft launches (issue 38, the sandbox's
// part; docs/sandbox.md › Fielding simulation): each finished session records the length of its interview drawn around
// the group's LOI, the median of the completes' is the overview's median_length_of_interview_seconds, a drop-out stays
// in the survey until its session times out, a quota fill thins the arrivals of one quota target, and a running soft
// launch caps completes (and each quota's share) and lets no one in from its end_at. Deterministic for a seed, however
// time is chunked.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ABANDONED_SESSION_TIMEOUT_MS, advanceFielding, DEFAULT_FIELDING_CONFIG, emptyFieldingState, softLaunchRun, type FieldingConfig, type FieldingState, type SimulatedTargetGroup,
} from '../../sandbox/model/fielding-simulation';
import { findLocaleMarket } from '../../sandbox/model/locale-markets';
import { validateProfiles } from '../../sandbox/model/profile-validation';
import { sessionForVersion, type SessionRecord } from '../../sandbox/model/session-record';
import { medianLengthOfInterviewSeconds, quotaCounters, sessionRates } from '../../sandbox/model/target-group-performance';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-03-02T00:00:00Z');
const usa = findLocaleMarket('en_US')!;
const config: FieldingConfig = { ...DEFAULT_FIELDING_CONFIG, poolSize: 3000, speed: 1, seed: 'loi-seed' };

function group(overrides: Partial<SimulatedTargetGroup> = {}): SimulatedTargetGroup {
  return {
    id: 'tg-a', account_id: 1001, project_id: 'prj-1', market: usa, live: true, liveSinceMs: null,
    incidenceRate: 0.6, lengthOfInterviewMinutes: 10, fillingGoal: 60, profiles: [], supplierIds: [], cpiMinorUnits: 250,
    activityExclusions: [], excludedIds: new Set(), exclusionGroupPeers: new Set(), recontactIds: null,
    ...overrides,
  };
}

function run(groups: SimulatedTargetGroup[], untilMs: number, state: FieldingState = emptyFieldingState(), cfg = config) {
  state.last_advanced_ms ??= T0;
  const result = advanceFielding(state, groups, untilMs, cfg);
  return { state, result };
}

const sessionsOf = (state: FieldingState, id = 'tg-a'): SessionRecord[] => state.sessions[id] ?? [];
const withStatus = (sessions: SessionRecord[], status: string) => sessions.filter((s) => s.status === status);
const lengthOf = (s: SessionRecord) => s.length_of_interview_seconds;
const spentSeconds = (s: SessionRecord) => (Date.parse(s.respondent_last_date_change!) - Date.parse(s.entry_date)) / 1000;

const genderProfiles = (male: number, female: number, goal: number) =>
  validateProfiles([{ object: 'regular', id: 'g', name: 'Gender', quotas_enabled: true, targets: [
    { id: 'm', conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { completes_goal: male } },
    { id: 'f', conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { completes_goal: female } },
  ] }], { locale: 'en_US', fillingGoal: goal, newId: () => 'x' });

describe('length of interview per session', () => {
  it('a complete takes 0.8-1.2 x the LOI, a screen-out a quarter of it, a quota-full or security failure a minute; none before the survey', () => {
    const { state } = run([group({ fillingGoal: 400, incidenceRate: 0.5 })], T0 + 6 * HOUR);
    const sessions = sessionsOf(state);
    const completes = withStatus(sessions, 'Complete');
    expect(completes.length).toBeGreaterThan(50);
    for (const s of completes) {
      expect(lengthOf(s)).toBeGreaterThanOrEqual(0.8 * 600);
      expect(lengthOf(s)).toBeLessThanOrEqual(1.2 * 600);
      // At speed 1 the session lasts its length of interview (to the millisecond's rounding).
      expect(Math.abs(spentSeconds(s) - lengthOf(s)!)).toBeLessThanOrEqual(1);
    }
    // The lengths are drawn, not one value.
    expect(new Set(completes.map(lengthOf)).size).toBeGreaterThan(completes.length / 2);
    for (const s of withStatus(sessions, 'Terminate')) expect(lengthOf(s)).toBe(150);
    for (const s of withStatus(sessions, 'SecurityFailure')) expect(lengthOf(s)).toBe(60);
    for (const s of withStatus(sessions, 'FinancialTerm')) expect(lengthOf(s)).toBe(600);
    for (const s of [...withStatus(sessions, 'Started'), ...withStatus(sessions, 'PreClientSurveyProcess')]) expect(s).not.toHaveProperty('length_of_interview_seconds');
    expect(withStatus(sessions, 'SecurityFailure').length + withStatus(sessions, 'Terminate').length).toBeGreaterThan(0);
  });

  it('speed shortens the simulated session, never the recorded length of interview', () => {
    const fast = run([group({ fillingGoal: 100 })], T0 + HOUR, emptyFieldingState(), { ...config, speed: 60 }).state;
    const completes = withStatus(sessionsOf(fast), 'Complete');
    expect(completes.length).toBeGreaterThan(10);
    for (const s of completes) {
      expect(lengthOf(s)).toBeGreaterThanOrEqual(480);
      expect(spentSeconds(s)).toBeLessThanOrEqual(Math.ceil(lengthOf(s)! / 60) + 1);
    }
  });

  it('an actual LOI (admin) replaces the expected one for the draws: the median follows it', () => {
    const expected = run([group({ fillingGoal: 200 })], T0 + 12 * HOUR).state;
    const longer = run([group({ fillingGoal: 200, actualLengthOfInterviewMinutes: 30, dropOffRate: 0 })], T0 + 12 * HOUR).state;
    const median = (state: FieldingState) => medianLengthOfInterviewSeconds(sessionsOf(state))!;
    expect(median(expected)).toBeGreaterThan(0.9 * 600);
    expect(median(expected)).toBeLessThan(1.1 * 600);
    expect(median(longer)).toBeGreaterThan(0.9 * 1800);
    expect(median(longer)).toBeLessThan(1.1 * 1800);
  });

  it('the median: the middle complete, the rounded mean of the two middle ones, null without completes; other statuses and reversed completes are left out', () => {
    const session = (status: SessionRecord['status'], seconds?: number): SessionRecord => ({
      session_id: `s${seconds}`, account_id: 1, project_id: 'p', target_group_id: 't', supplier_id: 1, respondent_id: 'r', status,
      entry_date: '2026-01-01T00:00:00.000Z', respondent_update_date: '2026-01-01T00:10:00.000Z', respondent_last_date_change: '2026-01-01T00:10:00.000Z',
      quota_target_ids: [], cost_per_interview: null, ...(seconds === undefined ? {} : { length_of_interview_seconds: seconds }),
    });
    expect(medianLengthOfInterviewSeconds([])).toBeNull();
    expect(medianLengthOfInterviewSeconds([session('Terminate', 100), session('Started')])).toBeNull();
    expect(medianLengthOfInterviewSeconds([session('Complete', 500), session('Complete', 700), session('Complete', 600), session('Terminate', 1)])).toBe(600);
    expect(medianLengthOfInterviewSeconds([session('Complete', 500), session('Complete', 601)])).toBe(551);
    expect(medianLengthOfInterviewSeconds([session('Complete', 500), session('OverQuota', 60), session('FinancialTerm', 9000), session('Complete', 700)])).toBe(600);
  });

  it('webhook deliveries leave the length out (the session record they carry is unchanged); admin reads keep it', () => {
    const { state } = run([group({ fillingGoal: 20 })], T0 + 3 * HOUR);
    const complete = withStatus(sessionsOf(state), 'Complete')[0];
    expect(complete.length_of_interview_seconds).toBeGreaterThan(0);
    expect(sessionForVersion(complete, '2025-12-18')).not.toHaveProperty('length_of_interview_seconds');
    expect(sessionForVersion(complete, '2025-02-17')).not.toHaveProperty('length_of_interview_seconds');
    expect(Object.keys(sessionForVersion(complete, '2025-12-18')).sort()).toEqual([
      'account_id', 'cost_per_interview', 'entry_date', 'project_id', 'quota_target_ids', 'respondent_id', 'respondent_last_date_change', 'respondent_update_date', 'session_id', 'status', 'supplier_id', 'target_group_id',
    ]);
  });
});

describe('drop-off', () => {
  it('a drop-out stays in the survey (Started, the drop-off rate) until its session times out a day after entry, then Terminate without a length', () => {
    const all = group({ fillingGoal: 100, incidenceRate: 1, dropOffRate: 1 });
    const { state } = run([all], T0 + 6 * HOUR);
    const sessions = sessionsOf(state);
    const entered = sessions.filter((s) => s.status !== 'PreClientSurveyProcess' && s.status !== 'SecurityFailure' && s.status !== 'OverQuota');
    expect(entered.length).toBeGreaterThan(20);
    expect(entered.every((s) => s.status === 'Started')).toBe(true);
    expect(withStatus(sessions, 'Complete')).toHaveLength(0);
    expect(sessionRates(sessions).drop_off_rate).toBe(Math.round((withStatus(sessions, 'Started').length / sessions.length) * 10_000) / 10_000);
    expect(sessionRates(sessions).drop_off_rate).toBeGreaterThan(0.9);
    advanceFielding(state, [{ ...all, live: false }], T0 + 6 * HOUR + DAY, config);
    for (const s of entered.map((e) => sessionsOf(state).find((x) => x.session_id === e.session_id)!)) {
      expect(s.status).toBe('Terminate');
      expect(Date.parse(s.respondent_last_date_change!) - Date.parse(s.entry_date)).toBe(ABANDONED_SESSION_TIMEOUT_MS);
      expect(s).not.toHaveProperty('length_of_interview_seconds');
    }
  });

  it('a drop-off rate (admin) replaces the one the LOI gives: 0 keeps every screened-in respondent of a long survey', () => {
    const long = group({ fillingGoal: 1000, lengthOfInterviewMinutes: 40, incidenceRate: 1 });
    const natural = sessionsOf(run([long], T0 + 4 * HOUR).state);
    const none = sessionsOf(run([{ ...long, dropOffRate: 0 }], T0 + 4 * HOUR).state);
    // 40 minutes: (10/40)^0.9 of the screened-in finish, the rest drop out and stay Started.
    expect(withStatus(natural, 'Started').length).toBeGreaterThan(withStatus(none, 'Started').length * 3);
    expect(sessionRates(none).drop_off_rate!).toBeLessThan(sessionRates(natural).drop_off_rate!);
  });
});

describe('quota fill', () => {
  it('a quota fill of 0.2 thins the arrivals of that quota target: it falls behind while the total fills from the other', () => {
    const profiles = genderProfiles(100, 100, 200);
    // 45 minutes: before either quota target is full.
    const even = sessionsOf(run([group({ profiles, fillingGoal: 200 })], T0 + 45 * MINUTE).state);
    const thin = sessionsOf(run([group({ profiles, fillingGoal: 200, quotaFill: { 'g/m': 0.2 } })], T0 + 45 * MINUTE).state);
    const share = (sessions: SessionRecord[]) => sessions.filter((s) => s.quota_target_ids.includes('g/m')).length / sessions.length;
    expect(share(even)).toBeGreaterThan(0.35);
    expect(share(thin)).toBeLessThan(share(even) / 2);
    const counters = quotaCounters(thin);
    expect(counters.get('g/f')!.completes).toBeLessThan(100);
    expect(counters.get('g/m')!.completes).toBeLessThan(counters.get('g/f')!.completes / 2);
    expect(withStatus(thin, 'Complete').length).toBeGreaterThan(withStatus(even, 'Complete').length * 0.6);
  });

  it('a quota fill of 0 lets no one of that target in', () => {
    const profiles = genderProfiles(100, 100, 200);
    const sessions = sessionsOf(run([group({ profiles, fillingGoal: 200, quotaFill: { 'g/f': 0 } })], T0 + 2 * HOUR).state);
    expect(sessions.length).toBeGreaterThan(20);
    expect(sessions.some((s) => s.quota_target_ids.includes('g/f'))).toBe(false);
  });
});

describe('soft launch', () => {
  it('softLaunchRun: the goal is the percentage of the filling goal rounded up (at least 1); the quota share runs from the percentage (strictness 100) to the whole quota (strictness 0)', () => {
    const end = '2026-03-02T06:00:00.000Z';
    expect(softLaunchRun(200, { end_at: end, filling_goal_percentage: 10, demographics_strictness_percentage: 100 })).toEqual({ goal: 20, endAtMs: Date.parse(end), quotaShare: 0.1 });
    expect(softLaunchRun(15, { end_at: end, filling_goal_percentage: 10, demographics_strictness_percentage: 100 }).goal).toBe(2);
    expect(softLaunchRun(5, { end_at: end, filling_goal_percentage: 1, demographics_strictness_percentage: 100 }).goal).toBe(1);
    expect(softLaunchRun(50, { end_at: end, filling_goal_percentage: 100, demographics_strictness_percentage: 100 }).goal).toBe(50);
    expect(softLaunchRun(200, { end_at: end, filling_goal_percentage: 10, demographics_strictness_percentage: 0 }).quotaShare).toBe(1);
    expect(softLaunchRun(200, { end_at: end, filling_goal_percentage: 20, demographics_strictness_percentage: 50 }).quotaShare).toBeCloseTo(0.6, 10);
  });

  it('completes stop at the soft goal and arrivals stop with them; no one enters from end_at; the full goal is never the reason', () => {
    const softLaunch = softLaunchRun(300, { end_at: new Date(T0 + 4 * HOUR).toISOString(), filling_goal_percentage: 10, demographics_strictness_percentage: 100 });
    const { state, result } = run([group({ fillingGoal: 300, softLaunch })], T0 + 3 * HOUR);
    const sessions = sessionsOf(state);
    expect(withStatus(sessions, 'Complete')).toHaveLength(30);
    expect(result.goalReached).toEqual([]);
    expect(state.cursors['tg-a']).toMatchObject({ goal_reached: false, next_arrival_ms: null, soft_stopped: true });
    // Nothing more while the soft launch runs.
    advanceFielding(state, [group({ fillingGoal: 300, softLaunch })], T0 + 8 * HOUR, config);
    expect(withStatus(sessionsOf(state), 'Complete')).toHaveLength(30);
    expect(sessionsOf(state).every((s) => Date.parse(s.entry_date) < softLaunch.endAtMs)).toBe(true);
  });

  it('arrivals stop once the completes in hand and those of respondents still in the survey make the soft goal: none is turned away late, so the incidence read is not skewed', () => {
    const softLaunch = softLaunchRun(1000, { end_at: new Date(T0 + 10 * HOUR).toISOString(), filling_goal_percentage: 10, demographics_strictness_percentage: 100 });
    const sessions = sessionsOf(run([group({ fillingGoal: 1000, incidenceRate: 0.5, softLaunch })], T0 + 4 * HOUR).state);
    expect(withStatus(sessions, 'Complete')).toHaveLength(100);
    expect(withStatus(sessions, 'Started')).toHaveLength(0);
    // No OverQuota after a whole interview (a complete turned away at the cap).
    expect(withStatus(sessions, 'OverQuota').filter((s) => lengthOf(s)! > 60)).toHaveLength(0);
    const rates = sessionRates(sessions);
    expect(rates.incidence_rate!).toBeGreaterThan(0.4);
    expect(rates.incidence_rate!).toBeLessThan(0.6);
  });

  it('a short soft launch: no one enters at or after end_at, whatever the fill (inconclusive when too few completed)', () => {
    const softLaunch = softLaunchRun(300, { end_at: new Date(T0 + 10 * MINUTE).toISOString(), filling_goal_percentage: 50, demographics_strictness_percentage: 100 });
    const { state } = run([group({ fillingGoal: 300, softLaunch })], T0 + 2 * HOUR);
    const sessions = sessionsOf(state);
    expect(sessions.length).toBeGreaterThan(0);
    expect(sessions.every((s) => Date.parse(s.entry_date) < softLaunch.endAtMs)).toBe(true);
    expect(withStatus(sessions, 'Complete').length).toBeLessThan(softLaunch.goal);
    expect(state.cursors['tg-a']).toMatchObject({ next_arrival_ms: null, soft_stopped: true, soft_stopped_at_end_ms: softLaunch.endAtMs });
  });

  it('without the module fielding goes on to the full goal, from where the simulation stands', () => {
    const softLaunch = softLaunchRun(120, { end_at: new Date(T0 + 6 * HOUR).toISOString(), filling_goal_percentage: 25, demographics_strictness_percentage: 100 });
    const { state } = run([group({ fillingGoal: 120, softLaunch })], T0 + 3 * HOUR);
    expect(withStatus(sessionsOf(state), 'Complete')).toHaveLength(30);
    const before = sessionsOf(state).length;
    const { result } = run([group({ fillingGoal: 120 })], T0 + 12 * HOUR, state);
    expect(withStatus(sessionsOf(state), 'Complete')).toHaveLength(120);
    expect(result.goalReached).toEqual(['tg-a']);
    // The restart draws no arrival in time already simulated.
    for (const s of sessionsOf(state).slice(before)) expect(Date.parse(s.entry_date)).toBeGreaterThan(T0 + 3 * HOUR);
  });

  it('demographics strictness 100 keeps each quota to its share of the soft goal; 0 lets a thin quota fall behind while the total fills', () => {
    const profiles = genderProfiles(100, 100, 200);
    const end = new Date(T0 + 6 * HOUR).toISOString();
    const strict = softLaunchRun(200, { end_at: end, filling_goal_percentage: 20, demographics_strictness_percentage: 100 });
    const strictSessions = sessionsOf(run([group({ profiles, fillingGoal: 200, softLaunch: strict })], T0 + 5 * HOUR).state);
    const strictCounters = quotaCounters(strictSessions);
    expect(strictCounters.get('g/m')!.completes).toBe(20);
    expect(strictCounters.get('g/f')!.completes).toBe(20);
    expect(withStatus(strictSessions, 'Complete')).toHaveLength(40);
    const loose = softLaunchRun(200, { end_at: end, filling_goal_percentage: 20, demographics_strictness_percentage: 0 });
    const looseSessions = sessionsOf(run([group({ profiles, fillingGoal: 200, softLaunch: loose, quotaFill: { 'g/m': 0.15 } })], T0 + 5 * HOUR).state);
    const looseCounters = quotaCounters(looseSessions);
    expect(withStatus(looseSessions, 'Complete')).toHaveLength(40);
    expect(looseCounters.get('g/m')!.completes).toBeLessThan(20 / 2);
    expect(looseCounters.get('g/f')!.completes).toBeGreaterThan(20);
  });

  it('is deterministic and independent of how time is chunked, with a soft launch, an actual LOI, a drop-off and a quota fill (property)', () => {
    const profiles = genderProfiles(60, 60, 120);
    const softLaunch = softLaunchRun(120, { end_at: new Date(T0 + 5 * HOUR).toISOString(), filling_goal_percentage: 30, demographics_strictness_percentage: 40 });
    const g = group({ profiles, fillingGoal: 120, softLaunch, actualLengthOfInterviewMinutes: 14, dropOffRate: 0.2, quotaFill: { 'g/m': 0.5 } });
    const whole = run([g], T0 + 8 * HOUR).state;
    expect(withStatus(sessionsOf(whole), 'Complete').length).toBeGreaterThan(10);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 2 * HOUR }), { minLength: 1, maxLength: 10 }), (steps) => {
        const chunked = emptyFieldingState();
        let at = T0;
        for (const step of steps) {
          at = Math.min(T0 + 8 * HOUR, at + step);
          run([g], at, chunked);
        }
        run([g], T0 + 8 * HOUR, chunked);
        expect(chunked.sessions).toEqual(whole.sessions);
      }),
      { numRuns: 20 },
    );
    const again = run([g], T0 + 8 * HOUR).state;
    expect(again.sessions).toEqual(whole.sessions);
    const otherSeed = run([g], T0 + 8 * HOUR, emptyFieldingState(), { ...config, seed: 'other' }).state;
    expect(otherSeed.sessions['tg-a'].map(lengthOf)).not.toEqual(whole.sessions['tg-a'].map(lengthOf));
  });
});
