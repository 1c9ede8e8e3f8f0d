import { WorkflowNotFoundError } from '@temporalio/client';
import { statusQuery } from '../../workflows/messages';
import { connectClient, temporalSettings } from '../../temporal/temporal-connection';
import type { CliContext } from '../main';
import { CliError } from '../output';
import { statusTable, temporalUiLink } from '../status-view';
import { resolveStudyRef } from '../study-ref';

export async function run(ctx: CliContext, studyArg: string, options: { account?: string; json?: boolean }): Promise<number> {
  const ref = await resolveStudyRef(studyArg, options, ctx.env);
  const settings = temporalSettings(ctx.env);
  const { client, connection } = await connectClient(settings, ctx.env);
  try {
    const status = await client.workflow.getHandle(ref.workflowId).query(statusQuery);
    if (options.json) {
      ctx.out.json({ workflowId: ref.workflowId, ...status });
    } else {
      ctx.out.data(`study ${status.studyId} (account ${status.accountId}): ${status.phase}, revision ${status.revision ?? '-'}${status.appliedRevision === status.revision ? ' (applied)' : ''}`);
      if (status.projectId) ctx.out.data(`project ${status.projectId}`);
      ctx.out.data(statusTable(ctx.out, status));
      if (status.error) ctx.out.data(`error: ${status.error}`);
      const ui = temporalUiLink(ctx.env, settings, ref.workflowId, ctx.cwd);
      if (ui) ctx.out.progress(ctx.out.dim(ui));
    }
    return status.phase === 'failed' ? 1 : 0;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new CliError(`no study workflow ${ref.workflowId}: apply the study first`);
    throw error;
  } finally {
    await connection.close();
  }
}
