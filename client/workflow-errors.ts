// The mapping of a failed call to a study workflow (part of the client's one error mapping, errors.ts).
import { QueryNotRegisteredError, WorkflowNotFoundError } from '@temporalio/client';
import { StudyClientError } from './errors';

/** What was asked of a study workflow: its status or report query, an update, or its cancellation. */
export type WorkflowCall = 'status' | 'report' | 'update' | 'cancel';

/**
 * A failed call to a study workflow as the named error the user sees: no such workflow (apply first), a
 * worker too old for the report query, or the update's own refusal (its cause's message). Anything else is
 * returned unchanged, for describeError.
 */
export function workflowCallError(error: unknown, workflowId: string, call: WorkflowCall): unknown {
  if (error instanceof StudyClientError) return error;
  if (error instanceof WorkflowNotFoundError) {
    return new StudyClientError(call === 'cancel' ? `no running study workflow ${workflowId}` : `no study workflow ${workflowId}: apply the study first`);
  }
  if (call === 'report' && error instanceof QueryNotRegisteredError) {
    return new StudyClientError(`the workflow ${workflowId} does not answer the report query: its worker runs an older studyflow (upgrade the worker)`);
  }
  if (call === 'update') {
    const cause = (error as { cause?: { message?: string } })?.cause?.message;
    if (cause) return new StudyClientError(cause);
  }
  return error;
}

/** Runs a call to a study workflow and maps its failure (workflowCallError). */
export async function callingWorkflow<T>(workflowId: string, call: WorkflowCall, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw workflowCallError(error, workflowId, call);
  }
}

