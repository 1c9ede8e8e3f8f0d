import { WorkflowNotFoundError } from '@temporalio/client';
import { fieldingControlUpdate } from '../../workflows/messages';
import { connectClient, temporalSettings } from '../../temporal/temporal-connection';
import type { CliContext } from '../main';
import { CliError } from '../output';
import { resolveStudyRef } from '../study-ref';

const ACTIONS = ['pause', 'resume', 'complete'] as const;

/** `studyflow fielding <pause|resume|complete> <study> --target-group KEY`: steers a live target group (If-Match with its ETag). */
export async function run(
  ctx: CliContext,
  action: string,
  studyArg: string,
  options: { account?: string; targetGroup: string; json?: boolean },
): Promise<number> {
  if (!(ACTIONS as readonly string[]).includes(action)) throw new CliError(`fielding action must be one of ${ACTIONS.join(', ')}, got "${action}"`, 2);
  const ref = await resolveStudyRef(studyArg, options, ctx.env);
  const { client, connection } = await connectClient(temporalSettings(ctx.env), ctx.env);
  try {
    const message = await client.workflow
      .getHandle(ref.workflowId)
      .executeUpdate(fieldingControlUpdate, { args: [{ targetGroup: options.targetGroup, action: action as (typeof ACTIONS)[number] }] });
    if (options.json) ctx.out.json({ workflowId: ref.workflowId, targetGroup: options.targetGroup, action, message });
    else ctx.out.data(message);
    return 0;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new CliError(`no study workflow ${ref.workflowId}: apply the study first`);
    const cause = (error as { cause?: { message?: string } })?.cause?.message;
    if (cause) throw new CliError(cause);
    throw error;
  } finally {
    await connection.close();
  }
}
