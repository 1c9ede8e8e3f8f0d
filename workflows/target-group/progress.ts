import { condition, getExternalWorkflowHandle, isCancellation, log, upsertSearchAttributes } from '@temporalio/workflow';
import type { TargetGroupPhase } from '../messages';
import { targetGroupProgressSignal } from '../child-protocol';
import { PHASE } from '../search-attributes';
import { PASSING_PHASES } from '../phases';
import { ConsoleAttributes } from './console';
import type { TargetGroupState } from './state';

/** The summary of the timer that paces progress (the Temporal UI shows it; the benchmarks tell it apart by it). */
export const PROGRESS_PACING_SUMMARY = 'progress pacing';
/** The least time between two progress signals that carry a passing phase. */
export const PROGRESS_INTERVAL_MS = 1_000;

/**
 * Sends the study the latest status whenever it changed, one signal at a time (so phases that follow
 * each other faster than the study takes them go as one, the last), and never makes the target group
 * wait for its study. A passing phase goes at most once per PROGRESS_INTERVAL_MS (a timer, cut short
 * when the target group settles first); a phase it settles in goes at once.
 */
export class ProgressSender {
  private sent = 0;
  private sending = false;
  private phaseAttribute?: TargetGroupPhase;
  private lastSentAt: number;

  constructor(
    private readonly state: TargetGroupState,
    startedAt: number,
  ) {
    this.lastSentAt = startedAt;
  }

  /** Runs for the life of the workflow run, and the operator's console beside it (./console.ts). */
  async run(): Promise<void> {
    void new ConsoleAttributes(this.state).run();
    const parent = getExternalWorkflowHandle(this.state.input.studyWorkflowId);
    const status = this.state.status;
    for (;;) {
      try {
        await condition(() => this.state.version > this.sent);
        const waitMs = this.lastSentAt + PROGRESS_INTERVAL_MS - Date.now();
        if (PASSING_PHASES.has(status.phase) && waitMs > 0) await condition(() => !PASSING_PHASES.has(status.phase), waitMs, { summary: PROGRESS_PACING_SUMMARY });
      } catch (error) {
        if (isCancellation(error)) return; // the main path handles cancellation
        throw error;
      }
      this.sent = this.state.version;
      this.lastSentAt = Date.now();
      if (status.phase !== this.phaseAttribute) {
        upsertSearchAttributes([{ key: PHASE, value: status.phase }]);
        this.phaseAttribute = status.phase;
      }
      this.sending = true;
      try {
        await parent.signal(targetGroupProgressSignal, { status: { ...status }, writes: this.state.writes });
      } catch (error) {
        if (isCancellation(error)) return;
        log.warn('the study did not take a progress update', { key: status.key, phase: status.phase });
      } finally {
        this.sending = false;
      }
    }
  }

  /** Resolves once the study has been sent the latest status (before this run ends or continues as new). */
  delivered(): Promise<void> {
    return condition(() => this.sent === this.state.version && !this.sending);
  }
}
