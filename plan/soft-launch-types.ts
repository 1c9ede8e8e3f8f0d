// The soft launch's vocabulary: a target group's soft launch as the study file declares it, resolved for the
// planner (DesiredSoftLaunch). Types only, below both plan/types.ts (the desired target group and the plan's launch
// action carry it) and plan/soft-launch.ts (which judges it), so neither imports the other.

/** What a soft launch's outcome does: promote it to the full filling goal, or pause the target group. */
export type SoftLaunchOutcomeAction = 'promote' | 'pause';

/** A soft launch in the planner's terms (docs/study-format.md, "Soft launch"); plan/soft-launch.ts judges it. */
export interface DesiredSoftLaunch {
  /** Completes of the soft launch: the file's number, or its percentage of the filling goal rounded up. */
  completes: number;
  /** The completes as the file writes them (`5%` or `50`), for people. */
  completesWritten: number | string;
  /** The target group's filling goal the soft launch is a share of. */
  fillingGoal: number;
  /** The longest it runs from the launch, as written (`PT48H`) and in milliseconds. */
  maxDuration: string;
  maxDurationMs: number;
  /** The fielding assistant's demographics_strictness_percentage, 0 to 100. */
  demographicsStrictnessPercentage: number;
  analysis: {
    /** At its end with fewer completes than this, the soft launch is inconclusive (never a failure). */
    minCompletes: number;
    /** Incidence rate thresholds: multiples of `expected` (the target group's expected_incidence_rate). */
    incidence?: { expected: number; failBelow?: number; passAbove?: number };
    /** Median length of interview thresholds: multiples of `expectedMinutes` (expected_length_of_interview_minutes). */
    lengthOfInterview?: { expectedMinutes: number; failAbove?: number; failBelow?: number };
    /** Drop-off rate thresholds, 0 to 1. */
    dropOff?: { failAbove?: number; passBelow?: number };
  };
  on: { pass: SoftLaunchOutcomeAction; fail: 'pause'; inconclusive: SoftLaunchOutcomeAction };
  /** true: judge and notify, never promote or pause. */
  analysisOnly: boolean;
}

/**
 * Where a target group's soft launch stands (its workflow's `status.softLaunch`):
 * - `starting`: it went live with a soft launch; the module is not assigned yet;
 * - `running`: the module is assigned; the watch judges each reading until its completes or time are reached;
 * - `awaiting_decision`: judged inconclusive and paused: waits for `studyflow approve --promote` or `--abort`;
 * - `paused`: judged a failure and paused with its evidence (`approve --promote` or `--abort` decide it too);
 * - `promoted`: the module removed, fielding goes on to the full goal;
 * - `aborted`: an operator stopped it: the module removed, the target group held paused (a promote still promotes it);
 * - `analysed`: judged with `analysis_only`: nothing done besides telling.
 */
export type SoftLaunchState = 'starting' | 'running' | 'awaiting_decision' | 'paused' | 'promoted' | 'aborted' | 'analysed';
