import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, TemporalFailure } from '@temporalio/workflow';

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
