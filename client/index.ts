// The study client: the one entry point of the application layer (the CLI, bench/ and scripts/ use it).
export { StudyClient, withStudyClient, checkScope, fieldingAction, FIELDING_ACTIONS, type FieldingAction, type SubmitStudy } from './study-client';
export { applyStudies, type AppliedStudies } from './apply-studies';
export type { DoctorCheck } from './doctor';
export { StudyClientError, UnknownTargetGroupError, describeError } from './errors';
export type { FieldingResult } from './fielding-control';
export { APPLY_EXIT, applyExitCode, notLiveOf, unappliedOf, type FollowEvent, type FollowOutcome, type Followed, type Submitted } from './follow';
export { gateBlockedOf, softLaunchStatusText } from './study-outcome';
export type { PlannedStudy, StudiesPlan } from './plan-studies';
export type { PreparedStudy } from './prepare-studies';
export type { StudyRef } from './study-ref';
export { mark, startTimeline, timelineLine } from './timeline';
export * from './report-model';
