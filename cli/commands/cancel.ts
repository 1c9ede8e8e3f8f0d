import { WorkflowNotFoundError } from '@temporalio/client';
import { connectClient, temporalSettings } from '../../temporal/temporal-connection';
import type { CliContext } from '../main';
import { CliError } from '../output';
import { resolveStudyRef } from '../study-ref';

export async function run(ctx: CliContext, studyArg: string, options: { account?: string; json?: boolean }): Promise<number> {
  const ref = await resolveStudyRef(studyArg, options, ctx.env);
  const { client, connection } = await connectClient(temporalSettings(ctx.env), ctx.env);
  try {
    const handle = client.workflow.getHandle(ref.workflowId);
    const description = await handle.describe();
    if (description.status.name !== 'RUNNING') {
      throw new CliError(`study workflow ${ref.workflowId} is not running (${description.status.name.toLowerCase()}); nothing to cancel`);
    }
    await handle.cancel();
    if (options.json) ctx.out.json({ workflowId: ref.workflowId, cancelled: true });
    else ctx.out.data(`cancellation requested for ${ref.workflowId}; target groups already in the API are left as they are`);
    return 0;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new CliError(`no running study workflow ${ref.workflowId}`);
    throw error;
  } finally {
    await connection.close();
  }
}
