// `studyflow fielding` in the study client: a fielding control sent to the target group's workflow as an Update
// (targetGroupFieldingControlUpdate), which answers once its watch applied the control or refused it (a guard's hold, no
// fielding run, the exchange's refusal), so the command says what happened, not that something was asked. The wait
// is bounded: a workflow busy with a revision applies its controls after it.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  fieldingControlUpdate,
  statusQuery,
  targetGroupFieldingControlUpdate,
  targetGroupWorkflowId,
  type FieldingControlAnswer,
  type FieldingControlRequest,
} from '../workflows/messages';
import { StudyClientError } from './errors';
import { isRpcTimeout } from './study-runs';
import type { StudyRef } from './study-ref';
import { callingWorkflow } from './workflow-errors';

/** How long `fielding` waits for the target group's answer. */
export const CONTROL_ANSWER_TIMEOUT_MS = 60_000;

/**
 * What became of a fielding control: the workflow's answer (`applied`, `refused` with why), or `requested` when the
 * target group's workflow runs an older studyflow without the update (the control went through the study's signal,
 * and only `studyflow status` tells what became of it).
 */
export type FieldingResult = Omit<FieldingControlAnswer, 'outcome' | 'phase'> & { outcome: FieldingControlAnswer['outcome'] | 'requested'; phase?: FieldingControlAnswer['phase'] };

/** The message of a refused update (its cause: the validator's or the SDK's), else undefined. */
function updateRefusal(error: unknown): string | undefined {
  return (error as { cause?: { message?: string } })?.cause?.message;
}

/** Sends `action` to the target group's workflow and waits (bounded) for its answer. */
export async function controlFielding(client: Client, ref: StudyRef, targetGroup: string, action: FieldingControlRequest['action'], timeoutMs = CONTROL_ANSWER_TIMEOUT_MS): Promise<FieldingResult> {
  const workflowId = targetGroupWorkflowId(ref.accountId, ref.studyId, targetGroup);
  try {
    return await client.withDeadline(Date.now() + timeoutMs, () => client.workflow.getHandle(workflowId).executeUpdate(targetGroupFieldingControlUpdate, { args: [action] }));
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw await notRunning(client, ref, targetGroup);
    if (isRpcTimeout(error)) {
      throw new StudyClientError(
        `${action} sent to ${targetGroup}, but its workflow did not answer within ${Math.round(timeoutMs / 1000)} s (it applies a control once the revision it runs settles); \`studyflow status\` shows what became of it`,
      );
    }
    const refusal = updateRefusal(error);
    if (refusal?.startsWith('No registered handler for update')) return await requestedThroughStudy(client, ref, targetGroup, action);
    if (refusal) throw new StudyClientError(refusal);
    throw error;
  }
}

/** A target group whose workflow does not run: no study, no such target group, or one whose workflow ended. */
async function notRunning(client: Client, ref: StudyRef, targetGroup: string): Promise<StudyClientError> {
  const status = await callingWorkflow(ref.workflowId, 'status', () => client.workflow.getHandle(ref.workflowId).query(statusQuery));
  const tg = status.targetGroups[targetGroup];
  if (!tg) return new StudyClientError(`no target group "${targetGroup}" in study ${ref.studyId}`);
  return new StudyClientError(`target group "${targetGroup}" has no running workflow (it is ${tg.phase})`);
}

/** An older worker's target group: the control goes through the study (its signal), unanswered, as before. */
async function requestedThroughStudy(client: Client, ref: StudyRef, targetGroup: string, action: FieldingControlRequest['action']): Promise<FieldingResult> {
  const said = await callingWorkflow(ref.workflowId, 'update', () => client.workflow.getHandle(ref.workflowId).executeUpdate(fieldingControlUpdate, { args: [{ targetGroup, action }] }));
  return { targetGroup, action, outcome: 'requested', message: `${said} (its workflow runs an older studyflow that does not answer: \`studyflow status\` shows whether it was applied)` };
}
