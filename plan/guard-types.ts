// The guards' vocabulary: a guard's rule as the study file declares it (DesiredGuard) and the hold its trips put
// on a target group (GuardHold). Types only, below both plan/types.ts (the desired target group carries its
// guards, the observed one its hold) and plan/guards.ts (which judges them), so neither imports the other.
import type { Money } from '../shared/money';

/** A guard's rule, in the planner's terms (docs/study-format.md, "Guard"); plan/guards.ts judges it. */
export type GuardRule =
  /** Trips when incidence < fraction × expectedIncidenceRate, judged once entrants >= minEntrants. */
  | { kind: 'incidence_below'; fraction: number; expectedIncidenceRate: number; minEntrants: number }
  /** Trips when completes_cost / completes > threshold. */
  | { kind: 'cost_per_complete_above'; threshold: Money }
  /** Trips when completes_cost > threshold. */
  | { kind: 'spend_above'; threshold: Money }
  /** Trips when a live run has had no complete for durationMs or longer. */
  | { kind: 'no_completes_for'; duration: string; durationMs: number }
  /** Trips when drop_off_rate > rate, judged once entrants >= minEntrants. */
  | { kind: 'drop_off_above'; rate: number; minEntrants: number }
  /**
   * Trips when a quota's completes, forecast at the target group's pace to its end date (plan/quotas.ts), fall short
   * of its goal by more than shortfallAbove (a share of the goal, 0–1), judged once the target group has minCompletes.
   */
  | { kind: 'quota_behind'; shortfallAbove: number; minCompletes: number };

export type GuardKind = GuardRule['kind'];

/** A guard in force on a target group: its name, its rule and what a trip does. */
export type DesiredGuard = GuardRule & {
  name: string;
  /** pause: pause the target group through the fielding path; notify: only send guard_tripped. */
  action: 'pause' | 'notify';
};

/**
 * The trips that hold a target group paused: each pausing guard that tripped, as it was (canonical JSON), so a
 * revision that changes it (or drops it) releases the hold. The target group's status carries it; the plan
 * reads it (plan/live-fielding.ts) so that `fielding: live` does not resume what a guard paused.
 */
export interface GuardHold {
  guards: { guard: string; kind: GuardKind; definition: string; at: string; text: string }[];
}
