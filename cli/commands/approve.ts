import { WorkflowNotFoundError } from '@temporalio/client';
import { approveUpdate } from '../../workflows/messages';
import { connectClient, temporalSettings } from '../../temporal/temporal-connection';
import type { CliContext } from '../main';
import { CliError } from '../output';
import { resolveStudyRef } from '../study-ref';

export async function run(
  ctx: CliContext,
  studyArg: string,
  options: { account?: string; targetGroup?: string; json?: boolean },
): Promise<number> {
  const ref = await resolveStudyRef(studyArg, options, ctx.env);
  const { client, connection } = await connectClient(temporalSettings(ctx.env), ctx.env);
  try {
    const approved = await client.workflow
      .getHandle(ref.workflowId)
      .executeUpdate(approveUpdate, { args: [{ targetGroup: options.targetGroup }] });
    if (options.json) ctx.out.json({ workflowId: ref.workflowId, approved });
    else ctx.out.data(approved.length ? `approved: ${approved.join(', ')}` : 'no target group was waiting for approval');
    return 0;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new CliError(`no study workflow ${ref.workflowId}: apply the study first`);
    const message = (error as { cause?: { message?: string } })?.cause?.message;
    if (message) throw new CliError(message);
    throw error;
  } finally {
    await connection.close();
  }
}
