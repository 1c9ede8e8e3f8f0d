import { withStudyClient } from '../../client';
import { closeoutLines } from '../closeout-view';
import { forecastLines, quotaLines } from '../forecast-view';
import type { CliContext } from '../main';
import { budgetLine, guardLines, softLaunchLines, statusTable, studyPhaseText, temporalUiLink, unappliedLines } from '../status-view';

/** `studyflow status <study>`: where the study stands (its workflow's status query). */
export async function run(ctx: CliContext, studyArg: string, options: { account?: string; json?: boolean }): Promise<number> {
  return await withStudyClient(ctx.env, ctx.cwd, async (client) => {
    const ref = await client.study(studyArg, options);
    const status = await client.status(ref);
    if (options.json) {
      ctx.out.json({ workflowId: ref.workflowId, ...status });
    } else {
      ctx.out.data(`study ${status.studyId} (account ${status.accountId}): ${studyPhaseText(status)}, revision ${status.revision ?? '-'}${status.appliedRevision === status.revision ? ' (applied)' : ''}`);
      if (status.projectId) ctx.out.data(`project ${status.projectId}`);
      ctx.out.data(statusTable(ctx.out, status));
      for (const line of unappliedLines(ctx.out, status)) ctx.out.data(line);
      for (const line of guardLines(ctx.out, status)) ctx.out.data(line);
      for (const line of softLaunchLines(ctx.out, status)) ctx.out.data(line);
      const budget = budgetLine(ctx.out, status);
      if (budget) ctx.out.data(budget);
      for (const line of closeoutLines(status)) ctx.out.data(line);
      for (const line of forecastLines(Object.values(status.targetGroups), status.forecast)) ctx.out.data(line);
      for (const line of quotaLines(ctx.out, Object.values(status.targetGroups))) ctx.out.data(line);
      if (status.error) ctx.out.data(`error: ${status.error}`);
      const ui = temporalUiLink(ctx.env, client.temporalServer, ref.workflowId, ctx.cwd);
      if (ui) ctx.out.progress(ctx.out.dim(ui));
    }
    return status.phase === 'failed' ? 1 : 0;
  });
}
