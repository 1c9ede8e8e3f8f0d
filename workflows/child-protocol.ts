import { defineSignal } from '@temporalio/workflow';
import type { TargetGroupFigures } from '../activities';
import type { TargetGroupForecast } from '../plan/forecast';
import type { TargetGroupStep } from '../plan/program';
import type { ApiVersion, DesiredTargetGroup } from '../plan/types';
import type { CompletesPoint, ExpectedFigures, FieldingControlRequest, PerformanceSnapshot, ReportChange, TargetGroupStatus } from './messages';

export type { TargetGroupFigures } from '../activities';

// The parent <-> child protocol: the signals a study workflow and its target-group workflows send each other, and
// what they carry. Only workflows/ imports this module (eslint.config.js MAY_IMPORT); what the study client, the CLI
// or the webhook receiver sends or reads is the public contract, workflows/messages.ts. Each definition's export name
// is its registered name + Signal (test/workflows/message-names.test.ts). Registered names never change: running
// workflows and the committed replay histories (test/replay) depend on them.

/** Sent by a target-group child to its study after every phase change. */
export interface TargetGroupProgress {
  status: TargetGroupStatus;
  /** Writes this child made (for the "re-apply makes zero writes" promise). */
  writes: number;
}

/** Sent by a target-group child to its study after each performance read: small, only what is new. */
export interface TargetGroupReportUpdate {
  key: string;
  expected: ExpectedFigures;
  launchedAt?: string;
  point?: CompletesPoint;
  performance?: PerformanceSnapshot;
  performanceError?: string;
  /** Changes since the previous update. */
  changes: ReportChange[];
}

/** What a study sends a child when a new revision changes the target group. */
export interface TargetGroupRevision {
  revision: string;
  desired: DesiredTargetGroup;
  targetGroupId: string;
  projectId: string;
  /** The remaining steps of its program (plan/program.ts) that its workflow runs: those after its hand-over. */
  steps: TargetGroupStep[];
  /** The API version for this target group's calls: the study's, or a newer one the resource is pinned to. */
  apiVersion?: ApiVersion;
  /** What the study found and did toward the launch this revision (when the plan named the study or the draft batch). */
  launch?: LaunchHandOver;
  /** A staged launch: the completes the study knows of the target group it waits for (observed, or its watch's last reading). */
  upstreamCompletes?: number;
}

/** The study passes a waiting target group the completes of the target group it waits for (from that one's watch). */
export interface UpstreamCompletes {
  targetGroup: string;
  completes: number;
}

/** A launch gate as read and judged: the figures, and why it holds (empty: it passes). */
export interface GateReading {
  feasibility: NonNullable<TargetGroupStatus['feasibility']>;
  price?: { value: string; currency_code: string };
  /** The forecast before launch from the same feasibility answer (plan/forecast.ts forecastFromFeasibility). */
  forecast?: TargetGroupForecast;
  held: string[];
}

/** What the study hands a target group's workflow of the launch path it ran for it. */
export interface LaunchHandOver {
  /** The gate read this revision: the workflow does not read it again. */
  gate?: GateReading;
  /** A launch job the study started that had not ended: the workflow polls it on. */
  jobId?: string;
  /** The study saw it live. */
  live?: { fieldingRunId?: string; launchedAt: string };
}

// Signals between a study and its target-group children.
export const targetGroupProgressSignal = defineSignal<[TargetGroupProgress]>('targetGroupProgress');
export const targetGroupRevisionSignal = defineSignal<[TargetGroupRevision]>('targetGroupRevision');
export const targetGroupApproveSignal = defineSignal<[]>('targetGroupApprove');
/** A fielding control without an answer: the study's budget hold, and the study's `fieldingControl` update of older clients. */
export const targetGroupControlSignal = defineSignal<[FieldingControlRequest['action']]>('targetGroupControl');
/** The study passes on `studyflow approve --resume` to a target group a guard holds paused. */
export const targetGroupGuardResumeSignal = defineSignal<[{ by: string }]>('targetGroupGuardResume');
/** `studyflow approve --promote | --abort`, passed on by the study: decides a soft launch that waits. */
export const targetGroupSoftLaunchSignal = defineSignal<[{ decision: 'promote' | 'abort'; by: string }]>('targetGroupSoftLaunch');
export const targetGroupReportSignal = defineSignal<[TargetGroupReportUpdate]>('targetGroupReport');
export const upstreamCompletesSignal = defineSignal<[UpstreamCompletes]>('upstreamCompletes');
/**
 * The study's watch read the target group's figures in the project's list (get_list_target_groups) and they
 * changed since its last read: the target group's workflow wakes, reads its performance and checks its state.
 */
export const targetGroupFiguresSignal = defineSignal<[TargetGroupFigures]>('targetGroupFigures');
