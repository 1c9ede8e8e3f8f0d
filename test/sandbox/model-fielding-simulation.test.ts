import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { advanceFielding, DEFAULT_FIELDING_CONFIG, emptyFieldingState, type FieldingConfig, type FieldingState, type SimulatedTargetGroup } from '../../sandbox/model/fielding-simulation';
import { findLocaleMarket } from '../../sandbox/model/locale-markets';
import { validateProfiles } from '../../sandbox/model/profile-validation';
import { exclusionReason } from '../../sandbox/model/respondent-eligibility';
import type { SessionRecord } from '../../sandbox/model/session-record';
import { qualifyRespondent, respondentIdentity } from '../../sandbox/model/synthetic-respondents';
import { quotaCounters, summarizePerformance } from '../../sandbox/model/target-group-performance';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-03-02T00:00:00Z');
const usa = findLocaleMarket('en_US')!;
const config: FieldingConfig = { ...DEFAULT_FIELDING_CONFIG, poolSize: 400, speed: 1, seed: 'test-seed' };

function group(overrides: Partial<SimulatedTargetGroup> = {}): SimulatedTargetGroup {
  return {
    id: 'tg-a', account_id: 1001, project_id: 'prj-1', market: usa, live: true, liveSinceMs: null,
    incidenceRate: 0.6, lengthOfInterviewMinutes: 10, fillingGoal: 50, profiles: [], supplierIds: [], cpiMinorUnits: 250,
    activityExclusions: [], excludedIds: new Set(), exclusionGroupPeers: new Set(), recontactIds: null,
    ...overrides,
  };
}

function run(groups: SimulatedTargetGroup[], untilMs: number, state: FieldingState = emptyFieldingState(), cfg = config) {
  state.last_advanced_ms ??= T0;
  const result = advanceFielding(state, groups, untilMs, cfg);
  return { state, result };
}

const sessionsOf = (state: FieldingState, id: string): SessionRecord[] => state.sessions[id] ?? [];
const count = (sessions: SessionRecord[], status: string) => sessions.filter((session) => session.status === status).length;

describe('fielding simulation', () => {
  it('collects sessions over time and stops at the filling goal; completes never exceed it', () => {
    const { state, result } = run([group()], T0 + 2 * DAY);
    const sessions = sessionsOf(state, 'tg-a');
    expect(count(sessions, 'Complete')).toBe(50);
    expect(result.goalReached).toEqual(['tg-a']);
    expect(state.cursors['tg-a']).toMatchObject({ goal_reached: true, next_arrival_ms: null });
    // More time adds no completes.
    const later = advanceFielding(state, [group()], T0 + 5 * DAY, config);
    expect(count(sessionsOf(state, 'tg-a'), 'Complete')).toBeLessThanOrEqual(50);
    expect(later.goalReached).toEqual([]);
  });

  it('is deterministic and independent of how time is chunked (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 6 * HOUR }), { minLength: 1, maxLength: 12 }), (steps) => {
        const whole = run([group({ fillingGoal: 30 })], T0 + steps.reduce((a, b) => a + b, 0)).state;
        const chunked = emptyFieldingState();
        let at = T0;
        for (const step of steps) {
          at += step;
          run([group({ fillingGoal: 30 })], at, chunked);
        }
        expect(chunked.sessions).toEqual(whole.sessions);
      }),
      { numRuns: 30 },
    );
  });

  it('a different seed gives different sessions', () => {
    const a = run([group()], T0 + DAY).state;
    const b = run([group()], T0 + DAY, emptyFieldingState(), { ...config, seed: 'other' }).state;
    expect(a.sessions['tg-a'].map((session) => session.respondent_id)).not.toEqual(b.sessions['tg-a'].map((session) => session.respondent_id));
  });

  it('produces every respondent status over a long, hard study, and reconciles some completes', () => {
    const hard = group({ fillingGoal: 5000, incidenceRate: 0.4, lengthOfInterviewMinutes: 25, excludedIds: new Set(Array.from({ length: 40 }, (_, i) => respondentIdentity('en_US', i).rsid)) });
    const { state, result } = run([hard], T0 + 10 * DAY, emptyFieldingState(), { ...config, poolSize: 4000 });
    const sessions = sessionsOf(state, 'tg-a');
    for (const status of ['Complete', 'Terminate', 'SecurityFailure', 'FinancialTerm', 'PreClientSurveyProcess']) expect(count(sessions, status)).toBeGreaterThan(0);
    const reconciled = result.updates.filter((update, index) => update.status === 'Terminate' && result.updates.slice(0, index).some((earlier) => earlier.session_id === update.session_id && earlier.status === 'Complete'));
    expect(reconciled.length).toBeGreaterThan(0);
    for (const update of reconciled) {
      const completion = result.updates.find((earlier) => earlier.session_id === update.session_id && earlier.status === 'Complete')!;
      expect(update.respondent_last_date_change).toBe(completion.respondent_last_date_change);
      expect(Date.parse(update.respondent_update_date)).toBeGreaterThan(Date.parse(completion.respondent_update_date));
    }
  });

  it('fills quotas per target and answers OverQuota once a target is full', () => {
    const profiles = validateProfiles([{ object: 'regular', id: 'g', name: 'Gender', quotas_enabled: true, targets: [
      { id: 'm', conditions: [{ object: 'selection', question_id: 43, option: '1' }], quota: { completes_goal: 5 } },
      { id: 'f', conditions: [{ object: 'selection', question_id: 43, option: '2' }], quota: { completes_goal: 55 } },
    ] }], { locale: 'en_US', fillingGoal: 60, newId: () => 'x' });
    const { state } = run([group({ profiles, fillingGoal: 60 })], T0 + 3 * DAY);
    const sessions = sessionsOf(state, 'tg-a');
    const counters = quotaCounters(sessions);
    const [male, female] = profiles[0].targets.map((target) => counters.get(`${profiles[0].id}/${target.id}`)!);
    expect(male.completes).toBeGreaterThan(0);
    expect(male.completes).toBeLessThanOrEqual(5);
    expect(female.completes).toBeLessThanOrEqual(55);
    expect(male.completes + female.completes).toBe(count(sessions, 'Complete'));
    expect(count(sessions, 'OverQuota')).toBeGreaterThan(0);
    // Only respondents who qualify (gender 1 or 2) enter.
    for (const session of sessions) expect(session.quota_target_ids).toHaveLength(1);
  });

  it('excluded IDs never complete: they end as PreClientSurveyProcess', () => {
    const excluded = new Set(Array.from({ length: 200 }, (_, i) => respondentIdentity('en_US', i * 2).rsid));
    const { state } = run([group({ excludedIds: excluded, fillingGoal: 80 })], T0 + 3 * DAY);
    const sessions = sessionsOf(state, 'tg-a');
    const fromExcluded = sessions.filter((session) => excluded.has(session.respondent_id));
    expect(fromExcluded.length).toBeGreaterThan(0);
    expect(fromExcluded.every((session) => session.status === 'PreClientSurveyProcess')).toBe(true);
    expect(sessions.filter((session) => !excluded.has(session.respondent_id) && session.status === 'PreClientSurveyProcess')).toHaveLength(0);
  });

  it('an access respondent GUID on the list excludes too', () => {
    const identity = respondentIdentity('en_US', 7);
    expect(exclusionReason(identity, [], { excludedIds: new Set([identity.access_respondent_guid]), activityExclusions: [], exclusionGroupPeers: new Set() }, T0)).toBe('id_exclusion');
  });

  it('honours activity exclusions: completes in the referenced target group within the window keep respondents out', () => {
    const pool = { ...config, poolSize: 120 };
    const state = emptyFieldingState();
    run([group({ id: 'tg-a', fillingGoal: 40 })], T0 + 2 * DAY, state, pool);
    const completedA = new Set(sessionsOf(state, 'tg-a').filter((session) => session.status === 'Complete').map((session) => session.respondent_id));
    expect(completedA.size).toBe(40);
    const b = group({ id: 'tg-b', fillingGoal: 30, activityExclusions: [{ type: 'target_group', id: 'tg-a', statuses: ['Complete'], durationDays: 30 }] });
    run([group({ id: 'tg-a', fillingGoal: 40, live: false }), b], T0 + 6 * DAY, state, pool);
    const inB = sessionsOf(state, 'tg-b');
    const returning = inB.filter((session) => completedA.has(session.respondent_id));
    expect(returning.length).toBeGreaterThan(0);
    expect(returning.every((session) => session.status === 'PreClientSurveyProcess')).toBe(true);
  });

  it('activity exclusions look back only over their duration, and by project as well', () => {
    const identity = respondentIdentity('en_US', 1);
    const history = [{ project_id: 'p', target_group_id: 't', status: 'Complete' as const, at_ms: T0 }];
    const rules = (durationDays: number, type: 'project' | 'target_group' = 'project', statuses = ['Complete']) => ({ excludedIds: new Set<string>(), activityExclusions: [{ type, id: type === 'project' ? 'p' : 't', statuses, durationDays }], exclusionGroupPeers: new Set<string>() });
    expect(exclusionReason(identity, history, rules(30), T0 + 29 * DAY)).toBe('activity_exclusion');
    expect(exclusionReason(identity, history, rules(30), T0 + 31 * DAY)).toBeNull();
    expect(exclusionReason(identity, history, rules(30, 'target_group', ['Terminate']), T0 + DAY)).toBeNull();
    expect(exclusionReason(identity, history, { excludedIds: new Set(), activityExclusions: [], exclusionGroupPeers: new Set(['t']) }, T0 + 400 * DAY)).toBe('exclusion_group');
  });

  it('exclusion groups: completing one member keeps the respondent out of the others', () => {
    const pool = { ...config, poolSize: 100 };
    const state = emptyFieldingState();
    run([group({ id: 'tg-a', fillingGoal: 40, exclusionGroupPeers: new Set(['tg-b']) })], T0 + 2 * DAY, state, pool);
    const completedA = new Set(sessionsOf(state, 'tg-a').filter((session) => session.status === 'Complete').map((session) => session.respondent_id));
    run([group({ id: 'tg-b', fillingGoal: 40, exclusionGroupPeers: new Set(['tg-a']) })], T0 + 6 * DAY, state, pool);
    const returning = sessionsOf(state, 'tg-b').filter((session) => completedA.has(session.respondent_id));
    expect(returning.length).toBeGreaterThan(0);
    expect(returning.every((session) => session.status === 'PreClientSurveyProcess')).toBe(true);
  });

  it('paused (not live) target groups get no arrivals; resuming continues', () => {
    const state = emptyFieldingState();
    run([group({ live: false })], T0 + DAY, state);
    expect(sessionsOf(state, 'tg-a')).toHaveLength(0);
    run([group()], T0 + 2 * DAY, state);
    expect(sessionsOf(state, 'tg-a').length).toBeGreaterThan(0);
    expect(Date.parse(sessionsOf(state, 'tg-a')[0].entry_date)).toBeGreaterThan(T0 + DAY);
  });

  it('recontact studies draw only from the recontact list', () => {
    const allowed = new Set([3, 5, 8, 13, 21].map((i) => respondentIdentity('en_US', i).rsid));
    const { state } = run([group({ recontactIds: allowed, fillingGoal: 5, incidenceRate: 1 })], T0 + 3 * DAY);
    const sessions = sessionsOf(state, 'tg-a');
    expect(sessions.length).toBeGreaterThan(0);
    expect(sessions.every((session) => allowed.has(session.respondent_id))).toBe(true);
  });

  it('a respondent is never in two surveys at once, nor twice in one target group', () => {
    const { state } = run([group({ id: 'tg-a', fillingGoal: 200 }), group({ id: 'tg-b', fillingGoal: 200 })], T0 + 2 * DAY, emptyFieldingState(), { ...config, poolSize: 300, speed: 5 });
    for (const id of ['tg-a', 'tg-b']) {
      const respondents = sessionsOf(state, id).map((session) => session.respondent_id);
      expect(new Set(respondents).size).toBe(respondents.length);
    }
    const spans = [...sessionsOf(state, 'tg-a'), ...sessionsOf(state, 'tg-b')]
      .filter((session) => session.respondent_last_date_change)
      .map((session) => ({ who: session.respondent_id, from: Date.parse(session.entry_date), to: Date.parse(session.respondent_last_date_change!) }));
    for (const a of spans) for (const b of spans) if (a !== b && a.who === b.who) expect(a.to <= b.from || b.to <= a.from).toBe(true);
  });

  it('qualified respondents really match the profiles', () => {
    const profiles = validateProfiles([{ object: 'regular', name: 'Age', quotas_enabled: false, targets: [{ conditions: [{ object: 'range', question_id: 42, min: 18, max: 24 }] }] }], { locale: 'en_US', fillingGoal: 10, newId: () => 'id' });
    const qualifying = Array.from({ length: 2000 }, (_, i) => qualifyRespondent(profiles, 'en_US', i, usa).qualifies).filter(Boolean).length;
    expect(qualifying / 2000).toBeGreaterThan(0.08);
    expect(qualifying / 2000).toBeLessThan(0.16);
  });
});

describe('summarizePerformance', () => {
  it('gives the reference\'s TargetGroupPerformance: counts, cost in the version format, complete dates, rates and respondents by status', () => {
    const { state } = run([group({ fillingGoal: 20 })], T0 + DAY);
    const sessions = sessionsOf(state, 'tg-a');
    const current = summarizePerformance(sessions, '2025-12-18');
    const completes = count(sessions, 'Complete');
    expect(completes).toBeGreaterThan(0);
    expect(current).toMatchObject({ entrants: sessions.length, prescreens: sessions.length - count(sessions, 'PreClientSurveyProcess'), completes });
    expect(current.completes_cost).toEqual({ value: `${(completes * 2.5).toFixed(2)}`, currency_code: 'USD', currency_scale: 2 });
    expect(summarizePerformance(sessions, '2025-05-27').completes_cost).toEqual({ value: completes * 250, currency_code: 'USD', currency_scale: 2 });
    const completedAt = sessions.filter((s) => s.status === 'Complete').map((s) => Date.parse(s.respondent_update_date));
    expect(Date.parse(current.first_complete!)).toBe(Math.min(...completedAt));
    expect(Date.parse(current.last_complete!)).toBe(Math.max(...completedAt));
    const round = (n: number) => Math.round(n * 10_000) / 10_000;
    expect(current.conversion_rate).toBe(round(completes / sessions.length));
    expect(current.drop_off_rate).toBe(round(count(sessions, 'Started') / sessions.length));
    expect(current.incidence_rate).toBe(round(completes / (completes + count(sessions, 'Terminate'))));
    const live = current.respondent_analysis.live;
    expect(live.map((s) => s.status)).toEqual(['In Survey', 'Complete', 'Terminate', 'OverQuota', 'SecurityFailure', 'FinancialTerm', 'PreClientSurveyProcess']);
    expect(live.reduce((n, s) => n + s.count, 0)).toBe(sessions.length);
    expect(live.find((s) => s.status === 'Complete')!.count).toBe(completes);
    expect(live.every((s) => s.label && s.description)).toBe(true);
    expect(current.respondent_analysis.test).toEqual([]);
  });

  it('has no complete dates or rates before anyone entered', () => {
    expect(summarizePerformance([], '2025-12-18')).toEqual({
      entrants: 0, prescreens: 0, completes: 0, completes_cost: { value: '0.00', currency_code: 'USD', currency_scale: 2 },
      respondent_analysis: { live: expect.arrayContaining([expect.objectContaining({ status: 'Complete', count: 0 })]), test: [] },
    });
  });
});
