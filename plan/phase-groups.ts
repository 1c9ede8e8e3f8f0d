// Groups of a target group's phases (workflows/messages.ts TargetGroupPhase, docs/workflows.md's phase table) that
// the plan and the workflows both judge by: defined once here, the lowest layer every user imports. Pure.

/** Fielding: the run is live or paused. */
export const FIELDING_PHASES = ['live', 'paused'] as const;

/** Launched: the run went live (it may be paused or completed since); a workflow in one of these knows where it is. */
export const LAUNCHED_PHASES: ReadonlySet<string> = new Set(['live', 'paused', 'completed']);

/** The phases in which a target group is watched (live or paused; scheduled in the exchange: its state only). */
export const WATCHED_PHASES: ReadonlySet<string> = new Set(['live', 'paused', 'scheduled']);
