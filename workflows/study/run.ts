import type { StudyProgram, TargetGroupStep } from '../../plan/program';
import type { DesiredStudy, ObservedStudy } from '../../plan/types';
import type { Api } from '../activity-proxies';
import type { GateRead } from '../launch';
import type { ApplyRequest, UnappliedChange } from '../messages';
import type { LaunchHandOver } from '../child-protocol';
import type { DraftsWritten } from './drafts';
import type { StudyState } from './state';

/**
 * One revision being applied: its program and what its steps found for the next ones (the gates read,
 * the drafts written, what each target group's workflow takes over). The study's step handlers
 * (workflows/study/handlers.ts) work over it.
 */
export class ApplyRun {
  gates: Record<string, GateRead> = {};
  drafts: DraftsWritten = { failed: new Set(), launches: {} };
  /** What the study found and did toward each target group's launch, handed to its workflow. */
  readonly handOver: Record<string, LaunchHandOver> = {};
  /** Target groups their draft batch took live: their workflow starts once the revision settled, to watch. */
  readonly watchOnly = new Set<string>();
  /** Changes the study's own steps could not make (a removed target group not completed). */
  readonly unapplied: UnappliedChange[] = [];
  /** The request of the revision (its close-out approval, workflows/study/closeout.ts). */
  request?: ApplyRequest;

  constructor(
    readonly state: StudyState,
    readonly api: Api,
    readonly desired: DesiredStudy,
    readonly observed: ObservedStudy,
    readonly program: StudyProgram,
  ) {
    state.status.program = { revision: desired.revision, ran: {} };
  }

  /** The program's steps of a target group. */
  stepsOf(key: string): TargetGroupStep[] {
    return this.program.targetGroups.find((t) => t.key === key)?.steps ?? [];
  }

  /** The program's first step of `kind` for a target group that matches `where` (the step its handler carries out). */
  stepOf<K extends TargetGroupStep['kind']>(key: string, kind: K, where: (step: Extract<TargetGroupStep, { kind: K }>) => boolean = () => true): Extract<TargetGroupStep, { kind: K }> | undefined {
    return this.stepsOf(key).find((s): s is Extract<TargetGroupStep, { kind: K }> => s.kind === kind && where(s as Extract<TargetGroupStep, { kind: K }>));
  }

  /** Records that the study ran `step` of a target group (the status shows it; `studyflow plan` printed it). */
  ran(key: string, step: TargetGroupStep): void {
    const ran = (this.state.status.program ??= { revision: this.desired.revision, ran: {} }).ran;
    (ran[key] ??= []).push(step);
  }
}
