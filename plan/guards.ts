// Guards, judged: a target group's guards in force (DesiredGuard, from the study file) over one reading of
// what the watch reads, with what the guards remember from the readings before. Pure and deterministic, so
// the target-group workflow can call it on every performance reading and on every session event; the
// evidence is counts, money, rates and times only (never a respondent ID). docs/study-format.md, "Guard",
// says what each kind means; the watch's side (pause through the fielding path, status, search attributes,
// notifications) is docs/workflows.md, "Guards, budget and forecast".
import { canonicalJson } from './compare';
import { microsNumber, microsText, moneyText, scaleMicros, toMicros } from './money';
import type { Money } from '../shared/money';
import { RESPONDENT_STATUSES } from '../shared/respondent-status';
import { latestTime } from '../shared/times';
import type { DesiredGuard, GuardHold, GuardKind } from './guard-types';
import { forecastQuotas, mostBehind, type QuotaFigures, type QuotaPace } from './quotas';

export type { GuardHold } from './guard-types';
export { latestTime } from '../shared/times';

/**
 * The performance reading a guard judges: the fields of the watch's PerformanceSnapshot
 * (workflows/messages.ts) that guards use, so a snapshot is a GuardPerformance as it is. From the
 * reference's get_target_group_performance (TargetGroupPerformance).
 */
export interface GuardPerformance {
  /** When the watch read it (workflow time). */
  readAt: string;
  /** `entrants`: respondents who entered the survey. */
  entrants: number;
  /** `completes`. */
  completes: number;
  /** `completes_cost`: the spend so far (the spec's Money). */
  completesCost?: Money;
  /** `last_complete`: when the latest complete came in. */
  lastComplete?: string;
  /** `incidence_rate`, 0–1. */
  incidenceRate?: number;
  /** `drop_off_rate`, 0–1. */
  dropOffRate?: number;
}

/** One reading of a target group, as the watch holds it when a performance reading or a session event arrives. */
export interface GuardReading {
  /** When this reading is judged (workflow time): the performance's readAt, or the session event's arrival. */
  at: string;
  /** The latest performance reading (absent before the first). */
  performance?: GuardPerformance;
  /**
   * Sessions by the first terminal status they reached, counted from session webhook events
   * (TargetGroupStatus.events.sessionsByStatus): `Complete`, `Terminate`, `OverQuota`, ….
   */
  sessionsByStatus?: Record<string, number>;
  /**
   * The fielding run (reference: FieldingRunItem's status) and when it last went live: the launch, or a resume
   * (the latest of TargetGroupStatus.liveAt, resumedAt and guards.resumed.at). Absent: not read.
   */
  fielding?: { status: string; liveSince?: string };
  /**
   * The exchange's own clock, as far as it told it: the latest time the exchange reported with what the watch
   * took (the `respondent_update_date` of the session events, the list's `updated_at`). The reference gives a
   * performance or overview reading no time of its own, so this is a lower bound of the exchange's now; in a
   * simulation (the sandbox's simulated clock) it is the simulation's time. Absent: the exchange told none.
   */
  exchangeAt?: string;
  /**
   * The quotas of the target group (reference: get_profile's quotas, completes and prescreens) and its pace and end
   * date (plan/quotas.ts quotaPaceOf from the fielding forecast): what `quota_behind` judges. Absent: not read.
   */
  quotas?: { figures: QuotaFigures[]; pace: QuotaPace };
}

export type GuardUnit = 'rate' | 'money' | 'duration_ms';

/** Why a guard tripped: what it measured, against what, when, and the figures behind it. */
export interface GuardEvidence {
  guard: string;
  kind: GuardKind;
  action: DesiredGuard['action'];
  /** The reading's time. */
  at: string;
  /** What was measured: a rate (0–1), an amount of money, or milliseconds without a complete. */
  value: number;
  /** The threshold, in the same unit. */
  threshold: number;
  unit: GuardUnit;
  /** The currency of a money guard. */
  currency?: string;
  /** Where the measured figure came from. */
  source: 'performance' | 'sessions' | 'fielding' | 'quotas';
  figures: {
    entrants?: number;
    completes?: number;
    spend?: Money;
    lastComplete?: string;
    silentSince?: string;
    exchangeAt?: string;
    /** quota_behind: the quota most behind, its completes now and forecast at the end date. */
    quota?: { profile: string; quota: string; goal: number; completes: number; completesByEnd: number; end: string };
  };
  /** One line a person reads, e.g. `incidence 0.12 is below 0.175 (0.5 of the expected 0.35) after 240 entrants`. */
  text: string;
}

/**
 * - `ok`: judged, within its threshold;
 * - `tripped`: tripped now or earlier and not resumed (its evidence is the trip's);
 * - `waiting`: not judged yet (too few entrants, no complete yet, the run not live);
 * - `unjudged`: the reading lacks the figure (no performance yet, a spend in another currency);
 * - `acknowledged`: tripped, resumed, and not re-armed yet.
 */
export type GuardState = 'ok' | 'tripped' | 'waiting' | 'unjudged' | 'acknowledged';

export interface GuardOutcome {
  guard: string;
  kind: GuardKind;
  action: DesiredGuard['action'];
  state: GuardState;
  /** One line: the figure against the threshold, or why it was not judged. */
  detail: string;
  evidence?: GuardEvidence;
}

/** What a target group's guards remember between readings; the workflow keeps it and hands it back (plain JSON). */
export interface GuardMemory {
  /** The most completes seen, and the reading at which that count was first seen. */
  completes?: number;
  completesSeenAt?: string;
  guards: Record<
    string,
    {
      /** The guard as it was (canonical JSON): a revision that changes it re-arms it. */
      definition: string;
      tripped?: GuardEvidence;
      /** A resume (`studyflow approve --resume`) of the trip: when, and the entrants then. */
      acknowledged?: { at: string; entrants: number };
    }
  >;
}

export interface GuardEvaluation {
  /** Guards that tripped at this reading (each trips once until it is resumed or changed). */
  tripped: GuardEvidence[];
  /** Every guard tripped and not resumed, the new ones included: what status and search attributes show. */
  active: GuardEvidence[];
  /** One outcome per guard in force, in their order. */
  outcomes: GuardOutcome[];
  /** True when a guard that tripped at this reading pauses: the watch pauses the target group. */
  pause: boolean;
  /** What to hand back with the next reading. */
  memory: GuardMemory;
}

/** The terminal statuses that count as entrants in session counts (the spec's respondent statuses). */
const SESSION_STATUSES = RESPONDENT_STATUSES;

/** Rates and thresholds are compared at 10 decimals, so `0.5 × 0.35` is exactly the 0.175 an API reports. */
const round10 = (x: number) => Math.round(x * 1e10) / 1e10;
const rateText = (x: number) => String(Math.round(x * 10_000) / 10_000);
const percentText = (x: number) => `${Math.round(x * 1_000_000) / 10_000}%`;

/** `2d 3h`, `5h 20m`, `45m`: a span for people. */
export function spanText(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  return [d ? `${d}d` : '', h ? `${h}h` : '', m || (!d && !h) ? `${m}m` : ''].filter(Boolean).join(' ');
}

/** One line per guard for `studyflow plan`, e.g. `low_incidence: incidence below 0.175 (0.5 of the expected 0.35) after 200 entrants; pauses`. */
export function guardText(guard: DesiredGuard): string {
  const does = guard.action === 'pause' ? 'pauses' : 'notifies only';
  switch (guard.kind) {
    case 'incidence_below':
      return `${guard.name}: incidence below ${rateText(round10(guard.fraction * guard.expectedIncidenceRate))} (${guard.fraction} of the expected ${guard.expectedIncidenceRate}) after ${guard.minEntrants} entrants; ${does}`;
    case 'cost_per_complete_above':
      return `${guard.name}: cost per complete above ${moneyText(guard.threshold)}; ${does}`;
    case 'spend_above':
      return `${guard.name}: spend above ${moneyText(guard.threshold)}; ${does}`;
    case 'no_completes_for':
      return `${guard.name}: no complete for ${guard.duration} while live; ${does}`;
    case 'drop_off_above':
      return `${guard.name}: drop-off above ${guard.rate} after ${guard.minEntrants} entrants; ${does}`;
    case 'quota_behind':
      return `${guard.name}: a quota forecast to miss more than ${percentText(guard.shortfallAbove)} of its goal by the end date, after ${guard.minCompletes} completes; ${does}`;
  }
}

/** The figures of a reading, each from the source that has seen more: session counts run ahead of performance readings. */
interface Figures {
  entrants?: number;
  completes?: number;
  incidence?: number;
  source: 'performance' | 'sessions';
}

function figuresOf(reading: GuardReading): Figures {
  const perf = reading.performance;
  const sessions = reading.sessionsByStatus ?? {};
  const sessionEntrants = SESSION_STATUSES.reduce((n, s) => n + (sessions[s] ?? 0), 0);
  const complete = sessions.Complete ?? 0;
  const screened = complete + (sessions.Terminate ?? 0);
  const sessionIncidence = screened > 0 ? complete / screened : undefined;
  const completes = Math.max(perf?.completes ?? 0, complete);
  if (!perf && sessionEntrants === 0) return { source: 'performance' };
  if (!perf || sessionEntrants > perf.entrants) return { entrants: sessionEntrants, completes, incidence: sessionIncidence, source: 'sessions' };
  return { entrants: perf.entrants, completes, incidence: perf.incidenceRate ?? sessionIncidence, source: 'performance' };
}

const later = latestTime;

type Judged = Omit<GuardOutcome, 'guard' | 'kind' | 'action'>;

function judge(guard: DesiredGuard, reading: GuardReading, figures: Figures, memory: GuardMemory, ack: { at: string; entrants: number } | undefined): Judged {
  const base = { guard: guard.name, kind: guard.kind, action: guard.action, at: reading.at };
  const perf = reading.performance;
  switch (guard.kind) {
    case 'incidence_below':
    case 'drop_off_above': {
      const entrants = figures.entrants;
      if (entrants === undefined) return { state: 'unjudged', detail: 'no entrants counted yet' };
      const needed = (ack ? ack.entrants : 0) + guard.minEntrants;
      if (entrants < needed) {
        return ack
          ? { state: 'acknowledged', detail: `resumed at ${ack.entrants} entrants; judged again at ${needed} (now ${entrants})` }
          : { state: 'waiting', detail: `${entrants} of ${guard.minEntrants} entrants` };
      }
      if (guard.kind === 'incidence_below') {
        const threshold = round10(guard.fraction * guard.expectedIncidenceRate);
        if (figures.incidence === undefined) return { state: 'unjudged', detail: 'the reading has no incidence rate' };
        const value = round10(figures.incidence);
        const text = `incidence ${rateText(value)} ${value < threshold ? 'is below' : 'is not below'} ${rateText(threshold)} (${guard.fraction} of the expected ${guard.expectedIncidenceRate}) after ${entrants} entrants`;
        if (value >= threshold) return { state: 'ok', detail: text };
        const evidence: GuardEvidence = { ...base, value, threshold, unit: 'rate', source: figures.source, figures: { entrants, completes: figures.completes }, text };
        return { state: 'tripped', detail: text, evidence };
      }
      // Drop-off comes from performance only: session events carry no drop-offs (a dropped session never ends).
      if (perf?.dropOffRate === undefined) return { state: 'unjudged', detail: 'the performance reading has no drop-off rate' };
      const value = round10(perf.dropOffRate);
      const threshold = round10(guard.rate);
      const text = `drop-off ${rateText(value)} ${value > threshold ? 'is above' : 'is not above'} ${rateText(threshold)} after ${entrants} entrants`;
      if (value <= threshold) return { state: 'ok', detail: text };
      return { state: 'tripped', detail: text, evidence: { ...base, value, threshold, unit: 'rate', source: 'performance', figures: { entrants, completes: perf.completes }, text } };
    }
    case 'cost_per_complete_above':
    case 'spend_above': {
      if (ack) return { state: 'acknowledged', detail: 'resumed past it: quiet until a revision changes the guard' };
      const limit = guard.threshold;
      const cost = perf?.completesCost;
      if (!perf || !cost) return { state: 'unjudged', detail: 'no spend read yet' };
      if (cost.currency_code !== limit.currency_code) return { state: 'unjudged', detail: `the spend is in ${cost.currency_code}, the guard in ${limit.currency_code}` };
      const spent = toMicros(cost.value);
      const limitMicros = toMicros(limit.value);
      if (spent === undefined || limitMicros === undefined) return { state: 'unjudged', detail: `the spend ${moneyText(cost)} is not an amount` };
      const figuresOut = { entrants: figures.entrants, completes: perf.completes, spend: { ...cost } };
      if (guard.kind === 'spend_above') {
        const above = spent > limitMicros;
        const text = `spend ${moneyText(cost)} ${above ? 'is above' : 'is not above'} ${moneyText(limit)}`;
        if (!above) return { state: 'ok', detail: text };
        return { state: 'tripped', detail: text, evidence: { ...base, value: microsNumber(spent), threshold: microsNumber(limitMicros), unit: 'money', currency: limit.currency_code, source: 'performance', figures: figuresOut, text } };
      }
      if (perf.completes === 0) return { state: 'waiting', detail: 'no complete yet' };
      // completes_cost / completes > limit, compared exactly: completes_cost > limit × completes.
      const n = BigInt(perf.completes);
      const above = spent > limitMicros * n;
      const cpi = scaleMicros(spent, 1n, n);
      const text = `cost per complete ${microsText(cpi)} ${limit.currency_code} (${moneyText(cost)} / ${perf.completes} completes) ${above ? 'is above' : 'is not above'} ${moneyText(limit)}`;
      if (!above) return { state: 'ok', detail: text };
      return {
        state: 'tripped',
        detail: text,
        evidence: { ...base, value: Number(spent) / 1e6 / perf.completes, threshold: microsNumber(limitMicros), unit: 'money', currency: limit.currency_code, source: 'performance', figures: figuresOut, text },
      };
    }
    case 'quota_behind': {
      // Like a money guard after a resume: quiet until a revision changes it (a goal, the end date or the threshold).
      if (ack) return { state: 'acknowledged', detail: 'resumed past it: quiet until a revision changes the guard' };
      const quotas = reading.quotas;
      if (!quotas) return { state: 'unjudged', detail: 'the quotas were not read' };
      if (quotas.pace.completes < guard.minCompletes) return { state: 'waiting', detail: `${quotas.pace.completes} of ${guard.minCompletes} completes` };
      const forecasts = forecastQuotas(quotas.figures, quotas.pace);
      const behind = mostBehind(forecasts);
      // A quota still to fill that could not be forecast (no share or no pace yet) may be the one behind.
      const unknown = forecasts.filter((f) => f.basis === 'no_share' || f.basis === 'no_pace');
      const why = unknown.length ? `${unknown.length} quota${unknown.length === 1 ? '' : 's'} not forecast yet (${unknown[0].basis === 'no_pace' ? 'no pace' : 'no complete'})` : 'the target group has no quota';
      if (!behind || behind.shortfallFraction === undefined || !behind.completesByEnd) return { state: 'unjudged', detail: why };
      const value = behind.shortfallFraction;
      const threshold = round10(guard.shortfallAbove);
      const cell = `${behind.profile} / ${behind.quota}`;
      const text = `quota ${cell} is forecast at ${behind.completesByEnd.expected} of ${behind.goal} completes by ${quotas.pace.end}: short by ${percentText(value)}, ${value > threshold ? 'more than' : 'not more than'} ${percentText(threshold)}`;
      if (value <= threshold) return unknown.length ? { state: 'unjudged', detail: `${why}; ${text}` } : { state: 'ok', detail: text };
      return {
        state: 'tripped',
        detail: text,
        evidence: {
          ...base,
          value,
          threshold,
          unit: 'rate',
          source: 'quotas',
          figures: {
            completes: quotas.pace.completes,
            quota: { profile: behind.profile, quota: behind.quota, goal: behind.goal, completes: behind.completes, completesByEnd: behind.completesByEnd.expected, end: quotas.pace.end },
          },
          text,
        },
      };
    }
    case 'no_completes_for': {
      const fielding = reading.fielding;
      if (!fielding) return { state: 'unjudged', detail: 'the fielding run was not read' };
      if (fielding.status !== 'live') return { state: 'waiting', detail: `the run is ${fielding.status}` };
      // The last complete: the performance reading's, when it has seen every complete counted so far.
      const caughtUp = perf?.lastComplete !== undefined && perf.completes >= (memory.completes ?? 0);
      const since = later(caughtUp ? perf.lastComplete : memory.completesSeenAt, fielding.liveSince, ack?.at);
      if (since === undefined) return { state: 'unjudged', detail: 'no complete and no launch time to count from' };
      // By the workflow's clock: the reading's time against the last complete, the launch or the resume.
      const workflowMs = Date.parse(reading.at) - Date.parse(since);
      // By the exchange's clock, where it gives both times: its latest report against its last complete. Only when
      // that complete was counted since the run last went live (a silence that began at a resume is known to the
      // workflow's clock alone). The exchange's clock is the one a simulation moves; the longer silence counts, as
      // the exchange's latest report may be older than its now.
      const counted = later(fielding.liveSince, ack?.at);
      const sinceLive = counted === undefined || (memory.completesSeenAt !== undefined && Date.parse(memory.completesSeenAt) >= Date.parse(counted));
      const exchangeMs = caughtUp && reading.exchangeAt !== undefined && sinceLive && later(reading.exchangeAt) !== undefined ? Date.parse(reading.exchangeAt) - Date.parse(perf.lastComplete as string) : undefined;
      const byExchange = exchangeMs !== undefined && exchangeMs > Math.max(0, workflowMs);
      const silentMs = byExchange ? exchangeMs : workflowMs;
      const silentSince = byExchange ? (perf?.lastComplete as string) : since;
      const tripped = silentMs >= guard.durationMs;
      const clock = byExchange ? `, by the exchange's clock at ${reading.exchangeAt}` : '';
      const text = `no complete for ${spanText(Math.max(0, silentMs))} (since ${silentSince}${clock}); the guard allows ${guard.duration}`;
      if (!tripped) return { state: 'ok', detail: text };
      return {
        state: 'tripped',
        detail: text,
        evidence: {
          ...base,
          value: silentMs,
          threshold: guard.durationMs,
          unit: 'duration_ms',
          source: 'fielding',
          figures: { completes: figures.completes, lastComplete: perf?.lastComplete, silentSince, ...(byExchange ? { exchangeAt: reading.exchangeAt } : {}) },
          text,
        },
      };
    }
  }
}

/**
 * Judges every guard in force against a reading. `previous` is the memory of the last evaluation (absent at the
 * first): a guard that tripped stays tripped, with its evidence, until it is resumed ({@link acknowledgeGuards})
 * or a revision changes it; so each trip is reported once in `tripped`, and `pause` is set only by new trips.
 */
export function evaluateGuards(guards: readonly DesiredGuard[], reading: GuardReading, previous?: GuardMemory): GuardEvaluation {
  const figures = figuresOf(reading);
  const memory: GuardMemory = { guards: {} };
  // When the completes count was first seen at its level: the reading that showed it rise, or the first reading
  // that showed any. no_completes_for counts from it when the performance reading has no last_complete, or the
  // session events ran ahead of it (so a count first seen now is taken as new, never as days old).
  const before = previous?.completes;
  if (figures.completes !== undefined && figures.completes > 0) {
    memory.completes = Math.max(before ?? 0, figures.completes);
    const rose = before === undefined || figures.completes > before;
    const seenAt = rose ? reading.at : previous?.completesSeenAt;
    if (seenAt !== undefined) memory.completesSeenAt = seenAt;
  } else if (before !== undefined) {
    memory.completes = before;
    if (previous?.completesSeenAt !== undefined) memory.completesSeenAt = previous.completesSeenAt;
  }

  const tripped: GuardEvidence[] = [];
  const active: GuardEvidence[] = [];
  const outcomes: GuardOutcome[] = [];
  for (const guard of guards) {
    const definition = canonicalJson(guard);
    const held = previous?.guards[guard.name];
    // A guard the revision changed starts afresh: its trip and its resume are the old guard's.
    const kept = held && held.definition === definition ? held : undefined;
    const head = { guard: guard.name, kind: guard.kind, action: guard.action };
    if (kept?.tripped) {
      memory.guards[guard.name] = { definition, tripped: kept.tripped };
      active.push(kept.tripped);
      outcomes.push({ ...head, state: 'tripped', detail: `tripped at ${kept.tripped.at}: ${kept.tripped.text}`, evidence: kept.tripped });
      continue;
    }
    const judged = judge(guard, reading, figures, memory, kept?.acknowledged);
    outcomes.push({ ...head, ...judged });
    if (judged.state === 'tripped' && judged.evidence) {
      memory.guards[guard.name] = { definition, tripped: judged.evidence };
      tripped.push(judged.evidence);
      active.push(judged.evidence);
    } else {
      memory.guards[guard.name] = kept?.acknowledged ? { definition, acknowledged: kept.acknowledged } : { definition };
    }
  }
  return { tripped, active, outcomes, pause: tripped.some((e) => e.action === 'pause'), memory };
}

/**
 * A resume (`studyflow approve --resume`) of a target group its guards paused, at `at`: every tripped guard is
 * acknowledged. A rate guard judges again once another `min_entrants` have entered (counted from the entrants
 * of `reading`, else of its trip), `no_completes_for` counts its silence from `at`, and a money guard stays
 * quiet until a revision changes it (spend only grows).
 */
export function acknowledgeGuards(memory: GuardMemory, at: string, reading?: GuardReading): GuardMemory {
  const entrantsNow = reading ? figuresOf(reading).entrants : undefined;
  const guards: GuardMemory['guards'] = {};
  for (const [name, held] of Object.entries(memory.guards)) {
    if (!held.tripped) {
      guards[name] = { ...held };
      continue;
    }
    guards[name] = { definition: held.definition, acknowledged: { at, entrants: entrantsNow ?? held.tripped.figures.entrants ?? 0 } };
  }
  return { ...memory, guards };
}

/** The hold after an evaluation: the held trips still in force, with the pausing trips of this evaluation added. */
export function holdAfter(hold: GuardHold | undefined, guards: readonly DesiredGuard[], evaluation: Pick<GuardEvaluation, 'tripped' | 'memory'>): GuardHold | undefined {
  const held = holdingGuards(hold, guards);
  for (const trip of evaluation.tripped) {
    const definition = evaluation.memory.guards[trip.guard]?.definition;
    if (trip.action !== 'pause' || definition === undefined || held.some((h) => h.guard === trip.guard)) continue;
    held.push({ guard: trip.guard, kind: trip.kind, definition, at: trip.at, text: trip.text });
  }
  return held.length ? { guards: held } : undefined;
}

/** The held trips whose guard is still in force as it was: a revision that changed or dropped a guard re-armed it. */
export function holdingGuards(hold: GuardHold | undefined, guards: readonly DesiredGuard[] | undefined): GuardHold['guards'] {
  if (!hold) return [];
  const inForce = new Map((guards ?? []).map((g) => [g.name, canonicalJson(g)]));
  return hold.guards.filter((h) => inForce.get(h.guard) === h.definition);
}
