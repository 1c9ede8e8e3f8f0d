import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, isCancellation, TemporalFailure } from '@temporalio/workflow';
import type { UnappliedChange } from '../plan/types';
import { IllegalTransition } from './phases';

/** The innermost application failure of an error, as {type, message}: what a status shows a user. */
export function failureOf(error: unknown): { type: string; message: string } {
  let current: unknown = error;
  while (current instanceof ActivityFailure || current instanceof ChildWorkflowFailure) {
    current = current.cause;
  }
  if (current instanceof ApplicationFailure) return { type: current.type ?? 'application_error', message: current.message };
  if (current instanceof TemporalFailure) return { type: current.name, message: current.message };
  if (current instanceof Error) return { type: current.name, message: current.message };
  return { type: 'unknown', message: String(current) };
}

/**
 * What no step may swallow, rethrown: Temporal's cancellation (the workflow or its scope is cancelled) and an
 * IllegalTransition (a bug: the workflow task fails and waits for fixed code, workflows/phases.ts). Every catch
 * in workflows/ that records or drops an error calls it first.
 */
export function rethrowPassThrough(error: unknown): void {
  if (isCancellation(error) || error instanceof IllegalTransition) throw error;
}

/**
 * A change a step did not make: the fields it would have changed, why (`gate_refused`, `operation_failed`, …) and
 * the detail the status shows. The one result a step gives for what stays unapplied; the target group's state
 * records it (TargetGroupState.recordUnapplied), one UnappliedChange per field.
 */
export interface Unapplied {
  fields: readonly string[];
  reason: UnappliedChange['reason'];
  detail: string;
}
