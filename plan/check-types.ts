// The plan's server-side checks as results: what each check is called, its outcome and the checks of one target
// group. Types only, below plan/server-checks.ts (which judges the API's answers) and plan/forecast.ts (whose
// forecast is one of the checks and reads the others), so neither imports the other.

export type ServerCheckName = 'profiles' | 'feasibility' | 'price' | 'supplier_distribution' | 'calendar' | 'forecast';

/**
 * - `pass`: the API agrees with the study file.
 * - `warning`: worth a look, but no launch rule fails.
 * - `blocking`: a launch rule of the study file fails (or the API would refuse the profiles): the gate will hold.
 * - `unavailable`: the API call failed; `summary` says why.
 * - `skipped`: nothing to ask (no profiles, no quotas to distribute, already launched).
 */
export type ServerCheckOutcome = 'pass' | 'warning' | 'blocking' | 'unavailable' | 'skipped';

export interface ServerCheck {
  name: ServerCheckName;
  outcome: ServerCheckOutcome;
  /** One line: what the API said, or why it could not be asked. */
  summary: string;
  /** Why the check blocks the launch (outcome `blocking` only). */
  reason?: string;
  /** Further lines: targets with question texts, supplier shares, the suggested window. */
  details?: string[];
  /** The figures behind the summary, for machines. */
  data?: Record<string, unknown>;
}

export interface TargetGroupChecks {
  key: string;
  /** True when some check is `blocking`. */
  blocking: boolean;
  checks: ServerCheck[];
}
